package diffview

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Texts is a change given as the whole file before and after it.
type Texts struct {
	Path          string
	OldPath       string // set when the file was renamed
	Before, After string
	Created       bool // the file did not exist before
	Deleted       bool // the file does not exist after
}

// contextLines is how many unchanged lines surround a change in a computed
// diff (git's default).
const contextLines = 3

// binarySniff is how much of a text Compute looks at for a NUL byte.
const binarySniff = 8000

// Compute returns the line diff of t as one file, with hunks of three lines
// of context. A text with a NUL byte in its first 8000 bytes is binary: the
// file is marked so and has no hunks.
func Compute(t Texts) *Diff {
	f := File{OldPath: t.OldPath, NewPath: t.Path}
	if f.OldPath == "" {
		f.OldPath = t.Path
	}
	switch {
	case t.Created:
		f.Status = StatusAdded
	case t.Deleted:
		f.Status = StatusDeleted
	case f.OldPath != f.NewPath:
		f.Status = StatusRenamed
	}
	if isBinary(t.Before) || isBinary(t.After) {
		f.Binary = true
		return &Diff{Files: []File{f}}
	}
	f.Hunks = hunks(diffLines(t.Before, t.After))
	f.finish(false)
	return &Diff{Files: []File{f}}
}

func isBinary(s string) bool {
	return strings.IndexByte(s[:min(len(s), binarySniff)], 0) >= 0
}

// diffLines returns every line of before and after as a context, delete or
// insert line, numbered, deletions before insertions in each change.
func diffLines(before, after string) []Line {
	dmp := diffmatchpatch.New()
	a, b, arr := dmp.DiffLinesToRunes(before, after)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), arr)
	var out, adds []Line
	oldNo, newNo := 1, 1
	flush := func() {
		out = append(out, adds...)
		adds = adds[:0]
	}
	for _, d := range diffs {
		for _, l := range textLines(d.Text) {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				flush()
				l.Kind, l.Old, l.New = LineContext, oldNo, newNo
				oldNo++
				newNo++
				out = append(out, l)
			case diffmatchpatch.DiffDelete:
				l.Kind, l.Old = LineDel, oldNo
				oldNo++
				out = append(out, l)
			case diffmatchpatch.DiffInsert:
				l.Kind, l.New = LineAdd, newNo
				newNo++
				adds = append(adds, l)
			}
		}
	}
	flush()
	return out
}

// textLines splits s into lines; a last line without "\n" is marked.
func textLines(s string) []Line {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	out := make([]Line, len(parts))
	for i, p := range parts {
		t, nl := strings.CutSuffix(p, "\n")
		out[i] = Line{Text: t, NoNewline: !nl}
	}
	return out
}

// hunks groups changed lines with their context into hunks.
func hunks(lines []Line) []Hunk {
	var out []Hunk
	i := 0
	for i < len(lines) {
		if lines[i].Kind == LineContext {
			i++
			continue
		}
		start := max(0, i-contextLines)
		end := i // one past the last changed line of the hunk
		for j := i; j < len(lines); j++ {
			if lines[j].Kind == LineContext {
				if j-end >= 2*contextLines {
					break
				}
				continue
			}
			end = j + 1
		}
		stop := min(len(lines), end+contextLines)
		out = append(out, newHunk(lines[start:stop]))
		i = stop
	}
	return out
}

func newHunk(ls []Line) Hunk {
	h := Hunk{Lines: ls}
	for _, l := range ls {
		switch l.Kind {
		case LineContext:
			h.OldCount++
			h.NewCount++
		case LineDel:
			h.OldCount++
		case LineAdd:
			h.NewCount++
		}
		if h.OldStart == 0 && l.Old > 0 {
			h.OldStart = l.Old
		}
		if h.NewStart == 0 && l.New > 0 {
			h.NewStart = l.New
		}
	}
	// As diff -u: an empty side starts at the line before.
	if h.OldCount == 0 {
		h.OldStart = max(h.NewStart-1, 0)
	}
	if h.NewCount == 0 {
		h.NewStart = max(h.OldStart-1, 0)
	}
	h.Header = fmt.Sprintf("@@ -%s +%s @@", hunkRange(h.OldStart, h.OldCount), hunkRange(h.NewStart, h.NewCount))
	return h
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
