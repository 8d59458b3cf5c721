package cmd

import (
	"bytes"
	"strings"
	"testing"

	"agent/internal/event"
)

func TestDescribeContextEvents(t *testing.T) {
	for _, tc := range []struct {
		d    event.Payload
		want string
	}{
		{&event.CompactionData{Trigger: event.TriggerBudget, Kind: event.SummaryDeterministic, FoldedThrough: 507, MaskedThrough: 507, TokensBefore: 12646, TokensAfter: 9045},
			"context compacted (budget): 12,646 -> 9,045 tokens, deterministic summary through seq 507"},
		{&event.CompactionData{Trigger: event.TriggerForced, Kind: event.SummaryDeterministic, MaskedThrough: 40, TokensBefore: 3000, TokensAfter: 2100},
			"context compacted (forced): 3,000 -> 2,100 tokens, old tool outputs masked through seq 40"},
		{&event.CompactionData{Trigger: event.TriggerBudget, Kind: event.SummaryDeterministic, SupersededThrough: 19, CutThrough: 15, CutTokens: 500, TokensBefore: 12443, TokensAfter: 7340},
			"context compacted (budget): 12,443 -> 7,340 tokens, long outputs cut to head and tail through seq 15"},
		{&event.CompactionData{Trigger: event.TriggerForced, Kind: event.SummaryDeterministic, SupersededThrough: 19, TokensBefore: 900, TokensAfter: 880},
			"context compacted (forced): 900 -> 880 tokens, superseded reads dropped"},
		{&event.CompactionData{Trigger: event.TriggerBudget, Kind: event.SummaryDeterministic, FoldedThrough: 90, TokensBefore: 9000, TokensAfter: 5000,
			Rejected: "the model summary (900 tokens) was longer than what it replaced (700 tokens)", Shrunk: true},
			"context compacted (budget): 9,000 -> 5,000 tokens, deterministic summary through seq 90; model summary not used: the model summary (900 tokens) was longer than what it replaced (700 tokens); the last rounds were cut too"},
		{&event.ContextRefreshData{Reason: event.RefreshCompaction, RepoMapFiles: make([]string, 31), RepoMapTokens: 580},
			"context refreshed (compaction): repo map 31 files, 580 tokens"},
		{&event.ContextRefreshData{Reason: event.RefreshStart, Error: "not a git repository"},
			"context refreshed (start): no repo map: not a git repository"},
	} {
		if got := describe(event.New("r", tc.d)); got != tc.want {
			t.Errorf("describe(%T)\n got %q\nwant %q", tc.d, got, tc.want)
		}
	}
}

// A run's progress on stderr shows a compaction but not a routine refresh.
func TestProgressIsQuietAboutRefreshes(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	p.event(event.New("r", &event.ContextRefreshData{Reason: event.RefreshStart, RepoMapTokens: 100}))
	p.event(event.New("r", &event.CompactionData{Trigger: event.TriggerBudget, Kind: event.SummaryDeterministic, FoldedThrough: 5, TokensBefore: 10, TokensAfter: 5}))
	p.event(event.New("r", &event.ContextRefreshData{Reason: event.RefreshCompaction, Error: "walk: permission denied"}))
	got := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(got) != 2 || !strings.HasPrefix(got[0], "context compacted (budget)") || !strings.Contains(got[1], "no repo map: walk: permission denied") {
		t.Errorf("progress = %q", got)
	}
}

// Every event line a person reads on stderr or in `agent trace` shows the
// escapes its pieces carry instead of sending them: the model's text and
// tool names, a command's output, a provider's error, a failure's reason.
func TestDescribeShowsEscapes(t *testing.T) {
	const bad = "a\x1b[2J\x1b]52;c;Q0xJUA==\x07\x1b]2;title\x1b\\\u009b31m\u202e\u200b\rb\bc\nd"
	exit := 1
	for _, d := range []event.Payload{
		&event.UserMessageData{Text: bad},
		&event.AssistantMessageData{Text: bad},
		&event.AssistantMessageData{ToolCalls: []event.ToolCallRef{{Name: bad}}},
		&event.ToolCallData{CallID: bad, Name: bad, Arguments: bad, Risk: event.Risk(bad)},
		&event.ApprovalData{Rule: bad, Decision: event.Decision(bad)},
		&event.ToolResultData{Status: event.ResultOK, Output: bad},
		&event.ToolResultData{Status: event.ResultError, Output: bad, ExitCode: &exit},
		&event.GrantRevokedData{Rule: bad},
		&event.ErrorData{Class: event.Class(bad), Message: bad},
		&event.RunFinishedData{Status: event.StatusFailed, Failure: &event.FailureInfo{Reason: bad}},
		&event.ContextRefreshData{Error: bad},
	} {
		got := describe(event.New("r", d))
		if strings.ContainsAny(got, "\x1b\x07\r\b\n\u009b\u202e\u200b") {
			t.Errorf("describe(%T) = %q: a raw control, bidi or zero-width character", d, got)
		}
		if !strings.Contains(got, `\x1b[2J`) {
			t.Errorf("describe(%T) = %q: the escape is not shown", d, got)
		}
	}
}

// The model's text streamed with --verbose shows its escapes too.
func TestVerboseTextShowsEscapes(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, verbose: true}
	p.delta("streamed \x1b]2;t\x07 text")
	if strings.Contains(b.String(), "\x1b") || !strings.Contains(b.String(), `\x1b]2;t\x07`) {
		t.Errorf("streamed text = %q", b.String())
	}
}
