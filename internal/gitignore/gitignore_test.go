package gitignore_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agent/internal/gitignore"
)

// ignoreCase is a repository's files (".git/info/exclude" among them, slash
// paths relative to the top level), the workspace within it ("" for the top
// level) and the workspace files that must be hidden.
type ignoreCase struct {
	name   string
	files  map[string]string
	ws     string
	hidden []string
}

var ignoreCases = []ignoreCase{
	{
		name: "name patterns, anchored, directory-only, negation",
		files: map[string]string{
			".gitignore": "*.log\n!keep.log\n/root.txt\nbuild/\n# comment\n\n  \n",
			"a.log":      "", "keep.log": "", "root.txt": "", "sub/root.txt": "", "sub/x.log": "",
			"build/out.o": "", "sub/build/out.o": "", "build.txt": "", "src/main.go": "",
			"notdir/build": "", // a file named build: "build/" matches directories only
			"app.go":       "", "build/gen.go": "", "sub/build/gen.go": "", "sub/app.go": "",
		},
		hidden: []string{"a.log", "root.txt", "sub/x.log", "build/out.o", "sub/build/out.o", "build/gen.go", "sub/build/gen.go"},
	},
	{
		name: "nested .gitignore overrides and re-includes",
		files: map[string]string{
			".gitignore":     "*.tmp\nsecret*\n",
			"a.tmp":          "",
			"pkg/.gitignore": "!*.tmp\nlocal/\n/only-here\n",
			"pkg/b.tmp":      "", "pkg/secret.txt": "", "pkg/local/x.go": "", "pkg/only-here": "",
			"pkg/deep/only-here": "", "pkg/deep/c.tmp": "", "other/c.tmp": "", "other/local/y.go": "",
			"pkg/secret_key.go": "", "pkg/deep/keep.go": "",
		},
		hidden: []string{"a.tmp", "pkg/secret.txt", "pkg/local/x.go", "pkg/only-here", "other/c.tmp", "pkg/secret_key.go"},
	},
	{
		name: "a file in an excluded directory cannot be re-included",
		files: map[string]string{
			".gitignore":   "out/\n!out/keep.txt\nlogs/*\n!logs/keep/\n",
			"out/keep.txt": "", "out/x": "", "logs/a": "", "logs/keep/b": "", "logs/sub/c": "",
			"out/keep.go": "", "logs/keep/b.go": "", "logs/sub/c.go": "",
		},
		hidden: []string{"out/keep.txt", "out/x", "logs/a", "logs/sub/c", "out/keep.go", "logs/sub/c.go"},
	},
	{
		name: "double star, character classes, escapes, trailing spaces",
		files: map[string]string{
			".gitignore": "docs/**/gen\n**/cache\nvendor/**\n!vendor/keep.go\n[!a]bc\n\\#hash\n\\!bang\nsp\\ \ntrail   \na/**/b/c\n",
			"docs/gen/1": "", "docs/x/y/gen/2": "", "gen/3": "", "x/cache/4": "", "cache/5": "",
			"vendor/mod.go": "", "vendor/keep.go": "", "vendor/sub/z.go": "",
			"xbc": "", "abc": "", "#hash": "", "!bang": "", "sp ": "", "sp": "", "trail": "",
			"a/b/c": "", "a/x/b/y/b/c": "", "a/b/x": "",
			"docs/gen/g.go": "", "docs/x/d.go": "", "x/cache/c.go": "", "a/q/b/c/d.go": "",
		},
		hidden: []string{"docs/gen/1", "docs/x/y/gen/2", "x/cache/4", "cache/5", "vendor/mod.go",
			"vendor/sub/z.go", "xbc", "#hash", "!bang", "sp ", "trail", "a/b/c", "a/x/b/y/b/c",
			"docs/gen/g.go", "x/cache/c.go", "a/q/b/c/d.go"},
	},
	{
		name: "info/exclude, overridden by .gitignore",
		files: map[string]string{
			".git/info/exclude": "*.bak\nscratch/\nkeep.me\n",
			".gitignore":        "!keep.me\n",
			"a.bak":             "", "d/b.bak": "", "scratch/n.txt": "", "keep.me": "", "ok.txt": "",
			"scratch/s.go": "", "d/ok.go": "",
		},
		hidden: []string{"a.bak", "d/b.bak", "scratch/n.txt", "scratch/s.go"},
	},
	{
		name: "a workspace below the git top level",
		ws:   "services/api",
		files: map[string]string{
			".git/info/exclude":       "*.swp\n",
			".gitignore":              "*.gen.go\n/services/api/tmp/\napi-only\nservices/*/dist\n",
			"services/.gitignore":     "*.cache\n!keep.cache\n",
			"services/api/.gitignore": "!x.gen.go\n",
			"services/api/a.gen.go":   "", "services/api/x.gen.go": "", "services/api/tmp/t": "",
			"services/api/b.swp": "", "services/api/c.cache": "", "services/api/keep.cache": "",
			"services/api/dist/d.js": "", "services/api/sub/api-only": "", "services/api/main.go": "",
			"services/api/sub/tmp/kept": "", "services/api/tmp/t.go": "", "services/api/dist/d.go": "",
			"services/api/lib/api-only/x.go": "", "services/other/o.go": "",
		},
		hidden: []string{"a.gen.go", "tmp/t", "b.swp", "c.cache", "dist/d.js", "sub/api-only", "tmp/t.go", "dist/d.go", "lib/api-only/x.go"},
	},
	{
		name: "a workspace the repository ignores sees its own rules only",
		ws:   "build/site",
		files: map[string]string{
			".gitignore":            "build/\n*.o\n",
			"build/site/.gitignore": "*.tmp\n",
			"build/site/index.html": "", "build/site/a.tmp": "", "build/site/b.o": "",
			"build/site/main.go": "", "build/site/gen/x.tmp/y.go": "",
		},
		hidden: []string{"a.tmp", "gen/x.tmp/y.go"},
	},
}

