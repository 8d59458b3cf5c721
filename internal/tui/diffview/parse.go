package diffview

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// The patterns are compiled on their first use, not when the package is
// initialised: every command of the binary links this package, few parse a
// diff.
var (
	hunkRe = lazyRE(`^@@ -(\d+)(,(\d+))? \+(\d+)(,(\d+))? @@(.*)$`)
	// The forms internal/tools prints around a diff.
	toolPathStatsRe = lazyRE(`^(.+): \+(\d+) -(\d+) lines$`)
	toolStatsRe     = lazyRE(`^\+(\d+) -(\d+) lines$`)
	toolWroteRe     = lazyRE(`^wrote (.+) \(\d+ lines, \d+ bytes`)
	toolEditedRe    = lazyRE(`^edited (.+): replaced \d+ occurrences?, \+(\d+) -(\d+) lines$`)
	toolNewFileRe   = lazyRE(`^new file (.+) \(\d+ lines\)$`)
	// Notes tools put inside a diff where they cut it.
	cutNoteRe = lazyRE(`^\[\.\.\. \d+ (characters cut \.\.\.|more diff lines)\]$`)
)

// lazyRE is a pattern compiled once, on its first use.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Parse reads a unified diff. It knows git's patches ("diff --git", the
// extended headers, "---"/"+++", "@@" hunks, "Binary files ... differ",
// "GIT binary patch", "\ No newline at end of file"), plain unified diffs of
// one or several files, and the forms the agent's file tools print ("path:
// +N -M lines" followed by "@@ -a +b @@" hunks whose counts are not given,
// and "new file path (N lines)" followed by the file's content). Other lines
// outside a hunk are kept as notes. A malformed hunk header is an error that
// names its line.
func Parse(text string) (*Diff, error) {
	lines := strings.Split(text, "\n")
	endsNL := strings.HasSuffix(text, "\n")
	if endsNL {
		lines = lines[:len(lines)-1]
	}
	p := &parser{d: &Diff{}, lines: lines}
	if len(lines) > 0 {
		if m := toolNewFileRe().FindStringSubmatch(strings.TrimSuffix(lines[0], "\r")); m != nil {
			p.newFilePreview(m[1], endsNL)
			return p.d, nil
		}
	}
	for p.i < len(p.lines) {
		s := p.lines[p.i]
		if p.inHunk && p.hunkLine(s) {
			p.i++
			continue
		}
		p.endHunk()
		if err := p.header(strings.TrimSuffix(s, "\r")); err != nil {
			return nil, err
		}
	}
	p.endHunk()
	p.flush()
	p.d.Notes = append(p.d.Notes, p.notes...)
	return p.d, nil
}

type parser struct {
	d     *Diff
	lines []string
	i     int

	cur      *File // the file being read, nil before the first
	sawMinus bool  // cur has had its "---" line
	notes    []string

	// The file the tools' forms name, before any hunk.
	toolPath         string
	toolAdd, toolDel int
	toolCounted      bool
	curCounted       bool // cur's Added and Deleted came from the tool

	inHunk         bool
	strict         bool // the hunk header gave its counts
	lost           bool // the tool cut lines out of this hunk: numbers are unknown
	afterCut       bool
	oldNo, newNo   int
	remOld, remNew int
}

// flush ends the current file.
func (p *parser) flush() {
	if p.cur == nil {
		return
	}
	p.cur.finish(p.curCounted)
	p.d.Files = append(p.d.Files, *p.cur)
	p.cur, p.sawMinus, p.curCounted = nil, false, false
}

func (p *parser) startFile() *File {
	p.flush()
	p.cur = &File{Notes: p.notes}
	p.notes = nil
	return p.cur
}

func (p *parser) note(s string) {
	p.notes = append(p.notes, s)
}

// hunkLine takes s as the next line of the open hunk, or reports that the
// hunk ended before it.
func (p *parser) hunkLine(s string) bool {
	h := &p.cur.Hunks[len(p.cur.Hunks)-1]
	exhausted := p.remOld <= 0 && p.remNew <= 0
	if cutNoteRe().MatchString(strings.TrimSuffix(s, "\r")) {
		h.Lines = append(h.Lines, Line{Kind: LineNote, Text: strings.TrimSuffix(s, "\r")})
		p.lost, p.afterCut = true, true
		return true
	}
	if s == "" {
		if exhausted {
			return false
		}
		s = " " // an empty context line whose space was stripped
	}
	switch s[0] {
	case ' ', '+', '-', '\\':
	default:
		if p.afterCut {
			// The tool cut a line in two: its tail is not a diff line.
			h.Lines = append(h.Lines, Line{Kind: LineNote, Text: s})
			p.afterCut = false
			return true
		}
		return false
	}
	p.afterCut = false
	if exhausted && s[0] != '\\' {
		if p.strict {
			return false
		}
		if strings.HasPrefix(s, "--- ") && p.i+1 < len(p.lines) && strings.HasPrefix(p.lines[p.i+1], "+++ ") {
			return false
		}
	}
	num := func(n *int) int {
		if p.lost {
			return 0
		}
		v := *n
		*n = v + 1
		return v
	}
	switch s[0] {
	case '\\':
		if k := len(h.Lines) - 1; k >= 0 && h.Lines[k].Kind != LineNote {
			h.Lines[k].NoNewline = true
		}
	case ' ':
		h.Lines = append(h.Lines, Line{Kind: LineContext, Old: num(&p.oldNo), New: num(&p.newNo), Text: s[1:]})
		p.remOld--
		p.remNew--
	case '-':
		h.Lines = append(h.Lines, Line{Kind: LineDel, Old: num(&p.oldNo), Text: s[1:]})
		p.remOld--
	case '+':
		h.Lines = append(h.Lines, Line{Kind: LineAdd, New: num(&p.newNo), Text: s[1:]})
		p.remNew--
	}
	return true
}

