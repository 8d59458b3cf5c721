package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"agent/internal/atomicfile"
	"agent/internal/gitignore"
)

// newFileMode is the mode of a file a tool creates.
const newFileMode fs.FileMode = 0o644

// existing is the state of a file before a write tool changes it.
type existing struct {
	found bool
	data  []byte
	mode  fs.FileMode
	crlf  bool
}

// loadExisting reads, beneath root, the file a write tool is about to
// replace. A missing file is not an error; a directory or a special file is
// (and is not opened).
func loadExisting(root *os.Root, rel string) (existing, error) {
	data, fi, err := readRegular(root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return existing{mode: newFileMode}, nil
	}
	if err != nil {
		return existing{}, err
	}
	mode := fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	return existing{found: true, data: data, mode: mode, crlf: usesCRLF(data)}, nil
}

// usesCRLF reports whether most line endings of data are CRLF.
func usesCRLF(data []byte) bool {
	crlf := bytes.Count(data, []byte("\r\n"))
	return crlf > 0 && crlf >= bytes.Count(data, []byte("\n"))-crlf
}

// toCRLF turns every line ending of s into CRLF (existing CRLFs stay single).
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// diffMaxLines bounds the diff shown after a write.
const diffMaxLines = 40

// diffSummary renders a short unified-style diff of a change: a stat line and
// the changed lines with two lines of context, capped at diffMaxLines.
func diffSummary(before, after string) string {
	before = strings.ReplaceAll(before, "\r\n", "\n")
	after = strings.ReplaceAll(after, "\r\n", "\n")
	dmp := diffmatchpatch.New()
	a, b, lineArray := dmp.DiffLinesToRunes(before, after)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), lineArray)

	type dline struct {
		op       diffmatchpatch.Operation
		text     string
		old, new int // 1-based line numbers in before and after
	}
	var lines []dline
	oldNo, newNo, added, removed := 1, 1, 0, 0
	for _, d := range diffs {
		if d.Text == "" {
			continue
		}
		for _, l := range splitLines(d.Text) {
			lines = append(lines, dline{op: d.Type, text: l, old: oldNo, new: newNo})
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				oldNo++
				newNo++
			case diffmatchpatch.DiffDelete:
				oldNo++
				removed++
			case diffmatchpatch.DiffInsert:
				newNo++
				added++
			}
		}
	}
	var b2 strings.Builder
	fmt.Fprintf(&b2, "+%d -%d lines\n", added, removed)
	const context = 2
	show := make([]bool, len(lines))
	for i, l := range lines {
		if l.op == diffmatchpatch.DiffEqual {
			continue
		}
		for j := max(0, i-context); j <= min(len(lines)-1, i+context); j++ {
			show[j] = true
		}
	}
	written := 0
	for i, l := range lines {
		if !show[i] {
			continue
		}
		if written == diffMaxLines {
			rest := 0
			for j := i; j < len(lines); j++ {
				if show[j] {
					rest++
				}
			}
			fmt.Fprintf(&b2, "[... %d more diff lines]\n", rest)
			break
		}
		if i == 0 || !show[i-1] {
			// a unified hunk header: where the hunk starts and how many
			// lines it spans on each side
			nOld, nNew := 0, 0
			for j := i; j < len(lines) && show[j]; j++ {
				if lines[j].op != diffmatchpatch.DiffInsert {
					nOld++
				}
				if lines[j].op != diffmatchpatch.DiffDelete {
					nNew++
				}
			}
			fmt.Fprintf(&b2, "@@ -%s +%s @@\n", hunkRange(l.old, nOld), hunkRange(l.new, nNew))
			written++
		}
		prefix := " "
		switch l.op {
		case diffmatchpatch.DiffDelete:
			prefix = "-"
		case diffmatchpatch.DiffInsert:
			prefix = "+"
		}
		text := l.text
		if len(text) > grepMaxLineLen {
			text = strings.ToValidUTF8(text[:grepMaxLineLen], "") + " …"
		}
		b2.WriteString(prefix + text + "\n")
		written++
	}
	return b2.String()
}

// hunkRange is one side of a unified hunk header: "start,count", or
// "start" for one line; an empty side names the line before it.
func hunkRange(start, n int) string {
	switch n {
	case 1:
		return fmt.Sprint(start)
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits s into lines without their "\n".
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return []string{""}
	}
	return strings.Split(s, "\n")
}

// countLines counts the lines of s (a last line without "\n" counts).
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// RemoveStaleTemps deletes the temporary files an atomic write of rel left
// behind when its process was killed between creating and renaming them
// (internal/atomicfile's names, which checkpoint restores use too). Resume
// calls it before redoing an interrupted write. It lists and removes beneath
// the workspace root.
func RemoveStaleTemps(workspace, rel string) error {
	_, crel, err := ResolveWrite(workspace, rel)
	if err != nil {
		return err
	}
	ws, err := workspaceRoot(workspace)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return fmt.Errorf("open the workspace: %w", err)
	}
	defer root.Close()
	dir, base := path.Dir(crel), path.Base(crel)
	d, err := gitignore.OpenDir(root, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return confined(workspace, rel, err)
	}
	defer d.Close()
	entries, err := d.Entries()
	if err != nil {
		return err
	}
	pattern := atomicfile.TempPattern(base)
	for _, e := range entries {
		if ok, _ := filepath.Match(pattern, e.Name()); !ok || e.IsDir() {
			continue
		}
		if err := root.Remove(path.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove stale temporary file: %w", confined(workspace, rel, err))
		}
	}
	return nil
}

// startWrite does what both file tools do before they decide the content:
// check the environment and the path, refuse placeholders, confine the path
// and read what is there now.
func startWrite(ctx context.Context, env *Env, tool, path, content string) (*writePlan, error) {
	if err := checkEnv(tool, env); err != nil {
		return nil, err
	}
	if path == "" {
		return nil, &ArgError{Tool: tool, Field: "path", Problem: `missing required field "path"`}
	}
	if err := refusePlaceholder(tool, content); err != nil {
		return nil, err
	}
	root, err := env.openRoot()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	abs, rel, err := ResolveWrite(env.Workspace, path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	if env.Kept != nil && env.Kept(rel) {
		return nil, fmt.Errorf("%s: %w", tool, &PathError{Path: path, Resolved: abs, Workspace: env.Workspace, Reason: ReasonKept})
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	old, err := loadExisting(root, rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, confined(env.Workspace, path, err))
	}
	return &writePlan{root: root, workspace: env.Workspace, path: path, rel: rel, old: old}, nil
}

// writePlan is what a file tool would write: computed first, so that an
// approval prompt can show the change before anything is written.
type writePlan struct {
	root      *os.Root
	workspace string
	path      string // as the model gave it
	rel       string // canonical, relative to the workspace
	old       existing
	content   string
	count     int // edit_file: occurrences replaced
}

// write puts the planned content in place beneath the workspace root.
func (p *writePlan) write() error {
	if err := writeIn(p.root, p.rel, []byte(p.content), p.old.mode); err != nil {
		return confined(p.workspace, p.path, err)
	}
	return nil
}

func (p *writePlan) preview() string {
	if !p.old.found {
		return fmt.Sprintf("new file %s (%d lines)\n%s", p.rel, countLines(p.content), Truncate(p.content, 4000))
	}
	return p.rel + ": " + diffSummary(string(p.old.data), p.content)
}

// Previewer is implemented by tools that can show their change before it is
// made (write_file, edit_file).
type Previewer interface {
	Preview(ctx context.Context, env *Env, args json.RawMessage) (string, error)
}
