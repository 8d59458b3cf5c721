package histgen

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"agent/internal/tools"
)

// Tool outputs as internal/tools renders them: the same formats, limits
// and notes, computed over the generated workspace instead of a disk.

// readOutput is read_file's answer for lines [offset, offset+limit) of
// lines (offset 1-based; limit 0 means the tool's default of 2000): lines
// numbered like cat -n, stopping when the output would pass the tool's
// budget, with the note that tells where to read on.
func readOutput(lines []string, offset, limit int) string {
	if offset <= 0 {
		offset = 1
	}
	if limit <= 0 {
		limit = 2000
	}
	budget := tools.MaxOutput - 200
	var b strings.Builder
	last := 0
	for n := offset; n < offset+limit && n <= len(lines); n++ {
		entry := fmt.Sprintf("%6d\t%s\n", n, lines[n-1])
		if b.Len()+len(entry) > budget && last > 0 {
			break
		}
		b.WriteString(entry)
		last = n
	}
	if last < len(lines) {
		fmt.Fprintf(&b, "[lines %d-%d of %d shown; read on with offset=%d]\n", offset, last, len(lines), last+1)
	}
	return b.String()
}

// commandOutput is run_command's answer: the output cut in the middle to
// the tool's limit, then the exit code.
func commandOutput(text string, code int) string {
	text = tools.Truncate(text, tools.MaxOutput-200)
	if text == "" {
		text = "(no output)"
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + fmt.Sprintf("exit code: %d", code)
}

// diffSummary imitates the tools' diff after a write for one replaced
// block: old lines [at, at+removed) became added new lines (at 0-based).
func diffSummary(before []string, at, removed int, repl []string) string {
	// lines the block keeps at its start and end are context, as in a
	// line diff
	for removed > 0 && len(repl) > 0 && before[at] == repl[0] {
		at, removed, repl = at+1, removed-1, repl[1:]
	}
	for removed > 0 && len(repl) > 0 && before[at+removed-1] == repl[len(repl)-1] {
		removed, repl = removed-1, repl[:len(repl)-1]
	}
	const ctx = 2
	var b strings.Builder
	fmt.Fprintf(&b, "+%d -%d lines\n", len(repl), removed)
	lo := max(0, at-ctx)
	hi := min(len(before), at+removed+ctx)
	nOld := hi - lo
	nNew := nOld - removed + len(repl)
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", lo+1, nOld, lo+1, nNew)
	written := 1
	emit := func(prefix, l string) bool {
		if written == 40 {
			return false
		}
		b.WriteString(prefix + l + "\n")
		written++
		return true
	}
	all := make([][2]string, 0, nOld+len(repl))
	for i := lo; i < at; i++ {
		all = append(all, [2]string{" ", before[i]})
	}
	for i := at; i < at+removed; i++ {
		all = append(all, [2]string{"-", before[i]})
	}
	for _, l := range repl {
		all = append(all, [2]string{"+", l})
	}
	for i := at + removed; i < hi; i++ {
		all = append(all, [2]string{" ", before[i]})
	}
	for i, l := range all {
		if !emit(l[0], l[1]) {
			fmt.Fprintf(&b, "[... %d more diff lines]\n", len(all)-i)
			break
		}
	}
	return b.String()
}

// writeOutput is write_file's answer.
func writeOutput(p string, before, after []string) string {
	content := strings.Join(after, "\n") + "\n"
	if before == nil {
		return fmt.Sprintf("created %s (%d lines, %d bytes)", p, len(after), len(content))
	}
	out := fmt.Sprintf("wrote %s (%d lines, %d bytes)\n", p, len(after), len(content))
	// the whole file changes when indentation does: one block
	return tools.Truncate(out+diffSummary(before, 0, len(before), after), tools.MaxOutput)
}

// grepOutput is grep's answer for an RE2 pattern over the files (sorted
// by path) under dir ("" for the workspace).
func grepOutput(files []*file, pattern, dir string) (string, int) {
	re := regexp.MustCompile(pattern)
	var b strings.Builder
	matches := 0
	for _, f := range files {
		if dir != "" && !strings.HasPrefix(f.path, dir+"/") && f.path != dir {
			continue
		}
		for i, l := range f.lines {
			if !re.MatchString(l) {
				continue
			}
			if matches == 500 {
				b.WriteString("[stopped after 500 matching lines; narrow the pattern, path or include]\n")
				return tools.Truncate(b.String(), tools.MaxOutput), matches
			}
			if len(l) > 400 {
				l = strings.ToValidUTF8(l[:400], "") + " …"
			}
			fmt.Fprintf(&b, "%s:%d:%s\n", f.path, i+1, l)
			matches++
		}
	}
	where := dir
	if where == "" {
		where = "."
	}
	if matches == 0 {
		return fmt.Sprintf("no matches for %q in %s\n", pattern, where), 0
	}
	return tools.Truncate(b.String(), tools.MaxOutput), matches
}

// globOutput is glob's answer for "dir/**/*.ext"-style patterns.
func globOutput(files []*file, dir, ext string) string {
	var b strings.Builder
	for _, f := range files {
		if strings.HasPrefix(f.path, dir+"/") && strings.HasSuffix(f.path, ext) {
			b.WriteString(f.path + "\n")
		}
	}
	if b.Len() == 0 {
		return fmt.Sprintf("no files match %q", dir+"/**/*"+ext)
	}
	return b.String()
}

// listOutput is list_dir's answer for dir: its files with sizes, its
// subdirectories with a slash, sorted by name.
func listOutput(files []*file, dir string) string {
	type ent struct {
		name string
		size int
		dir  bool
	}
	var ents []ent
	seen := func(name string) bool {
		for _, e := range ents {
			if e.name == name {
				return true
			}
		}
		return false
	}
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	for _, f := range files {
		if !strings.HasPrefix(f.path, prefix) {
			continue
		}
		rest := f.path[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			if !seen(rest[:i]) {
				ents = append(ents, ent{name: rest[:i], dir: true})
			}
			continue
		}
		ents = append(ents, ent{name: rest, size: f.size()})
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].name < ents[j].name })
	var b strings.Builder
	b.WriteString(path.Clean(dir) + "/\n")
	if dir == "." {
		b.Reset()
		b.WriteString("./\n")
	}
	for _, e := range ents {
		if e.dir {
			b.WriteString(e.name + "/\n")
			continue
		}
		fmt.Fprintf(&b, "%s  %s\n", e.name, humanSize(e.size))
	}
	return b.String()
}

func humanSize(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}
