package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loosePaths lists what under home (not home itself) group or others may
// access, as `find $AGENT_HOME -mindepth 1 -perm /077` would.
func loosePaths(t *testing.T, home string) (loose []string, n int) {
	t.Helper()
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == home {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		n++
		if fi.Mode()&fs.ModeSymlink == 0 && fi.Mode().Perm()&0o077 != 0 {
			rel, _ := filepath.Rel(home, p)
			loose = append(loose, rel+" "+fi.Mode().String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return loose, n
}

// writeRun is runWriting that also returns the run's stderr.
func (e *env) writeRun(mark, file string) (id, stderr string) {
	e.t.Helper()
	e.serve(script(
		turn("", call("w1", "write_file", map[string]any{"path": file, "content": mark + "\n"})),
		turn("Wrote "+file+"."),
	))
	r := e.run("run", "--approval", "full-auto", "write "+file+" for "+mark)
	if r.code != 0 {
		e.t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	return runID(e.t, r.stderr), r.stderr
}

func makeHome(t *testing.T, home string, mode fs.FileMode) {
	t.Helper()
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, mode); err != nil { // not through the umask
		t.Fatal(err)
	}
}

// A first-time user's `mkdir -p $AGENT_HOME` (0755): runs work, everything
// the agent writes there (database, shadow repository, locks, key, notice
// record) is private, and one warning naming the directory and chmod 700 is
// printed after the run id line of the first run only.
func TestStateDirMadeWithMkdir(t *testing.T) {
	e := newEnv(t, "")
	makeHome(t, e.home, 0o755)
	first, firstErr := e.writeRun(randMark("a"), "a.txt")
	if !strings.HasPrefix(firstErr, "run: "+first+"\n") {
		t.Errorf("the first stderr line is not the run id:\n%s", firstErr)
	}
	if c := strings.Count(firstErr, "warning: state directory"); c != 1 {
		t.Fatalf("first run printed the state directory warning %d times, want 1:\n%s", c, firstErr)
	}
	if !strings.Contains(firstErr, e.home) || !strings.Contains(firstErr, "chmod 700 "+e.home) {
		t.Errorf("the warning does not name %s and chmod 700:\n%s", e.home, firstErr)
	}
	second, secondErr := e.writeRun(randMark("b"), "b.txt")
	if strings.Contains(secondErr, "warning: state directory") {
		t.Errorf("the second run warned again:\n%s", secondErr)
	}
	var cps []checkpointRow
	e.mustJSON(&cps, "checkpoints", first, "--json")
	if len(cps) == 0 {
		t.Fatal("the first run has no checkpoints")
	}
	for _, args := range [][]string{{"rollback", cps[0].CheckpointID}, {"export", second, "-o", filepath.Join(t.TempDir(), "x.jsonl")}, {"runs"}} {
		r := e.run(args...)
		if r.code != 0 {
			t.Fatalf("agent %v: exit %d\n%s", args, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "warning: state directory") {
			t.Errorf("agent %v warned again:\n%s", args, r.stderr)
		}
	}
	loose, n := loosePaths(t, e.home)
	if len(loose) > 0 {
		t.Errorf("readable by others under a 0755 AGENT_HOME:\n%s", strings.Join(loose, "\n"))
	}
	if n < 30 {
		t.Fatalf("only %d entries under AGENT_HOME; the runs did not write what the test checks", n)
	}
	for _, p := range []string{"agent.db", "redact.key", "locks", "checkpoints", "mode-notice"} {
		if _, err := os.Stat(filepath.Join(e.home, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// A state directory group or others can write to is refused: exit 2, a
// message naming chmod go-w and the directory, nothing written in it.
func TestStateDirWritableByOthersRefused(t *testing.T) {
	for _, mode := range []fs.FileMode{0o775, 0o757, 0o777} {
		t.Run(mode.String(), func(t *testing.T) {
			e := newEnv(t, script(turn("", call("w1", "write_file", map[string]any{"path": "a.txt", "content": "a\n"})), turn("done")))
			makeHome(t, e.home, mode)
			for _, args := range [][]string{{"run", "--approval", "full-auto", "write a.txt"}, {"runs"}} {
				r := e.run(args...)
				if r.code != 2 || !strings.Contains(r.stderr, "chmod go-w "+e.home) {
					t.Errorf("agent %v in a %v AGENT_HOME: exit %d, stderr %q; want exit 2 naming chmod go-w %s", args, mode, r.code, r.stderr, e.home)
				}
				if r.stdout != "" {
					t.Errorf("agent %v printed %q", args, r.stdout)
				}
			}
			if ents, _ := os.ReadDir(e.home); len(ents) != 0 {
				t.Errorf("the refused directory got %d entries", len(ents))
			}
			if _, err := os.Stat(filepath.Join(e.ws, "a.txt")); err == nil {
				t.Error("the refused run wrote to the workspace")
			}
		})
	}
}

// A user upgrading from a version whose shadow repositories had go-git's
// 0755/0644/0444 modes: the next run makes them private.
func TestOldShadowRepositoryMadePrivate(t *testing.T) {
	e := newEnv(t, "")
	e.runWriting(randMark("a"), "a.txt", "a")
	err := filepath.WalkDir(filepath.Join(e.home, "checkpoints"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.Contains(p, ".git") || strings.HasSuffix(p, ".git") {
			return err
		}
		mode := fs.FileMode(0o644)
		switch {
		case d.IsDir():
			mode = 0o755
		case strings.Contains(p, string(filepath.Separator)+"objects"+string(filepath.Separator)):
			mode = 0o444
		}
		return os.Chmod(p, mode)
	})
	if err != nil {
		t.Fatal(err)
	}
	if loose, _ := loosePaths(t, e.home); len(loose) == 0 {
		t.Fatal("loosening the repository did nothing; the test premise is wrong")
	}
	e.runWriting(randMark("b"), "b.txt", "b")
	if loose, _ := loosePaths(t, e.home); len(loose) > 0 {
		t.Errorf("still readable by others after the run:\n%s", strings.Join(loose, "\n"))
	}
}
