package composer

import (
	"unicode"

	"github.com/clipperhouse/displaywidth"
)

// editor is a small multi-line text buffer with a cursor. A folded paste is
// one rune of the buffer (see foldRune), so every edit treats it as one
// character: backspace deletes it whole and the cursor never stands inside
// it. The buffer holds no control characters but '\t' (input is sanitized
// before it gets here).
type editor struct {
	lines [][]rune // never empty
	row   int      // cursor line
	col   int      // cursor rune index in lines[row], 0..len
	goal  int      // display column up/down keep, -1 when unset

	// folds are the folded pastes the buffer's fold runes stand for, by id.
	folds map[int]fold
	rev   int // incremented by every change of the text

	// wraps caches each line's soft-wrapped segments for width; nil entries
	// are recomputed.
	wraps [][]seg
	width int
}

// seg is one visual row of a logical line: runes [start, end) of display
// width w.
type seg struct{ start, end, w int }

const tabWidth = 4

func newEditor() editor {
	return editor{lines: [][]rune{nil}, goal: -1, wraps: [][]seg{nil}, width: 1}
}

// label is the text fold rune r shows.
func (e *editor) label(r rune) string {
	k := foldID(r)
	return foldLabel(e.folds[k].lines, k)
}

// runeWidth is the display width of r in the buffer.
func (e *editor) runeWidth(r rune) int {
	switch {
	case r == '\t':
		return tabWidth
	case isFold(r):
		return displaywidth.String(e.label(r))
	case r < 0x20:
		return 0
	}
	return displaywidth.Rune(r)
}

func (e *editor) setWidth(w int) {
	w = max(w, 1)
	if w == e.width {
		return
	}
	e.width = w
	for i := range e.wraps {
		e.wraps[i] = nil
	}
}

func (e *editor) touch(row int) { e.wraps[row] = nil }

// segs is the soft-wrapped layout of line row.
func (e *editor) segs(row int) []seg {
	if s := e.wraps[row]; s != nil {
		return s
	}
	s := e.wrap(e.lines[row])
	e.wraps[row] = s
	return s
}

// wrap breaks a line into rows of at most width cells, after the last space
// that fits or, in a word longer than the row, anywhere. A line that fills
// its last row exactly gets an empty row after it, for the cursor.
func (e *editor) wrap(line []rune) []seg {
	W := e.width
	var out []seg
	start, w := 0, 0
	brk, wAtBrk := -1, 0 // index after the last space in the row, and the width up to it
	for i, r := range line {
		rw := e.runeWidth(r)
		for w+rw > W && i > start {
			end := i
			if brk > start {
				end = brk
			}
			rowW := w
			if end == brk {
				rowW = wAtBrk
			}
			out = append(out, seg{start, end, rowW})
			w -= rowW
			start = end
			brk = -1
		}
		w += rw
		if r == ' ' {
			brk, wAtBrk = i+1, w
		}
	}
	out = append(out, seg{start, len(line), w})
	if w >= W && len(line) > 0 {
		out = append(out, seg{len(line), len(line), 0})
	}
	return out
}

// segOf is the index of the segment of line row that shows column col.
func (e *editor) segOf(row, col int) int {
	ss := e.segs(row)
	for i, s := range ss {
		if col < s.end || i == len(ss)-1 {
			return i
		}
	}
	return len(ss) - 1
}

// widthOf is the display width of runes.
func (e *editor) widthOf(rs []rune) int {
	w := 0
	for _, r := range rs {
		w += e.runeWidth(r)
	}
	return w
}

// cursorXY is the cursor's visual row (counted over the whole buffer) and
// display column.
func (e *editor) cursorXY() (y, x int) {
	for i := range e.row {
		y += len(e.segs(i))
	}
	si := e.segOf(e.row, e.col)
	s := e.segs(e.row)[si]
	return y + si, e.widthOf(e.lines[e.row][s.start:e.col])
}

