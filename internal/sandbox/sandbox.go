// Package sandbox owns the OS sandbox of the commands the agent runs: the
// policy (mode, writable paths, network), what this kernel can enforce
// (Landlock ABI, user namespaces; the check is injectable), the per-run
// spawner (`agent sandbox-spawner`: one process per run that confines
// itself once — user, mount and network namespaces, read-only .git hooks and
// config, the state directory and /dev/pts hidden, every capability dropped,
// Landlock, a seccomp filter against typing into a terminal — and forks each
// command from inside; Serve is its body, Start the agent's side, and
// spawnproto.go their protocol), the one-shot helper for long-lived
// programs such as MCP servers (`agent sandbox-exec`; Exec is its body), the
// per-run temporary directory, the environment scrubbing of commands, the
// reading of a command's output for what the sandbox blocked, and the
// after-command undo of what no mount could stop ahead of time (a
// .git/commondir; a gitlink staged for a repository the command made,
// gitlink.go).
//
// It must not touch the journal or decide approvals: it says what a command
// runs under, and internal/tools and internal/agent record it. Unsandboxed
// processes are internal/proc's.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"agent/internal/event"
)

// Mode is how much a command may change.
type Mode int

const (
	// ModeOff: the command runs with the agent's own rights.
	ModeOff Mode = iota
	// ModeWorkspaceWrite: it reads the machine and writes only the
	// workspace, the run's temporary directory, build caches and the
	// configured writable paths.
	ModeWorkspaceWrite
	// ModeReadOnly: it reads the machine and writes nothing but the run's
	// temporary directory.
	ModeReadOnly
)

// Mode names, as in config files, flags and events.
const (
	NameOff            = "off"
	NameWorkspaceWrite = "workspace-write"
	NameReadOnly       = "read-only"
)

func (m Mode) String() string {
	switch m {
	case ModeWorkspaceWrite:
		return NameWorkspaceWrite
	case ModeReadOnly:
		return NameReadOnly
	}
	return NameOff
}

// Event is the mode as the journal records it.
func (m Mode) Event() event.SandboxMode { return event.SandboxMode(m.String()) }

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	switch strings.TrimSpace(s) {
	case NameOff:
		return ModeOff, nil
	case NameWorkspaceWrite:
		return ModeWorkspaceWrite, nil
	case NameReadOnly:
		return ModeReadOnly, nil
	}
	return ModeOff, fmt.Errorf("unknown sandbox mode %q: use %s, %s or %s", s, NameWorkspaceWrite, NameReadOnly, NameOff)
}

// StricterThan reports whether m confines more than o.
func (m Mode) StricterThan(o Mode) bool { return m.rank() > o.rank() }

func (m Mode) rank() int {
	switch m {
	case ModeWorkspaceWrite:
		return 1
	case ModeReadOnly:
		return 2
	}
	return 0
}

// DefaultFor is the sandbox of an approval mode when nothing sets one:
// read-only under read-only, workspace-write under every other mode (ask
// too: a command a person approves still runs confined). Running outside
// the sandbox is its own escalation a person approves (an outside_sandbox
// call), never a default, a rule or full-auto.
func DefaultFor(approval event.ApprovalMode) Mode {
	if approval == event.ApprovalReadOnly {
		return ModeReadOnly
	}
	return ModeWorkspaceWrite
}

// Capabilities is what this machine can enforce.
type Capabilities struct {
	// LandlockABI is the kernel's Landlock ABI version (0: none).
	LandlockABI int
	// UserNS: a command can be started in a new user and network
	// namespace (no network). Linux only; checked for real at the first
	// command (see Sandbox.NoUserNS).
	UserNS bool
	// Reason says why there is no sandbox here, when LandlockABI is 0.
	Reason string
}

// Options configure a Sandbox.
type Options struct {
	Mode Mode
	// Source says where the mode came from (flag, environment, user file,
	// project file, default), for the record.
	Source string
	// Workspace is the absolute, symlink-resolved workspace.
	Workspace string
	// Writable are extra writable paths (absolute, or relative to the
	// workspace; ~ is the home directory).
	Writable []string
	// Network lets commands reach the network.
	Network bool
	// Helper is the argv prefix that runs the one-shot helper (MCP
	// servers); nil means /proc/self/exe sandbox-exec (the agent binary
	// itself).
	Helper []string
	// Spawner is the argv prefix that runs a run's spawner; nil means
	// /proc/self/exe sandbox-spawner.
	Spawner []string
	// StateDir is the agent's state directory ($AGENT_HOME): hidden from
	// commands (the journal, shadow repositories, the redaction key).
	StateDir string
	// Probe reports what the machine can enforce; nil means Detect.
	Probe func() Capabilities
	// Getenv reads the environment (HOME, XDG_CACHE_HOME, GOCACHE, ...);
	// nil means os.Getenv.
	Getenv func(string) string
	// TempRoot is where per-run temporary directories are made (default
	// os.TempDir()).
	TempRoot string
	// Keep are files the person's own programs run outside the sandbox
	// (the scripts of their hooks): where one lies beneath a writable
	// directory it is kept read-only, and the directories down to it
	// pinned (not renamed or removed), so a command cannot rewrite or
	// replace what later runs with the person's rights.
	Keep []string
}