// endHunk closes the open hunk; a hunk whose counts promised more lines
// than came gets a note saying so.
func (p *parser) endHunk() {
	if !p.inHunk {
		return
	}
	p.inHunk = false
	if p.strict && (p.remOld > 0 || p.remNew > 0) && !p.lost {
		h := &p.cur.Hunks[len(p.cur.Hunks)-1]
		h.Lines = append(h.Lines, Line{Kind: LineNote, Text: fmt.Sprintf("[the diff ends before this hunk does: %d old and %d new lines missing]", max(p.remOld, 0), max(p.remNew, 0))})
	}
}

// header reads one line outside a hunk.
func (p *parser) header(s string) error {
	p.i++
	next := ""
	if p.i < len(p.lines) {
		next = p.lines[p.i]
	}
	switch {
	case strings.HasPrefix(s, "diff --git "):
		f := p.startFile()
		f.OldPath, f.NewPath = gitPaths(s[len("diff --git "):])
	case strings.HasPrefix(s, "diff "):
		f := p.startFile()
		if fs := strings.Fields(s); len(fs) >= 3 {
			f.OldPath, f.NewPath = fs[len(fs)-2], fs[len(fs)-1]
		}
	case strings.HasPrefix(s, "@@"):
		return p.hunkHeader(s)
	case strings.HasPrefix(s, "--- ") && strings.HasPrefix(next, "+++ "):
		if p.cur == nil || p.sawMinus || len(p.cur.Hunks) > 0 {
			p.startFile()
		}
		p.sawMinus = true
		p.i++
		p.minusPlus(s[4:], strings.TrimSuffix(next[4:], "\r"))
	case strings.HasPrefix(s, "Binary files ") && strings.HasSuffix(s, " differ"):
		if p.cur == nil || len(p.cur.Hunks) > 0 || p.cur.Binary {
			p.startFile()
			if a, b, ok := strings.Cut(strings.TrimSuffix(s[len("Binary files "):], " differ"), " and "); ok {
				p.minusPlus(a, b)
			}
		}
		p.cur.Binary = true
	case s == "GIT binary patch" && p.cur != nil:
		p.cur.Binary = true
		for p.i < len(p.lines) && !strings.HasPrefix(p.lines[p.i], "diff ") {
			p.i++
		}
	case p.cur != nil && len(p.cur.Hunks) == 0 && p.extended(s):
	case p.cur == nil && len(p.d.Files) == 0 && p.toolLine(s):
	case s == "":
	default:
		p.note(s)
	}
	return nil
}

// extended reads git's extended header lines.
func (p *parser) extended(s string) bool {
	f := p.cur
	cut := func(prefix string) (string, bool) {
		if strings.HasPrefix(s, prefix) {
			return unquote(s[len(prefix):]), true
		}
		return "", false
	}
	if v, ok := cut("old mode "); ok {
		f.OldMode = v
	} else if v, ok := cut("new mode "); ok {
		f.NewMode = v
	} else if v, ok := cut("deleted file mode "); ok {
		f.Status, f.OldMode = StatusDeleted, v
	} else if v, ok := cut("new file mode "); ok {
		f.Status, f.NewMode = StatusAdded, v
	} else if v, ok := cut("similarity index "); ok {
		f.Similarity = v
	} else if v, ok := cut("rename from "); ok {
		f.Status, f.OldPath = StatusRenamed, v
	} else if v, ok := cut("rename to "); ok {
		f.Status, f.NewPath = StatusRenamed, v
	} else if v, ok := cut("copy from "); ok {
		f.Status, f.OldPath = StatusCopied, v
	} else if v, ok := cut("copy to "); ok {
		f.Status, f.NewPath = StatusCopied, v
	} else if !strings.HasPrefix(s, "index ") && !strings.HasPrefix(s, "dissimilarity index ") {
		return false
	}
	return true
}

// toolLine reads the lines internal/tools prints before its diff.
func (p *parser) toolLine(s string) bool {
	atoi := func(v string) int { n, _ := strconv.Atoi(v); return n }
	if m := toolPathStatsRe().FindStringSubmatch(s); m != nil {
		p.toolPath, p.toolAdd, p.toolDel, p.toolCounted = m[1], atoi(m[2]), atoi(m[3]), true
		return true
	}
	if m := toolStatsRe().FindStringSubmatch(s); m != nil {
		p.toolAdd, p.toolDel, p.toolCounted = atoi(m[1]), atoi(m[2]), true
		return true
	}
	if m := toolEditedRe().FindStringSubmatch(s); m != nil {
		p.toolPath, p.toolAdd, p.toolDel, p.toolCounted = m[1], atoi(m[2]), atoi(m[3]), true
		p.note(s)
		return true
	}
	if m := toolWroteRe().FindStringSubmatch(s); m != nil {
		p.toolPath = m[1]
		p.note(s)
		return true
	}
	return false
}

