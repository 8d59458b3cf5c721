package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"agent/internal/event"
)

// At 80x24 the prompt of a one-line edit shows the removed and the added
// line without scrolling, under a title in words, with no call id; f shows
// the diff fullscreen and esc goes back to the prompt, still undecided (no
// key of the diff view decides); t puts the diff side by side.
func TestPromptAt80x24ShowsTheChange(t *testing.T) {
	h := newHarness(t, "ask", greet, turnJSON("Changing it.", edit("call_1_0", `"Hello"`, `"Hi"`)), turnJSON("Done."))
	h.pr.p.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.until("80x24", func(m *model) bool { return m.width == 80 && m.height == 24 })
	h.text("change the greeting")
	h.enter()
	h.ask()
	s := h.screen()
	for _, want := range []string{"Edit main.go?", `println("Hello")`, `println("Hi")`, "1/y", "4/tab", "f fullscreen"} {
		if !strings.Contains(s, want) {
			t.Errorf("the prompt at 80x24 lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "call_1_0") || strings.Contains(s, "lines 1–") {
		t.Errorf("the prompt shows a call id or needs scrolling:\n%s", s)
	}
	h.key(keyRune('f'))
	h.until("the fullscreen diff", func(m *model) bool { return m.promptDiffOpen() && m.diff != nil })
	s = h.screen()
	if !strings.Contains(s, "esc back to the prompt") || strings.Contains(s, "1/y") {
		t.Errorf("the fullscreen diff does not take the screen:\n%s", s)
	}
	for _, k := range []rune{'n', 'y', '1', 'a', ']'} { // none decides while the diff is fullscreen
		h.key(keyRune(k))
	}
	h.probe(func(m *model) {
		if !m.asking() || len(m.asks) != 1 {
			t.Error("a key in the fullscreen diff decided the call")
		}
	})
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.until("back to the prompt", func(m *model) bool { return !m.promptDiffOpen() && m.asking() })
	h.key(keyRune('t'))
	h.until("the split diff", func(m *model) bool {
		return strings.Contains(stripANSI(m.View().Content), "│") && strings.Count(stripANSI(m.View().Content), "main()") >= 2
	})
	h.key(keyRune('1'))
	h.idle()
	if !strings.Contains(readFile(t, h.ws+"/main.go"), `"Hi"`) {
		t.Error("allow once after f and t did not run the edit")
	}
}

// A command is shown once: its line, not the JSON that repeats it.
func TestPromptShowsCommandOnce(t *testing.T) {
	h := newHarness(t, "ask", greet, turnJSON("Testing.", call{"c1", "run_command", args(map[string]any{"command": "go vet ./...", "timeout_sec": 60})}), turnJSON("Done."))
	h.text("vet it")
	h.enter()
	h.ask()
	s := h.screen()
	if n := strings.Count(s, "go vet ./..."); n < 1 || !strings.Contains(s, "Run command?") || !strings.Contains(s, "timeout_sec") {
		t.Fatalf("the command prompt:\n%s", s)
	}
	prompt := s[strings.Index(s, "Run command?"):]
	if n := strings.Count(prompt, "$ go vet ./..."); n != 1 {
		t.Errorf("the command line shows %d times in the prompt:\n%s", n, prompt)
	}
	if !strings.Contains(prompt, "adds the rule run_command(go vet ./...)") {
		t.Errorf("allow for this run does not say which rule it adds:\n%s", prompt)
	}
	if strings.Contains(prompt, `"command"`) {
		t.Errorf("the prompt repeats the command as JSON:\n%s", prompt)
	}
	h.key(keyRune('3'))
	h.idle()
}

// A call an earlier "allow for this run" covered is marked in the
// transcript with the grant's rule; the call the person allowed is not.
func TestGrantedCallMarkedWithRule(t *testing.T) {
	cmd := call{"c1", "run_command", args(map[string]any{"command": "echo x >> log.txt"})}
	again := call{"c2", "run_command", args(map[string]any{"command": "echo x >> log.txt"})}
	h := newHarness(t, "ask", nil, turnJSON("", cmd), turnJSON("", again), turnJSON("Done."))
	h.text("log twice")
	h.enter()
	h.ask()
	h.key(keyRune('2'))
	h.idle()
	h.probe(func(m *model) {
		if got := m.tr.cards["c2"].allowed; !strings.Contains(got, "run_command(echo x >> log.txt)") {
			t.Errorf("the granted call is marked %q, want the grant's rule", got)
		}
		if got := m.tr.cards["c1"].allowed; got != "" {
			t.Errorf("the call the person allowed is marked %q", got)
		}
	})
	if s := h.screen(); !strings.Contains(s, "allowed by this run's grant run_command(echo x >> log.txt)") {
		t.Errorf("the mark is not on screen:\n%s", s)
	}
}

// e edits the rule "allow for this run" adds (offered broader: go vet *);
// a rule that does not cover the call is refused and the call asked again;
// the broader rule then lets the next command through, marked with it.
func TestEditTheGrantRule(t *testing.T) {
	one := call{"c1", "run_command", args(map[string]any{"command": "go vet ./a"})}
	two := call{"c2", "run_command", args(map[string]any{"command": "go vet ./b"})}
	h := newHarness(t, "ask", greet, turnJSON("", one), turnJSON("", two), turnJSON("Done."))
	h.text("vet twice")
	h.enter()
	h.ask()
	if s := h.screen(); !strings.Contains(s, "e edit the rule") {
		t.Errorf("the prompt does not offer to edit the rule:\n%s", s)
	}
	h.key(keyRune('e'))
	h.until("the rule editor", func(m *model) bool {
		return strings.Contains(stripANSI(m.View().Content), "rule run_command(go vet *)")
	})
	h.key(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	h.text("run_command(rm *)")
	h.enter()
	h.until("the refusal", func(m *model) bool { return strings.Contains(m.flash, "does not cover this call") && m.asking() })
	h.ask()
	h.key(keyRune('e'))
	h.until("the rule editor", func(m *model) bool {
		return strings.Contains(stripANSI(m.View().Content), "rule run_command(go vet *)")
	})
	h.enter()
	h.idle()
	h.probe(func(m *model) {
		if got := m.tr.cards["c2"].allowed; got != "this run's grant run_command(go vet *)" {
			t.Errorf("c2 is marked %q, want allowed by the edited rule", got)
		}
	})
	var grants []string
	for _, ev := range h.events() {
		if d, ok := ev.Data.(*event.ApprovalData); ok && d.Grant != "" {
			grants = append(grants, d.Grant)
		}
	}
	if len(grants) != 1 || grants[0] != "run_command(go vet *)" {
		t.Errorf("grants journaled %v, want the edited rule", grants)
	}
}
