package e2e

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// demoWorld is a newcomer's machine: a fresh HOME, AGENT_HOME and TMPDIR,
// nothing else but PATH.
type demoWorld struct {
	home, state, tmp string
}

func newDemoWorld(t *testing.T) demoWorld {
	t.Helper()
	root := t.TempDir()
	w := demoWorld{home: filepath.Join(root, "home"), state: filepath.Join(root, "state"), tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{w.home, w.state, w.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w demoWorld) environ(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "AGENT_HOME=" + w.state, "TMPDIR=" + w.tmp}, extra...)
}

// demo runs `agent demo ARGS...` with stdout and stderr not a terminal.
func (w demoWorld) demo(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, append([]string{"demo"}, args...)...)
	cmd.Env = env
	cmd.Dir = w.home
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("agent demo: %v", err)
	}
	return result{code, out.String(), errb.String()}
}

// entries lists what a directory holds, recursively.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if p != dir {
			out = append(out, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	return out
}

// demoRoot is the temporary directory the demo says it works in.
func demoRoot(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`throwaway repository under (\S+)\.`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the demo does not say where it works:\n%s", out)
	}
	return m[1]
}

// processesUnder are the live processes whose command line names dir.
func processesUnder(dir string) []string {
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(dir)) {
			found = append(found, p+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return found
}

// A newcomer with no key and no model, on a clean machine, runs `agent
// demo` with its output not a terminal: it exits 0, narrates the approval
// with the diff, the crash and the resume that does not re-run the
// command, the rollback and its undo, says how to point it at a real model,
// and leaves nothing behind: no file in TMPDIR, HOME or AGENT_HOME, no
// process.
func TestDemoPlainOffline(t *testing.T) {
	w := newDemoWorld(t)
	r := w.demo(t, w.environ())
	if r.code != 0 {
		t.Fatalf("agent demo: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	out := r.stdout
	for _, want := range []string{
		"Step 1/4", "paused, awaiting approval (exit 3)", "-\tfmt.Println(\"Hello\")", "+\tfmt.Println(\"Hello, world\")",
		"approved by you, once",
		"Step 2/4", "sh check.sh ran without a prompt (allowed by the rule), exit 0",
		"Step 3/4", "SIGKILL", "not_rerun", "the deploy was not re-run", "deploy.log records 1 deploy",
		"Step 4/4", "rolled back:", "main.go says \"Hello\" again", "undo: every file is back",
		"OPENAI_API_KEY", "OPENAI_BASE_URL", "make test",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo's output lacks %q", want)
		}
	}
	// The black-box check's greps.
	for _, re := range []string{`(?i)approv`, `(?i)not re-?run|not run again`, `(?i)undo|rolled back|rollback`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("the demo's output does not match %s", re)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
	root := demoRoot(t, out)
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("the demo's directory %s is still there (%v)", root, err)
	}
	for _, dir := range []string{w.tmp, w.home, w.state} {
		if left := entries(t, dir); len(left) > 0 {
			t.Errorf("the demo left %v in %s", left, dir)
		}
	}
	if ps := processesUnder(root); len(ps) > 0 {
		t.Errorf("processes outlived the demo: %v", ps)
	}
}

// The person's own settings do not leak into the demo: a key, an endpoint,
// full-auto in the environment and in their config file change nothing (the
// edit still asks), and their endpoint is never contacted.
func TestDemoIgnoresThePersonsSettings(t *testing.T) {
	w := newDemoWorld(t)
	var hits atomic.Int64
	theirs := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(rw, "not for the demo", http.StatusTeapot)
	}))
	defer theirs.Close()
	cfg := filepath.Join(w.home, ".config", "agent")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.toml"), []byte("approval = \"full-auto\"\nmodel = \"their-model\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := w.demo(t, w.environ("OPENAI_API_KEY=sk-their-real-key-0123456789abcdef", "OPENAI_BASE_URL="+theirs.URL+"/v1",
		"AGENT_APPROVAL=full-auto", "AGENT_MODEL=their-model", "XDG_CONFIG_HOME="+filepath.Join(w.home, ".config")))
	if r.code != 0 {
		t.Fatalf("agent demo: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "paused, awaiting approval") || !strings.Contains(r.stdout, "(approval ask)") {
		t.Errorf("the person's full-auto reached the demo: the edit did not ask\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "their-model") || strings.Contains(r.stdout, "sk-their") {
		t.Errorf("the person's model or key shows in the demo\n%s", r.stdout)
	}
	if n := hits.Load(); n > 0 {
		t.Errorf("the person's endpoint got %d requests from the demo", n)
	}
	if left := entries(t, w.tmp); len(left) > 0 {
		t.Errorf("the demo left %v in TMPDIR", left)
	}
}

// --keep keeps the repository and the journal, says where, and they are
// real: `agent runs` there lists the demo's two runs.
func TestDemoKeep(t *testing.T) {
	w := newDemoWorld(t)
	r := w.demo(t, w.environ(), "--keep")
	if r.code != 0 {
		t.Fatalf("agent demo --keep: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`(?m)^kept: (\S+) `).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("--keep does not say what it kept:\n%s", r.stdout)
	}
	kept := m[1]
	t.Cleanup(func() { os.RemoveAll(kept) })
	if !strings.HasPrefix(kept, w.tmp+"/") {
		t.Errorf("kept %s, not under TMPDIR %s", kept, w.tmp)
	}
	if got := readFile(t, filepath.Join(kept, "repo", "main.go")); !strings.Contains(got, `"Hello, world"`) {
		t.Errorf("the kept main.go is not the edited one:\n%s", got)
	}
	cmd := exec.Command(agentBin, "runs", "--json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "AGENT_HOME=" + filepath.Join(kept, "state")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent runs in the kept state: %v", err)
	}
	var runs []struct {
		Status, Prompt string
	}
	if err := jsonUnmarshal(string(out), &runs); err != nil || len(runs) != 2 {
		t.Fatalf("agent runs in the kept state: %v, %d runs\n%s", err, len(runs), out)
	}
	for _, run := range runs {
		if run.Status != "completed" {
			t.Errorf("kept run %q is %s, want completed", run.Prompt, run.Status)
		}
	}
}

// --interactive needs a person at a terminal: without one it is a usage
// error that says what to do, and nothing is created.
func TestDemoInteractiveNeedsATerminal(t *testing.T) {
	w := newDemoWorld(t)
	r := w.demo(t, w.environ(), "--interactive")
	if r.code != 2 || !strings.Contains(r.stderr, "--interactive needs a terminal") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming the fix", r.code, r.stderr)
	}
	if left := entries(t, w.tmp); len(left) > 0 {
		t.Errorf("left %v in TMPDIR", left)
	}
}

