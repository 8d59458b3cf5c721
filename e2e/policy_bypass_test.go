package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 9, findings 3 and 4, through the real binary: a scripted model
// issues each form; exec wrappers and builtins cannot walk around
// --deny 'run_command(rm *)' under full-auto, and the writing forms of
// read commands an allow rule covers pause the run (exit 3) and write nothing.

// wrapperForms delete VICTIM through an exec wrapper or a builtin. need is the
// program the form needs installed to delete anything ("" for a builtin).
var wrapperForms = []struct{ need, cmd string }{
	{"flock", "flock lk rm -f VICTIM"},
	{"strace", "strace -f -o /dev/null rm -f VICTIM"},
	{"unshare", "unshare rm -f VICTIM"},
	{"taskset", "taskset 1 rm -f VICTIM"},
	{"chrt", "chrt -o 0 rm -f VICTIM"},
	{"prlimit", "prlimit rm -f VICTIM"},
	{"setpriv", "setpriv rm -f VICTIM"},
	{"setarch", "setarch x86_64 rm -f VICTIM"},
	{"nsenter", "nsenter rm -f VICTIM"},
	{"runuser", "runuser -u root -- rm -f VICTIM"},
	{"fakeroot", "fakeroot rm -f VICTIM"},
	{"valgrind", "valgrind -q rm -f VICTIM"},
	{"ssh-agent", "ssh-agent rm -f VICTIM"},
	{"dbus-run-session", "dbus-run-session rm -f VICTIM"},
	{"script", "script -qc 'rm -f VICTIM' /dev/null"},
	{"sg", "sg root -c 'rm -f VICTIM'"},
	{"stdbuf", "stdbuf -o0 rm -f VICTIM"},
	{"ionice", "ionice -c3 rm -f VICTIM"},
	{"busybox", "xargs -a /dev/null -r true; busybox rm -f VICTIM"},
	{"", "hash -p /bin/rm d; d -f VICTIM"},
	{"", "env 'BASH_FUNC_g%%=() { rm -f VICTIM; }' bash -c g"},
	{"", "mapfile -C 'rm -f VICTIM #' -c 1 < README.md"},
	{"", "trap -- 'rm -f VICTIM' EXIT"},
	{"", "PS4='$(rm -f VICTIM)'; set -x; true"},
	{"", "frobnicate() { \"$@\"; }; export -f frobnicate; bash -c 'frobnicate rm -f VICTIM'"},
}

