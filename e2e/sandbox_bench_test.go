package e2e

import (
	"io"
	"os"
	"testing"

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
