package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// searchFixture is a small repository with .gitignore rules at several levels
// and in .git/info/exclude.
func searchFixture(t *testing.T) (*Env, string) {
	t.Helper()
	env, ws := newWorkspace(t)
	writeTree(t, ws, map[string]string{
		".gitignore":          "# build output\n*.log\nbuild/\n!keep.log\r\n/top_only.txt\n",
		".git/info/exclude":   "excluded.txt\n",
		".git/HEAD":           "package ref: refs/heads/main\n",
		"a.go":                "package a\n\nfunc A() {}\n",
		"b.txt":               "plain text\nno code here\n",
		"debug.log":           "package log\n",
		"keep.log":            "package keep\n",
		"excluded.txt":        "package excluded\n",
		"top_only.txt":        "package top\n",
		"build/out.go":        "package build\n",
		"src/main.go":         "package main\n\nfunc main() {\n\tA()\n}\n",
		"src/top_only.txt":    "package nested top\n",
		"src/.gitignore":      "gen_*.go\n",
		"src/gen_x.go":        "package generated\n",
		"src/util/u.go":       "package util\r\n// Package util is CRLF.\r\n",
		"src/util/notes.md":   "no package keyword on this line? package is here\n",
		"docs/guide.md":       "# Guide\n",
		"docs/deep/er/x.tsx":  "export const package_ = 1\n",
		"docs/deep/er/y.ts":   "export const y = 2\n",
		"docs/deep/er/z.json": "{}\n",
	})
	if err := os.WriteFile(filepath.Join(ws, "blob.bin"), []byte("package\x00\x01\x02binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	return env, ws
}

func TestListDir(t *testing.T) {
	env, _ := searchFixture(t)
	tests := []struct {
		path    string
		want    []string
		notWant []string
	}{
		{"", []string{"./", ".gitignore  ", "a.go  23 B", "b.txt", "keep.log", "src/", "docs/", "blob.bin", "(4 ignored entries not shown)"},
			[]string{".git/", "HEAD", "debug.log", "build", "excluded.txt", "top_only.txt"}},
		{"src", []string{"src/", "main.go", "top_only.txt", "util/", "(1 ignored entries not shown)"}, []string{"gen_x.go"}},
		// An ignored directory named explicitly is listed.
		{"build", []string{"build/", "out.go"}, nil},
	}
	for _, tt := range tests {
		res := mustCall(t, env, "list_dir", map[string]any{"path": tt.path})
		for _, w := range tt.want {
			if !strings.Contains(res.Output, w) {
				t.Errorf("list_dir(%q) lacks %q:\n%s", tt.path, w, res.Output)
			}
		}
		for _, nw := range tt.notWant {
			if strings.Contains(res.Output, nw) {
				t.Errorf("list_dir(%q) shows %q:\n%s", tt.path, nw, res.Output)
			}
		}
	}
	for _, p := range []string{"a.go", "missing"} {
		if res, err := call(t, env, "list_dir", map[string]any{"path": p}); err == nil || !res.IsError {
			t.Errorf("list_dir(%q) succeeded: %q", p, res.Output)
		}
	}
}

func TestGlob(t *testing.T) {
	env, ws := searchFixture(t)
	tests := []struct {
		pattern string
		want    []string
	}{
		{"**/*.go", []string{"a.go", "src/main.go", "src/util/u.go"}},
		{"*.go", []string{"a.go"}},
		{"src/*.go", []string{"src/main.go"}},
		{"./src/**/*.go", []string{"src/main.go", "src/util/u.go"}},
		{"src/**", []string{"src/.gitignore", "src/main.go", "src/top_only.txt", "src/util/notes.md", "src/util/u.go"}},
		{"**/u.go", []string{"src/util/u.go"}},
		{"*.{go,txt}", []string{"a.go", "b.txt"}},
		{"docs/**/*.{ts,tsx}", []string{"docs/deep/er/x.tsx", "docs/deep/er/y.ts"}},
		{"**/er/?.ts*", []string{"docs/deep/er/x.tsx", "docs/deep/er/y.ts"}},
		{"*.log", []string{"keep.log"}},
		{"build/*.go", []string{"build/out.go"}}, // explicitly named ignored directory
		{"src/gen_x.go", []string{"src/gen_x.go"}},
		{filepath.Join(ws, "src", "*.go"), []string{"src/main.go"}},
		{"**/*.nothing", nil},
		{"nodir/**/*.go", nil},
	}
	for _, tt := range tests {
		res := mustCall(t, env, "glob", map[string]any{"pattern": tt.pattern})
		var got []string
		if !strings.HasPrefix(res.Output, "no files match") {
			got = lines(res.Output)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("glob(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
	if res, err := call(t, env, "glob", map[string]any{"pattern": "src/[a-"}); err == nil || !strings.Contains(res.Output, "invalid glob pattern") {
		t.Errorf("bad pattern: %v %q", err, res.Output)
	}
}

func TestGrep(t *testing.T) {
	env, _ := searchFixture(t)
	tests := []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"pattern": "^package"}, []string{
			"a.go:1:package a",
			"keep.log:1:package keep",
			"src/main.go:1:package main",
			"src/top_only.txt:1:package nested top",
			"src/util/u.go:1:package util",
			"(1 binary files skipped)",
		}},
		{map[string]any{"pattern": "(?i)package", "include": "*.go"}, []string{
			"a.go:1:package a", "src/main.go:1:package main", "src/util/u.go:1:package util", "src/util/u.go:2:// Package util is CRLF.",
		}},
		{map[string]any{"pattern": "CRLF\\.$", "path": "src/util"}, []string{"src/util/u.go:2:// Package util is CRLF."}},
		{map[string]any{"pattern": "(?i)^// package", "path": "src"}, []string{"src/util/u.go:2:// Package util is CRLF."}},
		{map[string]any{"pattern": "A\\(\\)", "path": "src/main.go"}, []string{"src/main.go:4:\tA()"}},
		{map[string]any{"pattern": "package", "include": "util/*.md", "path": "src"}, []string{
			"src/util/notes.md:1:no package keyword on this line? package is here",
		}},
		{map[string]any{"pattern": "package", "include": "*.{ts,tsx}"}, []string{"docs/deep/er/x.tsx:1:export const package_ = 1"}},
		// Explicitly named ignored file or directory: searched.
		{map[string]any{"pattern": "package", "path": "debug.log"}, []string{"debug.log:1:package log"}},
		{map[string]any{"pattern": "package", "path": "build"}, []string{"build/out.go:1:package build"}},
	}
	for _, tt := range tests {
		res := mustCall(t, env, "grep", tt.args)
		got := lines(res.Output)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("grep(%v) =\n%s\nwant\n%s", tt.args, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}

	res := mustCall(t, env, "grep", map[string]any{"pattern": "binary"})
	if !strings.Contains(res.Output, "no matches") || !strings.Contains(res.Output, "(1 binary files skipped)") {
		t.Errorf("binary file not skipped: %q", res.Output)
	}
	if res, err := call(t, env, "grep", map[string]any{"pattern": "a(b"}); err == nil || !strings.Contains(res.Output, "invalid RE2 pattern") {
		t.Errorf("bad regexp: %v %q", err, res.Output)
	}
	if res, err := call(t, env, "grep", map[string]any{"pattern": "x", "path": "missing"}); err == nil || !strings.Contains(res.Output, "no such file") {
		t.Errorf("missing path: %v %q", err, res.Output)
	}
}

func TestGrepMatchLimit(t *testing.T) {
	env, ws := newWorkspace(t)
	writeTree(t, ws, map[string]string{"many.txt": strings.Repeat("hit\n", grepMaxMatches+10)})
	res := mustCall(t, env, "grep", map[string]any{"pattern": "hit"})
	if n := strings.Count(res.Output, "many.txt:"); n != grepMaxMatches {
		t.Errorf("%d matches listed, want %d", n, grepMaxMatches)
	}
	if !strings.Contains(res.Output, "[stopped after 500 matching lines") {
		t.Errorf("no limit note: %q", res.Output[len(res.Output)-200:])
	}
}

// A workspace below the repository's top level obeys the .gitignore files
// and the exclude file above it.
func TestGitignoreAboveWorkspace(t *testing.T) {
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, repo, map[string]string{
		".git/info/exclude":     "*.secret\n",
		".gitignore":            "vendor/\n/proj/root_only.txt\n",
		"proj/.gitignore":       "*.tmp\n",
		"proj/main.go":          "package main\n",
		"proj/root_only.txt":    "x\n",
		"proj/k.secret":         "x\n",
		"proj/a.tmp":            "x\n",
		"proj/vendor/v.go":      "package v\n",
		"proj/sub/root_only.go": "package sub\n",
	})
	env := &Env{Workspace: filepath.Join(repo, "proj")}
	res := mustCall(t, env, "glob", map[string]any{"pattern": "**/*"})
	want := []string{".gitignore", "main.go", "sub/root_only.go"}
	if got := lines(res.Output); !reflect.DeepEqual(got, want) {
		t.Errorf("glob = %q, want %q", got, want)
	}
}

func TestGlobMatcher(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"**/*.go", "a.go", true},
		{"**/*.go", "x/y/a.go", true},
		{"**", "x/y", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/**/**/b", "a/x/b", true},
		{"*.go", "x/a.go", false},
		{"a**b", "axyb", true},
		{"{a,b{c,d}}.go", "bd.go", true},
		{"{a,b{c,d}}.go", "b.go", false},
		{"{x}.go", "{x}.go", true},
		{"[ab].go", "b.go", true},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatalf("compileGlob(%q): %v", tt.pattern, err)
		}
		if got := g.match(tt.name); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
	g, _ := compileGlob("src/*/x.go")
	for dir, want := range map[string]bool{"src": true, "src/a": true, "src/a/b": false, "lib": false} {
		if got := g.mayContain(dir); got != want {
			t.Errorf("mayContain(%q) = %v, want %v", dir, got, want)
		}
	}
}
