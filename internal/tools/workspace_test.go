package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// escapeFixture is a workspace with every kind of way out, next to an
// "outside" directory that no tool may change.
func escapeFixture(t *testing.T) (env *Env, ws, outside string) {
	t.Helper()
	env, ws = newWorkspace(t)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, outside, map[string]string{"secret.txt": "top secret\n", "dir/inner.txt": "inner\n"})
	writeTree(t, ws, map[string]string{"a.txt": "hello\n", "sub/b.txt": "b\n", ".git/config": "[core]\n"})
	links := map[string]string{
		"link_file":    filepath.Join(outside, "secret.txt"),
		"link_dir":     outside,
		"dangling":     filepath.Join(outside, "nope.txt"),
		"dangling_dir": filepath.Join(outside, "nodir", "x"),
		"rel_up":       "../" + filepath.Base(outside) + "/secret.txt",
		"sub/up_link":  "../../",
		"inner_link":   "sub",
		"inner_new":    "sub/new.txt",
		"git_link":     ".git",
		"loop":         "loop",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	return env, ws, outside
}

func TestResolve(t *testing.T) {
	_, ws, outside := escapeFixture(t)
	ok := []struct{ in, abs, rel string }{
		{"", ws, "."},
		{".", ws, "."},
		{"a.txt", filepath.Join(ws, "a.txt"), "a.txt"},
		{"./sub/../a.txt", filepath.Join(ws, "a.txt"), "a.txt"},
		{filepath.Join(ws, "sub", "b.txt"), filepath.Join(ws, "sub", "b.txt"), "sub/b.txt"},
		{"new/dir/file.txt", filepath.Join(ws, "new", "dir", "file.txt"), "new/dir/file.txt"},
		{"new/../a.txt", filepath.Join(ws, "a.txt"), "a.txt"},
		{"inner_link/b.txt", filepath.Join(ws, "sub", "b.txt"), "sub/b.txt"},
		{"inner_link/new/x", filepath.Join(ws, "sub", "new", "x"), "sub/new/x"},
		{"inner_new", filepath.Join(ws, "sub", "new.txt"), "sub/new.txt"},
	}
	for _, tt := range ok {
		abs, rel, err := Resolve(ws, tt.in)
		if err != nil || abs != tt.abs || rel != tt.rel {
			t.Errorf("Resolve(%q) = %q, %q, %v; want %q, %q", tt.in, abs, rel, err, tt.abs, tt.rel)
		}
	}

	refused := []string{
		"..",
		"../x.txt",
		"sub/../../x.txt",
		"/etc/passwd",
		filepath.Join(outside, "secret.txt"),
		ws + "-other/x", // a sibling sharing the workspace's name as prefix
		"link_file",
		"link_dir",
		"link_dir/secret.txt",
		"link_dir/new/deep.txt",
		"dangling",
		"dangling_dir",
		"rel_up",
		"sub/up_link",
		"sub/up_link/x",
	}
	for _, in := range refused {
		_, _, err := Resolve(ws, in)
		var pe *PathError
		if !errors.As(err, &pe) {
			t.Errorf("Resolve(%q): err = %v, want *PathError", in, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "resolves outside the workspace") || !strings.Contains(msg, "use a path relative to the workspace") || !strings.Contains(msg, in) {
			t.Errorf("Resolve(%q): unclear message %q", in, msg)
		}
	}

	if _, _, err := Resolve(ws, "loop"); err == nil || !strings.Contains(err.Error(), "too many levels of symbolic links") {
		t.Errorf("Resolve(loop): %v", err)
	}
}

func TestResolveSymlinkedWorkspace(t *testing.T) {
	_, real := newWorkspace(t)
	writeTree(t, real, map[string]string{"a.txt": "x"})
	link := filepath.Join(t.TempDir(), "ws-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"a.txt", filepath.Join(link, "a.txt"), filepath.Join(real, "a.txt")} {
		abs, rel, err := Resolve(link, in)
		if err != nil || abs != filepath.Join(real, "a.txt") || rel != "a.txt" {
			t.Errorf("Resolve(link, %q) = %q, %q, %v", in, abs, rel, err)
		}
	}
}

func TestResolveWriteRefusesGitDir(t *testing.T) {
	_, ws, _ := escapeFixture(t)
	for _, in := range []string{".git/config", ".git", "./.git/hooks/pre-commit", "sub/.git/config", "git_link/config", ".GIT/config"} {
		_, _, err := ResolveWrite(ws, in)
		var pe *PathError
		if !errors.As(err, &pe) || pe.Reason != "git" || !strings.Contains(err.Error(), ".git") {
			t.Errorf("ResolveWrite(%q): %v, want a .git refusal", in, err)
		}
	}
	if _, rel, err := ResolveWrite(ws, "sub/.gitignore"); err != nil || rel != "sub/.gitignore" {
		t.Errorf("ResolveWrite(sub/.gitignore) = %q, %v", rel, err)
	}
}

// TestToolsStayInside drives every path-taking tool at every way out and
// checks that each call is refused and nothing outside changed.
func TestToolsStayInside(t *testing.T) {
	env, ws, outside := escapeFixture(t)
	before := snapshot(t, outside)
	gitBefore := snapshot(t, filepath.Join(ws, ".git"))

	escapes := []string{"../x.txt", "sub/../../x.txt", filepath.Join(outside, "secret.txt"), "link_file",
		"link_dir/secret.txt", "link_dir/new/file.txt", "dangling", "dangling_dir", "rel_up", "sub/up_link/x"}
	type tcall struct {
		tool string
		args map[string]any
	}
	var calls []tcall
	for _, p := range escapes {
		calls = append(calls,
			tcall{"read_file", map[string]any{"path": p}},
			tcall{"write_file", map[string]any{"path": p, "content": "pwned\n"}},
			tcall{"edit_file", map[string]any{"path": p, "old_string": "top secret", "new_string": "pwned"}},
			tcall{"edit_file", map[string]any{"path": p, "old_string": "", "new_string": "pwned"}},
			tcall{"grep", map[string]any{"pattern": "secret", "path": p}},
		)
	}
	for _, p := range []string{"..", "link_dir", outside, "sub/up_link"} {
		calls = append(calls,
			tcall{"list_dir", map[string]any{"path": p}},
			tcall{"grep", map[string]any{"pattern": "secret", "path": p}},
			tcall{"glob", map[string]any{"pattern": p + "/*"}},
			tcall{"glob", map[string]any{"pattern": p + "/**/*.txt"}},
		)
	}
	for _, p := range []string{".git/config", "git_link/config", ".git/hooks/x"} {
		calls = append(calls,
			tcall{"write_file", map[string]any{"path": p, "content": "pwned\n"}},
			tcall{"edit_file", map[string]any{"path": p, "old_string": "[core]", "new_string": "pwned"}},
		)
	}
	for _, c := range calls {
		res, err := call(t, env, c.tool, c.args)
		if err == nil || !res.IsError {
			t.Errorf("%s(%v) was not refused: %q", c.tool, c.args, res.Output)
			continue
		}
		if strings.Contains(res.Output, "top secret") || strings.Contains(res.Output, "inner") {
			t.Errorf("%s(%v) leaked outside content: %q", c.tool, c.args, res.Output)
		}
		if !strings.Contains(res.Output, "outside the workspace") && !strings.Contains(res.Output, ".git") {
			t.Errorf("%s(%v): the error does not say why: %q", c.tool, c.args, res.Output)
		}
	}
	sameSnapshot(t, before, snapshot(t, outside))
	sameSnapshot(t, gitBefore, snapshot(t, filepath.Join(ws, ".git")))

	// Walking tools never follow a link out, nor list outside content.
	for _, c := range []tcall{
		{"grep", map[string]any{"pattern": "secret|inner"}},
		{"glob", map[string]any{"pattern": "**/*"}},
		{"list_dir", map[string]any{}},
	} {
		res := mustCall(t, env, c.tool, c.args)
		if strings.Contains(res.Output, "top secret") || strings.Contains(res.Output, "inner.txt") || strings.Contains(res.Output, "secret.txt") {
			t.Errorf("%s(%v) reached outside: %q", c.tool, c.args, res.Output)
		}
	}
}
