package evals

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Discover finds the task folders in name order, at any depth, without
// looking inside a task (its fixture may hold a task.toml of its own).
func TestDiscover(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"tools/b/task.toml", "edit/a/task.toml", "edit/a/fixture/nested/task.toml", "recovery/deep/c/task.toml", ".hidden/x/task.toml", "edit/notask/readme.md"} {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte("x"), 0o644)
	}
	got, err := Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"edit/a", "recovery/deep/c", "tools/b"}
	if !slices.Equal(got, want) {
		t.Errorf("Discover = %v, want %v", got, want)
	}
	if got, _ := Discover(filepath.Join(root, "edit", "a")); !slices.Equal(got, []string{"."}) {
		t.Errorf("a task folder as the root: %v, want [.]", got)
	}
	if n := TaskName(filepath.Join(root, "edit", "a"), "."); n != "a" {
		t.Errorf("TaskName of the root task = %q", n)
	}
	if _, err := Discover(filepath.Join(root, "missing")); err == nil || !strings.Contains(err.Error(), "not a directory of eval tasks") {
		t.Errorf("a missing suite: %v", err)
	}
	if _, err := Discover(filepath.Join(root, "edit", "notask")); err == nil || !strings.Contains(err.Error(), "holds no task") {
		t.Errorf("a suite without tasks: %v", err)
	}
}

// The N shards of a suite are disjoint and together hold every task once,
// for any suite size and shard count; each keeps name order.
func TestShardsPartitionTheSuite(t *testing.T) {
	for size := 0; size <= 31; size++ {
		names := make([]string, size)
		for i := range names {
			names[i] = fmt.Sprintf("task-%02d", size-i) // given out of order
		}
		for n := 1; n <= 7; n++ {
			seen := map[string]int{}
			for i := 1; i <= n; i++ {
				part := Shard{I: i, N: n}.Select(names)
				if !slices.IsSorted(part) {
					t.Errorf("size %d shard %d/%d not in name order: %v", size, i, n, part)
				}
				if len(part) > size/n+1 || len(part) < size/n {
					t.Errorf("size %d shard %d/%d holds %d tasks: unbalanced", size, i, n, len(part))
				}
				for _, p := range part {
					seen[p]++
				}
			}
			for _, name := range names {
				if seen[name] != 1 {
					t.Errorf("size %d, %d shards: %s runs %d times", size, n, name, seen[name])
				}
			}
			if len(seen) != size {
				t.Errorf("size %d, %d shards: %d distinct tasks", size, n, len(seen))
			}
		}
	}
	if got := (Shard{}).Select([]string{"b", "a"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("no shard selects %v", got)
	}
}

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/3"); err != nil || s != (Shard{I: 2, N: 3}) {
		t.Errorf("2/3 = %+v, %v", s, err)
	}
	for _, bad := range []string{"", "3", "0/3", "4/3", "1/0", "a/b", "1/3/5", "-1/3", "1/-3"} {
		if _, err := ParseShard(bad); err == nil || !strings.Contains(err.Error(), "I/N") {
			t.Errorf("ParseShard(%q) = %v, want an error naming I/N", bad, err)
		}
	}
}
