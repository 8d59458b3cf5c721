package e2e

// Attacks on the command sandbox (issues 18 and 19) that worked against the
// real binary, each a test that fails while the attack works. They act as a
// hostile repository or a prompt-injected model would: through run_command
// calls of a full-auto run under the default sandbox.

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A sandboxed command connects to a unix socket of the person's (here a
// tmux server's, standing for tmux, screen, docker, the D-Bus session bus,
// an ssh ControlMaster, git's credential cache, an editor's server) and has
// it run a command: `tmux run-shell` runs it in the tmux server, outside
// the sandbox, with the person's rights and the network (`send-keys` would
// type into the person's terminal the same way). Neither Landlock (ABI 7
// does not govern connecting to a named socket) nor the network namespace
// (named sockets are reached through the file system) stops it.
func TestAttackLocalSocketRunsOutsideSandbox(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	// The person's tmux server, on a socket of its own.
	sockDir, err := os.MkdirTemp("", "tmx")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(sockDir, "s")
	t.Cleanup(func() {
		exec.Command("tmux", "-S", sock, "kill-server").Run()
		os.RemoveAll(sockDir)
	})
	if out, err := exec.Command("tmux", "-S", sock, "new-session", "-d", "-s", "person", "sh").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	marker := filepath.Join(t.TempDir(), "ran-outside")
	e := newEnv(t, "")
	// run-shell (without -b) returns once the shell command ran.
	r := e.runCommands(t, nil, nil,
		"tmux -S "+sock+" run-shell 'touch "+marker+"'; echo tmux=$?")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("a sandboxed command had the person's tmux server run a command outside the sandbox:\n%s",
			r.results["c1"]["output"])
	}
}

var (
	i386Once sync.Once
	i386Bin  string
	i386Err  error
)

// i386sys builds e2e/testdata/i386sys (amd64 only).
func i386sys(t *testing.T) string {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the i386 system call ABI is an x86_64 matter")
	}
	i386Once.Do(func() {
		i386Bin = filepath.Join(filepath.Dir(agentBin), "i386sys")
		_, file, _, _ := runtime.Caller(0)
		cmd := exec.Command("go", "build", "-o", i386Bin, "./e2e/testdata/i386sys")
		cmd.Dir = filepath.Dir(filepath.Dir(file))
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			i386Err = errors.New(string(out))
		}
	})
	if i386Err != nil {
		t.Fatalf("build i386sys: %v", i386Err)
	}
	return i386Bin
}

