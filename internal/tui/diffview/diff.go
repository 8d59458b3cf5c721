// Package diffview owns the TUI's diff view: a component that shows a
// unified patch (or the difference between two texts it computes itself)
// in a unified or a side-by-side layout, with line numbers, hunk headers,
// hunk jumps, scrolling, a compact form for tool cards and a fullscreen
// flag its parent lays out. Code lines are highlighted with chroma by file
// extension on top of the theme's add and delete colours, and the words
// that changed within a replaced line a deeper shade (words.go); only the visible
// window is rendered and every rendered row is cached per width and layout,
// so a frame costs the same in a 10,000-line diff as in a 2,000-line one,
// and a frame spends at most a few milliseconds in chroma (HighlightMsg
// finishes the rest).
//
// It reads git's patches (go-git's, as internal/checkpoint's Store.Patch
// prints them, several files in one), plain "diff -u" output, and the forms
// internal/tools' write_file and edit_file print ("path: +N -M lines" and
// "@@ -a +b @@" hunks without counts, "new file path (N lines)" and the
// content, "[... N more diff lines]"). Everything it shows is made safe for
// a terminal first: escape sequences and other control characters appear
// as Control Pictures (␛), invalid UTF-8 as "�", bidirectional overrides
// and zero-width characters as "<U+202E>", tabs as spaces; lines are cut
// with "…" and wide characters are never split, so no line of a view is
// wider than its width.
//
// Three uses, from the root model. One Renderer serves the program (it
// shares the lexer cache and keeps recent cards, so calling it on every
// frame is cheap; SetTheme when the background is known):
//
//	r := diffview.NewRenderer(diffview.Options{Theme: th})
//
// A tool card, a small non-interactive diff of an edit. The transcript's
// card folds the rows itself, so it takes CardDiff (transcript.DiffFunc);
// Card folds after maxLines rows with "… N more lines"; CardTexts computes
// the diff from the old and new content:
//
//	transcript.New(transcript.Options{Theme: th, Diff: r.CardDiff})
//	s := r.Card(path, toolDiff, width, 12)
//	s := r.CardTexts(diffview.Texts{Path: p, Before: old, After: new}, width, 12)
//
// The approval prompt (and the checkpoint drawer as it is), which scroll a
// body themselves: Render (approve.DiffRenderer, drawer.DiffRenderer)
// returns every row at the natural height:
//
//	approve.New(approve.Options{Theme: th, RenderDiff: r.Render})
//
// The checkpoint preview, interactive: a Model sized by its parent and fed
// its messages (keys t split/unified, f fullscreen, ] and [ hunks,
// up/down/j/k, pgup/pgdown, ctrl+u/ctrl+d, home/end/g/G; the mouse wheel;
// HighlightMsg), whose View is exactly the size set. The f key only sends
// FullscreenMsg: the parent lays the view out again and calls SetSize.
//
//	v := diffview.New(patch, diffview.Options{Theme: th, ID: "checkpoint"})
//	v.SetSize(width, height)
//	cmd := v.Init()        // finishes highlighting the first screen
//	v, cmd = v.Update(msg) // tea.KeyPressMsg, tea.MouseWheelMsg, diffview.HighlightMsg
//	s := v.View()
//
// It parses and renders plain strings it is given (the root model passes
// text that has already been redacted); it must not import internal/agent
// or internal/app, read files, log or persist anything, or hard-code a
// colour (colours come from internal/tui/theme).
package diffview

// LineKind says what a line of a hunk is.
type LineKind uint8

// Kinds of hunk lines.
const (
	LineContext LineKind = iota // unchanged, on both sides
	LineAdd                     // only in the new text
	LineDel                     // only in the old text
	LineNote                    // not code: a note in the diff, such as "[... 12 more diff lines]"
)

// FileStatus says what happened to a file.
type FileStatus uint8

// File statuses.
const (
	StatusModified FileStatus = iota
	StatusAdded
	StatusDeleted
	StatusRenamed
	StatusCopied
)

func (s FileStatus) String() string {
	switch s {
	case StatusAdded:
		return "new file"
	case StatusDeleted:
		return "deleted"
	case StatusRenamed:
		return "renamed"
	case StatusCopied:
		return "copied"
	}
	return "modified"
}

// Line is one line of a hunk. Old and New are 1-based line numbers in the
// old and new text (0 where the line is not on that side).
type Line struct {
	Kind      LineKind
	Old, New  int
	Text      string // without the leading marker and the "\n"; may end in "\r"
	NoNewline bool   // "\ No newline at end of file" follows this line
}

// Hunk is one "@@" block of a file's diff.
type Hunk struct {
	Header             string // the "@@ -a,b +c,d @@ section" line as given
	OldStart, OldCount int
	NewStart, NewCount int
	Lines              []Line
}

// File is the diff of one file.
type File struct {
	OldPath, NewPath string
	Status           FileStatus
	Binary           bool
	OldMode, NewMode string // set when the mode changed (or the file was added or deleted)
	Similarity       string // "92%" for a rename or copy, when given
	Notes            []string
	Hunks            []Hunk
	Added, Deleted   int  // changed lines (from the tool's own count when it gave one)
	CRLF             bool // every line ends in CRLF (the "\r" is not shown)
	MixedEOL         bool // some lines end in CRLF and some do not (a "␍" marks the CRLF ones)
}

// Path is the name a person knows the file by: the new path, or the old
// one for a deleted file.
func (f *File) Path() string {
	if f.NewPath == "" || f.Status == StatusDeleted {
		return f.OldPath
	}
	return f.NewPath
}

// Diff is a parsed patch: its files in order, and notes that come after the
// last file (notes before a file are in that file's Notes).
type Diff struct {
	Files []File
	Notes []string
}

// Stats returns the number of files and of added and deleted lines.
func (d *Diff) Stats() (files, added, deleted int) {
	for i := range d.Files {
		added += d.Files[i].Added
		deleted += d.Files[i].Deleted
	}
	return len(d.Files), added, deleted
}

// finish counts changed lines (unless the source gave the counts) and
// classifies line endings, once parsing or computing is done.
func (f *File) finish(counted bool) {
	crlf, lf := 0, 0
	add, del := 0, 0
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case LineNote:
				continue
			case LineAdd:
				add++
			case LineDel:
				del++
			}
			if len(l.Text) > 0 && l.Text[len(l.Text)-1] == '\r' {
				crlf++
			} else if !l.NoNewline {
				lf++
			}
		}
	}
	if !counted {
		f.Added, f.Deleted = add, del
	}
	f.CRLF = crlf > 0 && lf == 0
	f.MixedEOL = crlf > 0 && lf > 0
}
