package approve

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

// e opens the offered rule for editing; enter allows for the run under the
// rule typed; esc goes back keeping a note typed before; without a rule to
// offer, e does nothing.
func TestEditRule(t *testing.T) {
	r := cmdReq("c1")
	r.SuggestRule = "run_command(go test *)"
	m, _ := opened(t, theme.New(true, false), r)
	if !strings.Contains(ansi.Strip(m.View()), "e edit the rule") {
		t.Fatalf("no hint for e:\n%s", ansi.Strip(m.View()))
	}
	m.Update(tuitest.Key("tab"))
	typeText(m, "draft")
	m.Update(tuitest.Key("esc"))
	m.Update(tuitest.Key("e"))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "rule run_command(go test *)") {
		t.Fatalf("the rule editor:\n%s", v)
	}
	m.Update(tuitest.Key("esc"))
	m.Update(tuitest.Key("tab"))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "draft") {
		t.Errorf("the note typed before e is gone:\n%s", v)
	}
	m.Update(tuitest.Key("esc"))
	m.Update(tuitest.Key("e"))
	typeText(m, "x")
	_, cmd := m.Update(tuitest.Key("enter"))
	got := decisions(cmd)
	if len(got) != 1 || got[0].Choice != AllowRun || got[0].Rule != "run_command(go test *)x" {
		t.Fatalf("decisions %+v, want allow for the run with the edited rule", got)
	}
	plain, _ := opened(t, theme.New(true, false), cmdReq("c2"))
	if _, cmd := plain.Update(tuitest.Key("e")); cmd != nil || strings.Contains(ansi.Strip(plain.View()), "rule ") {
		t.Error("e opened an editor with no rule to offer")
	}
}
