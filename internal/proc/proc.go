// Package proc owns the processes the agent starts for commands and what is
// left of them. A command runs as the leader of its own process group, with a
// parent-death signal set from an OS thread that stays alive (locked) for the
// command's whole life, so it dies with the agent; it starts gated: the
// process exists, so its identity (pid, process group, boot id, start time,
// environment marker) can be journaled, but it runs nothing until Release.
// Later, possibly in another process after a crash, Scan finds what is left
// of such commands — members of their groups that are not impostors reusing
// the id, and descendants that left the group but still carry the marker in
// their environment — and End ends them.
//
// It must not know about runs, events or the journal: callers pass
// identities and decide when to end what.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// MarkerEnv is the environment variable that marks a command's processes:
// AGENT_CALL=<run id>/<call id>. Descendants inherit it.
const MarkerEnv = "AGENT_CALL"

// Identity is what identifies a started command's processes later.
type Identity struct {
	PID  int
	PGID int
	// BootID is the kernel's boot id ("" where unknown): after a reboot
	// nothing of the command can be left.
	BootID string
	// StartTicks is the leader's start time in clock ticks since boot (0
	// where unknown). A process of the same group id that started earlier
	// belongs to an unrelated group that reuses the id.
	StartTicks uint64
	// Marker is the value of MarkerEnv in the command's environment.
	Marker string
}

// Info describes one process for a person.
type Info struct {
	PID     int
	PGID    int
	Command string // its command line, space-joined
}

// Spec describes a command to start.
type Spec struct {
	// Path and Args are the program and its arguments (Args without argv[0]).
	Path string
	Args []string
	Dir  string
	// Env is the environment; MarkerEnv=Marker is appended when Marker is set.
	Env    []string
	Marker string
	Stdout io.Writer
	Stderr io.Writer
	// WaitDelay bounds how long Wait waits for output pipes held open by
	// background processes after the command itself exited.
	WaitDelay time.Duration
	// Gated: the program is a shell started with GateScript in front of its
	// script; it runs nothing until Release. Without it, it runs at once.
	Gated bool
	// NewNetNS starts the program in a new user namespace (the caller's
	// uid and gid mapped to themselves) and a new network namespace, with
	// CAP_NET_ADMIN in them only (the sandbox helper brings the private
	// loopback up, then drops it). Linux only; elsewhere Start fails.
	NewNetNS bool
	// NewMountNS starts the program in a new user namespace and a new mount
	// namespace (with NewNetNS, a network namespace too), holding
	// CAP_SYS_ADMIN, CAP_NET_ADMIN and CAP_SETPCAP there only: the sandbox's
	// spawner sets up its mounts, then drops them all. Linux only.
	NewMountNS bool
	// ExtraFiles are passed as fds 3, 4, ... (after the gate's fd 3 when
	// Gated).
	ExtraFiles []*os.File
}

// GateScript is put in front of a bash script (on the same first line, so
// line numbers in messages stay right): it waits for one line on fd 3, which
// Release writes; if the agent dies first the pipe closes and the shell
// exits 125 without running anything.
const GateScript = "read -r -u 3 _ || exit 125; exec 3<&-; "

// GateExit is the exit status of a gated command that was never released.
const GateExit = 125

// Process is a started command.
type Process struct {
	cmd     *exec.Cmd
	gate    *os.File // write end of the gate pipe; nil once released
	exited  chan struct{}
	waitErr error // set before exited is closed
	id      Identity
}

// ErrNotStarted wraps a failure to start the program.
var ErrNotStarted = errors.New("command not started")

// Start starts the command in a new session (so its own process group, with
// no controlling terminal; stdin is /dev/null unless ExtraFiles say
// otherwise). With spec.Gated it is held at the gate until Release or Abort.
func Start(spec Spec) (*Process, error) {
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if spec.Marker != "" {
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], MarkerEnv+"="+spec.Marker)
	}
	cmd.Stdout, cmd.Stderr = spec.Stdout, spec.Stderr
	cmd.WaitDelay = spec.WaitDelay
	p := &Process{cmd: cmd, exited: make(chan struct{})}
	var gateR *os.File
	if spec.Gated {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("%w: gate pipe: %v", ErrNotStarted, err)
		}
		gateR, p.gate = r, w
		cmd.ExtraFiles = []*os.File{r}
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, spec.ExtraFiles...)
	if err := configure(cmd, spec); err != nil {
		if gateR != nil {
			gateR.Close()
			p.gate.Close()
		}
		return nil, fmt.Errorf("%w: %w", ErrNotStarted, err)
	}
	started := make(chan error, 1)
	go func() {
		// The parent-death signal fires when the thread that forked the child
		// exits: keep this goroutine, and so its thread, until the child is gone.
		lockThread()
		defer unlockThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	err := <-started
	if gateR != nil {
		gateR.Close()
	}
	if err != nil {
		if p.gate != nil {
			p.gate.Close()
		}
		return nil, fmt.Errorf("%w: %w", ErrNotStarted, err)
	}
	pid := cmd.Process.Pid
	p.id = Identity{PID: pid, PGID: pid, Marker: spec.Marker}
	p.id.BootID, p.id.StartTicks = identify(pid)
	return p, nil
}

