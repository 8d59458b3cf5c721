package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agent/internal/event"
)

func TestModes(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode Mode
	}{
		{NameWorkspaceWrite, ModeWorkspaceWrite},
		{NameReadOnly, ModeReadOnly},
		{NameOff, ModeOff},
	} {
		m, err := ParseMode(tc.name)
		if err != nil || m != tc.mode || m.String() != tc.name {
			t.Errorf("ParseMode(%q) = %v, %v", tc.name, m, err)
		}
	}
	// The sandbox is on under every approval mode: off is never a default.
	for approval, want := range map[event.ApprovalMode]Mode{"read-only": ModeReadOnly, "ask": ModeWorkspaceWrite,
		"auto-edit": ModeWorkspaceWrite, "full-auto": ModeWorkspaceWrite, "": ModeWorkspaceWrite} {
		if got := DefaultFor(approval); got != want {
			t.Errorf("DefaultFor(%q) = %v, want %v", approval, got, want)
		}
	}
	if _, err := ParseMode("strict"); err == nil || !strings.Contains(err.Error(), "workspace-write, read-only or off") {
		t.Errorf("a bad mode's error does not name the choices: %v", err)
	}
	if !ModeReadOnly.StricterThan(ModeWorkspaceWrite) || !ModeWorkspaceWrite.StricterThan(ModeOff) || ModeOff.StricterThan(ModeReadOnly) {
		t.Error("StricterThan does not order read-only > workspace-write > off")
	}
}

// Where the kernel has no Landlock (an injected check), the mode is off,
// the warning says "not sandboxed here", and the record keeps what was
// asked for: nothing claims a protection that is not there.
func TestUnavailableIsRecordedAsOff(t *testing.T) {
	sb, warns := New(Options{Mode: ModeWorkspaceWrite, Source: "default", Workspace: t.TempDir(),
		Probe: func() Capabilities { return Capabilities{Reason: "this kernel has no Landlock"} }})
	if sb.Active() || sb.Mode() != ModeOff || sb.Requested() != ModeWorkspaceWrite {
		t.Fatalf("mode %v (requested %v), active %v; want off", sb.Mode(), sb.Requested(), sb.Active())
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "not sandboxed here: this kernel has no Landlock") {
		t.Errorf("warnings %q", warns)
	}
	in := sb.Info()
	if in.Mode != NameOff || in.Requested != NameWorkspaceWrite || !in.Network || len(in.Enforced) != 0 || !strings.Contains(in.Note, "not sandboxed here") {
		t.Errorf("Info = %+v", in)
	}
	if _, err := sb.Start("r", CommandSpec{Argv: []string{"bash", "-c", "true"}}); err == nil {
		t.Error("Start in an unavailable sandbox did not fail")
	}
	if _, err := sb.ServerLaunch(ServerSpec{Argv: []string{"srv"}, Dir: t.TempDir()}); err == nil {
		t.Error("ServerLaunch in an unavailable sandbox did not fail")
	}
	if b := sb.Blocked("touch: cannot touch '/x': Permission denied", "/", "touch /x", 1); b != nil {
		t.Errorf("an inactive sandbox reports blocks: %v", b)
	}
}

// Without user namespaces, no network falls back to Landlock's TCP rules
// (ABI 4+), and says that UDP is not covered; below ABI 4 it says the
// network is open.
func TestNoUserNSFallback(t *testing.T) {
	for _, tc := range []struct {
		abi      int
		enforced []string
		note     string
	}{
		{7, []string{"landlock-abi-7", "seccomp", "no-tty", "landlock-tcp"}, "TCP only"},
		{3, []string{"landlock-abi-3", "seccomp", "no-tty"}, "commands can reach the network"},
	} {
		sb, warns := New(Options{Mode: ModeWorkspaceWrite, Workspace: t.TempDir(), TempRoot: t.TempDir(),
			Probe: func() Capabilities { return Capabilities{LandlockABI: tc.abi} }})
		in := sb.Info()
		if !slices.Equal(in.Enforced, tc.enforced) || !strings.Contains(in.Note, tc.note) || len(warns) != 2 ||
			!strings.Contains(warns[1], ".git hooks and config read-only") {
			t.Errorf("ABI %d: Info %+v, warnings %q", tc.abi, in, warns)
		}
		l, err := sb.ServerLaunch(ServerSpec{Argv: []string{"srv"}, Env: []string{"TMPDIR=/elsewhere", "A=b"}, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if l.NewNetNS || l.NewMountNS {
			t.Errorf("ABI %d: a launch without user namespaces asks for one", tc.abi)
		}
		if spec, netns := sb.spec(t.TempDir(), true); netns || spec.Mounts || (tc.abi >= 4) != spec.BlockTCP {
			t.Errorf("ABI %d: the spawner's rules without user namespaces: %+v (netns %v)", tc.abi, spec, netns)
		}
		if !slices.Contains(l.Env, "A=b") || slices.Contains(l.Env, "TMPDIR=/elsewhere") {
			t.Errorf("launch env %q", l.Env)
		}
		sb.Close()
	}
}

// The run's TMPDIR is its own, made once, and removed by Close.
func TestTempDirPerRun(t *testing.T) {
	root := t.TempDir()
	sb, _ := New(Options{Mode: ModeReadOnly, Workspace: t.TempDir(), TempRoot: root,
		Probe: func() Capabilities { return Capabilities{LandlockABI: 7, UserNS: true} }})
	a, err := sb.TempDir("run/1")
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := sb.TempDir("run/1")
	b, _ := sb.TempDir("run2")
	if a != a2 || a == b || !strings.HasPrefix(filepath.Base(a), "agent-run-run_1-") {
		t.Errorf("temp dirs %s %s %s", a, a2, b)
	}
	sb.Close()
	for _, d := range []string{a, b} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s left after Close", d)
		}
	}
	if _, err := sb.TempDir("run3"); err == nil {
		t.Error("TempDir after Close did not fail")
	}
}

