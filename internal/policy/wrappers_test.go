package policy

import (
	"strings"
	"testing"
)

// execForms run rm through an exec wrapper, a builtin that changes what a
// name runs, or a variable some program runs as code (issue 9, finding 3,
// and section E of the hardening check), and more forms an attacker would
// try. Every one must be denied by run_command(rm *), in every mode.
var execForms = []string{
	// finding 3, verbatim
	"flock lk rm f", "strace -o /dev/null rm f", "unshare rm f", "taskset 1 rm f", "chrt 1 rm f",
	"prlimit rm f", "setpriv rm f", "setarch x86_64 rm f", "nsenter rm f", "runuser -u u rm f",
	"fakeroot rm f", "valgrind rm f", "ssh-agent rm f", "dbus-run-session rm f",
	"script -qc 'rm f' /dev/null", "sg g -c 'rm f'", "hash -p /bin/rm d; d f",
	"env 'BASH_FUNC_g%%=() { rm f; }' bash -c g", "mapfile -C 'rm f #' -c 1 < x",
	// section E of the hardening check
	"stdbuf -o0 rm -f F", "ionice -c3 rm -f F", "xargs -a /dev/null -r true; busybox rm -f F", "chrt -o 0 rm -f F",
	"strace -f -o /dev/null rm -f F", "runuser -u root -- rm -f F",
	// the same wrappers with other option layouts
	"flock -n lk rm f", "flock -w 5 lk rm f", "flock --timeout=5 lk rm f", "flock -E 3 lk rm f", "flock lk -c 'rm f'",
	"strace -e trace=all -o x rm f", "strace -o '|rm f' ls", "ltrace rm f", "unshare -r rm f",
	"unshare --map-root-user --mount rm f", "taskset -c 0 rm f", "chrt -f 10 rm f", "chrt --other 0 rm f",
	"chrt -o rm f", "prlimit --nofile=10 rm f", "prlimit -n10 rm f",
	"setpriv --reuid=1000 --regid=1000 --init-groups rm f", "setarch x86_64 -R rm f", "linux64 rm f",
	"nsenter -t 1 -m -u rm f", "nsenter --target=1 rm f", "runuser root -c 'rm f'", "runuser -l root -c 'rm f'",
	"fakeroot -- rm f", "valgrind --tool=none -q rm f", "ssh-agent -s rm f", "dbus-run-session -- rm f",
	"script -c 'rm f'", "script --command='rm f' log", "sg root 'rm f'", "busybox sh -c 'rm f'", "toybox rm f",
	"ionice -c 2 -n 7 rm f", "stdbuf -oL -eL rm f", "jobs -x rm f", "pkexec rm f", "at now <<< 'rm f'",
	"echo 'rm f' | at now", "fish -c 'rm f'",
	// the brief's other forms
	"command -p rm f", "exec -a x rm f", "builtin rm f", `\rm f`, "r''m f", "$'rm' f", "/usr/bin/env -S 'rm f'",
	"nice -n 5 -- rm f", "timeout -s KILL 5 rm f", "xargs -I{} rm {}", "find . -exec rm {} +",
	"git -c core.pager='rm f' log", "less '+!rm f' x", "echo rm f | xargs -I{} {}",
	// builtins and variables
	"trap -- 'rm f' EXIT", "readarray -C 'rm f' -c 1 < x", "complete -C 'rm f' x", "compgen -C 'rm f' x",
	`bind -x '"\C-t": rm f'`, "fc -s", "enable -f /tmp/x.so rm", "export PS4='$(rm f)'; set -x; ls",
	"PS4='$(rm f)' bash -xc ls", "PROMPT_COMMAND='rm f' bash -i", "LESSOPEN='|rm f %s' less x",
	"MANPAGER='rm f' man ls", "EDITOR='rm f' git commit", "GIT_SSH_COMMAND='rm f' git fetch",
	"GIT_EXTERNAL_DIFF=rm git diff", "TAR_OPTIONS='--to-command=rm' tar xf a.tar",
	// an exec wrapper the policy has no spec for
	"frobnicate --x rm f", "frobnicate $X", "frob /usr/bin/rm f", "frob --exec=rm f", "frob RM f",
	"parallel rm ::: a b", "ssh host 'rm f'", "ssh host rm f", "tmux new -d 'rm f'", "gdb -batch -ex '!rm f'",
	"docker run --rm alpine rm f", "cp /bin/rm ./x", "ln -s /bin/rm x",
	// an option the wrapper's spec does not know may take the "command" as its value
	"nsenter -X echo rm f", "timeout --weird echo rm f", "xargs -Z grep rm",
	// gh: aliases and extensions
	"gh alias set x '!rm f'", "gh frob rm f", "GH_PAGER='rm f' gh pr list",
	// a shell, or what may be one, reading a here-document or a pipe
	"sudo -s <<EOF\nrm f\nEOF", "sudo -i <<< 'rm f'", "echo 'rm f' | sudo -s", "su <<EOF\nrm f\nEOF",
	"runuser root <<< 'rm f'", "ssh host <<EOF\nrm -rf f\nEOF", "docker exec -i c sh <<< 'rm f'",
}

