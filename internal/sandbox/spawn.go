package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Start starts one confined command of the run runID through the run's
// spawner, which the run's first command starts: a process that confined
// itself once (namespaces, mounts, Landlock, seccomp, no capabilities) and
// forks each command from inside, so a command pays a fork and an exec, not
// a new helper. The command's TMPDIR is the run's own directory. A spawner
// that died (a command may kill it) is replaced for the next command; where
// user namespaces cannot be made, the sandbox learns it and goes on without
// them (as Info then says).
func (s *Sandbox) Start(runID string, c CommandSpec) (*Command, error) {
	if !s.Active() {
		return nil, fmt.Errorf("sandbox: %w", ErrUnavailable)
	}
	if len(c.Argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	tmp, err := s.TempDir(runID)
	if err != nil {
		return nil, err
	}
	c.Env = withTmpdir(c.Env, tmp)
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		sp, err := s.spawnerFor(runID, tmp, c.Env)
		if err != nil {
			if s.NoUserNS(err) {
				last = err
				continue
			}
			return nil, err
		}
		cmd, err := sp.start(c)
		if err != nil && !sp.alive() {
			s.dropSpawner(runID, sp)
			last = err
			continue
		}
		return cmd, err
	}
	return nil, last
}

// spawnerFor is the run's live spawner, started if there is none.
func (s *Sandbox) spawnerFor(runID, tmp string, env []string) (*spawner, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errors.New("sandbox: closed")
	}
	sp := s.spawners[runID]
	noNS := s.noNS || !s.caps.UserNS
	s.baselineGitlinks(runID) // before the run's first command
	s.mu.Unlock()
	if sp != nil && sp.alive() {
		return sp, nil
	}
	spec, netns := s.spec(tmp, noNS)
	spenv := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GOGC=") {
			spenv = append(spenv, kv)
		}
	}
	// The spawner is a small Go loop: keep its heap small.
	spenv = append(spenv, "GOGC=50")
	sp, err := startSpawner(s.spawnArgv, spec, netns, spenv)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		sp.close()
		return nil, errors.New("sandbox: closed")
	}
	if old := s.spawners[runID]; old != nil && old != sp {
		old.close()
	}
	s.spawners[runID] = sp
	return sp, nil
}

func (s *Sandbox) dropSpawner(runID string, sp *spawner) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spawners[runID] == sp {
		delete(s.spawners, runID)
	}
	sp.close()
}

// spec is what a helper applies for a run whose TMPDIR is tmp; netns: start
// it in a new network namespace.
func (s *Sandbox) spec(tmp string, noNS bool) (helperSpec, bool) {
	sp := helperSpec{ReadOnly: s.mode == ModeReadOnly, Writable: append([]string{tmp}, s.writable...), NoUnixSockets: true}
	netns := s.isolate(&sp, s.network, noNS, s.ws)
	if sp.Mounts && !sp.ReadOnly {
		sp.Pin, sp.Protect = gitProtection(s.ws, s.writable)
		sp.Pin = append(sp.Pin, s.pinned...)
		sp.Protect = append(sp.Protect, s.readOnly...)
	}
	return sp, netns
}

// isolate sets what every helper applies beyond its writable paths: no
// network (a namespace of its own with loopback, or Landlock's TCP rules
// where there are no user namespaces) unless network, and with namespaces
// the mounts that hide the state directory (but for the path to keep) and
// /dev/pts. It reports whether the helper starts in a new network
// namespace.
func (s *Sandbox) isolate(hs *helperSpec, network, noNS bool, keep string) bool {
	netns := false
	if !network {
		if noNS {
			hs.BlockTCP = s.caps.LandlockABI >= 4
		} else {
			netns, hs.Loopback = true, true
		}
	}
	if noNS {
		return netns
	}
	hs.Mounts = true
	if s.stateDir != "" {
		hs.Hide, hs.HideFiles = hideState(s.stateDir, keep)
	}
	if st, err := os.Stat("/dev/pts"); err == nil && st.IsDir() {
		hs.Hide = append(hs.Hide, "/dev/pts")
	}
	return netns
}

// withTmpdir is environ with TMPDIR set to dir.
func withTmpdir(environ []string, dir string) []string {
	env := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return append(env, "TMPDIR="+dir)
}

// protected reports whether p is one of the paths the sandbox keeps
// read-only inside the workspace (where git finds code to run).
func (s *Sandbox) protected(p string) bool {
	if s.mode != ModeWorkspaceWrite || s.ws == "" {
		return false
	}
	_, prot := gitProtectionPaths(s.ws)
	for _, q := range append(prot, s.readOnly...) {
		if p == q || strings.HasPrefix(p, q+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
