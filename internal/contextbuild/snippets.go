package contextbuild

import (
	"fmt"
	"io"
	"os"

	"agent/internal/lazyre"
	"strings"

	"agent/internal/agent"
	"agent/internal/event"
	"agent/internal/tools"
)

// Snippet bounds.
const (
	maxSnippetFiles  = 6
	maxSnippetBytes  = 256 << 10 // larger files are not read for snippets
	wholeFileTokens  = 1200      // a file this small goes in whole
	regionContext    = 6         // lines around an identifier in play
	maxRegions       = 6
	maxOutlineLines  = 60
	minSnippetTokens = 48
)

var (
	identRe = lazyre.New(`[A-Za-z_][A-Za-z0-9_]{3,}`)
	defRe   = lazyre.New(`^\s*(func|type|class|def|fn|pub\s+fn|pub\s+struct|struct|interface|impl|enum|trait|export|const|var|let|package|module|public|private|protected)\b`)
)

// snippets fills L5b: the current content of files the run changed whose
// content the request no longer shows verbatim (their reads were masked,
// superseded or folded), newest change first, each whole when small and
// otherwise as an outline plus the regions around the identifiers in play,
// within room tokens.
func (b *Builder) snippets(h *history, v *view, m *measure, room int, l *layer) {
	if room < minSnippetTokens || b.opt.Workspace == "" {
		return
	}
	st := h.st
	visible := make(map[string]bool, len(h.edits)+8) // a verbatim read or write of the path after its last edit
	for i, u := range h.units {
		if m.folded(i) || u.kind != unitRound {
			continue
		}
		for _, k := range u.msgs {
			if st.Meta[k].Kind != agent.KindTool {
				continue
			}
			ci := h.callOf(k)
			if ci == nil || ci.path == "" || (ci.name != "read_file" && ci.name != "write_file") {
				continue
			}
			if _, reason := b.toolText(h, k, &m.c, 0); reason == "" {
				if edits := h.edits[ci.path]; len(edits) == 0 || edits[len(edits)-1] <= st.Meta[k].Seq || ci.name == "write_file" {
					visible[ci.path] = true
				}
			}
		}
	}
	var paths []string
	seen := make(map[string]bool, len(h.edits)+8)
	for i := len(h.order) - 1; i >= 0 && len(paths) < maxSnippetFiles; i-- {
		ci := h.callAt(i)
		if ci.path == "" || seen[ci.path] || len(h.edits[ci.path]) == 0 {
			continue
		}
		seen[ci.path] = true
		if !visible[ci.path] {
			paths = append(paths, ci.path)
		}
	}
	if len(paths) == 0 {
		return
	}
	root, err := os.OpenRoot(b.opt.Workspace)
	if err != nil {
		return
	}
	defer root.Close()
	idents := b.identsInPlay(h)
	for _, p := range paths {
		data, err := readSmall(root, p)
		if err != nil {
			continue
		}
		text := string(data)
		if b.opt.Redactor != nil {
			text = b.opt.Redactor.Redact(text)
		}
		whole := b.count(text)
		body, reason := numbered(text, 1), event.CutReason("")
		if whole > wholeFileTokens {
			body, reason = b.outline(text, idents), event.ReasonOutline
		}
		msg := agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("[agent] Current content of %s (changed by this run; as on disk now):\n<file path=%q>\n%s\n</file>", p, p, body)}
		tk := b.msgTokens(msg)
		if tk > room {
			l.items = append(l.items, item{kind: "file", ref: p, before: whole, reason: event.ReasonOverBudget})
			continue
		}
		room -= tk
		l.add(b, msg, item{kind: "file", ref: p, before: whole, reason: reason})
	}
}

func readSmall(root *os.Root, p string) ([]byte, error) {
	f, fi, err := tools.OpenRegular(root, p) // a FIFO or a device is not opened
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > maxSnippetBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, maxSnippetBytes)
	}
	return io.ReadAll(io.LimitReader(f, maxSnippetBytes))
}

// identsInPlay are the identifiers of the person's current message and the
// model's newest answer.
func (b *Builder) identsInPlay(h *history) map[string]bool {
	st := h.st
	var text strings.Builder
	if h.current >= 0 {
		text.WriteString(st.Messages[h.current].Content)
	}
	for i := len(st.Meta) - 1; i >= 0; i-- {
		if st.Meta[i].Kind == agent.KindAssistant {
			text.WriteString(" " + st.Messages[i].Content)
			break
		}
	}
	out := map[string]bool{}
	for _, w := range identRe.FindAllString(text.String(), -1) {
		if strings.ContainsAny(w, "_0123456789") || strings.ToLower(w) != w {
			out[w] = true
		}
	}
	return out
}

// outline is a large file's definition lines and the regions around the
// identifiers in play, with line numbers.
func (b *Builder) outline(text string, idents map[string]bool) string {
	lines := strings.Split(text, "\n")
	keep := make([]bool, len(lines))
	defs := 0
	for i, ln := range lines {
		if defs < maxOutlineLines && defRe.MatchString(ln) {
			keep[i] = true
			defs++
		}
	}
	regions := 0
	for i, ln := range lines {
		if regions >= maxRegions {
			break
		}
		hit := false
		for _, w := range identRe.FindAllString(ln, -1) {
			if idents[w] {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		regions++
		for k := max(i-regionContext, 0); k <= min(i+regionContext, len(lines)-1); k++ {
			keep[k] = true
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "(outline of %d lines: definitions and the regions around the identifiers in play; read_file for the rest)\n", len(lines))
	gap := false
	for i, ln := range lines {
		if !keep[i] {
			gap = true
			continue
		}
		if gap {
			sb.WriteString("   ...\n")
			gap = false
		}
		fmt.Fprintf(&sb, "%6d\t%s\n", i+1, ln)
	}
	return strings.TrimRight(sb.String(), "\n")
}

func numbered(text string, from int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	var sb strings.Builder
	for i, ln := range lines {
		fmt.Fprintf(&sb, "%6d\t%s\n", from+i, ln)
	}
	return strings.TrimRight(sb.String(), "\n")
}