func TestExecWrappersDeniedByRm(t *testing.T) {
	for _, mode := range []Mode{ModeAsk, ModeAutoEdit, ModeFullAuto} {
		p := mustPolicy(t, mode, []string{"run_command(*)"}, []string{"run_command(rm *)"})
		for _, c := range execForms {
			d := p.Decide(cmdCall(c))
			if d.Action != Deny || d.Source != SourceRule || d.Rule != "run_command(rm *)" {
				t.Errorf("%s: %q: got %s/%s %q: %s", mode, c, d.Action, d.Source, d.Rule, d.Reason)
			}
		}
	}
}

func TestExecWrappersNotAllowedByLs(t *testing.T) {
	p := mustPolicy(t, ModeAsk, []string{"run_command(ls *)"}, nil)
	for _, c := range execForms {
		if d := p.Decide(cmdCall(c)); d.Action == Allow {
			t.Errorf("%q: allowed by %s (%s)", c, d.Rule, d.Reason)
		}
	}
}

// The reason says what was found.
func TestExecWrapperReasons(t *testing.T) {
	p := mustPolicy(t, ModeFullAuto, nil, []string{"run_command(rm *)"})
	for c, want := range map[string]string{
		"frobnicate --x rm f":                         "`frobnicate --x rm f` may run `rm f`: the policy cannot tell that frobnicate leaves its arguments unexecuted",
		"hash -p /bin/rm d; d f":                      "`/bin/rm …` (run by hash -p, as d, in `hash -p /bin/rm d; d f`)",
		"mapfile -C 'rm f #' -c 1 < x":                "`rm f` (run by mapfile -C (a callback run for each line), in `mapfile -C 'rm f #' -c 1 < x`)",
		"env 'BASH_FUNC_g%%=() { rm f; }' bash -c g":  "`rm f` (run by the function BASH_FUNC_g%% exported through the environment",
		"script -qc 'rm f' /dev/null":                 "`rm f` (run by script -c, in",
		"git -c core.pager='rm f' log":                "`rm f` (run by git -c core.pager, in",
		"strace -o /dev/null rm f":                    "denied by rule run_command(rm *): `strace -o /dev/null rm f`",
		"frobnicate $X":                               "may run `rm …`",
		"xargs -a /dev/null -r true; busybox rm -f F": "`busybox rm -f F` (in `xargs -a /dev/null -r true; busybox rm -f F`)",
	} {
		if d := p.Decide(cmdCall(c)); !strings.Contains(d.Reason, want) {
			t.Errorf("%q: reason %q, want it to contain %q", c, d.Reason, want)
		}
	}
}

