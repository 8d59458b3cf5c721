package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func BenchmarkReadFile(b *testing.B) {
	env, ws := newWorkspace(b)
	var src strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&src, "\tx%d := compute(%d) // a typical line of source code\n", i, i)
	}
	writeTree(b, ws, map[string]string{"big.go": src.String()})
	ctx := context.Background()
	args := json.RawMessage(`{"path":"big.go","offset":1000,"limit":200}`)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		res, err := ReadFile{}.Run(ctx, env, args)
		if err != nil || !strings.HasPrefix(res.Output, "  1000\t") {
			b.Fatalf("%v %.40q", err, res.Output)
		}
	}
	reportCPU(b, start)
}

func BenchmarkEditFile(b *testing.B) {
	env, ws := newWorkspace(b)
	var src strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&src, "line %d of the file\n", i)
	}
	src.WriteString("MARKER-0\n")
	writeTree(b, ws, map[string]string{"f.txt": src.String()})
	ctx := context.Background()
	b.ReportAllocs()
	start := cpuTime()
	i := 0
	for b.Loop() {
		args, _ := json.Marshal(map[string]any{"path": "f.txt", "old_string": fmt.Sprintf("MARKER-%d\n", i), "new_string": fmt.Sprintf("MARKER-%d\n", i+1)})
		if _, err := (EditFile{}).Run(ctx, env, args); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportCPU(b, start)
	if !strings.Contains(readString(b, filepath.Join(ws, "f.txt")), fmt.Sprintf("MARKER-%d\n", i)) {
		b.Fatal("the last edit is missing")
	}
}

func BenchmarkValidate(b *testing.B) {
	r := Default()
	args := `{"path":"src/main.go","old_string":"a","new_string":"b","replace_all":false}`
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		if _, _, err := r.Validate("edit_file", args); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkWriteFile replaces a file two directories down: the write step the
// per-step budget is about (resolve, read the old content, temp file, fsync,
// rename, fsync of the directory).
func BenchmarkWriteFile(b *testing.B) {
	env, ws := newWorkspace(b)
	writeTree(b, ws, map[string]string{"src/pkg/f.go": "package pkg\n"})
	ctx := context.Background()
	b.ReportAllocs()
	start := cpuTime()
	i := 0
	for b.Loop() {
		args, _ := json.Marshal(map[string]any{"path": "src/pkg/f.go", "content": fmt.Sprintf("package pkg\n\nconst N = %d\n", i)})
		if _, err := (WriteFile{}).Run(ctx, env, args); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportCPU(b, start)
}

// benchTree is a small source tree: 20 directories of 25 files, a .gitignore
// and an ignored build directory.
func benchTree(b *testing.B) (*Env, string) {
	env, ws := newWorkspace(b)
	files := map[string]string{".gitignore": "build/\n*.log\n"}
	for d := 0; d < 20; d++ {
		for f := 0; f < 25; f++ {
			files[fmt.Sprintf("pkg%02d/sub/file%02d.go", d, f)] = fmt.Sprintf("package sub\n\nfunc F%d() int { return %d }\n", f, d*f)
		}
		files[fmt.Sprintf("build/out%02d.o", d)] = "binary\n"
	}
	writeTree(b, ws, files)
	return env, ws
}

func BenchmarkGrep(b *testing.B) {
	env, _ := benchTree(b)
	ctx := context.Background()
	args := json.RawMessage(`{"pattern":"return 42","include":"*.go"}`)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		res, err := Grep{}.Run(ctx, env, args)
		if err != nil || !strings.Contains(res.Output, ":3:") {
			b.Fatalf("%v %.80q", err, res.Output)
		}
	}
	reportCPU(b, start)
}

func BenchmarkGlob(b *testing.B) {
	env, _ := benchTree(b)
	ctx := context.Background()
	args := json.RawMessage(`{"pattern":"**/file1*.go"}`)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		res, err := Glob{}.Run(ctx, env, args)
		if err != nil || !strings.Contains(res.Output, "pkg00/sub/file10.go") {
			b.Fatalf("%v %.80q", err, res.Output)
		}
	}
	reportCPU(b, start)
}

func BenchmarkListDir(b *testing.B) {
	env, _ := benchTree(b)
	ctx := context.Background()
	args := json.RawMessage(`{"path":"pkg03/sub"}`)
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		res, err := ListDir{}.Run(ctx, env, args)
		if err != nil || !strings.Contains(res.Output, "file24.go") {
			b.Fatalf("%v %.80q", err, res.Output)
		}
	}
	reportCPU(b, start)
}
