package hooks

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startGroup starts a sleeper as the leader of a process group of its own.
func startGroup(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	reaped := make(chan struct{})
	go func() { cmd.Wait(); close(reaped) }() // reaped at once: a zombie would keep the group alive
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL); <-reaped })
	return pid
}

func groupGone(pgid int) bool { return syscall.Kill(-pgid, 0) == syscall.ESRCH }

// The keeper kills the group it guards when its pipe closes without the
// word that the agent ended the group (the agent died), and leaves it alone
// when it got that word.
func TestWatchdogKillsGroupWhenAgentGoes(t *testing.T) {
	died := startGroup(t)
	d := startWatchdog()
	if d == nil {
		t.Fatal("the keeper did not start")
	}
	d.guard(died)
	d.w.Close() // as the kernel does when the agent dies
	<-d.exited
	deadline := time.Now().Add(10 * time.Second)
	for !groupGone(died) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !groupGone(died) {
		t.Errorf("the group %d outlived the agent that ran it", died)
	}

	kept := startGroup(t)
	d = startWatchdog()
	d.guard(kept)
	d.release()
	<-d.exited
	if groupGone(kept) {
		t.Error("the keeper killed a group the agent had ended itself (it could be another's by now)")
	}
}
