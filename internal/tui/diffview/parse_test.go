package diffview

import (
	"strings"
	"testing"
)

func TestParseGitForms(t *testing.T) {
	d, err := Parse(readFixture(t, "mixed.patch"))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		path, old  string
		status     FileStatus
		binary     bool
		hunks      int
		add, del   int
		crlf       bool
		modes      string
		similarity string
	}
	wants := []want{
		{path: "cmd/main.go", old: "cmd/main.go", hunks: 2, add: 4, del: 3},
		{path: "docs/new-name.md", old: "docs/old-name.md", status: StatusRenamed, hunks: 1, add: 1, del: 1, similarity: "68%"},
		{path: "logo.png", old: "logo.png", binary: true},
		{path: "notes.txt", old: "notes.txt", status: StatusDeleted, hunks: 1, del: 2},
		{path: "run.sh", old: "run.sh", modes: "100644>100755"},
		{path: "tail.txt", old: "tail.txt", hunks: 1, add: 1, del: 1},
		{path: "tool.py", old: "tool.py", status: StatusAdded, hunks: 1, add: 3},
		{path: "win.txt", old: "win.txt", hunks: 1, add: 1, del: 1, crlf: true},
	}
	if len(d.Files) != len(wants) {
		t.Fatalf("%d files, want %d", len(d.Files), len(wants))
	}
	for i, w := range wants {
		f := d.Files[i]
		modes := ""
		if f.OldMode != "" && f.NewMode != "" {
			modes = f.OldMode + ">" + f.NewMode
		}
		got := want{f.Path(), f.OldPath, f.Status, f.Binary, len(f.Hunks), f.Added, f.Deleted, f.CRLF, modes, f.Similarity}
		if got != w {
			t.Errorf("file %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
	tail := d.Files[5].Hunks[0].Lines
	if len(tail) != 2 || !tail[0].NoNewline || !tail[1].NoNewline {
		t.Errorf("tail.txt: %+v, want both lines without a newline", tail)
	}
	// Line numbers follow the hunk header.
	h := d.Files[0].Hunks[1]
	if l := h.Lines[3]; l.Kind != LineDel || l.Old != 23 || l.Text != "\ty := 2" {
		t.Errorf("cmd/main.go hunk 2 line 4: %+v", l)
	}
	if l := h.Lines[4]; l.Kind != LineAdd || l.New != 24 {
		t.Errorf("cmd/main.go hunk 2 line 5: %+v", l)
	}
	if files, add, del := d.Stats(); files != 8 || add != 10 || del != 8 {
		t.Errorf("Stats() = %d %d %d", files, add, del)
	}
}

func TestParseToolForms(t *testing.T) {
	tests := []struct {
		name, in     string
		path         string
		status       FileStatus
		add, del     int
		notes        []string
		lines        int
		lastNoteLike string
	}{
		{
			name: "write_file preview",
			in:   "src/a.go: +2 -1 lines\n@@ -1 +1 @@\n package a\n-var x = 1\n+var x = 2\n+var y = 3\n",
			path: "src/a.go", add: 2, del: 1, lines: 4,
		},
		{
			name: "write_file result",
			in:   "wrote plain.txt (1 lines, 4 bytes, CRLF line endings kept)\n+1 -1 lines\n@@ -1 +1 @@\n-old\n+new\n",
			path: "plain.txt", add: 1, del: 1, lines: 2,
			notes: []string{"wrote plain.txt (1 lines, 4 bytes, CRLF line endings kept)"},
		},
		{
			name: "edit_file result",
			in:   "edited b.py: replaced 2 occurrences, +1 -1 lines\n@@ -4 +4 @@\n-a = 1\n+a = 2\n",
			path: "b.py", add: 1, del: 1, lines: 2,
			notes: []string{"edited b.py: replaced 2 occurrences, +1 -1 lines"},
		},
		{
			name: "cut by the tool",
			in:   "big.txt: +120 -100 lines\n@@ -1 +1 @@\n same\n-old\n+new\n[... 217 more diff lines]\n",
			path: "big.txt", add: 120, del: 100, lines: 4, lastNoteLike: "[... 217 more diff lines]",
		},
		{
			name: "new file preview",
			in:   "new file pkg/new.py (2 lines)\nimport os\nprint(os.getcwd())\n",
			path: "pkg/new.py", status: StatusAdded, add: 2, lines: 2,
		},
		{
			name: "new file preview whose content looks like a diff",
			in:   "new file x.patch (2 lines)\n@@ -1 +1 @@\ndiff --git a/b b/b",
			path: "x.patch", status: StatusAdded, add: 2, lines: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Files) != 1 {
				t.Fatalf("%d files", len(d.Files))
			}
			f := d.Files[0]
			n := 0
			var last Line
			for _, h := range f.Hunks {
				n += len(h.Lines)
				last = h.Lines[len(h.Lines)-1]
			}
			if f.Path() != tc.path || f.Status != tc.status || f.Added != tc.add || f.Deleted != tc.del || n != tc.lines {
				t.Errorf("got %q %v +%d -%d, %d lines; want %q %v +%d -%d, %d lines", f.Path(), f.Status, f.Added, f.Deleted, n, tc.path, tc.status, tc.add, tc.del, tc.lines)
			}
			if strings.Join(f.Notes, "|") != strings.Join(tc.notes, "|") {
				t.Errorf("notes %q, want %q", f.Notes, tc.notes)
			}
			if tc.lastNoteLike != "" && (last.Kind != LineNote || last.Text != tc.lastNoteLike) {
				t.Errorf("last line %+v, want the note %q", last, tc.lastNoteLike)
			}
		})
	}
}

