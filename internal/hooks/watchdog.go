package hooks

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// watchdogScript is the keeper of one hook's process group: it reads the
// group id, then waits for a second line. The agent writes that line once it
// has ended the group itself; if the agent dies first (a SIGKILL, a crash)
// the pipe closes, read fails and the keeper kills the group — the hook's
// shell has a parent-death signal, but what it started in the background
// does not.
const watchdogScript = `read -r g || exit 0; read -r x || kill -9 -"$g" 2>/dev/null; exit 0`

// watchdog is a started keeper; nil where it could not be started (the hook
// still runs, with the parent-death signal on its shell alone).
type watchdog struct {
	w      *os.File
	exited chan struct{} // closed once the keeper exited and was reaped
}

// startWatchdog starts a keeper in a session of its own (so a ^C at the
// person's terminal does not end it) and with no parent-death signal: it
// must outlive the agent. The pipe's write end is close-on-exec, held by
// the agent alone.
func startWatchdog() *watchdog {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	cmd := exec.Command("/bin/sh", "-c", watchdogScript)
	cmd.Stdin = r
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return nil
	}
	d := &watchdog{w: w, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // reaped; its status says nothing
		close(d.exited)
	}()
	return d
}

// guard tells the keeper which group to kill should the agent die.
func (d *watchdog) guard(pgid int) {
	if d == nil {
		return
	}
	fmt.Fprintf(d.w, "%s\n", strconv.Itoa(pgid))
}

// release tells the keeper the group was ended: it exits killing nothing.
func (d *watchdog) release() {
	if d == nil {
		return
	}
	d.w.Write([]byte("done\n"))
	d.w.Close()
}