// visualRows is the number of visual rows of the whole buffer.
func (e *editor) visualRows() int {
	n := 0
	for i := range e.lines {
		n += len(e.segs(i))
	}
	return n
}

// onFirstRow and onLastRow report whether the cursor is on the buffer's
// first or last visual row (where up and down recall history).
func (e *editor) onFirstRow() bool { return e.row == 0 && e.segOf(0, e.col) == 0 }
func (e *editor) onLastRow() bool {
	last := len(e.lines) - 1
	return e.row == last && e.segOf(last, e.col) == len(e.segs(last))-1
}

// vertical moves the cursor dy visual rows (±1), keeping the goal column.
func (e *editor) vertical(dy int) {
	_, x := e.cursorXY()
	if e.goal < 0 {
		e.goal = x
	}
	row, si := e.row, e.segOf(e.row, e.col)
	si += dy
	if si < 0 {
		if row == 0 {
			return
		}
		row--
		si = len(e.segs(row)) - 1
	} else if si >= len(e.segs(row)) {
		if row == len(e.lines)-1 {
			return
		}
		row++
		si = 0
	}
	ss := e.segs(row)
	s := ss[si]
	col, w := s.start, 0
	for col < s.end {
		rw := e.runeWidth(e.lines[row][col])
		if w+rw > e.goal {
			break
		}
		w += rw
		col++
	}
	// The end of a row that wraps is the start of the next one: stay on
	// this row.
	if col == s.end && si < len(ss)-1 && col > s.start {
		col--
	}
	e.row, e.col = row, col
}

func (e *editor) empty() bool { return len(e.lines) == 1 && len(e.lines[0]) == 0 }

// text is the buffer with '\n' between lines (fold runes left in place).
func (e *editor) text() []rune {
	n := len(e.lines) - 1
	for _, l := range e.lines {
		n += len(l)
	}
	out := make([]rune, 0, n)
	for i, l := range e.lines {
		if i > 0 {
			out = append(out, '\n')
		}
		out = append(out, l...)
	}
	return out
}

// setText replaces the buffer; the cursor goes to the end.
func (e *editor) setText(rs []rune) {
	e.lines = nil
	start := 0
	for i, r := range rs {
		if r == '\n' {
			e.lines = append(e.lines, append([]rune(nil), rs[start:i]...))
			start = i + 1
		}
	}
	e.lines = append(e.lines, append([]rune(nil), rs[start:]...))
	e.wraps = make([][]seg, len(e.lines))
	e.rev++
	e.end()
}

// insert inserts runes (which may hold '\n') at the cursor.
func (e *editor) insert(rs []rune) {
	e.goal = -1
	line := e.lines[e.row]
	tail := append([]rune(nil), line[e.col:]...)
	line = line[:e.col]
	var added [][]rune
	for _, r := range rs {
		if r == '\n' {
			added = append(added, line)
			line = nil
			continue
		}
		line = append(line, r)
	}
	col := len(line)
	added = append(added, append(line, tail...))
	e.rev++
	e.lines = splice(e.lines, e.row, 1, added)
	e.wraps = splice(e.wraps, e.row, 1, make([][]seg, len(added)))
	e.row += len(added) - 1
	e.col = col
}

// splice replaces n elements of s at i by repl.
func splice[T any](s []T, i, n int, repl []T) []T {
	out := make([]T, 0, len(s)-n+len(repl))
	out = append(out, s[:i]...)
	out = append(out, repl...)
	return append(out, s[i+n:]...)
}

// backspace deletes the rune before the cursor, joining lines at a line
// start.
func (e *editor) backspace() {
	e.goal = -1
	if e.col > 0 {
		e.deleteRange(e.col-1, e.col)
		return
	}
	if e.row == 0 {
		return
	}
	prev := len(e.lines[e.row-1])
	e.join(e.row - 1)
	e.row--
	e.col = prev
}

