//go:build linux

package proc

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

const groupsSupported = true

func configure(cmd *exec.Cmd, spec Spec) error {
	// A new session: the command's own process group, and no controlling
	// terminal, so it cannot read the person's keyboard or push input into
	// it (TIOCSTI), nor take the terminal's job control.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	Namespaces(cmd.SysProcAttr, spec.NewNetNS, spec.NewMountNS)
	return nil
}

// Namespaces sets a to start a program in a new user namespace (the
// caller's uid and gid mapped to themselves) with a network and/or mount
// namespace, holding there the capabilities the sandbox's helpers need to
// set them up (CAP_NET_ADMIN; with a mount namespace CAP_SYS_ADMIN and
// CAP_SETPCAP too), which they drop before anything else runs. Neither:
// nothing changes.
func Namespaces(a *syscall.SysProcAttr, net, mount bool) {
	if !net && !mount {
		return
	}
	a.Cloneflags = syscall.CLONE_NEWUSER
	a.AmbientCaps = []uintptr{capNetAdmin}
	if net {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	if mount {
		a.Cloneflags |= syscall.CLONE_NEWNS
		a.AmbientCaps = append(a.AmbientCaps, capSysAdmin, capSetPCap)
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// The capabilities a sandbox helper holds in its own user namespace.
const (
	capSetPCap  = 8
	capNetAdmin = 12
	capSysAdmin = 21
)

func lockThread()   { runtime.LockOSThread() }
func unlockThread() { runtime.UnlockOSThread() }

// bootID is the kernel's boot id; it does not change while a process lives,
// so it is read once.
var bootID = sync.OnceValue(func() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
})

// identify reads the boot id and the process's start time.
func identify(pid int) (string, uint64) {
	st, ok := readStat(pid)
	if !ok {
		return bootID(), 0
	}
	return bootID(), st.start
}

type stat struct {
	state byte
	ppid  int
	pgid  int
	start uint64
}

// readStat parses /proc/PID/stat: "pid (comm) state ppid pgrp ... starttime".
func readStat(pid int) (stat, bool) {
	var buf [512]byte
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	n, _ := f.Read(buf[:])
	f.Close()
	b := buf[:n]
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return stat{}, false
	}
	fields := strings.Fields(string(b[i+2:]))
	if len(fields) < 20 {
		return stat{}, false
	}
	var s stat
	s.state = fields[0][0]
	s.ppid, _ = strconv.Atoi(fields[1])
	s.pgid, _ = strconv.Atoi(fields[2])
	s.start, _ = strconv.ParseUint(fields[19], 10, 64)
	return s, true
}

func groupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) == nil
}

func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

func signal(pid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(pid, sig)
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	st, ok := readStat(pid)
	return ok && st.state != 'Z' && st.state != 'X'
}

func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func scan(ids []Identity, markerPrefix string) (map[int][]Info, error) {
	boot := bootID()
	groups := map[int]Identity{}
	for _, id := range ids {
		if id.PGID <= 0 || (id.BootID != "" && boot != "" && id.BootID != boot) {
			continue // another boot: nothing of it is left
		}
		groups[id.PGID] = id
	}
	if len(groups) == 0 && markerPrefix == "" {
		return nil, nil
	}
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	skip := ancestors()
	out := map[int][]Info{}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || skip[pid] {
			continue
		}
		st, ok := readStat(pid)
		if !ok || st.state == 'Z' || st.state == 'X' {
			continue
		}
		key, member := 0, false
		if id, ok := groups[st.pgid]; ok && (id.StartTicks == 0 || st.start >= id.StartTicks) {
			key, member = st.pgid, true
		}
		if !member && markerPrefix != "" {
			m, ok := markerOf(pid)
			if !ok || !strings.HasPrefix(m, markerPrefix) {
				continue
			}
			for _, id := range ids {
				if id.Marker == m {
					key = id.PGID
					break
				}
			}
			member = true
		}
		if member {
			out[key] = append(out[key], Info{PID: pid, PGID: st.pgid, Command: cmdline(pid)})
		}
	}
	return out, nil
}

// ancestors: the agent's own process and its parents, never ended.
func ancestors() map[int]bool {
	out := map[int]bool{}
	for pid := os.Getpid(); pid > 1 && !out[pid]; {
		out[pid] = true
		st, ok := readStat(pid)
		if !ok {
			break
		}
		pid = st.ppid
	}
	return out
}

// markerOf returns the value of MarkerEnv in the process's environment.
func markerOf(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", false
	}
	key := []byte(MarkerEnv + "=")
	for len(b) > 0 {
		var kv []byte
		if i := bytes.IndexByte(b, 0); i >= 0 {
			kv, b = b[:i], b[i+1:]
		} else {
			kv, b = b, nil
		}
		if bytes.HasPrefix(kv, key) {
			return string(kv[len(key):]), true
		}
	}
	return "", false
}

func cmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		return strings.TrimSpace(string(st))
	}
	return shortCmd(string(bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '})))
}
