package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/config"
	"agent/internal/event"
	"agent/internal/protocol"
)

// TestChildRowsLiveUnderTheTaskCard: a task call's child shows as a row
// under its card whose elapsed time follows the clock while it runs and
// stops when it ends; tokens and what it runs are on the row; a child's
// approval is labelled with its description and its row says it waits;
// ctrl+x s opens its transcript, read-only.
func TestChildRowsLiveUnderTheTaskCard(t *testing.T) {
	h := newHarness(t, "ask", nil, turnJSON("unused"))
	const parent, child = "run-parent", "run-child1"
	at := time.Now()
	seq := int64(0)
	ev := func(run string, d event.Payload) protocol.Update {
		seq++
		kind := protocol.UpdateEvent
		if run == child {
			kind = protocol.UpdateChild
		}
		return protocol.Update{Kind: kind, RunID: parent, Event: event.Event{Type: d.EventType(), RunID: run, Seq: seq, Time: at, Data: d}}
	}
	send := func(us ...protocol.Update) {
		h.probe(func(m *model) {
			for _, u := range us {
				m.onUpdate(u)
			}
		})
	}
	taskArgs := `{"description":"scan docs","prompt":"CHILD-PROMPT-5 read the docs","kind":"explore"}`
	send(ev(parent, &event.AssistantMessageData{Step: 1, ToolCalls: []event.ToolCallRef{{ID: "call_t1", Name: "task", Arguments: taskArgs}}}),
		ev(parent, &event.ToolCallData{CallID: "call_t1", Name: "task", Arguments: taskArgs, Risk: event.RiskRead}),
		ev(parent, &event.TaskStartedData{CallID: "call_t1", ChildRun: child, Kind: event.TaskExplore, Description: "scan docs", Depth: 1}),
		ev(child, &event.RunStartedData{Model: "gpt-4.1", ParentRun: parent, ParentCall: "call_t1"}),
		ev(child, &event.UserMessageData{Text: "CHILD-PROMPT-5 read the docs"}),
		ev(child, &event.ModelRequestData{Step: 1}),
		ev(child, &event.AssistantMessageData{Step: 1, Tokens: &event.TokenCount{Input: 2000, Output: 1000}}),
		ev(child, &event.ToolCallData{CallID: "ch_1", Name: "read_file", Arguments: `{"path":"README.md"}`, Risk: event.RiskRead}))
	row := regexp.MustCompile(`└ \S+ explore scan docs\s+running · (\d+)s · 3k tokens · \$0\.012\d* · read_file README\.md`)
	s := h.screen()
	if !row.MatchString(s) {
		t.Fatalf("no live row for the child:\n%s", s)
	}
	if strings.Index(s, "task") > strings.Index(s, "explore scan docs") {
		t.Fatalf("the row is not under the task card:\n%s", s)
	}
	// the clock moves: the next tick redraws the row
	h.probe(func(m *model) { h.clock = h.clock.Add(65 * time.Second) })
	h.pr.p.Send(childTickMsg{})
	h.until("the row's time to advance", func(m *model) bool {
		return strings.Contains(stripANSI(m.View().Content), "running · 1m 05s")
	})

	// the child's call waits for the person: asked here, labelled
	h.probe(func(m *model) {
		m.onAsk(protocol.ApprovalRequest{RunID: parent, CallID: "ch_2", Tool: "write_file", Arguments: `{"path":"x.txt","content":"x"}`,
			Risk: event.RiskWrite, Diff: "--- a/x.txt\n+++ b/x.txt\n@@ -0,0 +1 @@\n+x\n", Subagent: "scan docs", ChildRun: child})
	})
	h.ask()
	s = h.screen()
	if !strings.Contains(s, "subagent scan docs") || !regexp.MustCompile(`explore scan docs\s+awaiting approval`).MatchString(s) {
		t.Fatalf("the prompt does not name the child, or its row does not wait:\n%s", s)
	}
	h.key(tea.KeyPressMsg{Code: 'y', Text: "y"})
	h.until("the row to run again after the answer", func(m *model) bool {
		return !m.asking() && strings.Contains(stripANSI(m.View().Content), "explore scan docs  running")
	})

	// its transcript, read-only
	h.key(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
	h.key(tea.KeyPressMsg{Code: 's', Text: "s"})
	h.until("the subagent view", func(m *model) bool { return m.overlay == overlayChild })
	s = h.screen()
	if !strings.Contains(s, "subagent 1/1 · explore · scan docs") || !strings.Contains(s, "CHILD-PROMPT-5") || !strings.Contains(s, "read_file") {
		t.Fatalf("the subagent view lacks its title, prompt or call:\n%s", s)
	}
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.until("the view to close", func(m *model) bool { return m.overlay == overlayNone })

	// it ends: the time stops
	send(ev(child, &event.ToolResultData{CallID: "ch_1", Status: event.ResultOK, Output: "# docs"}),
		ev(child, &event.RunFinishedData{Status: event.StatusCompleted}))
	h.probe(func(m *model) { h.clock = h.clock.Add(10 * time.Second) })
	h.pr.p.Send(childTickMsg{})
	s = h.screen()
	if !regexp.MustCompile(`explore scan docs\s+ok · 1m 05s · 3k tokens`).MatchString(s) || strings.Contains(s, "1m 15s") {
		t.Fatalf("the finished child's row:\n%s", s)
	}
}

// A real task call through the session (the scripted model plays the
// child too): its row ends ok with the child's tokens; reopened from the
// journal, the row and the child's transcript come back from the child's
// own journal.
func TestChildRowFromTheJournalWhenReopened(t *testing.T) {
	h := newHarnessWith(t, func(s *app.Settings) { s.Subagents = config.DefaultSubagentsConfig() }, "full-auto", greet,
		turnJSON("", call{"call_k1", "task", args(map[string]any{"description": "count files", "prompt": "KIDPROMPT-7 how many files?", "kind": "explore"})}),
		turnJSON("KID-ANSWER-7 one file"),
		turnJSON("PARENT-DONE-7"))
	h.text("delegate it")
	h.enter()
	h.until("the parent's answer", func(m *model) bool {
		return m.phase == phaseIdle && strings.Contains(stripANSI(m.View().Content), "PARENT-DONE-7")
	})
	live := regexp.MustCompile(`└ \S+ explore count files\s+ok · \d+s`)
	if s := h.screen(); !live.MatchString(s) {
		t.Fatalf("no finished row for the child:\n%s", s)
	}
	var open tea.Cmd
	h.probe(func(m *model) {
		id := m.run.ID()
		m.run.Close()
		m.run, m.subs = nil, subagents{}
		m.tr = newTranscript(m.th, m.renderDiff)
		open = m.openRun(id, nil, "", false)
	})
	h.pr.p.Send(open())
	h.until("the row from the child's journal", func(m *model) bool {
		return live.MatchString(stripANSI(m.View().Content))
	})
	h.key(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
	h.key(tea.KeyPressMsg{Code: 's', Text: "s"})
	h.until("the subagent view", func(m *model) bool { return m.overlay == overlayChild })
	if s := h.screen(); !strings.Contains(s, "KIDPROMPT-7") || !strings.Contains(s, "KID-ANSWER-7") {
		t.Fatalf("the reopened child's transcript:\n%s", s)
	}
}
