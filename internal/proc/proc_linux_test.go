//go:build linux

package proc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// helperEnv makes the test binary the "agent" of TestCommandDiesWithAgent.
const helperEnv = "PROC_TEST_AGENT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		os.Exit(actAsAgent(dir))
	}
	os.Exit(m.Run())
}

// actAsAgent starts a gated command that leaves a background child, prints
// the command's identity, releases it and waits to be killed.
func actAsAgent(dir string) int {
	script := "sleep 300 & echo $! > bg.pid; exec sleep 301"
	p, err := Start(Spec{Path: "bash", Args: []string{"-c", GateScript + script}, Dir: dir, Env: os.Environ(),
		Marker: "run-1/call_1", Gated: true})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	b, _ := json.Marshal(p.Identity())
	fmt.Println(string(b))
	if err := p.Release(); err != nil {
		return 1
	}
	<-p.Exited()
	return 0
}

// pidExit returns a function that waits up to d for pid to exit.
func pidExit(t *testing.T, pid int) func(d time.Duration) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return func(time.Duration) bool { return true }
	}
	if err != nil {
		t.Skipf("pidfd_open: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return func(d time.Duration) bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, int(d.Milliseconds()))
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err == nil && n == 1
		}
	}
}

// waitFile waits for a file the command writes, by watching its directory.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, filepath.Dir(path), unix.IN_CLOSE_WRITE|unix.IN_MOVED_TO); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	buf := make([]byte, 4096)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, _ := unix.Poll(fds, 1000); n == 1 {
			_, _ = unix.Read(fd, buf)
		}
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

// The agent is SIGKILLed alone (not its process group), as a crash does:
// the command's shell dies with it (parent-death signal), what it left in
// the background survives as an orphan, and Scan/End — what resume does —
// find and end it.
func TestCommandDiesWithAgent(t *testing.T) {
	dir := t.TempDir()
	agent := exec.Command(os.Args[0], "-test.run=^$")
	agent.Env = append(os.Environ(), helperEnv+"="+dir)
	out, err := agent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	var id Identity
	if err := json.Unmarshal([]byte(line), &id); err != nil {
		t.Fatalf("helper said %q", line)
	}
	bg, err := strconv.Atoi(waitFile(t, filepath.Join(dir, "bg.pid")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(bg, syscall.SIGKILL) })
	leaderGone := pidExit(t, id.PID)
	bgGone := pidExit(t, bg)

	if err := agent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = agent.Wait()
	if !leaderGone(10 * time.Second) {
		t.Fatalf("the command (pid %d) outlived the agent", id.PID)
	}
	if bgGone(0) {
		t.Fatalf("the background child died too; this test needs it orphaned")
	}
	found, err := Scan([]Identity{id}, "run-1/")
	if err != nil {
		t.Fatal(err)
	}
	if len(found[id.PGID]) != 1 || found[id.PGID][0].PID != bg || !strings.Contains(found[id.PGID][0].Command, "sleep 300") {
		t.Fatalf("Scan found %+v, want only pid %d (sleep 300)", found, bg)
	}
	End(context.Background(), found[id.PGID], time.Second)
	if !bgGone(5 * time.Second) {
		t.Fatalf("End left pid %d running", bg)
	}
}

// A command held at the gate runs nothing; aborted, it exits without effect.
func TestGateHoldsAndAborts(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(Spec{Path: "bash", Args: []string{"-c", GateScript + "echo ran > ran.txt"}, Dir: dir, Gated: true})
	if err != nil {
		t.Fatal(err)
	}
	if id := p.Identity(); id.PID <= 0 || id.PGID != id.PID || id.StartTicks == 0 || id.BootID == "" {
		t.Errorf("identity %+v: want a group leader with start time and boot id", id)
	}
	p.Abort()
	if code := ExitCode(p.State()); code != GateExit {
		t.Errorf("exit %d, want %d", code, GateExit)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); !os.IsNotExist(err) {
		t.Fatalf("the aborted command ran")
	}
}

// Scan tells a command's processes from impostors: a group id reused by a
// group started earlier than the command is not the command's, and a
// process that left the group (setsid) is still found by its marker.
func TestScanIdentity(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(Spec{Path: "bash", Args: []string{"-c", GateScript + "setsid sh -c 'echo $$ > esc.pid; exec sleep 302' & exec sleep 303"},
		Dir: dir, Env: os.Environ(), Marker: "run-2/call_9", Gated: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.KillGroup() })
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	esc, _ := strconv.Atoi(waitFile(t, filepath.Join(dir, "esc.pid")))
	t.Cleanup(func() { syscall.Kill(esc, syscall.SIGKILL) })
	id := p.Identity()

	found, _ := Scan([]Identity{id}, "")
	if pids := pidsOf(found[id.PGID]); pids != fmt.Sprint([]int{id.PID}) {
		t.Errorf("group members %s, want only the leader %d (the setsid child left the group)", pids, id.PID)
	}
	found, _ = Scan([]Identity{id}, "run-2/")
	if got := pidsOf(found[id.PGID]); !strings.Contains(got, strconv.Itoa(esc)) {
		t.Errorf("with the marker: %s, want the escaped pid %d too", got, esc)
	}
	later := id
	later.StartTicks += 1 << 40 // the group "started" after its processes: an impostor's id
	if found, _ := Scan([]Identity{later}, ""); len(found) != 0 {
		t.Errorf("a group id reused by older processes was matched: %+v", found)
	}
	other := id
	other.BootID = "another-boot"
	if found, _ := Scan([]Identity{other}, ""); len(found) != 0 {
		t.Errorf("a command of another boot was matched: %+v", found)
	}
	if found, _ := Scan([]Identity{id}, "run-3/"); len(found[0]) != 0 {
		t.Errorf("another run's marker matched: %+v", found)
	}
}

func pidsOf(in []Info) string {
	var out []int
	for _, i := range in {
		out = append(out, i.PID)
	}
	return fmt.Sprint(out)
}
