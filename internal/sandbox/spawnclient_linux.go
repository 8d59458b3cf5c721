//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"agent/internal/proc"
)

// readyTimeout bounds how long a new spawner may take to confine itself.
const readyTimeout = 20 * time.Second

// spawner is the agent's side of one run's spawner process.
type spawner struct {
	key  string // the encoded rules it was started with
	p    *proc.Process
	conn *unixPackets
	errb *bytes.Buffer // what it printed (why it failed)

	// userns is the inode of the spawner's user namespace (0: none):
	// whatever a command left in it, marker cleared and group left
	// included, is ended with the spawner.
	userns uint64

	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan frame // start requests awaiting "started"
	cmds    map[uint64]*Command
	dead    error
}

// startSpawner starts a spawner with the rules sp and waits until it says
// it is ready. env is its own environment.
func startSpawner(argv []string, sp helperSpec, netns bool, env []string) (*spawner, error) {
	enc, err := sp.encode()
	if err != nil {
		return nil, err
	}
	mine, theirs, err := socketPair()
	if err != nil {
		return nil, err
	}
	defer theirs.Close()
	errb := &bytes.Buffer{}
	p, err := proc.Start(proc.Spec{
		Path: argv[0], Args: append(slices.Clone(argv[1:]), enc),
		Env: env, Stdout: io.Discard, Stderr: &lockedBuffer{b: errb},
		NewMountNS: sp.Mounts, NewNetNS: netns, ExtraFiles: []*os.File{theirs},
	})
	if err != nil {
		mine.Close()
		return nil, err
	}
	theirs.Close()
	s := &spawner{key: enc, p: p, conn: &unixPackets{c: mine}, errb: errb,
		waiting: map[uint64]chan frame{}, cmds: map[uint64]*Command{}}
	// The first frame: ready, or why not.
	_ = mine.SetReadDeadline(time.Now().Add(readyTimeout))
	buf := make([]byte, maxFrame+1)
	n, fds, trunc, err := s.conn.recv(buf)
	closeFds(fds)
	_ = mine.SetReadDeadline(time.Time{})
	var f frame
	if err == nil {
		f, err = decodeFrame(buf[:n], trunc)
	}
	if err == nil && f.Op != opReady {
		if f.Error != "" {
			err = errors.New(f.Error)
		} else {
			err = fmt.Errorf("%w: %q before ready", errFrame, f.Op)
		}
	}
	if err != nil {
		s.close()
		<-p.Exited()
		if msg := strings.TrimSpace(errb.String()); msg != "" && !strings.Contains(err.Error(), msg) {
			err = fmt.Errorf("%w (%s)", err, msg)
		}
		return nil, fmt.Errorf("sandbox: the command spawner did not start: %w", err)
	}
	if sp.Mounts || netns {
		var st syscall.Stat_t
		if err := syscall.Stat(fmt.Sprintf("/proc/%d/ns/user", p.Identity().PID), &st); err == nil {
			s.userns = st.Ino
		}
	}
	go s.read()
	return s, nil
}

