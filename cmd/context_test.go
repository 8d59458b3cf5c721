package cmd

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/event"
	"agent/internal/protocol"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// compactedReport is a request after a budget compaction: every reason of
// cut, a measured count, a changed layer.
func compactedReport() *event.ModelRequestData {
	return &event.ModelRequestData{Step: 7, Context: event.ContextReport{
		Budget: 10814, Window: 16000, Reserve: 4000, Margin: 320, TotalTokens: 9045,
		Counting: event.CountMeasured, Encoding: "o200k_base", Ratio: 1.08, Samples: 12,
		PrefixHash: "1a2b3c4d5e6f7a8b", FirstChanged: event.LayerHistory, Compacted: 507, InputItems: 61,
		Layers: []event.ContextLayer{
			{ID: event.LayerTools, Name: "tools", Tokens: 2114, Items: 8, Entries: []event.ContextItem{{Kind: "tool", Ref: "edit_file", Count: 1, TokensBefore: 300, Tokens: 300}}},
			{ID: event.LayerInstructions, Name: "instructions", Tokens: 420, Items: 1, Note: "AGENTS.md, docs/AGENTS.md",
				Entries: []event.ContextItem{{Kind: "instructions", Count: 1, TokensBefore: 420, Tokens: 420}}},
			{ID: event.LayerRepoMap, Name: "repo map", Budget: 1503, Tokens: 580, Items: 1, Note: "31 files, refreshed at step 7 (compaction)",
				Entries: []event.ContextItem{{Kind: "map", Ref: "main.go, greet/greet.go, greet/greet_test.go", Count: 1, TokensBefore: 580, Tokens: 580}}},
			{ID: event.LayerHistory, Name: "summary and older rounds", Budget: 1202, Tokens: 640, Items: 1, Note: "summary of the run through seq 507 (deterministic)",
				Entries: []event.ContextItem{
					{Kind: "summary", Count: 1, TokensBefore: 640, Tokens: 640},
					{Kind: "messages", FirstSeq: 3, LastSeq: 507, Count: 41, TokensBefore: 8200, Reason: event.ReasonSummarized},
				}},
			{ID: event.LayerRecent, Name: "recent rounds", Budget: 2705, Tokens: 4800, Items: 34, Note: "the last rounds themselves were cut to fit the budget",
				Entries: []event.ContextItem{
					{Kind: "tool_result", Ref: "call_9", FirstSeq: 512, LastSeq: 512, Count: 1, TokensBefore: 1450, Tokens: 12, Reason: event.ReasonMasked},
					{Kind: "tool_result", Ref: "call_10", FirstSeq: 515, LastSeq: 515, Count: 1, TokensBefore: 900, Tokens: 14, Reason: event.ReasonSupersededRead},
					{Kind: "messages", FirstSeq: 516, LastSeq: 528, Count: 30, TokensBefore: 4174, Tokens: 4174},
					{Kind: "tool_result", Ref: "call_12", FirstSeq: 530, LastSeq: 530, Count: 1, TokensBefore: 3000, Tokens: 600, Reason: event.ReasonHeadTail},
					{Kind: "tool_result", Ref: "call_13", FirstSeq: 532, LastSeq: 532, Count: 1, TokensBefore: 40, Tokens: 10, Reason: event.ReasonOrphan},
				}},
			{ID: event.LayerSnippets, Name: "file snippets", Budget: 1503, Tokens: 210, Items: 2, Entries: []event.ContextItem{
				{Kind: "file", Ref: "greet/greet.go", Count: 1, TokensBefore: 2600, Tokens: 180, Reason: event.ReasonOutline},
				{Kind: "file", Ref: "README.md", Count: 1, TokensBefore: 30, Tokens: 30},
				{Kind: "file", Ref: "docs/design.md", Count: 1, TokensBefore: 5000, Reason: event.ReasonOverBudget},
			}},
			{ID: event.LayerTask, Name: "task state", Tokens: 90, Items: 1},
			{ID: event.LayerMessage, Name: "your message", Tokens: 191, Items: 1},
		},
	}}
}

