package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"agent/internal/event"
)

// shift+tab before the first message: the run starts in the new mode (no
// run to journal a switch in: run_started says it), and the status line
// shows it at once.
func TestShiftTabBeforeTheFirstRun(t *testing.T) {
	h := newHarness(t, "ask", nil,
		turnJSON("", call{"w1", "write_file", args(map[string]any{"path": "a.txt", "content": "a\n"})}), turnJSON("Wrote it."))
	h.key(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	h.until("the mode in the status line", func(m *model) bool { return strings.Contains(stripANSI(m.statusView()), "auto-edit") })
	h.text("write a.txt")
	h.enter()
	h.idle() // no prompt: auto-edit ran the write
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err != nil {
		t.Fatal("the write did not run under auto-edit")
	}
	for _, ev := range h.events() {
		if d, ok := ev.Data.(*event.RunStartedData); ok && d.Approval != event.ApprovalAutoEdit {
			t.Errorf("the run started in %s", d.Approval)
		}
	}
}

// Plan mode in the TUI: a write is refused to the model; the turn's end
// opens the plan prompt with the plan; "keep planning" and a note send the
// model back to planning; approving in auto-edit journals the switch and
// the write runs.
func TestPlanPromptRejectThenApprove(t *testing.T) {
	write := call{"w1", "write_file", args(map[string]any{"path": "p.txt", "content": "p\n"})}
	write2 := call{"w2", "write_file", args(map[string]any{"path": "p.txt", "content": "p\n"})}
	h := newHarness(t, "ask", nil,
		turnJSON("", write),
		turnJSON("Plan: write p.txt (PLAN-A)."),
		turnJSON("Plan: write p.txt carefully (PLAN-B)."),
		turnJSON("", write2),
		turnJSON("Done."))
	h.slashCmd("/mode plan")
	h.until("plan mode", func(m *model) bool { return m.svc.Mode() == event.ApprovalPlan })
	h.text("plan p.txt")
	h.enter()
	h.until("the plan prompt", func(m *model) bool { return m.overlay == overlayPicker && m.pick == pickPlan })
	if s := h.screen(); !strings.Contains(s, "Approve the plan?") || !strings.Contains(s, "PLAN-A") {
		t.Fatalf("the prompt does not show the plan:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "p.txt")); err == nil {
		t.Fatal("the write ran under plan mode")
	}
	h.key(tea.KeyPressMsg{Code: tea.KeyEnd}) // keep planning
	h.enter()
	h.until("the prompt closed", func(m *model) bool { return m.overlay == overlayNone })
	h.text("more care please")
	h.enter()
	h.until("the second plan", func(m *model) bool {
		return m.overlay == overlayPicker && m.pick == pickPlan && strings.Contains(m.plan, "PLAN-B")
	})
	h.key(tea.KeyPressMsg{Code: tea.KeyDown}) // approve, go on in auto-edit
	h.enter()
	h.until("the run done", func(m *model) bool { return m.phase == phaseIdle && m.tr.status == event.StatusCompleted })
	if _, err := os.Stat(filepath.Join(h.ws, "p.txt")); err != nil {
		t.Fatal("the approved plan's write did not run")
	}
	var modes []string
	for _, ev := range h.events() {
		if d, ok := ev.Data.(*event.ModeChangedData); ok {
			modes = append(modes, string(d.From)+">"+string(d.To)+":"+string(d.Source))
		}
	}
	// the run started in plan (switched before it existed), then the approval
	if got := strings.Join(modes, " "); got != "plan>auto-edit:user" {
		t.Errorf("mode_changed %q", got)
	}
}
