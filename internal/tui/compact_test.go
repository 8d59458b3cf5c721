package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// longFiles are ten files of about 2,700 tokens each: reading them all
// does not fit a 16,000-token window.
func longFiles() map[string]string {
	files := map[string]string{}
	for i := 1; i <= 10; i++ {
		var b strings.Builder
		for n := 1; n <= 300; n++ {
			fmt.Fprintf(&b, "line %d %d\n", i, n)
		}
		files[fmt.Sprintf("f%02d.txt", i)] = b.String()
	}
	return files
}

func readTurns() []map[string]any {
	var turns []map[string]any
	for i := 1; i <= 10; i++ {
		turns = append(turns, turnJSON("", call{fmt.Sprintf("c%d", i), "read_file", args(map[string]any{"path": fmt.Sprintf("f%02d.txt", i)})}))
	}
	return turns
}

func smallWindow(s *app.Settings) { s.Window = 16000 }

func compactions(evs []event.Event) []event.Event {
	var out []event.Event
	for _, ev := range evs {
		if _, ok := ev.Data.(*event.CompactionData); ok {
			out = append(out, ev)
		}
	}
	return out
}

// A long run in a small window compacts by itself (a calm line in the
// transcript); /compact then compacts on demand, journaled with trigger
// "forced", and the context drawer says the next request is built from it.
func TestCompactCommand(t *testing.T) {
	turns := append(readTurns(), turnJSON("Read them all."), turnJSON("Going on."))
	h := newHarnessWith(t, smallWindow, "read-only", longFiles(), turns...)

	h.slashCmd("/compact")
	h.until("the no-run notice", func(m *model) bool { return strings.Contains(h.screenOf(m), "nothing to compact yet: no run") })

	h.text("read every file")
	h.enter()
	h.idle()
	budget := compactions(h.events())
	if len(budget) == 0 {
		t.Fatal("ten long reads in a 16,000-token window were never compacted")
	}
	if d := budget[0].Data.(*event.CompactionData); d.Trigger != event.TriggerBudget {
		t.Errorf("the run's own compaction has trigger %s", d.Trigger)
	}
	if s := h.screen(); !strings.Contains(s, "context compacted (budget):") {
		t.Errorf("the transcript does not say the context was compacted:\n%s", s)
	}

	h.slashCmd("/compact")
	h.until("the compaction", func(m *model) bool { return m.phase == phaseIdle && strings.HasPrefix(m.flash, "compacted: ") })
	all := compactions(h.events())
	if len(all) != len(budget)+1 {
		t.Fatalf("/compact journaled %d compactions, want 1", len(all)-len(budget))
	}
	last := all[len(all)-1]
	forced := last.Data.(*event.CompactionData)
	if forced.Trigger != event.TriggerForced {
		t.Errorf("/compact journaled trigger %s, want forced", forced.Trigger)
	}
	evs := h.events()
	if _, ok := evs[len(evs)-1].Data.(*event.ContextRefreshData); !ok {
		t.Errorf("no context_refresh after the compaction: the last event is %s", evs[len(evs)-1].Type)
	}
	var flash string
	h.probe(func(m *model) { flash = m.flash })
	want := fmt.Sprintf("compacted: %s → %s tokens", textutil.Count(forced.TokensBefore), textutil.Count(forced.TokensAfter))
	if flash != want {
		t.Errorf("flash %q, want %q", flash, want)
	}
	if s := h.screen(); !strings.Contains(s, "context compacted (forced):") {
		t.Errorf("the forced compaction is not in the transcript:\n%s", s)
	}

	// the drawer shows the last request and says a compaction came after it
	h.key(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
	h.key(keyRune('c'))
	h.until("the context drawer", func(m *model) bool { return m.overlay == overlayContext })
	s := h.screen()
	for _, w := range []string{fmt.Sprintf("compacted since this request (seq %d, forced)", last.Seq), "L6 summary and older rounds", "folded into the summary", "counted: o200k_base"} {
		if !strings.Contains(s, w) {
			t.Errorf("the drawer lacks %q:\n%s", w, s)
		}
	}
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})

	// the next request is the first after it
	h.text("go on")
	h.enter()
	h.idle()
	var rep event.ContextReport
	for _, ev := range h.events() {
		if d, ok := ev.Data.(*event.ModelRequestData); ok {
			rep = d.Context
		}
	}
	if rep.Compacted != last.Seq {
		t.Errorf("the next request reports compacted %d, want %d", rep.Compacted, last.Seq)
	}
}

