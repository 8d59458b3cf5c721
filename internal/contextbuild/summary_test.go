package contextbuild_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"agent/internal/agent"
	"agent/internal/contextbuild"
	"agent/internal/event"
	"agent/internal/tools"
)

// summarizer answers every summary request with text (or err) and counts
// the requests.
type summarizer struct {
	text  string
	err   error
	calls int
}

func (s *summarizer) Summarize(_ context.Context, req *agent.Request) (string, error) {
	s.calls++
	return s.text, s.err
}

func withSummarizer(t *testing.T, window int, s contextbuild.Summarizer) *contextbuild.Builder {
	t.Helper()
	specs, err := contextbuild.Specs(tools.Default())
	if err != nil {
		t.Fatal(err)
	}
	b, err := contextbuild.New(contextbuild.Options{Workspace: t.TempDir(), Model: "gpt-4.1", Window: window, Tools: specs, Summarizer: s})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compactions(evs []event.Payload) []*event.CompactionData {
	var out []*event.CompactionData
	for _, p := range evs {
		if c, ok := p.(*event.CompactionData); ok {
			out = append(out, c)
		}
	}
	return out
}

// A model summary that is bad (it fails, or is longer than what it folds)
// falls back to the deterministic one in the same, single compaction; a
// good one is used, with what it forgot added back.
func TestModelSummary(t *testing.T) {
	h := generate(t, 4, 200_000)
	huge := strings.Repeat("The agent did many things in great detail. ", 20_000)
	for _, tc := range []struct {
		name     string
		s        *summarizer
		kind     event.SummaryKind
		rejected string
	}{
		{"fails", &summarizer{err: errors.New("HTTP 500")}, event.SummaryDeterministic, "failed"},
		{"grows the context", &summarizer{text: huge}, event.SummaryDeterministic, "longer"},
		{"empty", &summarizer{text: "  "}, event.SummaryDeterministic, "empty"},
		{"good but forgetful", &summarizer{text: "Worked through the plan; the tests of internal/ledger pass now."}, event.SummaryModel, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := withSummarizer(t, 32_000, tc.s)
			st := agent.Fold(h.RunID, h.Events)
			got := buildLikeTheLoop(t, b, st)
			cs := compactions(got.events)
			if len(cs) != 1 {
				t.Fatalf("%d compactions, want exactly one", len(cs))
			}
			c := cs[0]
			if c.Kind != tc.kind || !strings.Contains(c.Rejected, tc.rejected) {
				t.Errorf("kind %s, rejected %q; want %s, rejected containing %q", c.Kind, c.Rejected, tc.kind, tc.rejected)
			}
			if tc.s.calls != 1 {
				t.Errorf("the model was asked %d times for a summary, want once", tc.s.calls)
			}
			text := joinContents(got.req)
			for _, canary := range h.Canaries {
				if !strings.Contains(text, canary) {
					t.Errorf("canary %s lost", canary)
				}
			}
			if got.rep.TotalTokens > got.rep.Budget {
				t.Errorf("%d tokens over the budget %d", got.rep.TotalTokens, got.rep.Budget)
			}
			if tc.kind == event.SummaryModel && !strings.Contains(c.Summary, "added back by the agent") {
				t.Error("the person's messages the model summary left out were not added back")
			}
			// once per turn: the next compaction of this turn is deterministic
			before := tc.s.calls
			st.Context.Force = true
			again := buildLikeTheLoop(t, b, st)
			if tc.kind == event.SummaryModel && tc.s.calls != before {
				t.Errorf("a second model summary in the same turn (%d calls)", tc.s.calls)
			}
			_ = again
		})
	}
}