// The seccomp filter matches x86_64 system call numbers only, and lets
// every system call of another ABI through (go-seccomp-bpf jumps to the
// default action, allow, when the audit architecture differs): a 64-bit
// program can still make i386 system calls with int $0x80, so TIOCSTI (and
// whatever else the filter refuses) passes it by. The control: outside the
// sandbox the calls work (IA-32 emulation is on), so a refusal inside is
// the filter's. Inside, the i386 TIOCSTI must be refused by the filter
// (EPERM or ENOSYS), not reach the kernel's ioctl code (Landlock's EACCES,
// or ENOTTY on /dev/null).
func TestAttackSeccompForeignABI(t *testing.T) {
	needSandbox(t)
	bin := i386sys(t)
	ctl, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("i386sys: %v", err)
	}
	if !strings.Contains(string(ctl), "i386-socket-unix=") || strings.Contains(string(ctl), "i386-socket-unix=-38") {
		t.Skipf("no IA-32 emulation in this kernel: %s", ctl)
	}
	e := newEnv(t, "")
	r := e.runCommands(t, nil, nil, bin)
	out, _ := r.results["c1"]["output"].(string)
	m := regexp.MustCompile(`i386-ioctl-tiocsti=(-?\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no report from i386sys:\n%s", out)
	}
	if n, _ := strconv.Atoi(m[1]); n != -int(syscall.EPERM) && n != -int(syscall.ENOSYS) {
		t.Errorf("an i386 TIOCSTI passed the seccomp filter (the kernel answered %d):\n%s", n, out)
	}
}

// A command makes a git repository of its own inside the workspace, with a
// core.fsmonitor, and stages it as a gitlink (`git add vendor`). None of
// this touches the workspace's protected .git hooks or config, yet the
// person's next `git status` in the workspace runs `git status` inside the
// nested repository, which runs the planted fsmonitor command outside any
// sandbox. (A shell prompt that shows git status in a subdirectory runs it
// too, gitlink or not.) After each command the sandbox takes such a gitlink
// out of the index and says so; the repository stays on disk, untracked.
func TestAttackNestedRepoRunsAtPersonsGit(t *testing.T) {
	needSandbox(t)
	marker := filepath.Join(t.TempDir(), "fsmonitor-ran")
	e := newEnv(t, "")
	r := e.runCommands(t, nil, nil,
		"mkdir vendor && cd vendor && git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x && "+
			"git config core.fsmonitor 'touch "+marker+"; true' && cd .. && git add vendor 2>/dev/null; echo staged=$?")
	if out, _ := r.results["c1"]["output"].(string); !strings.Contains(out, "staged=0") ||
		!strings.Contains(out, "git add vendor") || !strings.Contains(out, "untracked") {
		t.Fatalf("the command did not stage vendor, or the sandbox did not say it took it out of the index:\n%v", r.results["c1"])
	}
	if out, err := exec.Command("git", "-C", e.ws, "ls-files", "-s", "vendor").Output(); err != nil || len(out) != 0 {
		t.Fatalf("vendor is still in the index (%v): %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "vendor", ".git", "config")); err != nil {
		t.Fatal("the command's repository should stay on disk:", err)
	}
	for _, args := range [][]string{{"status"}, {"diff"}} {
		c := exec.Command("git", args...)
		c.Dir = e.ws
		c.Run()
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the person's git status ran the core.fsmonitor of a repository a sandboxed command made in the workspace")
	}
}

// A command's background process clears its environment (so it carries no
// AGENT_CALL marker) and starts a new session (so it is in no command's
// process group): nothing ends it with the run. It waits for the agent to
// exit and then, still with the workspace writable, writes .git/commondir
// — after the sandbox's after-command check that removes one — naming a
// directory whose config sets core.fsmonitor. The person's next git status
// runs it outside any sandbox. (The same process can change files after the
// run's last checkpoint, out of the journal's and rollback's sight.)
func TestAttackBackgroundOutlivesRun(t *testing.T) {
	needSandbox(t)
	marker := filepath.Join(t.TempDir(), "fsmonitor-ran")
	e := newEnv(t, "")
	// The hostile repository ships the script (build/ is ignored); the
	// fifos that sequence the test sit beside it.
	evil := filepath.Join(e.ws, "build", "g")
	script := filepath.Join(e.ws, "build", "late.sh")
	if err := os.MkdirAll(evil, 0o755); err != nil {
		t.Fatal(err)
	}
	goFifo, doneFifo := filepath.Join(e.ws, "build", "go"), filepath.Join(e.ws, "build", "done")
	for _, f := range []string{goFifo, doneFifo} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	body := "exec 3<>" + goFifo + "\necho ready\nexec >/dev/null 2>&1 </dev/null\nread x <&3\n" +
		"printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch " + marker + "; true\\n' > " + evil + "/config\n" +
		"echo " + evil + " > " + e.ws + "/.git/commondir\necho done > " + doneFifo + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	// The background process holds the go fifo open (read-write: the open
	// never blocks) and says "ready" on the pipe the command reads, so the
	// command ends only once it waits.
	r := e.runCommands(t, nil, nil,
		"ln -s "+e.ws+"/.git/objects "+evil+"/objects && ln -s "+e.ws+"/.git/refs "+evil+"/refs && "+
			"env -i /usr/bin/setsid -f /bin/sh "+script+" | head -1")
	if out, _ := r.results["c1"]["output"].(string); !strings.Contains(out, "ready") {
		t.Fatalf("the background process did not start:\n%v", r.results["c1"])
	}
	// The run is over. Is the background process still there?
	w, err := os.OpenFile(goFifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			return // no reader: it was ended with the run
		}
		t.Fatal(err)
	}
	w.WriteString("go\n")
	w.Close()
	done := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(doneFifo)
		done <- string(b)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the background process outlived the run but did not finish its write")
	}
	c := exec.Command("git", "status")
	c.Dir = e.ws
	c.Run()
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a command's background process outlived the run, planted .git/commondir, and the person's git status ran its fsmonitor")
	}
	t.Fatal("a command's background process outlived the run and wrote into the workspace (and .git) after it ended")
}

// The Go module cache is writable to commands (as a build cache), and go
// does not check an extracted module against go.sum when it builds: a
// command rewrites a module's source in GOMODCACHE, and the person's next
// `go run` — of this project or of any other that uses the module — runs
// the planted code outside any sandbox. Without network nothing can be
// downloaded into the cache anyway, so it need not be writable then.
func TestAttackModuleCachePoisoned(t *testing.T) {
	needSandbox(t)
	home := t.TempDir()
	proxy := t.TempDir()
	marker := filepath.Join(t.TempDir(), "planted-ran")
	// A module proxy on disk with example.com/lib v1.0.0.
	modDir := filepath.Join(proxy, "example.com", "lib", "@v")
	if err := os.MkdirAll(modDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range map[string]string{
		"go.mod": "module example.com/lib\n\ngo 1.21\n",
		"lib.go": "package lib\n\nimport \"os\"\n\nfunc Hello() string { return \"hello\" + os.Getenv(\"NOPE\") }\n",
	} {
		f, _ := zw.Create("example.com/lib@v1.0.0/" + name)
		f.Write([]byte(body))
	}
	zw.Close()
	for name, body := range map[string][]byte{
		"list": []byte("v1.0.0\n"), "v1.0.0.info": []byte(`{"Version":"v1.0.0"}`),
		"v1.0.0.mod": []byte("module example.com/lib\n\ngo 1.21\n"), "v1.0.0.zip": zb.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(modDir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, "")
	for name, body := range map[string]string{
		"go.mod":  "module demo\n\ngo 1.21\n\nrequire example.com/lib v1.0.0\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/lib\"\n)\n\nfunc main() { fmt.Println(lib.Hello()) }\n",
	} {
		if err := os.WriteFile(filepath.Join(e.ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goEnv := []string{"HOME=" + home, "GOPATH=" + filepath.Join(home, "go"), "GOPROXY=file://" + proxy, "GOSUMDB=off",
		"GOFLAGS=-mod=mod", "GOCACHE=" + filepath.Join(home, "gocache"), "GOTOOLCHAIN=local"}
	person := func(args ...string) string {
		c := exec.Command("go", args...)
		c.Dir = e.ws
		c.Env = append(os.Environ(), goEnv...)
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	person("mod", "download", "example.com/lib")
	if out := person("run", "."); !strings.Contains(out, "hello") {
		t.Fatalf("go run: %s", out)
	}
	src := filepath.Join(home, "go", "pkg", "mod", "example.com", "lib@v1.0.0", "lib.go")
	r := e.runCommands(t, goEnv, nil,
		"chmod u+w $(dirname "+src+") "+src+" && printf 'package lib\\n\\nimport \"os\"\\n\\nfunc init() { os.WriteFile(\""+marker+
			"\", nil, 0o644) }\\n\\nfunc Hello() string { return \"hello\" }\\n' > "+src+"; echo planted=$?")
	person("run", ".")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the person's go run ran code a sandboxed command planted in the module cache:\n%s", r.results["c1"]["output"])
	}
}