// Identity is the started command's identity.
func (p *Process) Identity() Identity { return p.id }

// Release lets a gated command run.
func (p *Process) Release() error {
	if p.gate == nil {
		return nil
	}
	_, err := p.gate.Write([]byte("go\n"))
	p.gate.Close()
	p.gate = nil
	if err != nil {
		return fmt.Errorf("release command: %w", err)
	}
	return nil
}

// Abort makes a gated command exit without running anything, and waits.
func (p *Process) Abort() {
	if p.gate != nil {
		p.gate.Close()
		p.gate = nil
	}
	<-p.exited
}

// Exited is closed once the command exited and its output was collected.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Err is what waiting for the command returned (valid once Exited is
// closed): nil, an *exec.ExitError, exec.ErrWaitDelay, ...
func (p *Process) Err() error { return p.waitErr }

// State is the command's exit state once Done delivered (nil before).
func (p *Process) State() *os.ProcessState { return p.cmd.ProcessState }

// ExitCode is the command's exit status as a shell reports it (128+N for a
// signal N), once Exited is closed; false before, or where it is unknown.
func (p *Process) ExitCode() (int, bool) {
	if ps := p.cmd.ProcessState; ps != nil {
		return exitCode(ps), true
	}
	return 0, false
}

// Identify reads the identity of a process started elsewhere (the sandbox's
// spawner forks commands): pid, its group (a session leader's group id is its
// pid), the boot id and its start time.
func Identify(pid int, marker string) Identity {
	id := Identity{PID: pid, PGID: pid, Marker: marker}
	id.BootID, id.StartTicks = identify(pid)
	return id
}

// Alive reports whether pid runs (exists and is not a zombie).
func Alive(pid int) bool { return alive(pid) }

// KillGroup sends SIGKILL to the process group pgid.
func KillGroup(pgid int) { killGroup(pgid) }

// Background lists the members of the group of id still running (a command
// started elsewhere that left processes behind).
func Background(id Identity) []Info {
	if !groupAlive(id.PGID) {
		return nil
	}
	found, err := Scan([]Identity{id}, "")
	if err != nil {
		return nil
	}
	return found[id.PGID]
}

// KillGroup sends SIGKILL to the command's whole process group (to the
// command alone where there are no process groups).
func (p *Process) KillGroup() {
	killGroup(p.id.PGID)
	if !groupsSupported && p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
}

// Background lists the members of the command's process group still
// running after the command itself exited: processes it left behind.
func (p *Process) Background() []Info { return Background(p.id) }

// ExitCode is a finished command's exit status as a shell reports it:
// 128+N for a process killed by signal N.
func ExitCode(ps *os.ProcessState) int { return exitCode(ps) }

// Scan finds the processes left of the given commands: members of their
// process groups that started no earlier than the group's leader (on the
// same boot), and — when markerPrefix is set — any process whose
// environment has MarkerEnv starting with markerPrefix. The result is keyed
// by the PGID of the identity each process belongs to (a marker-only match
// is keyed by the identity whose marker it carries, or 0). The agent's own
// process and its ancestors are never listed.
func Scan(ids []Identity, markerPrefix string) (map[int][]Info, error) {
	return scan(ids, markerPrefix)
}

// End ends the processes Scan found: SIGTERM, then SIGKILL for what is still
// there after grace. It returns when they are gone or ctx ends.
func End(ctx context.Context, procs []Info, grace time.Duration) {
	if len(procs) == 0 {
		return
	}
	for _, pr := range procs {
		signal(pr.PID, false)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if !anyAlive(procs) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, pr := range procs {
		signal(pr.PID, true)
	}
	for i := 0; i < 200 && anyAlive(procs) && ctx.Err() == nil; i++ {
		time.Sleep(5 * time.Millisecond)
	}
}

func anyAlive(procs []Info) bool {
	for _, pr := range procs {
		if alive(pr.PID) {
			return true
		}
	}
	return false
}

// shortCmd shortens a command line for a report.
func shortCmd(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
