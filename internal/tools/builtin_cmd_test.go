//go:build linux

package tools

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"agent/internal/proc"
)

// The in-process runner does what bash does with every command it takes:
// the same output, exit status and files, run side by side on copies of
// one workspace.
func TestBuiltinCommandsMatchBash(t *testing.T) {
	if !builtinOpenSupported() {
		t.Skip("no openat2 here: bash runs every command")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	cmds := []string{
		"echo 7 >> side.log",
		"echo hello",
		"echo a b  c > out.txt; echo d >> out.txt",
		"echo 'single quoted' \"double quoted\" > q.txt",
		"true && echo yes || echo no",
		"false && echo yes || echo no",
		"! true; echo after",
		"false",
		"! false",
		": > empty.txt",
		"echo err 1>&2",
		"echo both > f.txt 2>&1",
		"echo to-err 2> e.txt 1>&2",
		"echo x > sub/inner.txt",
		"echo x > missing-dir/f.txt; echo status",
		"echo one\necho two >> two.txt",
		"echo a=b # a comment",
		"echo a\necho x > missing-dir/f.txt\necho b",
		"echo x 2> e.txt > missing-dir/f.txt; echo after",
	}
	for _, c := range cmds {
		t.Run(c, func(t *testing.T) {
			env, ws := newWorkspace(t)
			ref := t.TempDir()
			for _, d := range []string{ws, ref} {
				writeTree(t, d, map[string]string{"side.log": "0\n", "sub/keep.txt": "k\n", "out.txt": "old\n"})
			}
			if planBuiltin(env, c, true) == nil {
				t.Fatalf("%q is not taken in-process; the test expects it to be", c)
			}
			res := mustCall(t, env, "run_command", map[string]any{"command": c})
			cmd := exec.Command(bash, "-c", c)
			cmd.Args[0] = "bash" // as run_command runs it
			cmd.Dir = ref
			out, _ := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			want := string(out)
			if want == "" {
				want = "(no output)\n"
			}
			if got := strings.TrimSuffix(res.Output, "exit code: "+itoa(code)); got == res.Output || got != want {
				t.Errorf("output %q, bash gave %q (exit %d)", res.Output, want, code)
			}
			if res.ExitCode == nil || *res.ExitCode != code {
				t.Errorf("exit code %v, bash %d", res.ExitCode, code)
			}
			if got, want := relSnapshot(t, ws), relSnapshot(t, ref); !reflect.DeepEqual(got, want) {
				t.Errorf("files:\n%v\nbash left:\n%v", got, want)
			}
		})
	}
}

// relSnapshot is snapshot keyed by paths relative to dir.
func relSnapshot(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	for p, v := range snapshot(t, dir) {
		rel, _ := filepath.Rel(dir, p)
		out[rel] = v
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// Everything else is bash's, in the sandbox: expansions, programs, pipes,
// options whose meaning differs between shells, and any target that is not
// a plain file of the workspace write_file could write.
func TestBuiltinCommandsDeclined(t *testing.T) {
	env, ws := newWorkspace(t)
	outside := t.TempDir()
	writeTree(t, ws, map[string]string{"hooks/pre.sh": "#!/bin/sh\n", "real.txt": "r\n"})
	if err := os.Symlink(filepath.Join(outside, "x"), filepath.Join(ws, "out-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", filepath.Join(ws, "in-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Kept = func(rel string) bool { return rel == "hooks/pre.sh" }
	for _, c := range []string{
		"echo $HOME", "echo ${X}", "echo `id`", "echo $(id)", "echo *", "echo f?.txt", "echo {a,b}", "echo ~",
		"echo a\\ b", "echo -n x", "echo -e 'a\\tb'", "printf x", "cat real.txt", "ls", "echo x | cat", "echo x &",
		"X=1 echo x", "echo x > /dev/null", "echo x > ../up.txt", "echo x > " + filepath.Join(outside, "abs.txt"),
		"echo x > out-link", "echo x > in-link", "echo x > .git/hooks/pre-commit", "echo x > .GIT/config",
		"echo x > hooks/pre.sh", "echo x < real.txt", "cat <<EOF\nx\nEOF",
		"echo x &> both.txt", "echo x 3> three.txt", "f() { echo x; }; f", "(echo x)", "{ echo x; } > g.txt",
		"exit 0", "cd sub", "echo x >| clobber.txt", "echo x > ''", "echo x > .",
	} {
		if planBuiltin(env, c, true) != nil {
			t.Errorf("%q was taken in-process; bash must run it", c)
		}
	}
	// Under a read-only sandbox a write is bash's (refused there); output
	// alone is still taken.
	if planBuiltin(env, "echo x > real.txt", false) != nil || planBuiltin(env, "echo x", false) == nil {
		t.Error("a read-only sandbox's write was taken in-process, or its plain echo was not")
	}
}

// The command's start is recorded, with no process, before it writes
// anything; a failed record runs nothing.
func TestBuiltinCommandJournaledBeforeItWrites(t *testing.T) {
	if !builtinOpenSupported() {
		t.Skip("no openat2 here")
	}
	env, ws := newWorkspace(t)
	var seen []proc.Identity
	env.Marker = "run1/call1"
	env.Started = func(id proc.Identity) error {
		if _, err := os.Stat(filepath.Join(ws, "ran.txt")); !os.IsNotExist(err) {
			t.Errorf("the command wrote before its start was recorded")
		}
		seen = append(seen, id)
		return nil
	}
	mustCall(t, env, "run_command", map[string]any{"command": "echo x > ran.txt"})
	if len(seen) != 1 || seen[0].PID != 0 || seen[0].PGID != 0 || seen[0].Marker != "run1/call1" {
		t.Fatalf("started records %+v; want one with no process and the call's marker", seen)
	}
	if got := readString(t, filepath.Join(ws, "ran.txt")); got != "x\n" {
		t.Fatalf("ran.txt = %q", got)
	}
	env.Started = func(proc.Identity) error { return os.ErrClosed }
	if res, err := call(t, env, "run_command", map[string]any{"command": "echo y > refused.txt"}); err == nil && !res.IsError {
		t.Fatalf("a failed start record still ran the command: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "refused.txt")); !os.IsNotExist(err) {
		t.Fatal("the command ran although its start could not be recorded")
	}
}

// A directory on the way swapped for a symlink after the command was
// planned (a process racing the agent) fails the write; nothing outside
// the workspace is written.
func TestBuiltinWriteRefusesSymlinkSwappedIn(t *testing.T) {
	if !builtinOpenSupported() {
		t.Skip("no openat2 here")
	}
	env, ws := newWorkspace(t)
	outside := t.TempDir()
	writeTree(t, ws, map[string]string{"d/f.txt": "in\n"})
	plan := planBuiltin(env, "echo pwned > d/f.txt", true)
	if plan == nil {
		t.Fatal("not planned in-process")
	}
	if err := os.RemoveAll(filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	br := &builtinRun{plan: plan, out: &out, open: func(rel string, appendTo bool) (io.WriteCloser, error) {
		return openBeneath(ws, rel, appendTo)
	}}
	if code := br.run(); code == 0 || !strings.Contains(out.String(), "Permission denied") {
		t.Fatalf("status %d, output %q; want a refused write", code, out.String())
	}
	if _, err := os.Stat(filepath.Join(outside, "f.txt")); !os.IsNotExist(err) {
		t.Fatal("the write followed the symlink out of the workspace")
	}
}
