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
	for b.Loop() {
		res, err := ReadFile{}.Run(ctx, env, args)
		if err != nil || !strings.HasPrefix(res.Output, "  1000\t") {
			b.Fatalf("%v %.40q", err, res.Output)
		}
	}
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
	i := 0
	for b.Loop() {
		args, _ := json.Marshal(map[string]any{"path": "f.txt", "old_string": fmt.Sprintf("MARKER-%d\n", i), "new_string": fmt.Sprintf("MARKER-%d\n", i+1)})
		if _, err := (EditFile{}).Run(ctx, env, args); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if !strings.Contains(readString(b, filepath.Join(ws, "f.txt")), fmt.Sprintf("MARKER-%d\n", i)) {
		b.Fatal("the last edit is missing")
	}
}

func BenchmarkValidate(b *testing.B) {
	r := Default()
	args := `{"path":"src/main.go","old_string":"a","new_string":"b","replace_all":false}`
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := r.Validate("edit_file", args); err != nil {
			b.Fatal(err)
		}
	}
}