func TestParseNewFilePreviewWithoutNewline(t *testing.T) {
	d, err := Parse("new file a.txt (1 lines)\nno newline")
	if err != nil {
		t.Fatal(err)
	}
	if l := d.Files[0].Hunks[0].Lines[0]; !l.NoNewline || l.Text != "no newline" || l.New != 1 {
		t.Errorf("%+v", l)
	}
}

func TestParseCheckpointPatch(t *testing.T) {
	// The form `agent checkpoints --patch` prints: a note per call, then
	// go-git's patch, then a blank line.
	in := "# call c1 (step 1): aaaa..bbbb\n" +
		"diff --git a/x.txt b/x.txt\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391\n--- /dev/null\n+++ b/x.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n" +
		"\n# call c2 (step 2): bbbb..cccc\n" +
		"diff --git a/x.txt b/x.txt\nindex e69de29..f00 100644\n--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n\n" +
		"# call c3 (step 3): cccc..dddd\n\n"
	d, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 2 || d.Files[0].Status != StatusAdded || d.Files[1].Status != StatusModified {
		t.Fatalf("files: %+v", d.Files)
	}
	if d.Files[0].Notes[0] != "# call c1 (step 1): aaaa..bbbb" || d.Files[1].Notes[0] != "# call c2 (step 2): bbbb..cccc" {
		t.Errorf("notes: %q %q", d.Files[0].Notes, d.Files[1].Notes)
	}
	if len(d.Notes) != 1 || d.Notes[0] != "# call c3 (step 3): cccc..dddd" {
		t.Errorf("trailing notes %q", d.Notes)
	}
	if n := len(d.Files[1].Hunks[0].Lines); n != 3 {
		t.Errorf("the second hunk has %d lines, want 3", n)
	}
}

func TestParsePlainUnifiedSeveralFiles(t *testing.T) {
	in := "--- a.c\t2024-01-01 10:00:00\n+++ a.c\t2024-01-02 10:00:00\n@@ -1,2 +1,2 @@\n int x;\n-int y;\n+long y;\n" +
		"--- b.c\n+++ b.c\n@@ -1 +1 @@\n--- a line that starts with dashes\n+++ and one with pluses\n"
	d, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 2 || d.Files[0].Path() != "a.c" || d.Files[1].Path() != "b.c" {
		t.Fatalf("files: %+v", d.Files)
	}
	ls := d.Files[1].Hunks[0].Lines
	if len(ls) != 2 || ls[0].Text != "-- a line that starts with dashes" || ls[1].Kind != LineAdd {
		t.Errorf("b.c lines: %+v", ls)
	}
}

