package e2e

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Signs of life in a real terminal: the first screen names the workspace
// and the way to help; a slow model shows a spinner whose elapsed time
// advances; a 5-second command's output arrives in its card while it runs,
// its elapsed time advancing too; after quitting, the session is in the
// terminal's scrollback.
func TestTUISignsOfLife(t *testing.T) {
	tm := newTmux(t)
	slow := turn("Counting now.", call("c1", "run_command", map[string]any{
		"command": "for i in 1 2 3 4 5; do echo tick-$i; sleep 1; done"}))
	slow["delay_ms"] = 2500
	e := newEnv(t, script(slow, turn("Counted to five (LIFE-DONE).")))
	env := append(e.environ(), "AGENT_APPROVAL=full-auto", "AGENT_MODEL=test-model", "OPENAI_API_KEY=sk-test")
	tm.start(120, 40, env, e.ws, agentBin+"; echo AGENT-EXITED-$?; sleep 60")
	s := tm.wait(`Ask, or /`, 15*time.Second)
	for _, want := range []string{filepath.Base(e.ws), "? for help", "model test-model", "approval full-auto"} {
		if !strings.Contains(s, want) {
			t.Errorf("the first screen lacks %q:\n%s", want, s)
		}
	}
	tm.typeText("LIFE-PROMPT count to five")
	tm.keys("Enter")

	// the slow model: the spinner's time advances while nothing arrives
	s = tm.wait(`Thinking · \d+s · esc to interrupt`, 10*time.Second)
	first := seconds(t, `Thinking · (\d+)s`, s)
	advanced := false
	for deadline := time.Now().Add(5 * time.Second); !advanced && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if m := regexp.MustCompile(`Thinking · (\d+)s`).FindStringSubmatch(tm.screen()); m != nil {
			n, _ := strconv.Atoi(m[1])
			advanced = n > first
		}
	}
	if !advanced {
		t.Fatalf("the slow model's elapsed time stayed at %ds:\n%s", first, tm.screen())
	}

	// the command: its output arrives while it runs, and its time advances
	s = tm.wait(`│ tick-1`, 15*time.Second)
	if strings.Contains(s, "tick-5") || !regexp.MustCompile(`Running for i in .* · \d+s`).MatchString(s) {
		t.Fatalf("want tick-1 while the command runs, with its activity line:\n%s", s)
	}
	at := seconds(t, `Running for i in .* · (\d+)s`, s)
	s = tm.wait(`│ tick-3`, 10*time.Second)
	if strings.Contains(s, "tick-5") {
		t.Fatalf("tick-3 came with the end of the command:\n%s", s)
	}
	if now := seconds(t, `Running for i in .* · (\d+)s`, s); now <= at {
		t.Fatalf("the command's elapsed time did not advance (%ds then %ds):\n%s", at, now, s)
	}
	tm.wait(`LIFE-DONE`, 20*time.Second)
	tm.waitGone(`esc to interrupt`, 5*time.Second)

	tm.keys("C-c")
	tm.wait(`ctrl\+c again`, 5*time.Second)
	tm.keys("C-c")
	tm.wait(`AGENT-EXITED-0`, 10*time.Second)
	back := tm.tmux("capture-pane", "-p", "-S", "-", "-t", "t")
	for _, want := range []string{"LIFE-PROMPT count to five", "Counting now.", "tick-1", "LIFE-DONE", "agent resume"} {
		if !strings.Contains(back, want) {
			t.Errorf("the scrollback after quit lacks %q:\n%s", want, back)
		}
	}
	if i, j := strings.LastIndex(back, "LIFE-DONE"), strings.LastIndex(back, "agent resume"); i > j {
		t.Errorf("the resume line is not after the transcript:\n%s", back)
	}
}

// seconds reads the number re's group matches on screen s.
func seconds(t *testing.T, re, s string) int {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %q on screen:\n%s", re, s)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