// Sandbox is the sandbox of one session's commands.
type Sandbox struct {
	requested Mode
	mode      Mode // effective
	source    string
	ws        string
	writable  []string // effective writable directories (besides the run's TMPDIR)
	readOnly  []string // directories beneath writable ones kept read-only (the Go module cache without network; Keep)
	pinned    []string // directories beneath writable ones that must not be renamed (down to a kept file)
	network   bool
	caps      Capabilities
	helper    []string
	spawnArgv []string
	stateDir  string
	tempRoot  string
	note      string // why the effective mode differs, or what is not enforced

	mu       sync.Mutex
	noNS     bool // user namespaces failed: no network is Landlock's TCP rules, if any; no mounts
	temps    map[string]string
	spawners map[string]*spawner // by run
	links    gitlinkWatch        // the workspace index's gitlinks (gitlink.go)
	closed   bool
}

// ErrUnavailable marks a mode that cannot be enforced here.
var ErrUnavailable = errors.New("not sandboxed here")

// New decides what the session's commands run under. The warnings are for
// the person: a mode that cannot be enforced here (recorded as off), a
// protection only partly available.
func New(opt Options) (*Sandbox, []string) {
	getenv := opt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	probe := opt.Probe
	if probe == nil {
		probe = Detect
	}
	s := &Sandbox{requested: opt.Mode, mode: opt.Mode, source: opt.Source, ws: opt.Workspace, network: opt.Network,
		helper: opt.Helper, spawnArgv: opt.Spawner, stateDir: opt.StateDir, tempRoot: opt.TempRoot,
		temps: map[string]string{}, spawners: map[string]*spawner{}}
	if s.helper == nil {
		s.helper = []string{"/proc/self/exe", "sandbox-exec"}
	}
	if s.spawnArgv == nil {
		s.spawnArgv = []string{"/proc/self/exe", "sandbox-spawner"}
	}
	if s.tempRoot == "" {
		s.tempRoot = os.TempDir()
	}
	if opt.Mode == ModeOff {
		return s, nil
	}
	s.caps = probe()
	var warns []string
	if s.caps.LandlockABI == 0 {
		s.mode = ModeOff
		s.note = fmt.Sprintf("not sandboxed here: %s; --sandbox %s was asked for, commands run with your full rights and are recorded as sandbox off",
			s.caps.Reason, opt.Mode)
		return s, []string{s.note + " (use --approval ask to approve each command yourself)"}
	}
	if opt.Mode == ModeWorkspaceWrite {
		// Without network nothing can be downloaded into the Go module
		// cache, and go builds from it without checking go.sum: writable,
		// a command could plant code there that the person's next go build
		// runs, in any project. Read-only then (a bind, where it lies
		// beneath another writable directory).
		s.writable = writableDirs(opt.Workspace, opt.Writable, getenv, opt.Network)
		if !opt.Network {
			if mc := goModCache(getenv); mc != "" && !slices.Contains(s.writable, mc) {
				for _, w := range s.writable {
					if strings.HasPrefix(mc, w+string(filepath.Separator)) {
						s.readOnly = append(s.readOnly, mc)
						break
					}
				}
			}
		}
	}
	if opt.Mode == ModeWorkspaceWrite {
		s.keep(opt.Keep)
	}
	if !opt.Network && !s.caps.UserNS {
		warns = append(warns, s.netFallbackNote())
		s.note = s.netFallbackNote()
	}
	if !s.caps.UserNS {
		warns = append(warns, noMountsNote)
	}
	return s, warns
}

// netFallbackNote says what "no network" is without user namespaces.
func (s *Sandbox) netFallbackNote() string {
	if s.caps.LandlockABI >= 4 {
		return "user namespaces are not available: no network is enforced by Landlock for TCP only (UDP and other sockets can still reach the network)"
	}
	return fmt.Sprintf("user namespaces are not available and Landlock ABI %d cannot restrict TCP: commands can reach the network", s.caps.LandlockABI)
}

// noMountsNote says what is lost without user namespaces.
const noMountsNote = "user namespaces are not available: the sandbox cannot make .git hooks and config read-only " +
	"nor hide the agent's state directory from commands"