func (p *parser) hunkHeader(s string) error {
	m := hunkRe().FindStringSubmatch(s)
	if m == nil {
		what := "is not a hunk header"
		if strings.HasPrefix(s, "@@@") {
			what = "is a combined (merge) diff, which is not supported"
		}
		return fmt.Errorf("diffview: line %d: %q %s (want \"@@ -start,count +start,count @@\")", p.i, clip(s, 60), what)
	}
	if p.cur == nil {
		f := p.startFile()
		f.OldPath, f.NewPath = p.toolPath, p.toolPath
		if p.toolCounted {
			f.Added, f.Deleted, p.curCounted = p.toolAdd, p.toolDel, true
		}
	}
	atoi := func(v string, def int) int {
		if v == "" {
			return def
		}
		n, _ := strconv.Atoi(v)
		return n
	}
	h := Hunk{Header: s, OldStart: atoi(m[1], 0), OldCount: atoi(m[3], 1), NewStart: atoi(m[4], 0), NewCount: atoi(m[6], 1)}
	p.cur.Hunks = append(p.cur.Hunks, h)
	p.inHunk, p.lost, p.afterCut = true, false, false
	p.strict = m[2] != "" || m[5] != ""
	p.oldNo, p.newNo = h.OldStart, h.NewStart
	p.remOld, p.remNew = h.OldCount, h.NewCount
	return nil
}

// minusPlus sets the current file's paths from its "---" and "+++" names.
func (p *parser) minusPlus(a, b string) {
	f := p.cur
	a, b = unquote(stripStamp(a)), unquote(stripStamp(b))
	switch {
	case a == "/dev/null":
		f.Status = StatusAdded
		f.NewPath = strings.TrimPrefix(b, "b/")
		if f.OldPath == "" {
			f.OldPath = f.NewPath
		}
	case b == "/dev/null":
		f.Status = StatusDeleted
		f.OldPath = strings.TrimPrefix(a, "a/")
	default:
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") {
			a, b = a[2:], b[2:]
		}
		if f.Status != StatusRenamed && f.Status != StatusCopied {
			f.OldPath, f.NewPath = a, b
		}
	}
}

// newFilePreview reads "new file path (N lines)" and the content after it.
func (p *parser) newFilePreview(path string, endsNL bool) {
	f := File{NewPath: path, OldPath: path, Status: StatusAdded}
	h := Hunk{NewStart: 1}
	n := 1
	for _, s := range p.lines[1:] {
		if cutNoteRe().MatchString(strings.TrimSuffix(s, "\r")) {
			h.Lines = append(h.Lines, Line{Kind: LineNote, Text: strings.TrimSuffix(s, "\r")})
			n = 0 // numbers after a cut are unknown
			continue
		}
		h.Lines = append(h.Lines, Line{Kind: LineAdd, New: n, Text: s})
		if n > 0 {
			n++
		}
	}
	if k := len(h.Lines) - 1; k >= 0 && !endsNL && h.Lines[k].Kind == LineAdd {
		h.Lines[k].NoNewline = true
	}
	h.NewCount = len(h.Lines)
	h.Header = fmt.Sprintf("@@ -0,0 +1,%d @@", h.NewCount)
	if len(h.Lines) > 0 {
		f.Hunks = []Hunk{h}
	}
	f.finish(false)
	p.d.Files = append(p.d.Files, f)
}

// gitPaths splits the names of a "diff --git a/x b/y" line. They are only
// a first guess: "---", "+++" and "rename" lines replace them.
func gitPaths(rest string) (string, string) {
	if strings.HasPrefix(rest, `"`) {
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			a, _ := strconv.Unquote(q)
			b := unquote(strings.TrimSpace(rest[len(q):]))
			return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(b, "b/")
		}
	}
	// "a/x b/x": the same name twice is the common case, even with spaces.
	if n := len(rest); n%2 == 1 && rest[n/2] == ' ' {
		a, b := rest[:n/2], rest[n/2+1:]
		if strings.TrimPrefix(a, "a/") == strings.TrimPrefix(b, "b/") {
			return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(b, "b/")
		}
	}
	if i := strings.Index(rest, " b/"); i >= 0 {
		return strings.TrimPrefix(rest[:i], "a/"), unquote(rest[i+3:])
	}
	if a, b, ok := strings.Cut(rest, " "); ok {
		return a, b
	}
	return rest, rest
}

// stripStamp drops the tab and time stamp that diff -u puts after a name.
func stripStamp(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 && !strings.HasPrefix(s, `"`) {
		return s[:i]
	}
	return s
}

// unquote undoes git's C-style quoting of a name with unusual characters.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
