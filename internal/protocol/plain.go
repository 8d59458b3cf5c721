package protocol

import (
	"fmt"
	"strings"

	"agent/internal/event"
)

// CompactionWords is a compaction as a person reads it in a transcript:
// why, the tokens before and after, and what was done, without the
// journal's positions (`agent trace` and the context drawer keep those).
func CompactionWords(d *event.CompactionData, count func(int) string, arrow string) string {
	line := fmt.Sprintf("context compacted (%s): %s %s %s tokens", d.Trigger, count(d.TokensBefore), arrow, count(d.TokensAfter))
	var parts []string
	switch {
	case d.FoldedThrough > 0:
		parts = append(parts, "older rounds folded into a summary")
	case d.MaskedThrough > 0:
		parts = append(parts, "old tool outputs masked")
	}
	if d.CutThrough > 0 {
		parts = append(parts, "long outputs cut to their head and tail")
	}
	if len(parts) == 0 && d.SupersededThrough > 0 {
		parts = append(parts, "superseded reads dropped")
	}
	if len(parts) > 0 {
		line += ": " + strings.Join(parts, ", ")
	}
	if d.Rejected != "" {
		line += "; the model's summary was not used: " + oneLine(d.Rejected, 120)
	}
	if d.Shrunk {
		line += "; the last rounds were cut too"
	}
	return line
}

// ErrorWords is a run's error as one line for a person: the message
// (which names the fix where there is one), its class said once.
func ErrorWords(class event.Class, message string) string {
	message = strings.TrimSpace(message)
	prefix := string(class) + " error: "
	for strings.HasPrefix(message, prefix+string(class)+" error: ") {
		message = strings.TrimPrefix(message, prefix)
	}
	if class == "" || strings.HasPrefix(message, prefix) {
		return message
	}
	return prefix + message
}
