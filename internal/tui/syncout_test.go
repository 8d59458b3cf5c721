package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
)

// Synchronized output (DEC mode 2026, issue 21 scope 11) comes from Bubble
// Tea v2 itself: the program asks the terminal (DECRQM, ESC[?2026$p) and,
// when the terminal says it knows the mode, wraps every frame in
// ESC[?2026h … ESC[?2026l; a terminal that does not answer (tmux 3.3a,
// the Linux console) gets frames as they are. These tests run the real
// program on a pipe standing in for the terminal and check both ways, so
// that an upgrade or an option that loses it fails here.
func TestSynchronizedOutputWhenTheTerminalKnowsIt(t *testing.T) {
	out := runOnFakeTerminal(t, "\x1b[?2026;2$y", 0) // mode known, reset
	after := out[strings.Index(out, "\x1b[?2026$p"):]
	on, off := strings.Count(after, "\x1b[?2026h"), strings.Count(after, "\x1b[?2026l")
	if on == 0 || on != off {
		t.Fatalf("frames after the terminal said it knows mode 2026: %d ESC[?2026h and %d ESC[?2026l, want pairs\n%q", on, off, after)
	}
	// the typed text is drawn inside a synchronized update
	i := strings.LastIndex(after, "q") // the typed text's last key

	if i < 0 || strings.LastIndex(after[:i], "\x1b[?2026h") < strings.LastIndex(after[:i], "\x1b[?2026l") {
		t.Errorf("the frame with the typed text is not between ESC[?2026h and ESC[?2026l:\n%q", after)
	}
}

func TestNoSynchronizedOutputWhenTheTerminalIsSilent(t *testing.T) {
	out := runOnFakeTerminal(t, "", 0)
	if strings.Contains(out, "\x1b[?2026h") {
		t.Fatalf("ESC[?2026h written to a terminal that never said it knows mode 2026:\n%q", out)
	}
}

// Bubble Tea's renderer is patched (third_party/bubbletea) to stop its
// 60-a-second ticker on a screen where nothing happened for a few frames;
// a key typed after that must still be drawn. The pause is the condition
// under test (an idle screen), not a wait for something to happen.
func TestKeyDrawnAfterTheRendererWentIdle(t *testing.T) {
	out := runOnFakeTerminal(t, "", 300*time.Millisecond)
	if !typed.MatchString(plainText(out)) {
		t.Fatalf("the typed text never drawn")
	}
}

// runOnFakeTerminal starts the TUI with a pipe as its terminal, answers
// the mode query with reply (none if ""), types "zq" once the composer is
// drawn (after pause), and returns everything written once "zq" is on
// screen.
func runOnFakeTerminal(t *testing.T, reply string, pause time.Duration) string {
	t.Helper()
	ws := t.TempDir()
	for _, a := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init", "--allow-empty"}} {
		c := exec.Command("git", a...)
		c.Dir = ws
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", a, err, b)
		}
	}
	script := filepath.Join(t.TempDir(), "script.json")
	b, _ := json.Marshal(map[string]any{"turns": []any{map[string]any{"text": "unused"}}})
	os.WriteFile(script, b, 0o644)
	set := &app.Settings{Workspace: ws, Home: filepath.Join(t.TempDir(), "home"), Model: "test-model", Approval: "ask", Replay: script, MaxSteps: 5}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	term := &watched{changed: make(chan struct{}, 1)}
	// no TERM_PROGRAM and no SSH_TTY: Bubble Tea asks (shouldQuerySynchronizedOutput)
	pr, err := start(ctx, Options{Settings: set, Env: []string{"TERM=xterm-256color"}, In: inR, Out: term},
		tea.WithWindowSize(80, 24))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	go func() { done <- pr.run(ctx) }()
	defer func() {
		pr.p.Quit()
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the program did not end")
		}
	}()
	term.wait(t, "the mode query", "\x1b[?2026$p")
	if reply != "" {
		if _, err := io.WriteString(inW, reply); err != nil {
			t.Fatal(err)
		}
	}
	term.wait(t, "the composer", "Ask, or /")
	time.Sleep(pause)
	if _, err := io.WriteString(inW, "zq"); err != nil {
		t.Fatal(err)
	}
	return term.waitRE(t, "the typed text", typed)
}

// typed is "zq" on screen: drawn in one frame, or z first and then q over
// the cursor's blank after it (two frames, on a loaded machine).
var typed = regexp.MustCompile(`z ?q`)

// waitRE is wait for a pattern of the output, escape sequences removed.
func (w *watched) waitRE(t *testing.T, what string, re *regexp.Regexp) string {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		w.mu.Lock()
		s := w.buf.String()
		w.mu.Unlock()
		if re.MatchString(plainText(s)) {
			return s
		}
		select {
		case <-w.changed:
		case <-timeout:
			t.Fatalf("never written: %s\n%q", what, s)
		}
	}
}

// watched is a terminal's output that says when it has grown.
type watched struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

// wait blocks until the output, escape sequences removed, contains text
// (or the raw output contains it, for a sequence), and returns the output.
func (w *watched) wait(t *testing.T, what, text string) string {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		w.mu.Lock()
		s := w.buf.String()
		w.mu.Unlock()
		if strings.Contains(s, text) || strings.Contains(plainText(s), text) {
			return s
		}
		select {
		case <-w.changed:
		case <-timeout:
			t.Fatalf("never written: %s\n%q", what, s)
		}
	}
}

// plainText drops CSI and OSC sequences.
func plainText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']':
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !(s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\') {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default:
			i++
		}
	}
	return b.String()
}
