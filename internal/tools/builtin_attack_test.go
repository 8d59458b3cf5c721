//go:build linux

package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"agent/internal/sandbox"
)

// A carriage return is part of a word to bash ("echo x > f\r" makes the
// file "f\r" and prints "x\r"); the parser drops it. Such a command is
// bash's.
func TestBuiltinDeclinesCarriageReturn(t *testing.T) {
	env, _ := newWorkspace(t)
	for _, c := range []string{"echo hi\r", "echo x > f\r", "echo a\r\necho b"} {
		if planBuiltin(env, c, true) != nil {
			t.Errorf("%q was taken in-process; bash keeps the carriage return and must run it", c)
		}
	}
}

// A target that is not a regular file (a FIFO a command left, a socket)
// is bash's: it would block on or write to it in the sandbox, where the
// in-process runner would answer "Permission denied" instead.
func TestBuiltinDeclinesSpecialFileTarget(t *testing.T) {
	env, ws := newWorkspace(t)
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if planBuiltin(env, "echo x > pipe", true) != nil {
		t.Error("a write to a FIFO was taken in-process")
	}
}

// What the sandbox keeps read-only inside the workspace is not written
// in-process either: the hooks and config of a git directory a .git file
// points at inside the workspace (a worktree whose gitdir is not named
// .git), and the agent's state directory when it lies in the workspace.
func TestBuiltinDeclinesSandboxProtectedPaths(t *testing.T) {
	env, ws := newWorkspace(t)
	writeTree(t, ws, map[string]string{
		".git":            "gitdir: gd\n",
		"gd/HEAD":         "ref: refs/heads/main\n",
		"gd/config":       "[core]\n",
		"gd/hooks/.keep":  "",
		"home/agent.db":   "",
		"normal/file.txt": "",
	})
	sb, _ := sandbox.New(sandbox.Options{Mode: sandbox.ModeWorkspaceWrite, Workspace: ws, StateDir: filepath.Join(ws, "home"),
		Probe: func() sandbox.Capabilities { return sandbox.Capabilities{LandlockABI: 7, UserNS: true} }})
	t.Cleanup(sb.Close)
	if !sb.Active() {
		t.Skip("sandbox not active")
	}
	env.Sandbox = sb
	for _, c := range []string{"echo x > gd/hooks/pre-commit", "echo x >> gd/config", "echo x > home/agent.db"} {
		if planBuiltin(env, c, true) != nil {
			t.Errorf("%q was taken in-process; the sandbox refuses that write", c)
		}
	}
	if planBuiltin(env, "echo x > normal/file.txt", true) == nil {
		t.Error("a plain workspace write was not taken in-process")
	}
	if _, err := os.Stat(filepath.Join(ws, "gd", "hooks", "pre-commit")); err == nil {
		t.Error("a hook was written")
	}
}

// Paths the kernel resolves differently from a lexical clean: a trailing
// slash ("f/" is a directory to bash: nothing is written), "." or ".."
// after a name that does not exist or is a file. Each command is either
// left to bash or does exactly what bash does.
func TestBuiltinTargetsResolvedAsBashDoes(t *testing.T) {
	if !builtinOpenSupported() {
		t.Skip("no openat2 here")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, c := range []string{
		"echo x > newf/", "echo x > newf/.", "echo x > keep.txt/", "echo x > keep.txt/.",
		"echo x > nosub/../g", "echo x > keep.txt/../g", "echo x > sub/./f", "echo x > ./f", "echo x >> sub//f",
		"echo x > keep.txt/f", "echo x > .//f", "echo x > nosub/f",
	} {
		t.Run(c, func(t *testing.T) {
			env, ws := newWorkspace(t)
			ref := t.TempDir()
			for _, d := range []string{ws, ref} {
				writeTree(t, d, map[string]string{"sub/keep.txt": "k\n", "keep.txt": "k\n"})
			}
			if planBuiltin(env, c, true) == nil {
				return // bash's
			}
			res := mustCall(t, env, "run_command", map[string]any{"command": c})
			cmd := exec.Command(bash, "-c", c)
			cmd.Args[0] = "bash"
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
			if got, want := relSnapshot(t, ws), relSnapshot(t, ref); !reflect.DeepEqual(got, want) {
				t.Errorf("files:\n%v\nbash left:\n%v", got, want)
			}
		})
	}
}

// bash -c reads the file $BASH_ENV names before the command (it may "set
// -C", so "echo x > existing" fails there), and takes SHELLOPTS and
// BASHOPTS from the environment (and complains): with any of them in the
// commands' environment, bash runs the command.
func TestBuiltinDeclinedWithBashStartupEnv(t *testing.T) {
	for _, kv := range []string{"BASH_ENV=/tmp/benv", "SHELLOPTS=noclobber", "BASHOPTS=xpg_echo"} {
		env, _ := newWorkspace(t)
		env.CommandEnv = []string{"PATH=/usr/bin:/bin", kv}
		if planBuiltin(env, "echo x > f.txt", true) != nil {
			t.Errorf("with %s in the environment the command was taken in-process", kv)
		}
	}
	env, _ := newWorkspace(t)
	env.CommandEnv = []string{"PATH=/usr/bin:/bin", "BASH_ENV="}
	if planBuiltin(env, "echo x > f.txt", true) == nil {
		t.Error("an empty BASH_ENV (bash reads nothing) declined the command")
	}
}
