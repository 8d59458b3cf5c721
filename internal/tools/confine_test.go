package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"agent/internal/gitignore"
)

// swapFixture is a workspace and, beside it, an "outside" directory holding
// the files an escape would reach: ws/d is a real directory with inside
// content, and swapTo replaces it with a symlink out (absolute or relative).
type swapFixture struct {
	env          *Env
	ws, outside  string
	root         *os.Root
	secretInside string
}

func newSwapFixture(t *testing.T) *swapFixture {
	t.Helper()
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &swapFixture{ws: filepath.Join(parent, "ws"), outside: filepath.Join(parent, "outside"), secretInside: "inside content\n"}
	writeTree(t, f.outside, map[string]string{"secret.txt": "OUTSIDE secret\n", "target.txt": "needle OUTSIDE\n"})
	writeTree(t, f.ws, map[string]string{"d/secret.txt": f.secretInside, "d/target.txt": "needle inside\n"})
	f.env = &Env{Workspace: f.ws}
	if f.root, err = f.env.openRoot(); err != nil {
		t.Fatal(err)
	}
	return f
}

// toLink replaces ws/d with a symlink out of the workspace.
func (f *swapFixture) toLink(t *testing.T, relative bool) {
	t.Helper()
	d := filepath.Join(f.ws, "d")
	if err := os.RemoveAll(d); err != nil {
		t.Fatal(err)
	}
	target := f.outside
	if relative {
		target = "../outside"
	}
	if err := os.Symlink(target, d); err != nil {
		t.Fatal(err)
	}
}

// toDir puts the real directory back.
func (f *swapFixture) toDir(t *testing.T) {
	t.Helper()
	d := filepath.Join(f.ws, "d")
	if err := os.Remove(d); err != nil {
		t.Fatal(err)
	}
	writeTree(t, f.ws, map[string]string{"d/secret.txt": f.secretInside, "d/target.txt": "needle inside\n"})
}

