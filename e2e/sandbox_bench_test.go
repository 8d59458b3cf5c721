package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"agent/internal/proc"
	"agent/internal/sandbox"
)

// BenchmarkSandboxTrue: `true` started as run_command starts it (a new
// session, gated, released, waited for): plain `bash -c` against the same
// through the run's sandbox spawner of the real binary (started once, before
// the timer): Landlock alone (network = true), and Landlock with the user,
// mount and network namespaces of no network (the default). Goal: ≤ 5 ms
// added per command.
func BenchmarkSandboxTrue(b *testing.B) {
	ws := b.TempDir()
	home := b.TempDir()
	for _, bc := range []struct {
		name    string
		mode    sandbox.Mode
		network bool
	}{
		{"plain", sandbox.ModeOff, true},
		{"landlock", sandbox.ModeWorkspaceWrite, true},
		{"landlock+netns", sandbox.ModeWorkspaceWrite, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			sb, _ := sandbox.New(sandbox.Options{Mode: bc.mode, Workspace: ws, Network: bc.network, StateDir: home,
				Spawner: []string{agentBin, "sandbox-spawner"}, TempRoot: b.TempDir()})
			defer sb.Close()
			if bc.mode != sandbox.ModeOff && !sb.Active() {
				b.Skip("no Landlock here")
			}
			one := func() {
				argv := []string{"bash", "-c", proc.GateScript + "true"}
				if sb.Active() {
					c, err := sb.Start("bench", sandbox.CommandSpec{Argv: argv, Dir: ws, Env: os.Environ(), Output: io.Discard, Gated: true})
					if err != nil {
						b.Fatal(err)
					}
					c.Release()
					<-c.Exited()
					if code, _ := c.ExitCode(); code != 0 {
						b.Fatalf("exit %d", code)
					}
					return
				}
				p, err := proc.Start(proc.Spec{Path: argv[0], Args: argv[1:], Dir: ws, Stdout: io.Discard, Stderr: io.Discard, Gated: true})
				if err != nil {
					b.Fatal(err)
				}
				p.Release()
				<-p.Exited()
				if code, _ := p.ExitCode(); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
			one() // the spawner starts at the run's first command
			b.ResetTimer()
			for b.Loop() {
				one()
			}
		})
	}
}

// BenchmarkSandboxWholeRun: one whole `agent run --approval full-auto` of
// 50 `/bin/true` commands (a program: a bare `true` is a builtin the agent
// runs in-process, with no sandbox to measure) against a scripted model, with the default sandbox
// (the run's spawner, namespaces, Landlock, seccomp) and with --sandbox
// off, alternating; ms/command is the run's wall time over 50. The
// difference of the two is what the sandbox adds per command, start of the
// spawner included (goal ≤ 5 ms).
func BenchmarkSandboxWholeRun(b *testing.B) {
	const n = 50
	var calls []map[string]any
	for i := range n {
		calls = append(calls, call("c"+strconv.Itoa(i), "run_command", map[string]any{"command": "/bin/true"}))
	}
	ws := gitRepoTB(b)
	scriptFile := filepath.Join(b.TempDir(), "s.json")
	if err := os.WriteFile(scriptFile, []byte(script(turn("", calls...), turn("done"))), 0o644); err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.TempDir(), "AGENT_HOME=" + filepath.Join(b.TempDir(), "state")}
	for _, mode := range []string{"off", "sandbox"} {
		b.Run(mode, func(b *testing.B) {
			args := []string{"run", "-C", ws, "--replay", scriptFile, "--approval", "full-auto", "fifty"}
			if mode == "off" {
				args = append(args, "--sandbox", "off")
			}
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				cmd := exec.Command(agentBin, args...)
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("run: %v\n%s", err, out)
				}
				total += time.Since(start)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N)/n, "ms/command")
		})
	}
}

// gitRepoTB is a small committed git repository for a benchmark.
func gitRepoTB(b *testing.B) string {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