// read dispatches the spawner's frames until it closes or dies; then every
// command still running is failed and its group killed.
func (s *spawner) read() {
	buf := make([]byte, maxFrame+1)
	var err error
	for {
		var n int
		var fds []int
		var trunc bool
		n, fds, trunc, err = s.conn.recv(buf)
		closeFds(fds) // the spawner never sends descriptors
		if err == nil && n == 0 && !trunc {
			err = io.EOF
		}
		if err != nil {
			break
		}
		f, ferr := decodeFrame(buf[:n], trunc)
		if ferr != nil {
			continue // not one of ours: ignore it, never act on it
		}
		s.mu.Lock()
		switch f.Op {
		case opStarted, opError:
			if ch, ok := s.waiting[f.ID]; ok {
				delete(s.waiting, f.ID)
				ch <- f
			}
		case opExited:
			if c, ok := s.cmds[f.ID]; ok {
				delete(s.cmds, f.ID)
				go c.finish(f.Status, true, nil)
			}
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	if s.dead == nil {
		s.dead = fmt.Errorf("sandbox: the command spawner ended: %w", err)
	}
	dead := s.dead
	for id, ch := range s.waiting {
		delete(s.waiting, id)
		ch <- frame{Op: opStarted, ID: id, Error: dead.Error()}
	}
	for id, c := range s.cmds {
		delete(s.cmds, id)
		proc.KillGroup(c.ident.PGID)
		go c.finish(0, false, dead)
	}
	s.mu.Unlock()
}

// close ends the spawner (it kills what it started when its socket closes;
// the kill is for one that hangs).
func (s *spawner) close() {
	s.mu.Lock()
	if s.dead == nil {
		s.dead = errors.New("sandbox: closed")
	}
	s.mu.Unlock()
	s.conn.c.Close()
	s.p.KillGroup()
	if s.userns != 0 {
		endNamespace(s.userns)
	}
}

// endNamespace kills every process whose user namespace is userns or one
// nested in it — what a command left behind with its marker cleared and
// outside its process group (env -i setsid -f ...) — and waits, briefly,
// until they are gone.
func endNamespace(userns uint64) {
	for round := 0; round < 50; round++ {
		pids := inNamespace(userns)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// inNamespace lists the live processes in user namespace userns or below.
func inNamespace(userns uint64) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	var out []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid == self {
			continue
		}
		if underNamespace(pid, userns) && proc.Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// nsGetParent is the NS_GET_PARENT ioctl.
const nsGetParent = 0xb702

// underNamespace reports whether pid's user namespace is userns or a
// descendant of it.
func underNamespace(pid int, userns uint64) bool {
	fd, err := syscall.Open(fmt.Sprintf("/proc/%d/ns/user", pid), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	for depth := 0; depth < 33; depth++ {
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			break
		}
		if st.Ino == userns {
			syscall.Close(fd)
			return true
		}
		parent, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), nsGetParent, 0)
		syscall.Close(fd)
		if errno != 0 {
			return false
		}
		fd = int(parent)
	}
	syscall.Close(fd)
	return false
}

// alive reports whether the spawner can take commands.
func (s *spawner) alive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead == nil
}

// CommandSpec is one command for the spawner.
type CommandSpec struct {
	Argv []string
	Dir  string
	Env  []string
	// Marker is the value of proc.MarkerEnv for its processes.
	Marker string
	// Output receives stdout and stderr.
	Output io.Writer
	// WaitDelay bounds how long the output is read after the command
	// exited, for background processes that still hold it.
	WaitDelay time.Duration
	// Gated: Argv is a bash script behind proc.GateScript; it runs nothing
	// until Release.
	Gated bool
}

// start asks the spawner to start c.
func (s *spawner) start(c CommandSpec) (*Command, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: output pipe: %w", err)
	}
	cmd := &Command{exited: make(chan struct{}), copied: make(chan struct{}), out: r, waitDelay: c.WaitDelay}
	fds := []int{int(w.Fd())}
	var gateR *os.File
	if c.Gated {
		gr, gw, err := os.Pipe()
		if err != nil {
			r.Close()
			w.Close()
			return nil, fmt.Errorf("sandbox: gate pipe: %w", err)
		}
		gateR, cmd.gate = gr, gw
		fds = append(fds, int(gr.Fd()))
	}
	env := c.Env
	if c.Marker != "" {
		env = append(env[:len(env):len(env)], proc.MarkerEnv+"="+c.Marker)
	}
	ch := make(chan frame, 1)
	s.mu.Lock()
	if s.dead != nil {
		s.mu.Unlock()
		cmd.abandon(w, gateR)
		return nil, s.dead
	}
	s.next++
	id := s.next
	s.waiting[id] = ch
	s.mu.Unlock()
	err = s.conn.sendFrame(frame{Op: opStart, ID: id, Argv: c.Argv, Env: env, Dir: c.Dir, Gate: c.Gated}, fds)
	// The spawner holds its own copies now (or nothing was sent).
	w.Close()
	if gateR != nil {
		gateR.Close()
	}
	if err != nil {
		s.mu.Lock()
		delete(s.waiting, id)
		s.mu.Unlock()
		cmd.abandon(nil, nil)
		return nil, err
	}
	f := <-ch
	if f.Op == opError || f.Error != "" || f.PID <= 0 {
		cmd.abandon(nil, nil)
		msg := f.Error
		if msg == "" {
			msg = "no process id"
		}
		return nil, fmt.Errorf("sandbox: the spawner did not start %s: %s", c.Argv[0], msg)
	}
	cmd.ident = proc.Identify(f.PID, c.Marker)
	go func() {
		_, _ = io.Copy(c.Output, r)
		close(cmd.copied)
	}()
	s.mu.Lock()
	if s.dead != nil {
		dead := s.dead
		s.mu.Unlock()
		proc.KillGroup(cmd.ident.PGID)
		go cmd.finish(0, false, dead)
		return cmd, nil
	}
	s.cmds[id] = cmd
	s.mu.Unlock()
	return cmd, nil
}

