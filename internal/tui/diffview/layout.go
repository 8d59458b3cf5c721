package diffview

import "sort"

// rowKind is what one screen row of the view shows.
type rowKind uint8

const (
	rowNote  rowKind = iota // a note line (file level)
	rowFile                 // a file's header
	rowHunk                 // a hunk's "@@" header
	rowLine                 // code (one cell in unified, two in split)
	rowEmpty                // "no changes"
	rowBlank                // the space between two files
)

// cell is one side of a code row: a line, or the "no newline at end of
// file" marker of a line.
type cell struct {
	line int32 // index into Model.lines; -1: empty
	nonl bool
}

var noCell = cell{line: -1}

// row is one screen row.
type row struct {
	kind rowKind
	file int32
	note int32 // index into Model.notes (rowNote)
	l, r cell  // rowLine: unified uses l only; split uses both
	seq  int32 // the unified row this row starts at (to keep the place on a toggle)
}

// layout is the rows of one mode and where its hunks start.
type layout struct {
	rows    []row
	targets []int32 // rows that n/p jump to: hunk headers, and headers of files without hunks
}

// buildUnified lays the diff out one line per row.
func (m *Model) buildUnified() layout {
	var lo layout
	add := func(r row) {
		r.seq = int32(len(lo.rows))
		lo.rows = append(lo.rows, r)
	}
	note := func(s string, file int32) {
		m.notes = append(m.notes, s)
		add(row{kind: rowNote, file: file, note: int32(len(m.notes) - 1), l: noCell, r: noCell})
	}
	if m.errNote != "" {
		note(m.errNote, -1)
	}
	li := int32(0)
	for fi := range m.diff.Files {
		f := &m.diff.Files[fi]
		if len(lo.rows) > 0 {
			add(row{kind: rowBlank, file: -1, l: noCell, r: noCell})
		}
		for _, s := range f.Notes {
			note(s, int32(fi))
		}
		if len(f.Hunks) == 0 {
			lo.targets = append(lo.targets, int32(len(lo.rows)))
		}
		add(row{kind: rowFile, file: int32(fi), l: noCell, r: noCell})
		for hi := range f.Hunks {
			lo.targets = append(lo.targets, int32(len(lo.rows)))
			add(row{kind: rowHunk, file: int32(fi), note: int32(hi), l: noCell, r: noCell})
			for _, l := range f.Hunks[hi].Lines {
				add(row{kind: rowLine, file: int32(fi), l: cell{line: li}, r: noCell})
				if l.NoNewline {
					add(row{kind: rowLine, file: int32(fi), l: cell{line: li, nonl: true}, r: noCell})
				}
				li++
			}
		}
	}
	for _, s := range m.diff.Notes {
		note(s, -1)
	}
	if len(m.diff.Files) == 0 && len(m.diff.Notes) == 0 && m.errNote == "" {
		add(row{kind: rowEmpty, file: -1, l: noCell, r: noCell})
	}
	return lo
}

// buildSplit lays the unified rows side by side: context on both sides, and
// in each run of changes the deleted lines on the left against the added
// lines on the right.
func (m *Model) buildSplit(u layout) layout {
	var lo layout
	var left, right []cell
	var seqs []int32 // the unified row of each left and right cell, in order
	file := int32(-1)
	flush := func() {
		for i := 0; i < max(len(left), len(right)); i++ {
			r := row{kind: rowLine, file: file, l: noCell, r: noCell}
			if i < len(left) {
				r.l = left[i]
			}
			if i < len(right) {
				r.r = right[i]
			}
			lo.rows = append(lo.rows, r)
		}
		// Each split row starts at the earliest unified row it shows.
		base := len(lo.rows) - max(len(left), len(right))
		for i := range lo.rows[base:] {
			lo.rows[base+i].seq = seqs[i]
		}
		left, right, seqs = left[:0], right[:0], seqs[:0]
	}
	var lseq, rseq []int32
	for i, r := range u.rows {
		if r.kind != rowLine {
			if len(left)+len(right) > 0 {
				seqs = mergeSeqs(seqs, lseq, rseq)
				flush()
				lseq, rseq = lseq[:0], rseq[:0]
			}
			if r.kind == rowHunk || (r.kind == rowFile && len(m.diff.Files[r.file].Hunks) == 0) {
				lo.targets = append(lo.targets, int32(len(lo.rows)))
			}
			r.seq = int32(i)
			lo.rows = append(lo.rows, r)
			continue
		}
		file = r.file
		l := m.lines[r.l.line]
		switch l.Kind {
		case LineDel:
			left = append(left, r.l)
			lseq = append(lseq, int32(i))
		case LineAdd:
			right = append(right, r.l)
			rseq = append(rseq, int32(i))
		default: // context and notes: both sides (a note spans the row)
			if len(left)+len(right) > 0 {
				seqs = mergeSeqs(seqs, lseq, rseq)
				flush()
				lseq, rseq = lseq[:0], rseq[:0]
			}
			lo.rows = append(lo.rows, row{kind: rowLine, file: r.file, l: r.l, r: r.l, seq: int32(i)})
		}
	}
	if len(left)+len(right) > 0 {
		seqs = mergeSeqs(seqs, lseq, rseq)
		flush()
	}
	return lo
}

// mergeSeqs gives each paired row the smaller unified row of its two cells.
func mergeSeqs(dst, l, r []int32) []int32 {
	for i := 0; i < max(len(l), len(r)); i++ {
		s := int32(1<<31 - 1)
		if i < len(l) {
			s = min(s, l[i])
		}
		if i < len(r) {
			s = min(s, r[i])
		}
		dst = append(dst, s)
	}
	return dst
}

// rowAtSeq is the row of lo that shows unified row seq (the last row that
// starts at or before it).
func (lo *layout) rowAtSeq(seq int32) int {
	i := sort.Search(len(lo.rows), func(i int) bool { return lo.rows[i].seq > seq })
	return max(i-1, 0)
}

// targetAtOrBefore is the index of the last target at or above row, or -1.
func (lo *layout) targetAtOrBefore(row int) int {
	return sort.Search(len(lo.targets), func(i int) bool { return int(lo.targets[i]) > row }) - 1
}