// deleteForward deletes the rune after the cursor, joining lines at a line
// end.
func (e *editor) deleteForward() {
	e.goal = -1
	if e.col < len(e.lines[e.row]) {
		e.deleteRange(e.col, e.col+1)
		return
	}
	if e.row < len(e.lines)-1 {
		e.join(e.row)
	}
}

// deleteRange deletes runes [from, to) of the cursor line and puts the
// cursor at from.
func (e *editor) deleteRange(from, to int) {
	l := e.lines[e.row]
	e.lines[e.row] = append(l[:from:from], l[to:]...)
	e.touch(e.row)
	e.rev++
	e.col = from
}

// join joins line i and the next.
func (e *editor) join(i int) {
	merged := append(append([]rune(nil), e.lines[i]...), e.lines[i+1]...)
	e.lines = splice(e.lines, i, 2, [][]rune{merged})
	e.wraps = splice(e.wraps, i, 2, [][]seg{nil})
	e.rev++
}

func (e *editor) left() {
	e.goal = -1
	if e.col > 0 {
		e.col--
	} else if e.row > 0 {
		e.row--
		e.col = len(e.lines[e.row])
	}
}

func (e *editor) right() {
	e.goal = -1
	if e.col < len(e.lines[e.row]) {
		e.col++
	} else if e.row < len(e.lines)-1 {
		e.row++
		e.col = 0
	}
}

func (e *editor) home() { e.goal = -1; e.col = 0 }
func (e *editor) lineEnd() {
	e.goal = -1
	e.col = len(e.lines[e.row])
}
func (e *editor) begin() { e.goal = -1; e.row, e.col = 0, 0 }
func (e *editor) end() {
	e.goal = -1
	e.row = len(e.lines) - 1
	e.col = len(e.lines[e.row])
}

// isWordRune reports whether r belongs to a word for word moves (a fold is
// a word of its own).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || isFold(r)
}

// wordLeftCol is the column word-left moves to on the cursor line.
func (e *editor) wordLeftCol() int {
	l, c := e.lines[e.row], e.col
	for c > 0 && !isWordRune(l[c-1]) {
		c--
	}
	for c > 0 && isWordRune(l[c-1]) && !isFold(l[c-1]) {
		c--
	}
	if c == e.col && c > 0 { // a fold
		c--
	}
	return c
}

func (e *editor) wordRightCol() int {
	l, c := e.lines[e.row], e.col
	for c < len(l) && !isWordRune(l[c]) {
		c++
	}
	if c < len(l) && isFold(l[c]) {
		return c + 1
	}
	for c < len(l) && isWordRune(l[c]) && !isFold(l[c]) {
		c++
	}
	return c
}

func (e *editor) wordLeft() {
	if e.col == 0 {
		e.left()
		return
	}
	e.goal = -1
	e.col = e.wordLeftCol()
}

func (e *editor) wordRight() {
	if e.col == len(e.lines[e.row]) {
		e.right()
		return
	}
	e.goal = -1
	e.col = e.wordRightCol()
}

func (e *editor) deleteWordLeft() {
	if e.col == 0 {
		e.backspace()
		return
	}
	e.goal = -1
	e.deleteRange(e.wordLeftCol(), e.col)
}

func (e *editor) deleteWordRight() {
	if e.col == len(e.lines[e.row]) {
		e.deleteForward()
		return
	}
	e.goal = -1
	col := e.col
	e.deleteRange(col, e.wordRightCol())
}

// killLine deletes to the end of the line, or joins the next line at its
// end.
func (e *editor) killLine() {
	if e.col == len(e.lines[e.row]) {
		e.deleteForward()
		return
	}
	e.goal = -1
	e.deleteRange(e.col, len(e.lines[e.row]))
}

// runeBefore is the rune before the cursor on its line, or 0.
func (e *editor) runeBefore() rune {
	if e.col == 0 {
		return 0
	}
	return e.lines[e.row][e.col-1]
}