func TestContextReportText(t *testing.T) {
	first := &event.ModelRequestData{Step: 1, Context: event.ContextReport{
		Budget: 117248, Window: 128000, Reserve: 8192, Margin: 2560, TotalTokens: 3120,
		Counting: event.CountEncoder, Encoding: "o200k_base", PrefixHash: "00ff00ff00ff00ff",
		Layers: []event.ContextLayer{
			{ID: event.LayerTools, Name: "tools", Tokens: 2114, Items: 8},
			{ID: event.LayerInstructions, Name: "instructions", Tokens: 815, Items: 1},
			{ID: event.LayerRepoMap, Name: "repo map", Budget: 22552, Items: 0, Note: "no repo map: not a git repository"},
			{ID: event.LayerHistory, Name: "summary and older rounds", Budget: 18041},
			{ID: event.LayerRecent, Name: "recent rounds", Budget: 40593},
			{ID: event.LayerSnippets, Name: "file snippets", Budget: 22552},
			{ID: event.LayerTask, Name: "task state"},
			{ID: event.LayerMessage, Name: "your message", Tokens: 191, Items: 1},
		},
	}}
	// A report journaled before the context builder: no ids, no counting.
	legacy := &event.ModelRequestData{Step: 2, Context: event.ContextReport{Budget: 100000, TotalTokens: 1500,
		Layers: []event.ContextLayer{{Name: "system", Tokens: 1000, Items: 1}, {Name: "conversation", Tokens: 500, Items: 3}}}}
	comp := &event.CompactionData{Trigger: event.TriggerBudget, TokensBefore: 12646, TokensAfter: 9045}
	for _, tc := range []struct {
		name string
		d    *event.ModelRequestData
		comp *event.CompactionData
	}{
		{"context_compacted", compactedReport(), comp},
		{"context_first", first, nil},
		{"context_legacy", legacy, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeContextReport(&b, "20261129T203216-3f9a1c", tc.d, tc.comp); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.String())
		})
	}
}

// The text a person reads names every cut, with its reason in words and
// its tokens, and the facts of the header.
func TestContextReportExplains(t *testing.T) {
	var b bytes.Buffer
	writeContextReport(&b, "r1", compactedReport(), nil)
	out := b.String()
	flat := strings.Join(strings.Fields(out), " ") // the columns' padding aside
	for _, want := range []string{
		"run r1, step 7: 9,045 of 10,814 tokens (83.6% of the budget)",
		"budget 10,814 = (window 16,000 - answer reserve 4,000 - margin 320) / provider ratio 1.08",
		"counted: o200k_base, corrected x1.08 from 12 provider reports",
		"compacted before this request (seq 507)",
		"folded into the summary", "41 messages (seq 3-507)", "8,200 -> 0 tokens",
		"old tool output masked", "tool result call_9 (seq 512)", "1,450 -> 12 tokens",
		"superseded read", "cut to its head and tail", "orphan", "shown as an outline", "left out: the layer's budget was spent",
		"L5a repo map: 31 files, refreshed at step 7 (compaction)",
		"first layer changed since the previous request: L6 summary and older rounds",
		"prefix hash (tools, L1, L5a): 1a2b3c4d5e6f7a8b",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	// verbatim entries are not listed as cuts
	if strings.Contains(out, "README.md") || strings.Contains(out, "30 messages") {
		t.Errorf("a verbatim entry is listed among the cuts:\n%s", out)
	}
	// the layers are in request order
	order := []string{"tools ", "L1 ", "L5a ", "L6 ", "L3 ", "L5b ", "L4 ", "L2 "}
	at := 0
	for _, id := range order {
		i := strings.Index(out[at:], "\n"+id)
		if i < 0 {
			t.Fatalf("layer %q not after the previous one in\n%s", id, out)
		}
		at += i + 1
	}
}

func TestCountingWords(t *testing.T) {
	for _, tc := range []struct {
		r    event.ContextReport
		want string
	}{
		{event.ContextReport{Counting: event.CountMeasured, Encoding: "o200k_base", Ratio: 1.08, Samples: 12}, "o200k_base, corrected x1.08 from 12 provider reports"},
		{event.ContextReport{Counting: event.CountMeasured, Encoding: "cl100k_base", Ratio: 0.97, Samples: 1}, "cl100k_base; the provider counts x0.97 of it (1 report), not applied: a budget is never raised past the window"},
		{event.ContextReport{Counting: event.CountEncoder, Encoding: "o200k_base"}, "o200k_base encoder count, no provider usage yet"},
		{event.ContextReport{Counting: event.CountEncoder, Encoding: "o200k_base", Samples: 2}, "o200k_base encoder count, not corrected yet (2 provider reports)"},
		{event.ContextReport{Counting: event.CountEstimated}, "estimated, about four bytes a token"},
		{event.ContextReport{}, "estimated, about four bytes a token"},
	} {
		if got := protocol.CountingWords(tc.r); got != tc.want {
			t.Errorf("CountingWords(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 12646: "12,646", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, p, got, want)
	}
}
