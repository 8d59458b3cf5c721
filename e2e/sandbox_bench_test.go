package e2e

import (
	"io"
	"os"
	"testing"

	"agent/internal/proc"
	"agent/internal/sandbox"
)

// BenchmarkSandboxTrue: `true` started as run_command starts it (its own
// process group, gated, released, waited for), plain `bash -c` against the
// same through the real binary's sandbox-exec helper: Landlock alone
// (network = true), and Landlock with the user and network namespaces of no
// network (the default). Goal: ≤ 10 ms added per command.
func BenchmarkSandboxTrue(b *testing.B) {
	ws := b.TempDir()
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
			sb, _ := sandbox.New(sandbox.Options{Mode: bc.mode, Workspace: ws, Network: bc.network,
				Helper: []string{agentBin, "sandbox-exec"}, TempRoot: b.TempDir()})
			defer sb.Close()
			if bc.mode != sandbox.ModeOff && !sb.Active() {
				b.Skip("no Landlock here")
			}
			for b.Loop() {
				spec := proc.Spec{Path: "bash", Args: []string{"-c", proc.GateScript + "true"}, Dir: ws,
					Stdout: io.Discard, Stderr: io.Discard, Gated: true}
				if sb.Active() {
					l, err := sb.Launch("bench", append([]string{spec.Path}, spec.Args...), os.Environ())
					if err != nil {
						b.Fatal(err)
					}
					spec.Path, spec.Args, spec.Env, spec.NewNetNS = l.Path, l.Args, l.Env, l.NewNetNS
				}
				p, err := proc.Start(spec)
				if err != nil {
					b.Fatal(err)
				}
				p.Release()
				<-p.Exited()
				if p.State().ExitCode() != 0 {
					b.Fatalf("exit %d", p.State().ExitCode())
				}
			}
		})
	}
}
