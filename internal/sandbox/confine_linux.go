//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// devices are the device files every sandboxed command may write. No
// terminal: /dev/tty and /dev/pts are not among them, so a command can
// neither type into the person's terminal nor draw on it.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// confine applies sp to the calling OS thread, which the caller has locked
// and never unlocks: the mounts (with the capabilities the helper holds in
// its own user namespace), the private loopback, then it drops every
// capability, sets no_new_privs, enters the Landlock domain and loads the
// seccomp filter. Everything the thread starts afterwards inherits all of
// it; the process's other threads stay as they were (they run only the
// helper's own Go code).
func confine(sp helperSpec) error {
	if sp.Mounts {
		if err := setupMounts(sp); err != nil {
			return fmt.Errorf("sandbox: mounts: %w", err)
		}
	}
	if sp.Loopback {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("sandbox: bring up the loopback interface of the command's network namespace: %w", err)
		}
	}
	if err := dropCaps(); err != nil {
		return fmt.Errorf("sandbox: drop capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	cfg := landlock.V7
	if !sp.BlockTCP {
		cfg.HandledAccessNet = 0
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devices...).IgnoreIfMissing(),
	}
	if !sp.ReadOnly {
		rules = append(rules, landlock.RWDirs("/dev/shm").IgnoreIfMissing())
	}
	if len(sp.Writable) > 0 {
		rules = append(rules, landlock.RWDirs(sp.Writable...).WithRefer().IgnoreIfMissing())
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("sandbox: build the Landlock rules: %w", err)
	}
	if fd < 0 {
		return errors.New("sandbox: Landlock is not available in this kernel; the command was not run")
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		unix.Close(fd)
		return fmt.Errorf("sandbox: enforce the Landlock rules: %w", err)
	}
	unix.Close(fd)
	if err := loadSeccomp(sp.NoUnixSockets); err != nil {
		return err
	}
	return nil
}

// TIOCSTI pushes a character into a terminal's input queue; TIOCLINUX's
// subcode 2 (paste selection) does the same on a virtual console.
const (
	ioctlTIOCSTI   = 0x5412
	ioctlTIOCLINUX = 0x541C
)

// loadSeccomp refuses, for the calling thread and all it starts, the
// ioctls that type into a terminal. The kernel reads an ioctl's request as
// 32 bits, so a request with any of the upper 32 bits set (which no program
// needs) is refused too: it could be TIOCSTI in disguise. noUnix also
// refuses creating unix sockets (socket(AF_UNIX, ...)) and io_uring (whose
// operations make and connect sockets without a system call a filter
// sees): a named socket is reached through the file system, which neither
// Landlock (ABI 7) nor the network namespace governs, and the person's
// tmux, screen, docker, D-Bus session bus, ssh ControlMaster or git
// credential cache listen on one and run what they are told, outside the
// sandbox. socketpair stays allowed (pipes between a command's own
// processes). Every system call of another ABI than the native one (i386's
// int $0x80 on x86_64, 32-bit ARM on arm64) is refused by a second filter:
// the first matches native numbers only, and go-seccomp-bpf lets a foreign
// architecture through.
func loadSeccomp(noUnix bool) error {
	refused := []seccomp.NameWithConditions{
		{Name: "ioctl", Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: seccomp.Equal, Value: ioctlTIOCSTI}}},
		{Name: "ioctl", Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: seccomp.Equal, Value: ioctlTIOCLINUX}}},
		{Name: "ioctl", Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: seccomp.GreaterThan, Value: 0xFFFFFFFF}}},
	}
	var names []string
	if noUnix {
		refused = append(refused,
			seccomp.NameWithConditions{Name: "socket", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: unix.AF_UNIX}}})
		names = append(names, "io_uring_setup")
	}
	f := seccomp.Filter{
		NoNewPrivs: true,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls: []seccomp.SyscallGroup{{
				Action:             seccomp.ActionErrno,
				Names:              names,
				NamesWithCondtions: refused,
			}},
		},
	}
	if err := seccomp.LoadFilter(f); err != nil {
		return fmt.Errorf("sandbox: the seccomp filter: %w", err)
	}
	if err := refuseForeignABIs(); err != nil {
		return fmt.Errorf("sandbox: the seccomp filter of foreign system call ABIs: %w", err)
	}
	return nil
}

// refuseForeignABIs loads a filter that answers ENOSYS to every system
// call whose audit architecture is not the native one.
func refuseForeignABIs() error {
	native, err := arch.GetInfo("")
	if err != nil {
		return err
	}
	const (
		ldAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		retK   = unix.BPF_RET | unix.BPF_K
		archAt = 4 // offsetof(struct seccomp_data, arch)
	)
	prog := []unix.SockFilter{
		{Code: ldAbsW, K: archAt},
		{Code: jeqK, Jt: 0, Jf: 1, K: uint32(native.ID)},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
		{Code: retK, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}

// dropCaps empties the thread's capability sets and its bounding set, so
// nothing it starts holds a capability in the helper's user namespace (a
// command could otherwise unmount the read-only binds).
func dropCaps() error {
	last := 63
	if n, ok := readInt("/proc/sys/kernel/cap_last_cap"); ok {
		last = n
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			if errors.Is(err, unix.EPERM) {
				break // no CAP_SETPCAP: nothing in the bounding set can be used anyway (not root, no namespace)
			}
			return err
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return err
	}
	return nil
}

// setupMounts makes the mount namespace's mounts private, pins the git
// directories, binds the protected paths read-only and covers the hidden
// ones.
func setupMounts(sp helperSpec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	for _, p := range sp.Pin {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("pin %s: %w", p, err)
		}
	}
	for _, p := range sp.Protect {
		if err := bindReadOnly(p, p); err != nil {
			return fmt.Errorf("read-only %s: %w", p, err)
		}
	}
	for _, p := range sp.Hide {
		err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, "size=4k,nr_inodes=1,mode=0555")
		if err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	for _, p := range sp.HideFiles {
		if err := bindReadOnly("/dev/null", p); err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	return nil
}

// bindReadOnly binds src onto dst and remounts the bind read-only, keeping
// the flags the kernel locks for a mount copied from a more privileged
// namespace (nosuid, nodev, noexec, atime).
func bindReadOnly(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, m := range []struct{ st, ms int64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&m.st != 0 {
			flags |= uintptr(m.ms)
		}
	}
	return unix.Mount("", dst, "", flags, "")
}
