package contextbuild

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"agent/internal/agent"
	"agent/internal/event"
)

// item accounts for one input item in the report.
type item struct {
	kind   string
	ref    string
	seq    int64
	before int
	after  int
	reason event.CutReason
}

// maxStubArg caps a string argument of a masked call.
const maxStubArg = 160

// renderUnit returns the messages of one unit under compaction c, with the
// report's items. capNewest > 0 cuts the unit's outputs to that many tokens
// (the newest round, when even it does not fit).
func (b *Builder) renderUnit(h *history, u unit, c *event.CompactionData, capNewest int) ([]agent.Message, []item) {
	st := h.st
	msgs := make([]agent.Message, 0, len(u.msgs))
	items := make([]item, 0, len(u.msgs))
	var unpaired []agent.Message
	for _, i := range u.msgs {
		m, meta := st.Messages[i], st.Meta[i]
		before := b.stateMsgTokens(st, i)
		switch meta.Kind {
		case agent.KindAssistant:
			after := before
			if meta.Seq <= c.MaskedThrough && len(m.ToolCalls) > 0 {
				m.ToolCalls = maskCalls(m.ToolCalls)
				after = b.msgTokens(m)
			}
			msgs = append(msgs, m)
			it := item{kind: "assistant", seq: meta.Seq, before: before, after: after}
			if it.after != before {
				it.reason = event.ReasonMasked
			}
			items = append(items, it)
			// a call with no result gets one, so no call is left unpaired
			for _, tc := range st.Messages[i].ToolCalls {
				if ci := h.calls[tc.ID]; ci != nil && ci.result < 0 {
					stub := agent.Message{Role: agent.RoleTool, ToolCallID: tc.ID, Name: tc.Name,
						Content: "[agent] no result was recorded for this call (the run was interrupted); its outcome is unknown"}
					unpaired = append(unpaired, stub)
					items = append(items, item{kind: "tool_result", ref: tc.ID, seq: meta.Seq, after: b.msgTokens(stub), reason: event.ReasonOrphan})
				}
			}
		case agent.KindTool:
			text, reason := b.toolText(h, i, c, capNewest)
			after := before
			if text != m.Content { // an output sent verbatim costs what it did
				m.Content = text
				after = b.msgTokens(m)
			}
			msgs = append(msgs, m)
			items = append(items, item{kind: "tool_result", ref: m.ToolCallID, seq: meta.Seq, before: before, after: after, reason: reason})
		case agent.KindPerson:
			msgs = append(msgs, m)
			items = append(items, item{kind: "person", seq: meta.Seq, before: before, after: before})
		default:
			msgs = append(msgs, m)
			items = append(items, item{kind: "note", seq: meta.Seq, before: before, after: before})
		}
	}
	msgs = append(msgs, unpaired...)
	if u.kind == unitOrphan {
		// a result whose call is gone (a rewind) cannot be sent alone
		for k := range items {
			items[k].after, items[k].reason = 0, event.ReasonOrphan
		}
		return nil, items
	}
	return msgs, items
}

// toolText is a tool result's text under c.
func (b *Builder) toolText(h *history, i int, c *event.CompactionData, capNewest int) (string, event.CutReason) {
	m, meta := h.st.Messages[i], h.st.Meta[i]
	ci := h.callOf(i)
	if w := h.supersededAt(ci, meta.Seq, c.SupersededThrough); w > 0 {
		return fmt.Sprintf("[agent] read superseded: %s was changed by this run after this read (%s); read it again for its current content",
			ci.path, h.stepOfSeq(w)), event.ReasonSupersededRead
	}
	if meta.Seq <= c.MaskedThrough {
		return b.stub(ci, meta, m.Content), event.ReasonMasked
	}
	if capNewest > 0 && b.count(m.Content) > capNewest {
		return b.headTail(m.Content, capNewest), event.ReasonHeadTail
	}
	if meta.Seq <= c.CutThrough && c.CutTokens > 0 && b.count(m.Content) > c.CutTokens {
		return b.headTail(m.Content, c.CutTokens), event.ReasonHeadTail
	}
	return m.Content, ""
}

// stub is what a masked output becomes: the tool, its arguments, how it
// ended and how big it was.
func (b *Builder) stub(ci *callInfo, meta agent.MessageMeta, out string) string {
	var sb strings.Builder
	sb.WriteString("[agent] output masked to fit the context: ")
	if ci != nil {
		sb.WriteString(ci.name)
		sb.WriteByte(' ')
		sb.WriteString(clip(ci.args, 200))
	}
	fmt.Fprintf(&sb, " -> %s", meta.Status)
	if meta.ExitCode != nil {
		fmt.Fprintf(&sb, ", exit code %d", *meta.ExitCode)
	}
	fmt.Fprintf(&sb, ", %d lines, %d tokens", strings.Count(out, "\n")+1, b.count(out))
	if last := b.errorLineOf(meta.Seq, out); last != "" && (meta.Status != event.ResultOK || (meta.ExitCode != nil && *meta.ExitCode != 0)) {
		sb.WriteString("; its last line: ")
		sb.WriteString(quoteData(clip(last, 200)))
	}
	return sb.String()
}

