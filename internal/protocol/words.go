package protocol

import (
	"fmt"
	"strconv"
	"strings"

	"agent/internal/event"
)

// The words below are how the context report's values read to a person;
// `agent context`, `agent trace` and the TUI print the same ones.

// CutWords is a cut reason as a person reads it.
func CutWords(r event.CutReason) string {
	switch r {
	case event.ReasonSupersededRead:
		return "superseded read (the file was edited since)"
	case event.ReasonMasked:
		return "old tool output masked"
	case event.ReasonHeadTail:
		return "cut to its head and tail"
	case event.ReasonSummarized:
		return "folded into the summary"
	case event.ReasonOverBudget:
		return "left out: the layer's budget was spent"
	case event.ReasonOrphan:
		return "orphan (its call or result is gone)"
	case event.ReasonOutline:
		return "shown as an outline"
	}
	return string(r)
}

// CountingWords says how a report's figures were counted.
func CountingWords(r event.ContextReport) string {
	enc := r.Encoding
	if enc == "" {
		enc = "the model's tokenizer"
	}
	reports := fmt.Sprintf("%d provider report%s", r.Samples, plural(r.Samples))
	switch r.Counting {
	case event.CountMeasured:
		if r.Ratio < 1 {
			return fmt.Sprintf("%s; the provider counts x%.2f of it (%d report%s), not applied: a budget is never raised past the window",
				enc, r.Ratio, r.Samples, plural(r.Samples))
		}
		return fmt.Sprintf("%s, corrected x%.2f from %s", enc, r.Ratio, reports)
	case event.CountEncoder:
		if r.Samples > 0 {
			return fmt.Sprintf("%s encoder count, not corrected yet (%s)", enc, reports)
		}
		return enc + " encoder count, no provider usage yet"
	}
	return "estimated, about four bytes a token"
}

// CompactionLine is one line of a compaction: why, the tokens before and
// after (formatted by count, joined by arrow), and how far it reaches.
func CompactionLine(d *event.CompactionData, count func(int) string, arrow string) string {
	line := fmt.Sprintf("context compacted (%s): %s %s %s tokens", d.Trigger, count(d.TokensBefore), arrow, count(d.TokensAfter))
	var parts []string
	switch {
	case d.FoldedThrough > 0:
		parts = append(parts, fmt.Sprintf("%s summary through seq %d", d.Kind, d.FoldedThrough))
	case d.MaskedThrough > 0:
		parts = append(parts, fmt.Sprintf("old tool outputs masked through seq %d", d.MaskedThrough))
	}
	if d.CutThrough > 0 {
		parts = append(parts, fmt.Sprintf("long outputs cut to head and tail through seq %d", d.CutThrough))
	}
	if len(parts) == 0 && d.SupersededThrough > 0 {
		parts = append(parts, "superseded reads dropped")
	}
	if len(parts) > 0 {
		line += ", " + strings.Join(parts, ", ")
	}
	if d.Rejected != "" {
		line += "; model summary not used: " + oneLine(d.Rejected, 120)
	}
	if d.Shrunk {
		line += "; the last rounds were cut too"
	}
	return line
}

// ItemWords names an item of a context layer as a person reads it: its
// count and kind, then its ref ("41 messages", "tool result call_9
// internal/greet/greet.go"). Each frontend adds the seq range in its own
// typography.
func ItemWords(e event.ContextItem) string {
	k, ok := itemKinds[e.Kind]
	if !ok {
		k = [2]string{e.Kind, e.Kind}
	}
	s := k[0]
	if e.Count > 1 {
		s = strconv.Itoa(e.Count) + " " + k[1]
	}
	if e.Ref != "" {
		s += " " + e.Ref
	}
	return s
}

// itemKinds are the words of an item kind, one and many.
var itemKinds = map[string][2]string{
	"person": {"message of yours", "messages of yours"}, "assistant": {"assistant message", "assistant messages"},
	"tool_result": {"tool result", "tool results"}, "messages": {"message", "messages"}, "file": {"file", "files"},
	"summary": {"summary", "summaries"}, "map": {"repo map", "repo maps"}, "plan": {"plan", "plans"},
	"instructions": {"instructions", "messages"}, "tool": {"tool", "tools"},
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