// Command is a command the spawner started.
type Command struct {
	ident     proc.Identity
	gate      *os.File
	out       *os.File
	copied    chan struct{}
	waitDelay time.Duration

	once   sync.Once
	exited chan struct{}
	status syscall.WaitStatus
	known  bool
	err    error
}

func (c *Command) abandon(w, gateR *os.File) {
	for _, f := range []*os.File{w, gateR, c.out, c.gate} {
		if f != nil {
			f.Close()
		}
	}
}

// finish records the exit, waits for the output (at most waitDelay past
// the exit), and closes Exited.
func (c *Command) finish(status int, known bool, err error) {
	c.once.Do(func() {
		if c.copied != nil {
			t := time.NewTimer(max(c.waitDelay, time.Millisecond))
			select {
			case <-c.copied:
			case <-t.C:
				c.out.Close()
				<-c.copied
				if err == nil {
					err = exec.ErrWaitDelay
				}
			}
			t.Stop()
		}
		c.out.Close()
		c.status, c.known, c.err = syscall.WaitStatus(status), known, err
		close(c.exited)
	})
}

// Identity is the command's identity (pid, group, boot, start time, marker).
func (c *Command) Identity() proc.Identity { return c.ident }

// Release lets a gated command run.
func (c *Command) Release() error {
	if c.gate == nil {
		return nil
	}
	_, err := c.gate.Write([]byte("go\n"))
	c.gate.Close()
	c.gate = nil
	if err != nil {
		return fmt.Errorf("release command: %w", err)
	}
	return nil
}

// Abort makes a gated command exit without running anything, and waits.
func (c *Command) Abort() {
	if c.gate != nil {
		c.gate.Close()
		c.gate = nil
	}
	<-c.exited
}

// Exited is closed once the command exited and its output was read.
func (c *Command) Exited() <-chan struct{} { return c.exited }

// Err is nil, exec.ErrWaitDelay (background processes held the output
// open), or why the command's end is unknown (the spawner died).
func (c *Command) Err() error { return c.err }

// ExitCode is the exit status as a shell reports it (128+N for signal N).
func (c *Command) ExitCode() (int, bool) {
	if !c.known {
		return 0, false
	}
	if c.status.Signaled() {
		return 128 + int(c.status.Signal()), true
	}
	return c.status.ExitStatus(), true
}

// KillGroup kills the command's process group (its session).
func (c *Command) KillGroup() { proc.KillGroup(c.ident.PGID) }

// Background lists what the command left running in its group.
func (c *Command) Background() []proc.Info { return proc.Background(c.ident) }

// lockedBuffer is a bytes.Buffer safe for the copy goroutine and readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 64<<10 {
		return len(p), nil
	}
	return l.b.Write(p)
}