func TestParseGitBinaryPatchAndQuotedNames(t *testing.T) {
	in := "diff --git \"a/sp ace\\tname.bin\" \"b/sp ace\\tname.bin\"\nindex 1..2 100644\nGIT binary patch\nliteral 12\nTcmZ?l<rB0{WMp8N0{}V!\n\nliteral 0\nHcmV?d00001\n\n" +
		"diff --git a/with space.txt b/with space.txt\n--- a/with space.txt\n+++ b/with space.txt\n@@ -1 +1 @@\n-a\n+b\n"
	d, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Files) != 2 {
		t.Fatalf("%d files: %+v", len(d.Files), d.Files)
	}
	if f := d.Files[0]; !f.Binary || f.Path() != "sp ace\tname.bin" || len(f.Hunks) != 0 {
		t.Errorf("binary file: %+v", f)
	}
	if f := d.Files[1]; f.Path() != "with space.txt" || f.Added != 1 {
		t.Errorf("second file: %+v", f)
	}
}

func TestParseMixedLineEndings(t *testing.T) {
	d, err := Parse("--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+two\n")
	if err != nil {
		t.Fatal(err)
	}
	if f := d.Files[0]; f.CRLF || !f.MixedEOL {
		t.Errorf("CRLF %v MixedEOL %v", f.CRLF, f.MixedEOL)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"--- a\n+++ b\n@@ -x +1 @@\n", `line 3: "@@ -x +1 @@" is not a hunk header`},
		{"diff --cc f\n@@@ -1,2 -1,2 +1,3 @@@\n", "combined (merge) diff"},
	} {
		_, err := Parse(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}

func TestParseTruncatedHunk(t *testing.T) {
	d, err := Parse("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n-b\n")
	if err != nil {
		t.Fatal(err)
	}
	ls := d.Files[0].Hunks[0].Lines
	if last := ls[len(ls)-1]; last.Kind != LineNote || !strings.Contains(last.Text, "ends before this hunk does") {
		t.Errorf("a cut hunk is not marked: %+v", ls)
	}
}

func TestComputeFromTexts(t *testing.T) {
	before := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n"
	after := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\nextra"
	d := Compute(Texts{Path: "f.txt", Before: before, After: after})
	f := d.Files[0]
	if len(f.Hunks) != 2 {
		t.Fatalf("%d hunks: %+v", len(f.Hunks), f.Hunks)
	}
	if h := f.Hunks[0].Header; h != "@@ -1,5 +1,5 @@" {
		t.Errorf("first header %q", h)
	}
	if h := f.Hunks[1].Header; h != "@@ -12,3 +12,4 @@" {
		t.Errorf("second header %q", h)
	}
	last := f.Hunks[1].Lines[len(f.Hunks[1].Lines)-1]
	if last.Kind != LineAdd || last.Text != "extra" || !last.NoNewline || last.New != 15 {
		t.Errorf("last line %+v", last)
	}
	if f.Added != 2 || f.Deleted != 1 {
		t.Errorf("+%d -%d", f.Added, f.Deleted)
	}

	for _, tc := range []struct {
		name string
		in   Texts
		want string
	}{
		{"created", Texts{Path: "n.go", After: "package n\n", Created: true}, "n.go  new file · +1 -0"},
		{"deleted", Texts{Path: "n.go", Before: "package n\n", Deleted: true}, "n.go  deleted · +0 -1"},
		{"renamed", Texts{Path: "new.go", OldPath: "old.go", Before: "x\n", After: "x\n"}, "new.go  renamed from old.go"},
		{"identical", Texts{Path: "same.go", Before: "x\n", After: "x\n"}, "same.go  no changes"},
		{"binary", Texts{Path: "b.bin", Before: "a\x00b", After: "a\x00c"}, "b.bin  binary, not shown"},
	} {
		m := NewFromTexts(tc.in, Options{})
		m.SetSize(80, 0)
		if got := lines(m)[0]; got != tc.want {
			t.Errorf("%s: header %q, want %q", tc.name, got, tc.want)
		}
	}
}
