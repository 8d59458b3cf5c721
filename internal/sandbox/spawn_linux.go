//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// errSpawnUsage: the spawner was called wrongly (it is not meant for people).
var errSpawnUsage = errors.New("usage: agent sandbox-spawner RULES (internal: the agent starts it once per run, with its socket as fd 3)")

// Serve is the spawner's body (`agent sandbox-spawner RULES`, the socket to
// the agent on fd 3). It confines the thread it runs on once — mounts,
// capabilities dropped, no_new_privs, Landlock, seccomp — says ready, then
// forks every command it is asked to start from that thread, so each
// inherits the confinement and costs only a fork and an exec. It returns
// when the agent closes the socket (or dies), after killing the process
// groups of the commands it started.
func Serve(args []string) error {
	if len(args) != 1 {
		return errSpawnUsage
	}
	var sp helperSpec
	if err := json.Unmarshal([]byte(args[0]), &sp); err != nil {
		return fmt.Errorf("%w (%v)", errSpawnUsage, err)
	}
	f := os.NewFile(3, "spawner-socket")
	if f == nil {
		return errSpawnUsage
	}
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%w: fd 3 is not a socket (%v)", errSpawnUsage, err)
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return fmt.Errorf("%w: fd 3 is not a unix socket", errSpawnUsage)
	}
	conn := &unixPackets{c: uc}
	runtime.LockOSThread() // never unlocked: commands are forked from this confined thread
	if err := confine(sp); err != nil {
		_ = conn.sendFrame(frame{Op: opFail, Error: err.Error()}, nil)
		return err
	}
	// Not dumpable: a command cannot reach the spawner's descriptors (the
	// socket to the agent, other commands' pipes) through /proc.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if err := conn.sendFrame(frame{Op: opReady}, nil); err != nil {
		return err
	}
	srv := &server{conn: conn, start: forkCommand}
	err = srv.serve()
	srv.killAll()
	return err
}

// packets is the spawner's side of the socket (a fake in the fuzz test).
type packets interface {
	// recv reads one message and the descriptors that came with it;
	// truncated: the message was longer than the buffer. io.EOF: the peer
	// closed.
	recv(buf []byte) (n int, fds []int, truncated bool, err error)
	sendFrame(f frame, fds []int) error
}

// server is the spawner's loop.
type server struct {
	conn  packets
	start func(f frame, files []*os.File) (*os.Process, error)
	mu    sync.Mutex
	pids  []int
	wg    sync.WaitGroup
}

func (s *server) serve() error {
	buf := make([]byte, maxFrame+1)
	for {
		n, fds, trunc, err := s.conn.recv(buf)
		if err != nil {
			closeFds(fds)
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if n == 0 && len(fds) == 0 && !trunc {
			return nil // an orderly close of a SOCK_SEQPACKET peer
		}
		f, err := decodeFrame(buf[:n], trunc)
		if err == nil {
			err = checkStart(f, len(fds))
		}
		if err != nil {
			closeFds(fds)
			if err := s.conn.sendFrame(frame{Op: opError, ID: f.ID, Error: err.Error()}, nil); err != nil {
				return err
			}
			continue
		}
		files := make([]*os.File, len(fds))
		for i, fd := range fds {
			files[i] = os.NewFile(uintptr(fd), "passed")
		}
		p, err := s.start(f, files)
		for _, fl := range files {
			fl.Close()
		}
		if err != nil {
			if err := s.conn.sendFrame(frame{Op: opStarted, ID: f.ID, Error: err.Error()}, nil); err != nil {
				return err
			}
			continue
		}
		s.mu.Lock()
		s.pids = append(s.pids, p.Pid)
		s.mu.Unlock()
		if err := s.conn.sendFrame(frame{Op: opStarted, ID: f.ID, PID: p.Pid}, nil); err != nil {
			_ = unix.Kill(-p.Pid, unix.SIGKILL)
			return err
		}
		s.wg.Add(1)
		go func(id uint64, p *os.Process) {
			defer s.wg.Done()
			st, err := p.Wait()
			status := 0
			if err == nil {
				if ws, ok := st.Sys().(syscall.WaitStatus); ok {
					status = int(ws)
				}
			} else {
				status = 0xff00 // reported as exit 255
			}
			_ = s.conn.sendFrame(frame{Op: opExited, ID: id, Status: status}, nil)
		}(f.ID, p)
	}
}

// killAll ends the process groups of every command started (the agent is
// gone: nothing may run on without it).
func (s *server) killAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, pid := range s.pids {
		_ = unix.Kill(-pid, unix.SIGKILL)
	}
}