// While a turn runs, /compact asks for a compaction before the first
// request of the next turn, and says so; the running turn is untouched.
func TestCompactWhileRunning(t *testing.T) {
	sleep := call{"c1", "run_command", args(map[string]any{"command": "sleep 30"})}
	h := newHarness(t, "full-auto", nil, turnJSON("", sleep), turnJSON("Went on."))
	h.text("wait a while")
	h.enter()
	h.until("the command running", func(m *model) bool { return m.tr.running() })
	h.slashCmd("/compact")
	h.until("the notice", func(m *model) bool {
		return strings.Contains(h.screenOf(m), "compacted before the first request of your next turn")
	})
	h.probe(func(m *model) {
		if !m.run.CompactPending() {
			t.Error("no compaction pending for the next turn")
		}
	})
	if n := len(compactions(h.events())); n != 0 {
		t.Fatalf("%d compactions journaled during the turn", n)
	}
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape}) // interrupt: the turn ends
	h.idle()
	h.text("go on")
	h.enter()
	h.until("the answer", func(m *model) bool { return m.phase == phaseIdle && strings.Contains(h.screenOf(m), "Went on.") })
	evs := h.events()
	var sawForced bool
	for _, ev := range evs {
		switch d := ev.Data.(type) {
		case *event.CompactionData:
			sawForced = d.Trigger == event.TriggerForced
		case *event.ModelRequestData:
			if d.Step == 2 && !sawForced {
				t.Error("the next turn's first request was not preceded by a forced compaction")
			}
		}
	}
	if !sawForced {
		t.Error("no forced compaction journaled")
	}
}

// screenOf renders the view inside a probe (the model is already held).
func (h *harness) screenOf(m *model) string { return stripANSI(m.View().Content) }

// The transcript is calm about the context: a compaction is one notice, a
// routine refresh nothing, a repo map that cannot be built one notice
// until its error changes.
func TestTranscriptContextEvents(t *testing.T) {
	tr := newTranscript(theme.New(true, false), nil)
	ev := func(seq int64, p event.Payload) event.Event { e := event.New("r", p); e.Seq = seq; return e }
	tr.apply(ev(1, &event.ContextRefreshData{Reason: event.RefreshStart, RepoMapTokens: 40}))
	if len(tr.entries) != 0 {
		t.Fatalf("a routine refresh is on screen: %+v", tr.entries[0])
	}
	tr.apply(ev(2, &event.ContextRefreshData{Reason: event.RefreshEdits, Error: "parse: too many files"}))
	tr.apply(ev(3, &event.ContextRefreshData{Reason: event.RefreshCompaction, Error: "parse: too many files"}))
	if len(tr.entries) != 1 || !strings.Contains(tr.entries[0].text, "no repo map in the context: parse: too many files") {
		t.Fatalf("the repo map error: %d entries", len(tr.entries))
	}
	tr.apply(ev(4, &event.CompactionData{Trigger: event.TriggerBudget, Kind: event.SummaryDeterministic, FoldedThrough: 3, TokensBefore: 12646, TokensAfter: 9045}))
	if got := tr.entries[len(tr.entries)-1]; got.kind != itemNotice || got.seq != 4 ||
		got.text != "context compacted (budget): 12,646 → 9,045 tokens: older rounds folded into a summary" {
		t.Fatalf("compaction entry %+v", got)
	}
	if tr.since == nil || tr.sinceSeq != 4 {
		t.Fatal("the compaction is not kept for the drawer")
	}
	tr.apply(ev(5, &event.ModelRequestData{Step: 3, Context: event.ContextReport{Compacted: 4}}))
	if tr.since != nil {
		t.Fatal("a request after the compaction still shows it as pending")
	}
	if dc := drawerContext(tr, 0); dc.Since != "" || dc.Compacted != 4 {
		t.Fatalf("drawer context %+v", dc)
	}
}