// outsideUnchanged fails if anything outside was created or changed.
func (f *swapFixture) outsideUnchanged(t *testing.T) {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(f.outside, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == f.outside {
			return err
		}
		rel, _ := filepath.Rel(f.outside, p)
		b, _ := os.ReadFile(p)
		got[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"secret.txt": "OUTSIDE secret\n", "target.txt": "needle OUTSIDE\n"}
	if len(got) != len(want) {
		t.Errorf("outside holds %v, want only %v", keys(got), keys(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("outside %s = %q, want %q", k, got[k], v)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestSwapBetweenResolveAndOpen opens the race window deterministically: the
// path is resolved while ws/d is a real directory, then d becomes a symlink
// out, then the operation runs. Each must fail, touch nothing outside, and
// report the path as outside the workspace.
func TestSwapBetweenResolveAndOpen(t *testing.T) {
	ops := []struct {
		name string
		path string
		do   func(root *os.Root, rel string) (string, error) // what was read, if anything
	}{
		{"write a new file", "d/new.txt", func(root *os.Root, rel string) (string, error) {
			return "", writeIn(root, rel, []byte("pwned\n"), newFileMode)
		}},
		{"replace a file", "d/target.txt", func(root *os.Root, rel string) (string, error) {
			return "", writeIn(root, rel, []byte("pwned\n"), newFileMode)
		}},
		{"create directories", "d/deep/er/x.txt", func(root *os.Root, rel string) (string, error) {
			return "", writeIn(root, rel, []byte("pwned\n"), newFileMode)
		}},
		{"read the old content (write tools)", "d/target.txt", func(root *os.Root, rel string) (string, error) {
			old, err := loadExisting(root, rel)
			if err == nil && !old.found {
				err = errors.New("loadExisting found nothing and did not fail")
			}
			return string(old.data), err
		}},
		{"read_file", "d/secret.txt", func(root *os.Root, rel string) (string, error) {
			return readLines(root, rel, 1, 10, 1000)
		}},
		{"list a directory", "d", func(root *os.Root, rel string) (string, error) {
			d, err := gitignore.OpenDir(root, rel)
			if err != nil {
				return "", err
			}
			defer d.Close()
			es, _ := d.Entries()
			var names []string
			for _, e := range es {
				names = append(names, e.Name())
			}
			return strings.Join(names, " "), nil
		}},
		{"walk", "d", func(root *os.Root, rel string) (string, error) {
			var seen []string
			err := walkWorkspace(context.Background(), root, rel, func(e gitignore.Entry) error {
				seen = append(seen, e.Rel)
				return nil
			})
			return strings.Join(seen, " "), err
		}},
	}
	for _, relative := range []bool{false, true} {
		for _, op := range ops {
			t.Run(fmt.Sprintf("%s/relative=%v", op.name, relative), func(t *testing.T) {
				f := newSwapFixture(t)
				_, rel, err := Resolve(f.ws, op.path)
				if err != nil {
					t.Fatal(err)
				}
				f.toLink(t, relative)
				got, err := op.do(f.root, rel)
				if strings.Contains(got, "OUTSIDE") || strings.Contains(got, "target.txt") {
					t.Errorf("returned outside content: %q", got)
				}
				if err == nil {
					t.Fatalf("succeeded through the swapped symlink (read %q)", got)
				}
				msg := confined(f.ws, op.path, err).Error()
				if !strings.Contains(msg, "resolves outside the workspace") || !strings.Contains(msg, f.outside) {
					t.Errorf("error %q does not say the path leads outside", msg)
				}
				// The swap undone before the error is reported: still refused,
				// and the message says what happened.
				f.toDir(t)
				if msg := confined(f.ws, op.path, err).Error(); !strings.Contains(msg, "swapped for a symlink") {
					t.Errorf("after the swap back: %q", msg)
				}
				f.outsideUnchanged(t)
			})
		}
	}
}

// TestWalkDoesNotEnterSwappedDirectory swaps a directory for a symlink out
// after the walk listed it as a directory and before it enters it.
func TestWalkDoesNotEnterSwappedDirectory(t *testing.T) {
	f := newSwapFixture(t)
	var seen []string
	err := walkWorkspace(context.Background(), f.root, ".", func(e gitignore.Entry) error {
		seen = append(seen, e.Rel)
		if e.Rel == "d" {
			f.toLink(t, false)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, " ") != "d" {
		t.Errorf("walk saw %v, want only d (not the outside files behind the swapped-in link)", seen)
	}
}

// hold keeps one state of the swap for a moment, so that the symlink is in
// place for as long as a write's fsync takes (a swap of a few microseconds
// would almost never meet a tool's check and use). It paces the adversary;
// nothing is asserted on time. With it, the tools before os.Root confinement
// wrote outside in every run.
func hold() { time.Sleep(200 * time.Microsecond) }

// TestSymlinkSwapRace runs the file tools hundreds of times while another
// goroutine keeps swapping ws/d between a real directory and a symlink to a
// directory outside. Nothing may land outside and no read may return
// outside content; calls that lost the race are refused with a path error.
func TestSymlinkSwapRace(t *testing.T) {
	const calls = 400
	for _, relative := range []bool{false, true} {
		t.Run(fmt.Sprintf("relative=%v", relative), func(t *testing.T) {
			f := newSwapFixture(t)
			stop := make(chan struct{})
			var swaps atomic.Int64
			var wg sync.WaitGroup
			wg.Go(func() {
				d := filepath.Join(f.ws, "d")
				target := f.outside
				if relative {
					target = "../outside"
				}
				for {
					select {
					case <-stop:
						return
					default:
					}
					_ = os.RemoveAll(d)
					_ = os.Symlink(target, d)
					hold()
					_ = os.Remove(d)
					_ = os.Mkdir(d, 0o755)
					_ = os.WriteFile(filepath.Join(d, "secret.txt"), []byte(f.secretInside), 0o644)
					_ = os.WriteFile(filepath.Join(d, "target.txt"), []byte("needle inside\n"), 0o644)
					swaps.Add(1)
					hold()
				}
			})
			var ok, refused atomic.Int64
			tally := func(res Result, err error, tool string) {
				switch {
				case err == nil:
					ok.Add(1)
				case strings.Contains(res.Output, "outside the workspace"):
					refused.Add(1)
				}
				if strings.Contains(res.Output, "OUTSIDE") {
					t.Errorf("%s returned outside content: %q", tool, res.Output)
				}
			}
			for i := range calls {
				res, err := call(t, f.env, "write_file", map[string]any{"path": fmt.Sprintf("d/x%d.txt", i), "content": "x\n"})
				tally(res, err, "write_file")
				res, err = call(t, f.env, "edit_file", map[string]any{"path": "d/target.txt", "old_string": "needle", "new_string": "pwned"})
				tally(res, err, "edit_file")
				res, err = call(t, f.env, "read_file", map[string]any{"path": "d/secret.txt"})
				tally(res, err, "read_file")
				if i%10 == 0 {
					for _, c := range []struct {
						tool string
						args map[string]any
					}{
						{"grep", map[string]any{"pattern": "secret|needle"}},
						{"grep", map[string]any{"pattern": "secret|needle", "path": "d"}},
						{"glob", map[string]any{"pattern": "d/**/*.txt"}},
						{"list_dir", map[string]any{"path": "d"}},
					} {
						res, err := call(t, f.env, c.tool, c.args)
						tally(res, err, c.tool)
					}
				}
			}
			close(stop)
			wg.Wait()
			t.Logf("%d swaps; %d calls succeeded inside, %d refused as outside", swaps.Load(), ok.Load(), refused.Load())
			// Nothing the tools wrote is outside: only the two original files.
			f.outsideUnchanged(t)
		})
	}
}

// TestInnerSymlinksStillWork: symlinks inside the workspace that lead
// inside, relative or absolute, keep working for every file tool.
func TestInnerSymlinksStillWork(t *testing.T) {
	env, ws := newWorkspace(t)
	writeTree(t, ws, map[string]string{"sub/real.txt": "needle one\n"})
	for name, target := range map[string]string{
		"abs_dir":  filepath.Join(ws, "sub"),
		"abs_file": filepath.Join(ws, "sub", "real.txt"),
		"rel_dir":  "sub",
	} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	if res := mustCall(t, env, "read_file", map[string]any{"path": "abs_file"}); !strings.Contains(res.Output, "needle one") {
		t.Errorf("read through an absolute inner link: %q", res.Output)
	}
	if res := mustCall(t, env, "read_file", map[string]any{"path": "abs_dir/real.txt"}); !strings.Contains(res.Output, "needle one") {
		t.Errorf("read through an absolute inner directory link: %q", res.Output)
	}
	res := mustCall(t, env, "edit_file", map[string]any{"path": "abs_dir/real.txt", "old_string": "one", "new_string": "two"})
	if got := readString(t, filepath.Join(ws, "sub", "real.txt")); got != "needle two\n" || res.Changed[0] != "sub/real.txt" {
		t.Errorf("edit through an absolute inner link: %q %v", got, res.Changed)
	}
	mustCall(t, env, "write_file", map[string]any{"path": "abs_dir/new/n.txt", "content": "needle new\n"})
	if got := readString(t, filepath.Join(ws, "sub", "new", "n.txt")); got != "needle new\n" {
		t.Errorf("write through an absolute inner link: %q", got)
	}
	if res := mustCall(t, env, "list_dir", map[string]any{"path": "abs_dir"}); !strings.Contains(res.Output, "real.txt") {
		t.Errorf("list_dir through an absolute inner link: %q", res.Output)
	}
	if res := mustCall(t, env, "grep", map[string]any{"pattern": "needle", "path": "rel_dir"}); !strings.Contains(res.Output, "needle two") {
		t.Errorf("grep through an inner link: %q", res.Output)
	}
	// A walk lists the link to a file (and searches it), never enters a link
	// to a directory.
	if res := mustCall(t, env, "grep", map[string]any{"pattern": "needle two"}); !strings.Contains(res.Output, "abs_file:1:needle two") || strings.Contains(res.Output, "abs_dir/") {
		t.Errorf("grep over the workspace: %q", res.Output)
	}
	if res := mustCall(t, env, "glob", map[string]any{"pattern": "**/*"}); !strings.Contains(res.Output, "abs_file\n") || strings.Contains(res.Output, "abs_dir/") {
		t.Errorf("glob over the workspace: %q", res.Output)
	}
}

// TestWorkspaceReplaced: once the workspace directory is moved away and
// something else (a symlink out, or a new directory) is put at its path, the
// tools refuse to go on rather than follow the path elsewhere.
func TestWorkspaceReplaced(t *testing.T) {
	for _, replacement := range []string{"symlink out", "new directory"} {
		t.Run(replacement, func(t *testing.T) {
			f := newSwapFixture(t)
			mustCall(t, f.env, "read_file", map[string]any{"path": "d/secret.txt"}) // opens the root
			if err := os.Rename(f.ws, f.ws+".moved"); err != nil {
				t.Fatal(err)
			}
			if replacement == "symlink out" {
				if err := os.Symlink(f.outside, f.ws); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Mkdir(f.ws, 0o755); err != nil {
				t.Fatal(err)
			}
			res, err := call(t, f.env, "write_file", map[string]any{"path": "pwned.txt", "content": "x\n"})
			if err == nil || !strings.Contains(res.Output, "no longer the directory the agent opened") {
				t.Errorf("write after the workspace was replaced: %q %v", res.Output, err)
			}
			res, err = call(t, f.env, "read_file", map[string]any{"path": "secret.txt"})
			if err == nil || strings.Contains(res.Output, "OUTSIDE") {
				t.Errorf("read after the workspace was replaced: %q %v", res.Output, err)
			}
			f.outsideUnchanged(t)
		})
	}
}

// TestRemoveStaleTempsStaysInside: the temporary-file sweep of an
// interrupted write lists and removes beneath the root only.
func TestRemoveStaleTempsStaysInside(t *testing.T) {
	f := newSwapFixture(t)
	stale := ".x.txt.tmp-0123456789ab"
	writeTree(t, f.ws, map[string]string{"d/" + stale: "half", "d/.x.txt.tmp-keep/inner": "a directory is not a temp file"})
	writeTree(t, f.outside, map[string]string{stale: "outside temp"})
	if err := RemoveStaleTemps(f.ws, "d/x.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "d", stale)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "d", ".x.txt.tmp-keep", "inner")); err != nil {
		t.Errorf("a directory matching the pattern was removed: %v", err)
	}
	f.toLink(t, false)
	err := RemoveStaleTemps(f.ws, "d/x.txt")
	if err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("through a symlink out: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(f.outside, stale)); err != nil || string(b) != "outside temp" {
		t.Errorf("the outside file was touched: %q %v", b, err)
	}
}

// TestSearchesDoNotFollowLinksToHiddenFiles: a symlink inside the workspace
// to a file the policy hides from searches (read-deny rules) is not searched
// or listed either.
func TestSearchesDoNotFollowLinksToHiddenFiles(t *testing.T) {
	env, ws := newWorkspace(t)
	writeTree(t, ws, map[string]string{".env": "TOKEN=needle-secret\n", "a.txt": "needle\n"})
	if err := os.Symlink(".env", filepath.Join(ws, "env-link")); err != nil {
		t.Fatal(err)
	}
	env.Hidden = func(rel string) bool { return rel == ".env" }
	if res := mustCall(t, env, "grep", map[string]any{"pattern": "needle"}); strings.Contains(res.Output, "secret") || !strings.Contains(res.Output, "a.txt:1:needle") {
		t.Errorf("grep: %q", res.Output)
	}
	if res := mustCall(t, env, "glob", map[string]any{"pattern": "*"}); strings.Contains(res.Output, "env-link") || !strings.Contains(res.Output, "a.txt") {
		t.Errorf("glob: %q", res.Output)
	}
}
