package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/event"
	"agent/internal/store"
)

func decisions(evs []event.Event) []string {
	var out []string
	for _, ev := range evs {
		if d, ok := ev.Data.(*event.ApprovalData); ok {
			out = append(out, d.CallID+":"+string(d.Decision)+":"+string(d.Scope)+":"+string(d.Source))
		}
	}
	return out
}

var greet = map[string]string{"main.go": "package main\n\nfunc main() { println(\"Hello\") }\n"}

func edit(id, from, to string) call {
	return call{id, "edit_file", args(map[string]any{"path": "main.go", "old_string": from, "new_string": to})}
}

// Approve once: the prompt shows the diff; a key inside the guard is
// ignored; 1 allows exactly that call.
func TestApproveOnce(t *testing.T) {
	h := newHarness(t, "ask", greet,
		turnJSON("Changing it.", edit("c1", `"Hello"`, `"Hi"`)),
		turnJSON("Done."))
	h.text("change the greeting")
	h.enter()
	h.until("the prompt", func(m *model) bool { return m.asking() })
	if s := h.screen(); !strings.Contains(s, `+ func main() { println("Hi") }`) || !strings.Contains(s, "1/y") {
		t.Fatalf("the prompt does not show the diff and the options:\n%s", s)
	}
	h.key(tea.KeyPressMsg{Code: '1', Text: "1"}) // inside the guard: ignored
	h.probe(func(m *model) {
		if m.approve.Len() != 1 {
			t.Errorf("a key within %v of the prompt decided it", askGuard)
		}
	})
	h.ask()
	h.key(tea.KeyPressMsg{Code: '1', Text: "1"})
	h.idle()
	if b, _ := os.ReadFile(filepath.Join(h.ws, "main.go")); !strings.Contains(string(b), `"Hi"`) {
		t.Errorf("main.go = %s", b)
	}
	if got := strings.Join(decisions(h.events()), " "); got != "c1:allow:once:user" {
		t.Errorf("decisions %s", got)
	}
}

// Allow for this run: 2 grants calls like it; the next identical call is
// not asked.
func TestAllowForRun(t *testing.T) {
	cmd := call{"c1", "run_command", args(map[string]any{"command": "echo x >> log.txt"})}
	again := call{"c2", "run_command", args(map[string]any{"command": "echo x >> log.txt"})}
	h := newHarness(t, "ask", nil, turnJSON("", cmd), turnJSON("", again), turnJSON("Done."))
	h.text("log twice")
	h.enter()
	h.ask()
	if s := h.screen(); !strings.Contains(s, "2/a") || !strings.Contains(s, "allow for this run") {
		t.Errorf("no run-scope option:\n%s", s)
	}
	h.key(tea.KeyPressMsg{Code: '2', Text: "2"})
	h.idle()
	if got := strings.Join(decisions(h.events()), " "); got != "c1:allow:run:user c2:allow:run:user" {
		t.Errorf("decisions %s; want the second covered by the grant", got)
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "log.txt")); string(b) != "x\nx\n" {
		t.Errorf("log.txt = %q", b)
	}
}

// Deny with a note: the model gets the note and the run goes on; with a
// queue of three calls, the note cancels the rest of the turn.
func TestDenyWithNoteCancelsTheTurn(t *testing.T) {
	h := newHarness(t, "ask", greet,
		turnJSON("Three things.",
			edit("c1", `"Hello"`, `"Hi"`),
			call{"c2", "write_file", args(map[string]any{"path": "b.txt", "content": "b"})},
			call{"c3", "run_command", args(map[string]any{"command": "echo ran > ran.txt"})}),
		turnJSON("Understood."))
	h.text("do three things")
	h.enter()
	h.ask()
	h.key(tea.KeyPressMsg{Code: tea.KeyTab})
	h.until("the note editor", func(m *model) bool { return m.approve.Noting() })
	h.text("use git mv instead")
	h.enter()
	h.idle()
	evs := h.events()
	if got := strings.Join(decisions(evs), " "); got != "c1:deny:once:user c2:deny:once:user c3:deny:once:user" {
		t.Errorf("decisions %s; want all three denied", got)
	}
	var noteSeen bool
	for _, ev := range evs {
		if r, ok := ev.Data.(*event.ToolResultData); ok && r.CallID == "c1" {
			noteSeen = strings.Contains(r.Output, "use git mv instead")
		}
	}
	if !noteSeen {
		t.Error("the model did not get the note")
	}
	for _, f := range []string{"b.txt", "ran.txt"} {
		if _, err := os.Stat(filepath.Join(h.ws, f)); err == nil {
			t.Errorf("%s exists: a cancelled call ran", f)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "main.go")); strings.Contains(string(b), `"Hi"`) {
		t.Error("the denied edit ran")
	}
}