// Mode is the effective mode (off where the requested one cannot be
// enforced).
func (s *Sandbox) Mode() Mode {
	if s == nil {
		return ModeOff
	}
	return s.mode
}

// Requested is the mode the configuration asked for.
func (s *Sandbox) Requested() Mode {
	if s == nil {
		return ModeOff
	}
	return s.requested
}

// Active reports whether commands are confined.
func (s *Sandbox) Active() bool { return s.Mode() != ModeOff }

// Writable lists the directories a workspace-write command may write
// (besides the run's temporary directory).
func (s *Sandbox) Writable() []string { return slices.Clone(s.writable) }

// Info describes the sandbox for the journal (tool_call, run_started).
func (s *Sandbox) Info() *event.SandboxInfo {
	if s == nil {
		return &event.SandboxInfo{Mode: NameOff, Network: true}
	}
	in := &event.SandboxInfo{Mode: s.mode.Event(), Source: s.source, Note: s.note}
	if s.requested != s.mode {
		in.Requested = s.requested.Event()
	}
	if s.mode == ModeOff {
		in.Network = true
		return in
	}
	in.Network = s.network
	in.Enforced = append(in.Enforced, fmt.Sprintf("landlock-abi-%d", s.caps.LandlockABI), "seccomp", "no-tty")
	s.mu.Lock()
	noNS := s.noNS || !s.caps.UserNS
	s.mu.Unlock()
	if !noNS {
		in.Enforced = append(in.Enforced, "mountns")
	}
	if !s.network {
		switch {
		case !noNS:
			in.Enforced = append(in.Enforced, "netns")
		case s.caps.LandlockABI >= 4:
			in.Enforced = append(in.Enforced, "landlock-tcp")
			in.Note = s.netFallbackNote()
		default:
			in.Note = s.netFallbackNote()
		}
	}
	return in
}

// Launch is how to start one confined long-lived program through the
// one-shot helper: the program and its arguments (the helper, then the
// program's own argv), its environment, and the namespaces to start it in.
type Launch struct {
	Path       string
	Args       []string
	Env        []string
	NewNetNS   bool
	NewMountNS bool
}

// ServerSpec is a long-lived program to confine: an MCP server.
type ServerSpec struct {
	Argv []string
	Env  []string
	// Dir is its own directory (under the state directory): its working
	// directory and $TMPDIR, writable.
	Dir string
	// WriteWorkspace lets it write the workspace (a server's `writable =
	// true`); else the workspace is read-only to it.
	WriteWorkspace bool
	// Network lets it reach the network (the default for servers, which
	// often call an API; `network = false` turns it off).
	Network bool
}

// ServerLaunch wraps a server's start in the one-shot helper (`agent
// sandbox-exec`): its own user and mount namespace with the state
// directory hidden (but for its own directory) and no terminal, Landlock
// with writes only to its directory, the build caches (npx and pip keep
// packages there) and, with WriteWorkspace, the workspace (its .git hooks
// and config read-only), the seccomp filter, no capabilities; and without
// Network a network namespace of its own.
func (s *Sandbox) ServerLaunch(sp ServerSpec) (Launch, error) {
	if !s.Active() {
		return Launch{}, fmt.Errorf("sandbox: %w", ErrUnavailable)
	}
	if len(sp.Argv) == 0 || sp.Dir == "" {
		return Launch{}, errors.New("sandbox: a server needs a program and its directory")
	}
	dir, err := filepath.EvalSymlinks(sp.Dir)
	if err != nil {
		return Launch{}, fmt.Errorf("sandbox: the server's directory: %w", err)
	}
	s.mu.Lock()
	noNS := s.noNS || !s.caps.UserNS
	s.mu.Unlock()
	hs := helperSpec{Writable: []string{dir}}
	caches := writableDirs("", nil, os.Getenv, true)
	hs.Writable = append(hs.Writable, caches...)
	if sp.WriteWorkspace && s.ws != "" {
		hs.Writable = append(hs.Writable, s.ws)
	}
	netns := s.isolate(&hs, sp.Network, noNS, dir)
	if hs.Mounts && sp.WriteWorkspace && s.ws != "" {
		hs.Pin, hs.Protect = gitProtection(s.ws, []string{s.ws})
	}
	enc, err := hs.encode()
	if err != nil {
		return Launch{}, err
	}
	args := append(append(slices.Clone(s.helper[1:]), enc, "--"), sp.Argv...)
	return Launch{Path: s.helper[0], Args: args, Env: withTmpdir(sp.Env, dir), NewNetNS: netns, NewMountNS: hs.Mounts}, nil
}

