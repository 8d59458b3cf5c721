package gitignore_test

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"agent/internal/checkpoint"
	"agent/internal/repomap"
	"agent/internal/tools"
)

// TestConsumersAgree runs every case of the table through the three users of
// the engine — the file tools (grep, glob, list_dir), the repo map and a
// checkpoint snapshot — and checks that each hides exactly the case's
// hidden paths (the map, which lists only source files outside hidden and
// dependency directories, the Go files among the visible ones).
func TestConsumersAgree(t *testing.T) {
	for _, c := range ignoreCases {
		t.Run(c.name, func(t *testing.T) {
			ws := makeRepo(t, c)
			// Every file holds a Go declaration, so that grep finds it and the
			// map has a symbol to show for each Go file.
			var want, wantGo []string
			for _, f := range files(t, ws) {
				if path.Base(f) == ".gitignore" {
					continue
				}
				if err := os.WriteFile(filepath.Join(ws, filepath.FromSlash(f)), []byte("package p\n\nfunc F() {}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if slices.Contains(c.hidden, f) {
					continue
				}
				want = append(want, f)
				if strings.HasSuffix(f, ".go") && !strings.HasPrefix(f, "vendor/") {
					wantGo = append(wantGo, f)
				}
			}
			env := &tools.Env{Workspace: ws}
			check := func(who string, got []string) {
				t.Helper()
				got = slices.DeleteFunc(slices.Clone(got), func(f string) bool { return path.Base(f) == ".gitignore" })
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s shows\n  %v\nwant\n  %v", who, got, want)
				}
			}
			check("grep", grepFiles(t, env))
			check("glob", lines(t, env, "glob", map[string]any{"pattern": "**/*"}))
			check("list_dir", listAll(t, env, "."))
			check("checkpoint", snapshotFiles(t, ws))
			if got := mapFiles(t, ws); !slices.Equal(got, wantGo) {
				t.Errorf("repo map lists\n  %v\nwant\n  %v", got, wantGo)
			}
		})
	}
}

func run(t *testing.T, env *tools.Env, tool string, args map[string]any) string {
	t.Helper()
	b, _ := json.Marshal(args)
	res, err := tools.Default().Call(context.Background(), env, tool, string(b))
	if err != nil || res.IsError {
		t.Fatalf("%s(%s): %v %s", tool, b, err, res.Output)
	}
	return res.Output
}

func lines(t *testing.T, env *tools.Env, tool string, args map[string]any) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(run(t, env, tool, args)), "\n") {
		if l != "" && !strings.HasPrefix(l, "no files match") {
			out = append(out, l)
		}
	}
	return out
}

func grepFiles(t *testing.T, env *tools.Env) []string {
	t.Helper()
	var out []string
	for _, l := range lines(t, env, "grep", map[string]any{"pattern": "^package p$"}) {
		f, _, ok := strings.Cut(l, ":1:")
		if !ok {
			t.Fatalf("grep line %q", l)
		}
		out = append(out, f)
	}
	return out
}

// listAll lists dir and, recursively, every directory list_dir shows.
func listAll(t *testing.T, env *tools.Env, dir string) []string {
	t.Helper()
	var out []string
	for _, l := range lines(t, env, "list_dir", map[string]any{"path": dir})[1:] {
		if strings.HasPrefix(l, "(") || strings.HasPrefix(l, "[") {
			continue // "(no entries)", "(N ignored entries not shown)"
		}
		name, _, _ := strings.Cut(l, "  ") // "name  12 B"
		child := path.Join(dir, strings.TrimSuffix(name, "/"))
		if strings.HasSuffix(name, "/") {
			out = append(out, listAll(t, env, child)...)
		} else {
			out = append(out, child)
		}
	}
	return out
}

func snapshotFiles(t *testing.T, ws string) []string {
	t.Helper()
	s, err := checkpoint.Open(filepath.Join(t.TempDir(), "home"), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.Snapshot(context.Background(), checkpoint.Meta{RunID: "r", Kind: checkpoint.KindBefore})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Settle(); err != nil { // git (go-git here) reads what the object log holds once it is folded
		t.Fatal(err)
	}
	repo, err := git.PlainOpen(s.GitDir())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.TreeObject(plumbing.NewHash(snap.Tree))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	err = tree.Files().ForEach(func(f *object.File) error {
		out = append(out, f.Name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mapFiles(t *testing.T, ws string) []string {
	t.Helper()
	m, err := repomap.Build(context.Background(), repomap.Options{Root: ws, Tokens: 100000})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range m.Files {
		out = append(out, f.Path)
	}
	slices.Sort(out)
	return out
}