// On a terminal the demo shows the TUI: the approval prompt with the diff,
// answered by the demo after a pause; the check; the resumed run saying the
// deploy was not re-run; then the narration of the rollback, and exit 0
// with nothing left in TMPDIR.
func TestDemoTUIInTmux(t *testing.T) {
	tm := newTmux(t)
	w := newDemoWorld(t)
	tm.start(120, 40, w.environ(), w.home, agentBin+" demo; echo DEMO-EXITED-$?; sleep 60")
	s := tm.wait(`1/y\s+allow once`, 30*time.Second)
	for _, want := range []string{"Edit main.go?", `fmt.Println("Hello, world")`, "Make the greeting friendlier"} {
		if !strings.Contains(s, want) {
			t.Errorf("the approval prompt lacks %q:\n%s", want, s)
		}
	}
	tm.wait(`✓ run_command\s+sh check.sh`, 30*time.Second)
	tm.wait(`Greeting updated`, 15*time.Second)
	tm.wait(`not re-run`, 30*time.Second)
	tm.wait(`Recovered after the crash`, 15*time.Second)
	s = tm.wait(`DEMO-EXITED-\d+`, 60*time.Second)
	if !strings.Contains(s, "DEMO-EXITED-0") {
		t.Fatalf("the demo failed:\n%s", s)
	}
	for _, want := range []string{"undo: every file is back", "Point it at a real model"} {
		if !strings.Contains(s, want) {
			t.Errorf("the end of the demo lacks %q:\n%s", want, s)
		}
	}
	if left := entries(t, w.tmp); len(left) > 0 {
		t.Errorf("the demo left %v in TMPDIR", left)
	}
}

// BenchmarkDemoPlain: the whole `agent demo` in plain text, process start
// to exit (its children, the stand-in model, the journal, the clean-up).
// Goal: well under the minute a newcomer is promised.
func BenchmarkDemoPlain(b *testing.B) {
	root := b.TempDir()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(agentBin, "demo")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "TMPDIR=" + root}
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("agent demo: %v\n%s", err, out)
		}
	}
}
