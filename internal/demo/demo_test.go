package demo

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agent/internal/replay"
)

// The TUI form answers only what is on screen: a cue is seen in what the
// renderer writes however it is styled, moved to or wrapped, and split over
// writes; a cue armed after the text was written waits for the next time.
func TestScreenCues(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		cue    string
		want   bool
	}{
		{"plain", []string{"1/y allow once"}, "allowonce", true},
		{"styled", []string{"\x1b[1m1/y\x1b[0m  \x1b[38;5;7mallow\x1b[0m \x1b[38;5;7monce\x1b[0m"}, "allowonce", true},
		{"cursor moves for spaces", []string{"allow\x1b[1Conce"}, "allowonce", true},
		{"wrapped", []string{"Greeting\r\n  updated: main.go"}, cueEditDone, true},
		{"split over writes", []string{"Recovered af", "ter the crash"}, cueRecovered, true},
		{"another text", []string{"allow for this run"}, "allowonce", false},
		{"a prefix only", []string{"Greeting upd"}, cueEditDone, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &screen{}
			c := s.arm(tt.cue)
			for _, w := range tt.writes {
				s.feed([]byte(w))
			}
			if got := seen(c); got != tt.want {
				t.Errorf("cue %q after %q: seen %v, want %v", tt.cue, tt.writes, got, tt.want)
			}
		})
	}
	t.Run("armed after the text", func(t *testing.T) {
		s := &screen{}
		s.feed([]byte("1/y allow once"))
		c := s.arm("allowonce")
		if seen(c) {
			t.Fatal("a cue armed after its text was written counts the old text")
		}
		s.feed([]byte("1/y allow once"))
		if !seen(c) {
			t.Fatal("the text written again was not seen")
		}
	})
	t.Run("wait looks from the start", func(t *testing.T) {
		s := &screen{}
		s.feed([]byte("› Ask, or / for commands"))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := s.wait(ctx, "Ask, or /"); err != nil {
			t.Fatalf("wait for text written before it: %v", err)
		}
	})
}

func seen(c *cue) bool {
	select {
	case <-c.hit:
		return true
	default:
		return false
	}
}

// The demo types on the session's input: what it types arrives there,
// keys as a terminal sends them.
func TestScreenTypes(t *testing.T) {
	pr, pw := io.Pipe()
	s := &screen{keys: pw}
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(pr)
		got <- string(b)
	}()
	if err := s.typeText(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	s.press("\r")
	s.press("\x03\x03")
	pw.Close()
	if g := <-got; g != "hi\r\x03\x03" {
		t.Errorf("typed %q", g)
	}
}

// A child never inherits the person's model, key, state, config, HOME or
// TMPDIR; it gets the world's, and keeps the rest (PATH, TERM, LANG).
func TestChildEnv(t *testing.T) {
	w := &world{home: "/d/home", state: "/d/state", tmp: "/d/tmp", gate: "/d/gate"}
	base := []string{"PATH=/usr/bin", "TERM=xterm", "LANG=C.UTF-8", "HOME=/home/me", "TMPDIR=/var/tmp",
		"OPENAI_API_KEY=sk-mine", "OPENAI_BASE_URL=https://api.example.com/v1", "ANTHROPIC_API_KEY=sk-ant",
		"AGENT_APPROVAL=full-auto", "AGENT_HOME=/home/me/.agent", "AGENT_SANDBOX=off", "XDG_CONFIG_HOME=/home/me/.config",
		"XDG_STATE_HOME=/home/me/.state"}
	env := childEnv(base, w)
	for _, kv := range env {
		for _, bad := range []string{"sk-mine", "sk-ant", "api.example.com", "full-auto", "/home/me", "/var/tmp", "AGENT_SANDBOX"} {
			if strings.Contains(kv, bad) {
				t.Errorf("the child inherits %q", kv)
			}
		}
	}
	for _, want := range []string{"PATH=/usr/bin", "TERM=xterm", "LANG=C.UTF-8", "HOME=/d/home", "TMPDIR=/d/tmp",
		"AGENT_HOME=/d/state", "AGENT_MODEL=" + demoModel, "XDG_CONFIG_HOME=/d/home/.config", gateEnv + "=/d/gate"} {
		if !slices.Contains(env, want) {
			t.Errorf("the child's environment lacks %q: %q", want, env)
		}
	}
	w.env = env
	a := w.envWith(&modelServer{url: "http://127.0.0.1:1/v1"})
	b := w.envWith(&modelServer{url: "http://127.0.0.1:2/v1"})
	if len(a) != len(env)+1 || a[len(a)-1] != "OPENAI_BASE_URL=http://127.0.0.1:1/v1" || b[len(b)-1] != "OPENAI_BASE_URL=http://127.0.0.1:2/v1" {
		t.Errorf("envWith: two servers' environments share their last entry: %q / %q", a[len(a)-1], b[len(b)-1])
	}
}