// makeRepo creates the case's repository (a real one when git is installed)
// and returns the workspace.
func makeRepo(t *testing.T, c ignoreCase) string {
	t.Helper()
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err == nil {
		gitCmd(t, top, "init", "-q")
	} else if err := os.MkdirAll(filepath.Join(top, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range c.files {
		p := filepath.Join(top, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(top, filepath.FromSlash(c.ws))
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	// No global or system configuration: no core.excludesFile.
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// files lists the regular files under ws (slash, relative), .git aside.
func files(t *testing.T, ws string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(ws, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// visible is what a Walk of the workspace shows.
func visible(t *testing.T, ws string) []string {
	t.Helper()
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tree := gitignore.NewTree(ws, root.FS())
	var out []string
	err = gitignore.Walk(context.Background(), root, tree, ".", func(e gitignore.Entry) error {
		if e.Type.IsRegular() {
			out = append(out, e.Rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestIgnoreCases(t *testing.T) {
	for _, c := range ignoreCases {
		t.Run(c.name, func(t *testing.T) {
			ws := makeRepo(t, c)
			all := files(t, ws)
			var want []string
			for _, f := range all {
				if !slices.Contains(c.hidden, f) {
					want = append(want, f)
				}
			}
			for _, h := range c.hidden {
				if !slices.Contains(all, h) {
					t.Fatalf("case lists %s as hidden but does not create it", h)
				}
			}
			got := visible(t, ws)
			if !slices.Equal(got, want) {
				t.Errorf("walk shows\n  %v\nwant\n  %v", got, want)
			}
			root, err := os.OpenRoot(ws)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			tree := gitignore.NewTree(ws, root.FS())
			for _, f := range all {
				if got, want := tree.Ignored(strings.Split(f, "/"), false), slices.Contains(c.hidden, f); got != want {
					t.Errorf("Ignored(%s) = %v, want %v", f, got, want)
				}
			}
			// The reference: git itself, where it is installed (the last case
			// is a deliberate difference: git hides an ignored workspace).
			if _, err := exec.LookPath("git"); err != nil || strings.HasPrefix(c.name, "a workspace the repository ignores") {
				return
			}
			out := gitCmd(t, ws, "ls-files", "--others", "--exclude-standard", "-z")
			var gitVisible []string
			for _, f := range strings.Split(out, "\x00") {
				if f != "" {
					gitVisible = append(gitVisible, f)
				}
			}
			slices.Sort(gitVisible)
			if !slices.Equal(gitVisible, want) {
				t.Errorf("git ls-files shows\n  %v\nthe case wants\n  %v", gitVisible, want)
			}
		})
	}
}