// workspace-write may write the workspace, the caches that exist (the XDG
// cache is made), configured paths (~ and relative ones expanded); missing
// ones are left out.
func TestWritableDirs(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	extra := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".npm"), 0o755)
	os.MkdirAll(filepath.Join(ws, "build"), 0o755)
	env := map[string]string{"HOME": home}
	got := writableDirs(ws, []string{extra, "~/.npm", "build", "/does/not/exist"}, func(k string) string { return env[k] }, true)
	want := []string{ws, filepath.Join(home, ".cache"), filepath.Join(home, ".npm"), extra, filepath.Join(ws, "build")}
	for _, w := range want {
		r, _ := filepath.EvalSymlinks(w)
		if !slices.Contains(got, r) {
			t.Errorf("writable %q lacks %s", got, w)
		}
	}
	if slices.Contains(got, "/does/not/exist") || len(got) != len(want) {
		t.Errorf("writable %q, want exactly %q", got, want)
	}
}

func TestScrubEnv(t *testing.T) {
	secret := func(name, value string) bool {
		return strings.Contains(name, "TOKEN") || strings.HasPrefix(value, "AKIA")
	}
	kept, removed := ScrubEnv([]string{
		"OPENAI_API_KEY=sk-1", "anthropic_api_key=x", "MY_SERVICE_TOKEN=t", "CI_TOKEN=c", "PLAIN=AKIAXYZ",
		"PATH=/bin", "HOME=/h", "broken",
	}, []string{"CI_*"}, secret)
	if !slices.Equal(kept, []string{"CI_TOKEN=c", "PATH=/bin", "HOME=/h"}) {
		t.Errorf("kept %q", kept)
	}
	if !slices.Equal(removed, []string{"OPENAI_API_KEY", "anthropic_api_key", "MY_SERVICE_TOKEN", "PLAIN"}) {
		t.Errorf("removed %q", removed)
	}
	// The model API key goes even if an allow-list names it.
	if kept, _ := ScrubEnv([]string{"OPENAI_API_KEY=sk"}, []string{"OPENAI_API_KEY"}, secret); len(kept) != 0 {
		t.Errorf("OPENAI_API_KEY kept: %q", kept)
	}
}

// Without network the Go module cache is not writable (nothing can be
// downloaded into it, and go builds from it unchecked): left out of the
// writable directories, or kept read-only where it lies beneath one.
func TestModuleCacheReadOnlyWithoutNetwork(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	gopath := filepath.Join(home, "go")
	underCache := filepath.Join(home, ".cache", "gomod")
	for _, d := range []string{filepath.Join(gopath, "pkg", "mod"), underCache} {
		os.MkdirAll(d, 0o755)
	}
	probe := func() Capabilities { return Capabilities{LandlockABI: 7, UserNS: true} }
	for _, tc := range []struct {
		env      map[string]string
		network  bool
		readOnly bool
	}{
		{map[string]string{"HOME": home}, true, false},
		{map[string]string{"HOME": home}, false, false},
		{map[string]string{"HOME": home, "GOMODCACHE": underCache}, false, true},
	} {
		sb, _ := New(Options{Mode: ModeWorkspaceWrite, Workspace: ws, Network: tc.network, Probe: probe,
			Getenv: func(k string) string { return tc.env[k] }})
		mc := goModCache(func(k string) string { return tc.env[k] })
		if mc == "" {
			t.Fatalf("no module cache for %v", tc.env)
		}
		if got := sb.mayWrite(filepath.Join(mc, "example.com", "lib@v1.0.0", "lib.go")); got != tc.network {
			t.Errorf("%v network=%v: a command may write the module cache: %v", tc.env, tc.network, got)
		}
		if got := slices.Contains(sb.readOnly, mc); got != tc.readOnly {
			t.Errorf("%v network=%v: read-only bind of the module cache %v, want %v", tc.env, tc.network, got, tc.readOnly)
		}
	}
}