// headTail cuts s to about max tokens: its head and (a longer) tail, with a
// marker saying what is gone. A log's failure is usually at its end. Whole
// lines are kept where they fit; what the lines leave of the budget goes to
// the two ends of the cut part, so a giant line is cut, not dropped.
func (b *Builder) headTail(s string, maxTokens int) string {
	lines := strings.SplitAfter(s, "\n")
	headBudget, tailBudget := maxTokens*3/10, maxTokens*7/10-32
	i, used := 0, 0
	for i < len(lines) {
		n := b.counter.Line(lines[i])
		if used+n > headBudget {
			break
		}
		used += n
		i++
	}
	j, tused := len(lines), 0
	for j > i {
		n := b.counter.Line(lines[j-1])
		if tused+n > tailBudget {
			break
		}
		tused += n
		j--
	}
	if i >= j {
		return s
	}
	middle := strings.Join(lines[i:j], "")
	left := maxTokens - used - tused - 48
	for try := 0; ; try++ {
		out := b.joinCut(lines[:i], middle, lines[j:], left)
		over := b.count(out) - maxTokens
		if over <= 0 || try == 3 || left <= 0 {
			return out
		}
		left -= over + 8 // the pieces' edges tokenize differently once joined
	}
}

// joinCut writes the kept head lines, up to left tokens of the two ends of
// the cut part around a marker, and the kept tail lines.
func (b *Builder) joinCut(headLines []string, middle string, tailLines []string, left int) string {
	var sb strings.Builder
	for _, l := range headLines {
		sb.WriteString(l)
	}
	head, tail := b.ends(middle, left)
	sb.WriteString(head)
	if head != "" && !strings.HasSuffix(head, "\n") {
		sb.WriteByte('\n')
	}
	cutRunes := utf8.RuneCountInString(middle) - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	fmt.Fprintf(&sb, "[agent] ... %d lines, %d characters (%d tokens) cut here to fit the context; the head and the tail are kept ...\n",
		strings.Count(middle, "\n"), cutRunes, b.count(middle))
	sb.WriteString(tail)
	for _, l := range tailLines {
		sb.WriteString(l)
	}
	return sb.String()
}

// ends returns the longest head and tail of s (a third and two thirds of
// the characters) that fit in max tokens together; "", "" when max is small.
func (b *Builder) ends(s string, maxTokens int) (string, string) {
	if maxTokens < 32 {
		return "", ""
	}
	r := []rune(s)
	split := func(k int) (string, string) { return string(r[:k/3]), string(r[len(r)-(k-k/3):]) }
	fits := func(k int) bool {
		h, t := split(k)
		return b.count(h)+b.count(t) <= maxTokens
	}
	lo, hi := 0, len(r)-1
	for lo < hi { // the largest k that fits
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return "", ""
	}
	return split(lo)
}

// maskCalls shortens the long string arguments of calls whose outputs are
// masked (a write_file's content), keeping the arguments valid JSON.
func maskCalls(calls []agent.ToolCall) []agent.ToolCall {
	out := make([]agent.ToolCall, len(calls))
	for i, c := range calls {
		out[i] = c
		if len(c.Arguments) <= 2*maxStubArg {
			continue
		}
		var a map[string]any
		if json.Unmarshal([]byte(c.Arguments), &a) != nil {
			out[i].Arguments = marshalArgs(map[string]string{"masked": clip(c.Arguments, maxStubArg)})
			continue
		}
		for k, v := range a {
			if s, ok := v.(string); ok && len(s) > maxStubArg {
				a[k] = fmt.Sprintf("%s [agent: %d more bytes masked]", clip(s, maxStubArg), len(s)-maxStubArg)
			}
		}
		out[i].Arguments = marshalArgs(a)
	}
	return out
}

// stepOfSeq names the step of the round holding seq.
func (h *history) stepOfSeq(seq int64) string {
	step := 0
	for i, m := range h.st.Meta {
		if m.Seq > seq {
			break
		}
		if h.st.Meta[i].Kind == agent.KindAssistant {
			step = m.Step
		}
	}
	if step == 0 {
		return "earlier"
	}
	return fmt.Sprintf("at step %d", step)
}

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n ")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return strings.TrimSpace(s)
}

// quoteData quotes text from a tool or a file so that it reads as data.
func quoteData(s string) string { return fmt.Sprintf("%q", s) }

// errorLineOf is errorLine of a result, memoised by its seq for the
// builder's current run (a stub is rendered at every build).
func (b *Builder) errorLineOf(seq int64, out string) string {
	key := lineKey{seq: seq, n: len(out)}
	if l, ok := b.errLines[key]; ok {
		return l
	}
	if len(b.errLines) > 4096 {
		clear(b.errLines)
	}
	l := errorLine(out)
	b.errLines[key] = l
	return l
}

type lineKey struct {
	seq int64
	n   int
}
