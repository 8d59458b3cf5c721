package evals

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Discover lists the tasks under root in name order: every folder holding a
// task.toml (not looking inside a task folder). When root itself holds one,
// it is the only task, named by its base name.
func Discover(root string) ([]string, error) {
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return nil, &TaskError{File: root, Msg: "not a directory of eval tasks (give the suite's directory, e.g. agent eval evals)"}
	}
	if _, err := os.Stat(filepath.Join(root, "task.toml")); err == nil {
		return []string{"."}, nil
	}
	var names []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(p, "task.toml")); err == nil {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, &TaskError{File: root, Msg: "cannot list the tasks", Err: err}
	}
	if len(names) == 0 {
		return nil, &TaskError{File: root, Msg: "holds no task (a task is a folder with task.toml, fixture/ and turns.json; see evals/README.md)"}
	}
	sort.Strings(names)
	return names, nil
}

// TaskDir is the folder of the task name under root.
func TaskDir(root, name string) string { return filepath.Join(root, filepath.FromSlash(name)) }

// TaskName is the name a task is reported under: its path under the suite
// root, or the root's base name when the root is the task.
func TaskName(root, name string) string {
	if name == "." {
		abs, err := filepath.Abs(root)
		if err != nil {
			return filepath.Base(root)
		}
		return filepath.Base(abs)
	}
	return name
}

// Shard is "--shard I/N": shard I (from 1) of N.
type Shard struct {
	I, N int
}

// ParseShard parses "I/N" with 1 <= I <= N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with 1 <= I <= N, e.g. --shard 2/3", s)
	}
	return Shard{I: i, N: n}, nil
}

// Select returns the names (in name order) whose index is I-1 modulo N; the
// N shards together hold every name exactly once. The zero Shard selects all.
func (s Shard) Select(names []string) []string {
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	if s.N <= 1 {
		return sorted
	}
	var out []string
	for i, n := range sorted {
		if i%s.N == s.I-1 {
			out = append(out, n)
		}
	}
	return out
}