// forkCommand starts one command from the confined thread: a new session
// (no controlling terminal), stdin /dev/null, stdout and stderr the output
// descriptor, the gate as fd 3, a parent-death signal.
func forkCommand(f frame, files []*os.File) (*os.Process, error) {
	path, err := lookPath(f.Argv[0], f.Env)
	if err != nil {
		return nil, err
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	fds := []*os.File{null, files[0], files[0]}
	if f.Gate {
		fds = append(fds, files[1])
	}
	return os.StartProcess(path, f.Argv, &os.ProcAttr{
		Dir: f.Dir, Env: f.Env, Files: fds,
		Sys: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	})
}

// lookPath finds a program on the command's own PATH.
func lookPath(file string, env []string) (string, error) {
	if strings.Contains(file, "/") {
		return file, nil
	}
	path := "/usr/local/bin:/usr/bin:/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // never the working directory
		}
		p := filepath.Join(dir, file)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on the command's PATH", file)
}

func closeFds(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
}

// unixPackets is a SOCK_SEQPACKET unix socket.
type unixPackets struct {
	c  *net.UnixConn
	mu sync.Mutex // one sender at a time
}

// oobSpace has room for more descriptors than any frame may carry, so an
// over-full message is seen (and its descriptors closed), not cut.
var oobSpace = unix.CmsgSpace(8 * 4)

func (u *unixPackets) recv(buf []byte) (int, []int, bool, error) {
	oob := make([]byte, oobSpace)
	n, oobn, flags, _, err := u.c.ReadMsgUnix(buf, oob)
	var fds []int
	if oobn > 0 {
		if msgs, perr := unix.ParseSocketControlMessage(oob[:oobn]); perr == nil {
			for _, m := range msgs {
				if got, err := unix.ParseUnixRights(&m); err == nil {
					fds = append(fds, got...)
				}
			}
		}
	}
	if err != nil {
		return 0, fds, false, err
	}
	trunc := flags&unix.MSG_TRUNC != 0 || n > maxFrame
	if flags&unix.MSG_CTRUNC != 0 {
		trunc = true
	}
	return n, fds, trunc, nil
}

func (u *unixPackets) sendFrame(f frame, fds []int) error {
	b, err := f.encode()
	if err != nil {
		return err
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, _, err := u.c.WriteMsgUnix(b, oob, nil); err != nil {
		return fmt.Errorf("sandbox: spawner socket: %w", err)
	}
	return nil
}

// socketPair makes the agent's and the spawner's ends of a SOCK_SEQPACKET
// pair (close-on-exec; proc passes the spawner's end explicitly).
func socketPair() (*net.UnixConn, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: the spawner's socket: %w", err)
	}
	mine := os.NewFile(uintptr(fds[0]), "spawner-agent")
	theirs := os.NewFile(uintptr(fds[1]), "spawner-child")
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		theirs.Close()
		return nil, nil, fmt.Errorf("sandbox: the spawner's socket: %w", err)
	}
	return c.(*net.UnixConn), theirs, nil
}

// netFileConn wraps a socket file as a unix connection.
func netFileConn(f *os.File) (*net.UnixConn, error) {
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, errors.New("not a unix socket")
	}
	return uc, nil
}
