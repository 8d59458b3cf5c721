//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A command the agent ran earlier can leave a process behind that swaps a
// workspace directory for a symlink to a directory outside, over and over.
// The file tools must never be redirected by it: hundreds of write_file,
// edit_file and read_file calls into d/ while d keeps flipping between a real
// directory and a symlink out, and nothing is written outside, nothing is
// read from outside. Calls that lose the race are tool errors that say the
// path leads outside the workspace; the run goes on and completes. (The
// calls differ from one another, as the loop ends a run that repeats the
// same failing call.)
func TestSymlinkSwapCannotRedirectFileTools(t *testing.T) {
	const calls = 300
	cases := []struct {
		name     string
		relative bool // the symlink's target: "../outside" instead of an absolute path
		call     func(i int) map[string]any
	}{
		{"write_file", false, func(i int) map[string]any {
			return call(fmt.Sprintf("w%d", i), "write_file", map[string]string{"path": fmt.Sprintf("d/x%d.txt", i), "content": "x\n"})
		}},
		{"edit_file", true, func(i int) map[string]any {
			return call(fmt.Sprintf("e%d", i), "edit_file", map[string]string{"path": "d/target.txt", "old_string": "needle", "new_string": fmt.Sprintf("pwned %d", i)})
		}},
		{"read_file", false, func(i int) map[string]any {
			return call(fmt.Sprintf("r%d", i), "read_file", map[string]any{"path": "d/secret.txt", "limit": i + 1})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var batch []map[string]any
			for i := range calls {
				batch = append(batch, c.call(i))
			}
			e := newEnv(t, script(turn("", batch...), turn("done")))
			outside := filepath.Join(filepath.Dir(e.ws), "outside")
			plant := map[string]string{"secret.txt": "OUTSIDE-SECRET\n", "target.txt": "needle OUTSIDE\n"}
			for name, body := range plant {
				if err := os.MkdirAll(outside, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(outside, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			target := outside
			if c.relative {
				target = "../outside"
			}
			// d flips between a real directory holding inside files and a
			// symlink out, atomically (renameat2 RENAME_EXCHANGE): it is never
			// missing, so every call meets one or the other.
			d, alt := filepath.Join(e.ws, "d"), filepath.Join(e.ws, "d.alt")
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"secret.txt", "target.txt"} {
				if err := os.WriteFile(filepath.Join(d, name), []byte("needle inside\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(target, alt); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			var swaps int
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, alt, unix.RENAME_EXCHANGE); err != nil {
						t.Errorf("exchange: %v", err)
						return
					}
					swaps++
					time.Sleep(100 * time.Microsecond) // paces the adversary; nothing is timed
				}
			})
			r := e.run("run", "--approval", "full-auto", "write many files")
			close(stop)
			wg.Wait()
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}

			// Nothing landed outside, nothing there changed.
			entries, err := os.ReadDir(outside)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, en := range entries {
				names = append(names, en.Name())
			}
			if strings.Join(names, " ") != "secret.txt target.txt" {
				t.Errorf("outside holds %v; %d entries beyond the two planted files came through the swapped symlink", names, len(names)-2)
			}
			for name, body := range plant {
				if got := readFile(t, filepath.Join(outside, name)); got != body {
					t.Errorf("outside %s changed to %q", name, got)
				}
			}

			// Every call was answered; none returned outside content; the
			// ones that lost the race say why.
			ok, refused, answered := 0, 0, 0
			for _, ev := range e.trace(runID(t, r.stderr)) {
				if ev.Type != "tool_result" {
					continue
				}
				if strings.Contains(ev.Output, "OUTSIDE") {
					t.Errorf("%s returned outside content: %q", ev.CallID, ev.Output)
				}
				answered++
				switch {
				case ev.Status == "ok":
					ok++
				case strings.Contains(ev.Output, "outside the workspace"):
					refused++
				}
			}
			t.Logf("%d swaps; of %d calls %d succeeded inside, %d were refused as leading outside", swaps, calls, ok, refused)
			if answered != calls {
				t.Errorf("%d of %d calls have a result", answered, calls)
			}
		})
	}
}
