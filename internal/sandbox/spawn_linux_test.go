//go:build linux

package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakePackets replays messages to the server and records its answers.
type fakePackets struct {
	in   []fakeMsg
	mu   sync.Mutex
	sent []frame
}

type fakeMsg struct {
	b     []byte
	nfds  int
	trunc bool
}

func (f *fakePackets) recv(buf []byte) (int, []int, bool, error) {
	if len(f.in) == 0 {
		return 0, nil, false, io.EOF
	}
	m := f.in[0]
	f.in = f.in[1:]
	var fds []int
	for i := 0; i < m.nfds; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			panic(err)
		}
		w.Close()
		fd, err := unix.Dup(int(r.Fd()))
		r.Close()
		if err != nil {
			panic(err)
		}
		fds = append(fds, fd)
	}
	n := copy(buf, m.b)
	return n, fds, m.trunc || len(m.b) > len(buf), nil
}

func (f *fakePackets) sendFrame(fr frame, _ []int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, fr)
	return nil
}

// FuzzSpawnerFrames: whatever arrives on the spawner's socket — malformed,
// oversized or truncated frames, wrong descriptor counts, then a closed
// socket — the spawner does not panic, starts nothing for a frame that
// fails the check, answers each bad frame with an error, and returns when
// the socket closes.
func FuzzSpawnerFrames(f *testing.F) {
	good, _ := json.Marshal(frame{V: 1, Op: opStart, ID: 1, Argv: []string{"bash", "-c", "true"}, Dir: "/tmp"})
	f.Add(good, uint8(1), false)
	f.Add(good, uint8(0), false)
	f.Add(good, uint8(3), false)
	f.Add(good, uint8(1), true)
	f.Add([]byte(`{"v":2,"op":"start","id":1,"argv":["x"],"dir":"/"}`), uint8(1), false)
	f.Add([]byte(`{"v":1,"op":"start","id":1,"argv":["x"],"dir":"rel"}`), uint8(1), false)
	f.Add([]byte(`{"v":1,"op":"start","id":1,"argv":["x"],"env":["NOEQUALS"],"dir":"/"}`), uint8(1), false)
	f.Add([]byte(`{"v":1,"op":"start","id":1,"argv":["x"],"dir":"/","gate":true}`), uint8(1), false)
	f.Add([]byte(`{"v":1,"op":"ready"}`), uint8(0), false)
	f.Add([]byte(`[]`), uint8(0), false)
	f.Add([]byte{0xff, 0, '{'}, uint8(2), false)
	f.Add([]byte(strings.Repeat("x", maxFrame+1)), uint8(1), false)
	f.Fuzz(func(t *testing.T, msg []byte, nfds uint8, trunc bool) {
		nfds %= 5
		valid := false
		if fr, err := decodeFrame(msg, trunc); err == nil && checkStart(fr, int(nfds)) == nil {
			valid = true
		}
		// The message alone, then split in two at a point of its bytes.
		cut := 0
		if len(msg) > 0 {
			cut = int(binary.LittleEndian.Uint16(append(msg[:min(2, len(msg))], 0, 0))) % len(msg)
		}
		for _, in := range [][]fakeMsg{
			{{b: msg, nfds: int(nfds), trunc: trunc}},
			{{b: msg[:cut], nfds: int(nfds)}, {b: msg[cut:]}},
		} {
			pk := &fakePackets{in: in}
			started := 0
			srv := &server{conn: pk, start: func(fr frame, files []*os.File) (*os.Process, error) {
				started++
				if len(files) == 0 {
					t.Fatal("a start without its output descriptor")
				}
				return nil, os.ErrInvalid // nothing is really started in the fuzz test
			}}
			if err := srv.serve(); err != nil {
				t.Fatalf("serve: %v", err)
			}
			if len(in) == 1 && !valid && started != 0 {
				t.Fatalf("a frame that fails the check started a command: %q (%d fds)", msg, nfds)
			}
			closeMsg := len(msg) == 0 && nfds == 0 && !trunc // an empty message is the peer's close
			if len(in) == 1 && !valid && !closeMsg {
				if len(pk.sent) != 1 || pk.sent[0].Op != opError || pk.sent[0].Error == "" {
					t.Fatalf("a bad frame got %+v, want one error frame", pk.sent)
				}
			}
		}
	})
}

// A real spawner over a real socket, not confined (the test cannot drop its
// own privileges): commands start in a new session with no terminal, the
// gate holds them, exit codes and signals arrive, a bad frame starts nothing
// and the spawner keeps serving, and closing the socket ends it after it
// killed what still runs.
func TestSpawnerLoop(t *testing.T) {
	agentSide, theirs, err := socketPair()
	if err != nil {
		t.Fatal(err)
	}
	c, err := netFileConn(theirs)
	if err != nil {
		t.Fatal(err)
	}
	srv := &server{conn: &unixPackets{c: c}, start: forkCommand}
	done := make(chan error, 1)
	go func() { err := srv.serve(); srv.killAll(); done <- err }()
	sp := &spawner{conn: &unixPackets{c: agentSide}, waiting: map[uint64]chan frame{}, cmds: map[uint64]*Command{}}
	go sp.read()
	dir := t.TempDir()
	var out strings.Builder
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	cmd, err := sp.start(CommandSpec{Argv: []string{"bash", "-c", "read -r -u 3 _ || exit 125; exec 3<&-; read -ra s < /proc/$$/stat; echo sid=${s[5]} tty=$(tty); exit 7"},
		Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}, Output: w, Gated: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Release(); err != nil {
		t.Fatal(err)
	}
	<-cmd.Exited()
	if code, ok := cmd.ExitCode(); !ok || code != 7 {
		t.Errorf("exit %d %v, want 7", code, ok)
	}
	mu.Lock()
	got := out.String()
	mu.Unlock()
	pid := cmd.Identity().PID
	if !strings.Contains(got, "tty=not a tty") || !strings.Contains(got, "sid="+strconv.Itoa(pid)+" ") {
		t.Errorf("the command is not its own session without a terminal: %q (pid %d)", got, pid)
	}
	// A frame that fails the check: nothing starts, the loop goes on.
	if err := sp.conn.sendFrame(frame{Op: opStart, ID: 99, Argv: []string{"touch", dir + "/bad"}, Dir: "relative"}, nil); err != nil {
		t.Fatal(err)
	}
	cmd2, err := sp.start(CommandSpec{Argv: []string{"sleep", "30"}, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}, Output: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir + "/bad"); err == nil {
		t.Error("a bad frame started a command")
	}
	agentSide.Close() // the agent goes away: the spawner ends what it started
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	<-cmd2.Exited()
	// SIGKILL is delivered when the process next runs: poll until it is gone
	// (or a zombie waiting to be reaped).
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(cmd2.Identity().PID) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a command outlived its spawner's socket")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
