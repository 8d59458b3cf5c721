package tools

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// noTempFiles fails when a write left a temporary file behind.
func noTempFiles(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestWriteFile(t *testing.T) {
	env, ws := newWorkspace(t)
	writeTree(t, ws, map[string]string{"crlf.txt": "a\r\nb\r\n", "plain.txt": "old\n", "script.sh": "#!/bin/sh\necho old\n"})
	if err := os.Chmod(filepath.Join(ws, "script.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, content, want, output string
		mode                              fs.FileMode
	}{
		{"new file in new dirs", "deep/er/new.txt", "x\ny\n", "x\ny\n", "created deep/er/new.txt (2 lines, 4 bytes)", 0o644},
		{"replace", "plain.txt", "new\n", "new\n", "wrote plain.txt (1 lines, 4 bytes)\n+1 -1 lines\n@@ -1 +1 @@\n-old\n+new\n", 0o644},
		{"keeps CRLF", "crlf.txt", "x\ny\r\nz\n", "x\r\ny\r\nz\r\n", "CRLF line endings kept", 0o644},
		{"keeps mode", "script.sh", "#!/bin/sh\necho new\n", "#!/bin/sh\necho new\n", "-echo old\n+echo new", 0o750},
		{"absolute inside", filepath.Join(ws, "abs.txt"), "abs", "abs", "created abs.txt", 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustCall(t, env, "write_file", map[string]any{"path": tt.path, "content": tt.content})
			abs, rel, err := Resolve(ws, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := readString(t, abs); got != tt.want {
				t.Errorf("content %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(res.Changed, []string{rel}) {
				t.Errorf("Changed = %v, want [%s]", res.Changed, rel)
			}
			if !strings.Contains(res.Output, tt.output) {
				t.Errorf("output %q lacks %q", res.Output, tt.output)
			}
			fi, err := os.Stat(abs)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.mode {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), tt.mode)
			}
		})
	}
	res := mustCall(t, env, "write_file", map[string]any{"path": "plain.txt", "content": "new\n"})
	if res.Changed != nil || !strings.Contains(res.Output, "unchanged") {
		t.Errorf("identical write: %+v", res)
	}
	for _, p := range []string{"deep", "plain.txt/child"} {
		if res, err := call(t, env, "write_file", map[string]any{"path": p, "content": "x"}); err == nil || !res.IsError {
			t.Errorf("write_file(%s) succeeded: %q", p, res.Output)
		}
	}
	noTempFiles(t, ws)
}

func TestWriteFileThroughInnerSymlink(t *testing.T) {
	env, ws := newWorkspace(t)
	writeTree(t, ws, map[string]string{"real.txt": "old\n"})
	if err := os.Symlink("real.txt", filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	res := mustCall(t, env, "write_file", map[string]any{"path": "link.txt", "content": "new\n"})
	if got := readString(t, filepath.Join(ws, "real.txt")); got != "new\n" {
		t.Errorf("target content %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(ws, "link.txt")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v %v", fi, err)
	}
	if !reflect.DeepEqual(res.Changed, []string{"real.txt"}) {
		t.Errorf("Changed = %v", res.Changed)
	}
}

func TestEditFile(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		args    map[string]any
		want    string // file content after; "" with wantErr: unchanged
		wantErr string
	}{
		{"unique", "a\nb\nc\n", map[string]any{"old_string": "b", "new_string": "B"}, "a\nB\nc\n", ""},
		{"multi-line", "func f() {\n\treturn 1\n}\n", map[string]any{"old_string": "\treturn 1\n}", "new_string": "\treturn 2\n}"},
			"func f() {\n\treturn 2\n}\n", ""},
		{"delete", "keep\ndrop\nkeep2\n", map[string]any{"old_string": "drop\n", "new_string": ""}, "keep\nkeep2\n", ""},
		{"not found", "a\nb\n", map[string]any{"old_string": "zzz", "new_string": "y"}, "",
			"edit_file: old_string not found in f.txt; read_file shows"},
		{"not found, whitespace hint", "func f() {\n\treturn 1\n}\n", map[string]any{"old_string": "    return 1", "new_string": "x"}, "",
			"old_string not found in f.txt; its first line appears at line 2"},
		{"several", "x\nx\nx\n", map[string]any{"old_string": "x", "new_string": "y"}, "",
			"edit_file: old_string found 3 times in f.txt; add context to make it unique or set replace_all"},
		{"replace_all", "x\nx\nx\n", map[string]any{"old_string": "x", "new_string": "y", "replace_all": true}, "y\ny\ny\n", ""},
		{"identical", "x\n", map[string]any{"old_string": "x", "new_string": "x"}, "", "old_string and new_string are identical"},
		{"empty old_string on existing file", "x\n", map[string]any{"old_string": "", "new_string": "y"}, "", "old_string is empty but f.txt already exists"},
		{"CRLF, model sends LF", "a\r\nb\r\nc\r\n", map[string]any{"old_string": "a\nb\n", "new_string": "x\ny\nz\n"}, "x\r\ny\r\nz\r\nc\r\n", ""},
		{"CRLF, model sends CRLF", "a\r\nb\r\n", map[string]any{"old_string": "b\r\n", "new_string": "c\r\n"}, "a\r\nc\r\n", ""},
		{"CRLF, single line", "a\r\nb\r\n", map[string]any{"old_string": "b", "new_string": "B1\nB2"}, "a\r\nB1\r\nB2\r\n", ""},
		{"binary", "a\x00b", map[string]any{"old_string": "a", "new_string": "c"}, "", "binary file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, ws := newWorkspace(t)
			p := filepath.Join(ws, "f.txt")
			if err := os.WriteFile(p, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			args := map[string]any{"path": "f.txt"}
			for k, v := range tt.args {
				args[k] = v
			}
			res, err := call(t, env, "edit_file", args)
			if tt.wantErr != "" {
				if err == nil || !res.IsError || !strings.HasPrefix(strings.TrimPrefix(res.Output, "edit_file: "), strings.TrimPrefix(tt.wantErr, "edit_file: ")) &&
					!strings.Contains(res.Output, tt.wantErr) {
					t.Errorf("got %q, %v; want error %q", res.Output, err, tt.wantErr)
				}
				if got := readString(t, p); got != tt.file {
					t.Errorf("failed edit changed the file to %q", got)
				}
				return
			}
			if err != nil || res.IsError {
				t.Fatalf("edit failed: %v %q", err, res.Output)
			}
			if got := readString(t, p); got != tt.want {
				t.Errorf("content %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(res.Changed, []string{"f.txt"}) {
				t.Errorf("Changed = %v", res.Changed)
			}
			if !strings.HasPrefix(res.Output, "edited f.txt: replaced") || !strings.Contains(res.Output, "@@ -") {
				t.Errorf("output %q", res.Output)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			noTempFiles(t, ws)
		})
	}
}

func TestEditFileCreatesAndMissing(t *testing.T) {
	env, ws := newWorkspace(t)
	res := mustCall(t, env, "edit_file", map[string]any{"path": "new/file.go", "old_string": "", "new_string": "package x\n"})
	if got := readString(t, filepath.Join(ws, "new", "file.go")); got != "package x\n" || !reflect.DeepEqual(res.Changed, []string{"new/file.go"}) {
		t.Errorf("create: %q %+v", got, res)
	}
	res, err := call(t, env, "edit_file", map[string]any{"path": "nope.go", "old_string": "a", "new_string": "b"})
	if err == nil || !strings.Contains(res.Output, "nope.go: file not found") {
		t.Errorf("missing file: %q %v", res.Output, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "nope.go")); err == nil {
		t.Error("a failed edit created the file")
	}
}

func TestDiffSummaryIsSmall(t *testing.T) {
	var before, after strings.Builder
	for i := 0; i < 500; i++ {
		before.WriteString("same line\n")
		after.WriteString("same line\n")
		if i%5 == 0 {
			before.WriteString("old\n")
			after.WriteString("new\n")
		}
	}
	out := diffSummary(before.String(), after.String())
	if n := len(lines(out)); n > diffMaxLines+3 || n < diffMaxLines {
		t.Errorf("diff has %d lines", n)
	}
	if !strings.HasPrefix(out, "+100 -100 lines\n@@ -1,4 +1,4 @@\n same line\n-old\n+new\n same line\n same line\n@@ -6,5 +6,5 @@\n") || !strings.Contains(out, "more diff lines]") {
		t.Errorf("diff:\n%s", out)
	}
}

func TestWritesRefuseRedactionPlaceholders(t *testing.T) {
	ws := t.TempDir()
	env := &Env{Workspace: ws}
	if err := os.WriteFile(filepath.Join(ws, "cfg.env"), []byte("A=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ph := "[REDACTED:aws-secret-key:3f9a1c07]"
	for _, c := range []struct{ tool, args string }{
		{"write_file", `{"path":"new.env","content":"KEY=` + ph + `\n"}`},
		{"edit_file", `{"path":"cfg.env","old_string":"A=1","new_string":"A=` + ph + `"}`},
	} {
		res, err := Default().Call(context.Background(), env, c.tool, c.args)
		if err == nil || !res.IsError || !strings.Contains(res.Output, "placeholder") {
			t.Errorf("%s with a placeholder: err %v, output %q; want a refusal", c.tool, err, res.Output)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "new.env")); err == nil {
		t.Error("new.env was written")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "cfg.env")); string(b) != "A=1\n" {
		t.Errorf("cfg.env changed: %q", b)
	}
}