// wrapperScript writes one victim file per form and a script issuing each.
func wrapperScript(t *testing.T, ws string) (string, []string) {
	t.Helper()
	turns := []map[string]any{}
	var victims []string
	for i, f := range wrapperForms {
		v := fmt.Sprintf("victim%d", i)
		if err := os.WriteFile(filepath.Join(ws, v), []byte("keep\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		victims = append(victims, v)
		cmd := strings.ReplaceAll(f.cmd, "VICTIM", v)
		turns = append(turns, turn("", call(fmt.Sprintf("c%d", i), "run_command", map[string]any{"command": cmd})))
	}
	return script(append(turns, turn("cleaned up"))...), victims
}

func installed(name string) bool {
	if name == "" {
		return true
	}
	_, err := exec.LookPath(name)
	return err == nil
}

func TestExecWrappersCannotWalkAroundDeny(t *testing.T) {
	e := newEnv(t, "")
	sc, victims := wrapperScript(t, e.ws)
	e.serve(sc)
	r := e.run("run", "--approval", "full-auto", "--deny", "run_command(rm *)", "--max-steps", "100", "clean up")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	evs := e.trace(runID(t, r.stderr))
	for i, f := range wrapperForms {
		if _, err := os.Stat(filepath.Join(e.ws, victims[i])); err != nil {
			t.Errorf("%q deleted %s despite the deny rule", f.cmd, victims[i])
		}
		if res := resultOf(evs, fmt.Sprintf("c%d", i)); res.Status != "denied" || !strings.Contains(res.Output, "rm *") {
			t.Errorf("%q: result %s %q, want denied by the rm rule", f.cmd, res.Status, res.Output)
		}
	}
}

// The control: without the deny rule, the same forms delete their victims
// (those whose program is installed and works here), so the test above
// would see a walk-around.
func TestExecWrappersDeleteWithoutDeny(t *testing.T) {
	e := newEnv(t, "")
	sc, victims := wrapperScript(t, e.ws)
	e.serve(sc)
	r := e.run("run", "--approval", "full-auto", "--max-steps", "100", "clean up")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checked := 0
	for i, f := range wrapperForms {
		switch f.need {
		case "", "flock", "prlimit", "chrt", "stdbuf":
		default:
			continue // may need privileges, a daemon, a terminal, a CPU or an architecture this machine lacks
		}
		if !installed(f.need) {
			continue
		}
		checked++
		if _, err := os.Stat(filepath.Join(e.ws, victims[i])); err == nil {
			t.Errorf("%q did not delete %s without a deny rule: the form does not do what the test assumes", f.cmd, victims[i])
		}
	}
	if checked < 6 {
		t.Fatalf("only %d forms could be checked here", checked)
	}
}

// writeForms write OUT (a directory outside the workspace) under an allow
// rule for the read form.
var writeForms = []struct{ rule, cmd string }{
	{"run_command(git diff *)", "git diff --output=OUT/t1 --no-index /dev/null README.md"},
	{"run_command(sort *)", "sort -o OUT/t2 README.md"},
	{"run_command(sed *)", "sed -n 'w OUT/t3' README.md"},
	{"run_command(sed *)", "sed '1e touch OUT/t4' README.md"},
	{"run_command(uniq *)", "uniq README.md OUT/t5"},
	{"run_command(awk *)", `awk 'BEGIN { system("touch OUT/t6") }'`},
	{"run_command(awk *)", `awk '{ print > "OUT/t7" }' README.md`},
	{"run_command(sed *)", "sed 's/#/x/w OUT/t8' README.md"},
	{"run_command(git *)", "git -c alias.x='!touch OUT/t9' x"},
	{"run_command(tee *)", "tee OUT/t10 < README.md"},
	{"run_command(find *)", "find . -maxdepth 0 -fls OUT/t11"},
}

func TestWritingFormsOfAllowedReadCommandsAsk(t *testing.T) {
	for i, f := range writeForms {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			out := t.TempDir()
			cmd := strings.ReplaceAll(f.cmd, "OUT", out)
			e := newEnv(t, script(turn("", call("c1", "run_command", map[string]any{"command": cmd})), turn("looked")))
			r := e.run("run", "--approval", "ask", "--allow", f.rule, "look")
			if r.code != 3 {
				t.Errorf("allow %s: %q: exit %d, want 3 (paused for approval)\n%s", f.rule, cmd, r.code, r.stderr)
			}
			if ents, _ := os.ReadDir(out); len(ents) > 0 {
				t.Errorf("allow %s: %q wrote %s outside the workspace", f.rule, cmd, ents[0].Name())
			}
			if !strings.Contains(r.stderr, "--approve c1") {
				t.Errorf("the pause message does not offer to approve c1:\n%s", r.stderr)
			}
		})
	}
}

// The control: the read form still runs under the rule, and each writing
// form writes when approval is not asked for, so the test above would see
// a write.
func TestWritingFormsWriteUnderFullAuto(t *testing.T) {
	out := t.TempDir()
	var turns []map[string]any
	for i, f := range writeForms {
		turns = append(turns, turn("", call(fmt.Sprintf("c%d", i), "run_command",
			map[string]any{"command": strings.ReplaceAll(f.cmd, "OUT", out)})))
	}
	e := newEnv(t, script(append(turns, turn("looked"))...))
	// The control runs without the OS sandbox, which would stop these
	// writes outside the workspace (e2e/sandbox_test.go).
	if r := e.run("run", "--approval", "full-auto", "--sandbox", "off", "--max-steps", "100", "look"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for i, f := range writeForms {
		if _, err := os.Stat(filepath.Join(out, fmt.Sprintf("t%d", i+1))); err != nil {
			t.Errorf("%q did not write t%d under full-auto: the form does not do what the test assumes", f.cmd, i+1)
		}
	}

	read := newEnv(t, script(turn("", call("c1", "run_command", map[string]any{"command": "sort README.md"})), turn("sorted")))
	if r := read.run("run", "--approval", "ask", "--allow", "run_command(sort *)", "sort"); r.code != 0 {
		t.Errorf("the read form under its allow rule: exit %d, want 0\n%s", r.code, r.stderr)
	}
}