// The scripts are valid replay scripts (as a file would be parsed), and
// their calls are the ones the steps look for.
func TestScriptsParse(t *testing.T) {
	tests := []struct {
		name  string
		s     *replay.Script
		calls []string
	}{
		{"edit", editScript(), []string{editCall, checkCall}},
		{"crash", crashScript(), []string{deployCall}},
	}
	for _, tt := range tests {
		sc, err := checked(tt.s)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []string
		for _, turn := range sc.Turns {
			for _, c := range turn.ToolCalls {
				got = append(got, c.ID)
			}
		}
		if !slices.Equal(got, tt.calls) {
			t.Errorf("%s script calls %v, want %v", tt.name, got, tt.calls)
		}
	}
}

// The world is built in one temporary directory and removed whole; with
// keep it stays.
func TestWorldLifecycle(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, keep := range []bool{false, true} {
		w, err := newWorld("/bin/true", os.Environ())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(w.root, os.Getenv("TMPDIR")) {
			t.Errorf("root %s is not under TMPDIR", w.root)
		}
		for _, f := range fixture() {
			if _, err := os.Stat(filepath.Join(w.repo, f.name)); err != nil {
				t.Errorf("fixture: %v", err)
			}
		}
		if fi, err := os.Stat(w.gate); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("the gate is not a FIFO: %v %v", fi, err)
		}
		if _, err := w.serve(editScript()); err != nil {
			t.Fatal(err)
		}
		if err := w.close(keep); err != nil {
			t.Fatal(err)
		}
		_, err = os.Stat(w.root)
		if keep != (err == nil) {
			t.Errorf("keep %v: after close, stat root: %v", keep, err)
		}
		os.RemoveAll(w.root)
	}
}

func TestShellJoin(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--approval", "ask"}, "run --approval ask"},
		{[]string{"run", "Deploy the app"}, "run 'Deploy the app'"},
		{[]string{"--allow", "run_command(sh check.sh)"}, "--allow 'run_command(sh check.sh)'"},
		{[]string{"it's"}, `'it'\''s'`},
		{[]string{""}, "''"},
	}
	for _, tt := range tests {
		if got := shellJoin(tt.args); got != tt.want {
			t.Errorf("shellJoin(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	before := map[string]string{"main.go": "fmt.Println(\"Hello, world\")", "deploy.log": "deployed\n", "README.md": "x"}
	rolled := map[string]string{"main.go": "fmt.Println(\"Hello\")", "README.md": "x"}
	if got, want := describe(before, rolled), `deploy.log is gone (created after the checkpoint), main.go says "Hello" again`; got != want {
		t.Errorf("describe(rollback) = %s, want %s", got, want)
	}
	if got, want := describe(rolled, before), `deploy.log is back, main.go says "Hello, world" again`; got != want {
		t.Errorf("describe(undo) = %s, want %s", got, want)
	}
	if got := describe(before, before); got != "no file changed" {
		t.Errorf("describe(same) = %s", got)
	}
}
