package diffview

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/checkpoint"
	"agent/internal/tools"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// numbered is lines "line 1" ... "line n", each ending in "\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestCheckpointPatch reads the patch the checkpoint preview shows, made by
// the real shadow repository (go-git) between two snapshots of a real
// workspace: a changed file with two hunks, a new, a deleted, a binary,
// a CRLF file and a file whose last line loses its newline.
func TestCheckpointPatch(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	before := numbered(40)
	writeFiles(t, ws, map[string]string{
		"src/main.go": before,
		"gone.txt":    "bye\n",
		"logo.bin":    "\x00\x01\x02",
		"win.txt":     "a\r\nb\r\n",
		"tail.txt":    "x\ny\n",
	})
	store, err := checkpoint.Open(t.TempDir(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	a, err := store.Snapshot(ctx, checkpoint.Meta{RunID: "r1", Kind: checkpoint.KindBefore})
	if err != nil {
		t.Fatal(err)
	}
	after := strings.Replace(strings.Replace(before, "line 5\n", "line five\n", 1), "line 30\n", "line 30\nline 30.5\n", 1)
	writeFiles(t, ws, map[string]string{
		"src/main.go":  after,
		"new/added.py": "print('hi')\n",
		"logo.bin":     "\x00\x01\x03",
		"win.txt":      "a\r\nB\r\n",
		"tail.txt":     "x\ny",
	})
	if err := os.Remove(filepath.Join(ws, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	b, err := store.Snapshot(ctx, checkpoint.Meta{RunID: "r1", Kind: checkpoint.KindAfter, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	patch, err := store.Patch(ctx, a.ID, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(patch)
	if err != nil {
		t.Fatalf("%v\n%s", err, patch)
	}
	type want struct {
		status   FileStatus
		binary   bool
		hunks    int
		add, del int
		crlf     bool
	}
	wants := map[string]want{
		"src/main.go":  {hunks: 2, add: 2, del: 1},
		"new/added.py": {status: StatusAdded, hunks: 1, add: 1},
		"gone.txt":     {status: StatusDeleted, hunks: 1, del: 1},
		"logo.bin":     {binary: true},
		"win.txt":      {hunks: 1, add: 1, del: 1, crlf: true},
		"tail.txt":     {hunks: 1, add: 1, del: 1},
	}
	if len(d.Files) != len(wants) {
		t.Fatalf("%d files, want %d:\n%s", len(d.Files), len(wants), patch)
	}
	for _, f := range d.Files {
		w, ok := wants[f.Path()]
		got := want{f.Status, f.Binary, len(f.Hunks), f.Added, f.Deleted, f.CRLF}
		if !ok || got != w {
			t.Errorf("%s: %+v, want %+v", f.Path(), got, w)
		}
	}
	// What a person sees: the numbers of the changed lines, the markers,
	// the missing newline.
	m := New(patch, Options{})
	m.SetSize(100, 0)
	s := screen(m.View())
	for _, want := range []string{" 5    - line 5\n", "    5 + line five\n", "   31 + line 30.5\n", "logo.bin  binary, not shown", "win.txt  +1 -1 · CRLF", `\ No newline at end of file`, "new/added.py  new file · +1 -0", "gone.txt  deleted · +0 -1"} {
		if !strings.Contains(s, want) {
			t.Errorf("the preview lacks %q:\n%s", want, s)
		}
	}
}

// TestToolOutputs reads what the real file tools print: the preview the
// approval prompt shows, and the results the tool cards show (the root
// drops the result's first line, which it shows in the card's header).
func TestToolOutputs(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"pkg/a.go": "package a\n\nvar x = 1\n\nfunc f() {}\n"})
	env := &tools.Env{Workspace: ws}
	args := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	r := NewRenderer(Options{})

	preview, err := tools.WriteFile{}.Preview(ctx, env, args(map[string]string{"path": "pkg/a.go", "content": "package a\n\nvar x = 2\n\nfunc f() {}\n"}))
	if err != nil {
		t.Fatal(err)
	}
	ls := screenLines(r.Render(preview, 60, 20))
	if ls[0] != "pkg/a.go  +1 -1" || !strings.Contains(strings.Join(ls, "\n"), "3   - var x = 1\n  3 + var x = 2") {
		t.Errorf("write_file's preview %q renders as:\n%s", preview, strings.Join(ls, "\n"))
	}

	created, err := tools.WriteFile{}.Preview(ctx, env, args(map[string]string{"path": "pkg/b.go", "content": "package b\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if ls := screenLines(r.Render(created, 60, 20)); ls[0] != "pkg/b.go  new file · +1 -0" || ls[2] != "  1 + package b" {
		t.Errorf("a new file's preview %q renders as %q", created, ls)
	}

	res, err := tools.EditFile{}.Run(ctx, env, args(map[string]string{"path": "pkg/a.go", "old_string": "func f() {}", "new_string": "func f() {\n\tprintln(x)\n}"}))
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(res.Output, "\n")
	if !ok {
		t.Fatalf("edit_file printed one line: %q", res.Output)
	}
	card := r.Card("pkg/a.go", body, 50, 4)
	assertWidths(t, card, 50)
	ls = screenLines(card)
	if len(ls) != 5 || ls[0] != "pkg/a.go  +3 -1" || !strings.HasPrefix(ls[1], "@@ -") || !strings.HasPrefix(ls[4], "… ") {
		t.Errorf("edit_file's result %q makes the card:\n%s", res.Output, strings.Join(ls, "\n"))
	}
	if ls := screenLines(r.Card("", res.Output, 80, 0)); ls[0] != "edited pkg/a.go: replaced 1 occurrence, +3 -1 lines" || ls[1] != "pkg/a.go  +3 -1" {
		t.Errorf("the whole result renders as:\n%s", strings.Join(ls, "\n"))
	}
}