// Commands that name rm without running it, and wrappers running something
// else: a deny rule on rm leaves them alone.
func TestExecWrapperDenyDoesNotOverreach(t *testing.T) {
	p := mustPolicy(t, ModeFullAuto, nil, []string{"run_command(rm *)", "run_command(git push *)"})
	for _, c := range []string{
		"echo rm f", "printf '%s\\n' rm", "man rm", "grep rm x", "type rm", "which rm", "command -v rm",
		"ls -l /bin/rm", "stat /bin/rm", "git log -- rm", "git commit -m 'please rm it'", "sort rm.txt",
		"flock lk ls", "strace -o /dev/null ls", "timeout 5 ls", "chrt -o 0 ls", "busybox ls", "taskset -p 1",
		"frobnicate --x ls", "frobnicate *.go", "./notify 'do not rm the cache'", "hash -r", "hash -p /bin/ls l; l",
		"trap 'echo bye' EXIT", "mapfile -C 'echo' -c 1 < x", "script -qc 'ls' /dev/null", "sed 's/rm/x/' f",
		"awk '/rm/' f", "frob git status", "go test ./...", "go test -run 'TestA|TestB' ./...",
		"python -m pytest -k 'not slow'", "ls -la && git status && go vet ./...", "ssh host ls",
		"PS4='+ ' bash -xc ls", "git -c color.ui=never log", "git -c core.pager=cat log",
		"python3 - <<EOF\nprint(1)\nEOF", "su root -c ls", "sudo ls", "env -i echo rm f", "setsid -f echo rm",
		"git ls-files -z | xargs -0 grep -l rm", "nice -n 5 echo rm", "strace -f echo rm",
		"gh pr create --title x --body \"$(cat <<'EOF'\nrm -rf build\nEOF\n)\"", "gh pr list",
	} {
		if d := p.Decide(cmdCall(c)); d.Action != Allow {
			t.Errorf("%q: got %s (%s), want allow", c, d.Action, d.Reason)
		}
	}
	push := mustPolicy(t, ModeFullAuto, nil, []string{"run_command(git push *)"})
	for _, c := range []string{"frob git push origin", "frobnicate $X origin", "nice git push", "flock lk git push"} {
		if d := push.Decide(cmdCall(c)); d.Action != Deny || d.Rule != "run_command(git push *)" {
			t.Errorf("%q: got %s %s (%s), want deny by git push", c, d.Action, d.Rule, d.Reason)
		}
	}
}

// Wrappers that only change how a command runs are transparent to allow
// rules; those that run it with other rights need a rule naming them.
func TestWrapperAllowCoverage(t *testing.T) {
	p := mustPolicy(t, ModeAsk, []string{"run_command(rm *)", "run_command(sg g *)"}, nil)
	for c, want := range map[string]Action{
		"flock lk rm f":                Allow,
		"strace -o /dev/null rm f":     Allow,
		"strace -o /tmp/log rm f":      Ask, // writes the log
		"taskset 1 rm f":               Allow,
		"chrt -o 0 rm f":               Allow,
		"prlimit --nofile=10 rm f":     Allow,
		"setarch x86_64 rm f":          Allow,
		"fakeroot rm f":                Allow,
		"valgrind -q rm f":             Allow,
		"ssh-agent rm f":               Allow,
		"dbus-run-session rm f":        Allow,
		"busybox rm f":                 Allow,
		"stdbuf -o0 rm f":              Allow,
		"ionice -c3 rm f":              Allow,
		"script -qc 'rm f' /dev/null":  Allow,
		"script -qc 'rm f' log":        Ask, // writes the typescript
		"unshare rm f":                 Ask,
		"nsenter -t 1 rm f":            Ask,
		"setpriv --reuid=1 rm f":       Ask,
		"runuser -u u rm f":            Ask,
		"sg g -c 'rm f'":               Allow,
		"sg root -c 'rm f'":            Ask,
		"hash -p /bin/rm d; d f":       Ask,
		"frobnicate --x rm f":          Ask,
		"mapfile -C 'rm f #' -c 1 < x": Ask, // mapfile itself has no rule
	} {
		if d := p.Decide(cmdCall(c)); d.Action != want {
			t.Errorf("%q: got %s (%s), want %s", c, d.Action, d.Reason, want)
		}
	}
}

// Interpreters run code that a command-name rule cannot read: documented
// as out of reach (the OS sandbox covers them). This pins what the
// documentation says.
func TestInterpretersOutOfReach(t *testing.T) {
	p := mustPolicy(t, ModeFullAuto, nil, []string{"run_command(rm *)"})
	for _, c := range []string{`python3 -c 'import os; os.remove("f")'`, `perl -e 'unlink "f"'`,
		`node -e 'require("fs").unlinkSync("f")'`, `ruby -e 'File.delete("f")'`} {
		if d := p.Decide(cmdCall(c)); d.Action != Allow {
			t.Errorf("%q: got %s (%s); the documentation says interpreters are out of reach", c, d.Action, d.Reason)
		}
	}
}