// NoUserNS records that starting a command in new namespaces failed
// (err): later commands do without them. It reports whether to retry the
// start that failed.
func (s *Sandbox) NoUserNS(err error) bool {
	if s == nil || !nsStartError(err) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.noNS {
		return false
	}
	s.noNS = true
	return true
}

// TempDir is the run's own temporary directory (the commands' $TMPDIR),
// made on first use and removed by Close.
func (s *Sandbox) TempDir(runID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("sandbox: closed")
	}
	if d, ok := s.temps[runID]; ok {
		return d, nil
	}
	d, err := os.MkdirTemp(s.tempRoot, "agent-run-"+safeName(runID)+"-")
	if err != nil {
		return "", fmt.Errorf("sandbox: the run's temporary directory: %w", err)
	}
	if d, err = filepath.EvalSymlinks(d); err != nil {
		return "", fmt.Errorf("sandbox: the run's temporary directory: %w", err)
	}
	s.temps[runID] = d
	return d, nil
}

// EndRun ends the run's spawner (and what it still runs) and removes the
// run's temporary directory; a later command of the run starts afresh.
func (s *Sandbox) EndRun(runID string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp := s.spawners[runID]; sp != nil {
		sp.close()
		delete(s.spawners, runID)
	}
	if d, ok := s.temps[runID]; ok {
		_ = os.RemoveAll(d)
		delete(s.temps, runID)
	}
	delete(s.links.hasRun, runID) // its next command takes a new baseline
}

// Close removes the runs' temporary directories.
func (s *Sandbox) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for id, sp := range s.spawners {
		sp.close()
		delete(s.spawners, id)
	}
	for id, d := range s.temps {
		_ = os.RemoveAll(d)
		delete(s.temps, id)
	}
}

func safeName(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, id)
}

// writableDirs is what workspace-write may write besides the run's TMPDIR:
// the workspace, the build caches ($XDG_CACHE_HOME or ~/.cache, which holds
// the Go build cache and pip's; GOCACHE, GOMODCACHE (with modCache), npm's
// ~/.npm where they exist) and the configured paths. Missing configured
// paths are skipped (Landlock rules need an existing path).
func writableDirs(ws string, extra []string, getenv func(string) string, modCache bool) []string {
	home := getenv("HOME")
	var out []string
	add := func(p string, create bool) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		if create {
			_ = os.MkdirAll(p, 0o755)
		}
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			return
		}
		if st, err := os.Stat(r); err != nil || !st.IsDir() {
			return
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	add(ws, false)
	cache := getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(cache) && home != "" {
		cache = filepath.Join(home, ".cache")
	}
	add(cache, true)
	add(getenv("GOCACHE"), false)
	if modCache {
		add(goModCache(getenv), false)
	}
	if home != "" {
		add(filepath.Join(home, ".npm"), false)
	}
	add(getenv("npm_config_cache"), false)
	add(getenv("PIP_CACHE_DIR"), false)
	for _, p := range extra {
		add(ExpandPath(p, ws, home), false)
	}
	return out
}

// goModCache is the Go module cache (GOMODCACHE, else the first GOPATH's
// pkg/mod), symlinks resolved, or "" where it does not exist.
func goModCache(getenv func(string) string) string {
	home := getenv("HOME")
	mod := getenv("GOMODCACHE")
	if mod == "" {
		gp := getenv("GOPATH")
		if gp == "" && home != "" {
			gp = filepath.Join(home, "go")
		}
		if gp != "" {
			mod = filepath.Join(filepath.SplitList(gp)[0], "pkg", "mod")
		}
	}
	if !filepath.IsAbs(mod) {
		return ""
	}
	r, err := filepath.EvalSymlinks(mod)
	if err != nil {
		return ""
	}
	if st, err := os.Stat(r); err != nil || !st.IsDir() {
		return ""
	}
	return r
}

// ExpandPath makes a configured path absolute: ~ is home, a relative path
// is beneath the workspace.
func ExpandPath(p, ws, home string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		if home == "" {
			return ""
		}
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(ws, p)
}

// keep makes each of files that lies beneath a writable directory
// read-only, and pins the directories from that writable one down to it.
func (s *Sandbox) keep(files []string) {
	for _, f := range files {
		r, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue
		}
		for _, w := range s.writable {
			if !strings.HasPrefix(r, w+string(filepath.Separator)) {
				continue
			}
			if !slices.Contains(s.readOnly, r) {
				s.readOnly = append(s.readOnly, r)
			}
			for d := filepath.Dir(r); d != w && strings.HasPrefix(d, w+string(filepath.Separator)); d = filepath.Dir(d) {
				if !slices.Contains(s.pinned, d) {
					s.pinned = append(s.pinned, d)
				}
			}
			break
		}
	}
}