// A secret in a tool's output reaches the screen only as its placeholder.
func TestSecretOnScreenIsPlaceholder(t *testing.T) {
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "Zz9Yx8"
	h := newHarness(t, "full-auto", map[string]string{"config.go": "package c\n\nconst token = \"" + secret + "\"\n"},
		turnJSON("", call{"c1", "run_command", args(map[string]any{"command": "cat config.go"})}),
		turnJSON("The token is in config.go."))
	h.text("where is the token")
	h.enter()
	h.idle()
	h.key(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}) // expand the card, as a person would
	h.until("the card expanded", func(m *model) bool {
		c := m.tr.view.Card("c1")
		return c != nil && c.Expanded()
	})
	s := h.screen()
	if strings.Contains(s, secret) || strings.Contains(s, secret[4:20]) {
		t.Fatalf("the secret is on screen:\n%s", s)
	}
	if !strings.Contains(s, "[REDACTED:") {
		t.Errorf("no placeholder on screen:\n%s", s)
	}
}

// A resize while the answer streams re-renders at the new width.
func TestResizeMidStream(t *testing.T) {
	long := strings.Repeat("word ", 400)
	h := newHarness(t, "ask", nil, turnJSON(long))
	h.text("talk")
	h.enter()
	h.pr.p.Send(tea.WindowSizeMsg{Width: 50, Height: 20})
	h.idle()
	h.pr.p.Send(tea.WindowSizeMsg{Width: 40, Height: 15})
	h.until("the new size", func(m *model) bool { return m.width == 40 })
	for i, l := range strings.Split(h.screen(), "\n") {
		if n := len([]rune(l)); n > 40 {
			t.Errorf("line %d is %d columns wide at width 40: %q", i, n, l)
		}
	}
	_ = time.Second
}

// Quitting while a prompt is open is not a denial: nothing is journaled
// for the call, the run is interrupted, and it waits for a decision.
func TestQuitDuringPromptLeavesItUndecided(t *testing.T) {
	h := newHarness(t, "ask", nil,
		turnJSON("", call{"c1", "run_command", args(map[string]any{"command": "echo x > x.txt"})}),
		turnJSON("Done."))
	h.text("do it")
	h.enter()
	h.ask()
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	h.key(ctrlC)
	h.key(ctrlC)
	var res Result
	select {
	case res = <-h.done:
		h.done <- res // for the cleanup
	case <-time.After(15 * time.Second):
		t.Fatal("the program did not quit")
	}
	st, err := store.Open(context.Background(), h.home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	evs, err := st.Events(context.Background(), res.RunID, 0)
	if err != nil || len(evs) == 0 {
		t.Fatalf("events of %q: %v", res.RunID, err)
	}
	if got := decisions(evs); len(got) != 0 {
		t.Errorf("quitting journaled decisions: %v", got)
	}
	if last, ok := evs[len(evs)-1].Data.(*event.RunFinishedData); !ok || last.Status != event.StatusInterrupted {
		t.Errorf("the run did not end interrupted: %+v", evs[len(evs)-1])
	}
	if _, err := os.Stat(filepath.Join(h.ws, "x.txt")); err == nil {
		t.Error("the command ran")
	}
}

// "press ctrl+c again to quit" goes when its window closes, and a ctrl+c
// after that asks again instead of quitting.
func TestCtrlCNoticeEndsWithItsWindow(t *testing.T) {
	h := newHarness(t, "ask", nil, turnJSON("Hi."))
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	h.key(ctrlC)
	h.until("the notice", func(m *model) bool { return m.flash == quitNotice })
	if !strings.Contains(h.screen(), quitNotice) {
		t.Fatalf("the notice is not on screen:\n%s", h.screen())
	}
	h.probe(func(m *model) { h.clock = h.clock.Add(quitWindow + time.Millisecond) })
	h.until("the notice to go", func(m *model) bool { return m.flash == "" })
	if strings.Contains(h.screen(), quitNotice) {
		t.Fatalf("the notice outlived its window:\n%s", h.screen())
	}
	h.key(ctrlC)
	h.until("the notice again", func(m *model) bool { return m.flash == quitNotice })
	select {
	case <-h.done:
		t.Fatal("a ctrl+c after the window quit")
	default:
	}
}

// A plain deny says, in the prompt, that it ends the turn; and after it the
// transcript says the run stopped and how to go on.
func TestPlainDenySaysItStopsTheTurn(t *testing.T) {
	h := newHarness(t, "ask", nil,
		turnJSON("", call{"c1", "run_command", args(map[string]any{"command": "echo x > x.txt"})}),
		turnJSON("Done."))
	h.text("do it")
	h.enter()
	h.ask()
	if s := h.screen(); !strings.Contains(s, "3/n/esc  deny and stop the turn") {
		t.Fatalf("the prompt does not say a deny stops the turn:\n%s", s)
	}
	h.key(tea.KeyPressMsg{Code: '3', Text: "3"})
	h.idle()
	if s := h.screen(); !strings.Contains(s, "you denied a call") {
		t.Fatalf("after the deny the transcript does not say the run stopped:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "x.txt")); err == nil {
		t.Error("the denied command ran")
	}
}
