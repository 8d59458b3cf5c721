package contextbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strings"

	"agent/internal/agent"
	"agent/internal/event"
)

func summaryMessage(text string) agent.Message {
	return agent.Message{Role: agent.RoleUser, Content: text}
}

func repoMapMessage(text string) string {
	return "Repository map (ranked for the current request; definitions with their signatures, from the files on disk):\n<repo_map>\n" + text + "\n</repo_map>"
}

// layer collects one layer's messages and items.
type layer struct {
	id     event.LayerID
	name   string
	budget int
	msgs   []agent.Message
	items  []item
	// sum hashes what the layer's hash covers, message by message (the
	// conversation's text is never built whole: at 800 steps it was a
	// third of a run's allocations); text keeps the same bytes only for the
	// layers of the prefix hash (keep).
	sum     hash.Hash
	keep    bool
	text    []byte
	scratch []byte
	note    string
}

// write adds bytes to what the layer's hash covers.
func (l *layer) write(p []byte) {
	if l.sum == nil {
		l.sum = sha256.New()
	}
	l.sum.Write(p)
	if l.keep {
		l.text = append(l.text, p...)
	}
}

// hash is the layer's short hash (shortHash of everything written).
func (l *layer) hash() string {
	if l.sum == nil {
		l.sum = sha256.New()
	}
	return hex.EncodeToString(l.sum.Sum(nil))[:12]
}

func (l *layer) add(b *Builder, m agent.Message, it item) { l.addTk(m, it, b.msgTokens(m)) }

// addTk is add of a message whose tokens (msgTokens) are known.
func (l *layer) addTk(m agent.Message, it item, tokens int) {
	l.msgs = append(l.msgs, m)
	it.after = tokens
	l.items = append(l.items, it)
	l.hashMsg(&m)
}

func (l *layer) hashMsg(m *agent.Message) {
	b := append(l.scratch[:0], m.Role...)
	b = append(append(append(append(append(b, 0), m.Content...), 0), m.ToolCallID...), 0)
	for _, c := range m.ToolCalls {
		b = append(append(append(append(append(append(b, c.ID...), 0), c.Name...), 0), c.Arguments...), 0)
	}
	l.write(b)
	if cap(b) <= 64<<10 { // a huge message's buffer is not kept
		l.scratch = b
	}
}

// render builds the request of h under v, and its report.
// m is the measure of h under v when the caller has it (nil: measured here).
func (b *Builder) render(h *history, v *view, m *measure) (*agent.Request, event.ContextReport, error) {
	st := h.st
	bg := b.budgetFor(st)
	if m == nil {
		m = b.newMeasure(h, v)
	}
	if err := m.fixedFits(bg); err != nil {
		return nil, event.ContextReport{}, err
	}
	shared := max(bg.b-m.reserved, 0)
	tools := &layer{id: event.LayerTools, name: "tools", keep: true}
	l1 := &layer{id: event.LayerInstructions, name: "instructions", keep: true}
	l5a := &layer{id: event.LayerRepoMap, name: "repo map", budget: shared * shareFiles / 100, keep: true}
	l6 := &layer{id: event.LayerHistory, name: "summary and older rounds", budget: shared * shareHistory / 100}
	l3 := &layer{id: event.LayerRecent, name: "recent rounds", budget: shared * shareRecent / 100}
	l5b := &layer{id: event.LayerSnippets, name: "file snippets"}
	l4 := &layer{id: event.LayerTask, name: "task state"}
	l2 := &layer{id: event.LayerMessage, name: "your message"}

	for k, t := range b.tools {
		tk := b.toolsTk[k]
		tools.items = append(tools.items, item{kind: "tool", ref: t.Name, before: tk, after: tk})
	}
	tools.write([]byte(b.toolsJS))
	l1.addTk(agent.Message{Role: agent.RoleSystem, Content: v.l1}, item{kind: "instructions", before: m.l1Tk}, m.l1Tk)
	if v.refresh != nil {
		l1.note = strings.Join(v.refresh.Instructions, ", ")
		if v.refresh.RepoMap != "" {
			msg := agent.Message{Role: agent.RoleSystem, Content: m.mapMsg}
			l5a.addTk(msg, item{kind: "map", ref: strings.Join(v.refresh.RepoMapFiles[:min(len(v.refresh.RepoMapFiles), 3)], ", "), before: m.mapTk}, m.mapTk)
			l5a.note = fmt.Sprintf("%d files, refreshed at step %d (%s)", len(v.refresh.RepoMapFiles), v.refresh.Step, v.refresh.Reason)
		} else if v.refresh.Error != "" {
			l5a.note = "no repo map: " + v.refresh.Error
		}
	}
	if m.c.Summary != "" {
		l6.addTk(summaryMessage(m.c.Summary), item{kind: "summary", before: m.sumTk}, m.sumTk)
		l6.note = fmt.Sprintf("summary of the run through seq %d (%s)", m.c.FoldedThrough, m.c.Kind)
	}
	// the total so far decides whether the newest round must be cut
	room := bg.b - m.total()
	capNewest := 0
	if room < 0 && m.newest >= 0 {
		capNewest = max(m.cost[m.newest]+room, 200)
	}
	var newest []agent.Message
	var newestItems []item
	// about two messages a unit, and room for the note: the history layer
	// grows to the whole conversation every request
	l6.msgs = slices.Grow(l6.msgs, 2*len(h.units)+2)
	l6.items = slices.Grow(l6.items, 2*len(h.units)+2)
	for i, u := range h.units {
		if m.folded(i) {
			msgs, items := b.renderUnit(h, u, &event.CompactionData{}, 0)
			_ = msgs
			for k := range items {
				items[k].after, items[k].reason = 0, event.ReasonSummarized
			}
			l6.items = append(l6.items, items...)
			continue
		}
		var msgs []agent.Message
		var items []item
		if i == m.newest && capNewest > 0 {
			msgs, items = b.renderNewest(h, u, m, bg, capNewest)
		} else {
			msgs, items = m.rendered(i)
		}
		switch {
		case i == m.newest:
			newest, newestItems = msgs, items
		case i >= m.l3start:
			l3.msgs = append(l3.msgs, msgs...)
			l3.items = append(l3.items, items...)
			for k := range msgs {
				l3.hashMsg(&msgs[k])
			}
		default: // hashed below, once it is known whether a note opens the layer
			l6.msgs = append(l6.msgs, msgs...)
			l6.items = append(l6.items, items...)
		}
	}
	if first := append(append([]agent.Message(nil), firstOf(l6.msgs)...), firstOf(l3.msgs)...); m.c.Summary == "" && len(first) > 0 && first[0].Role == agent.RoleAssistant {
		// The conversation would open with the model's own round (the
		// person's message comes after this turn's older rounds): say what
		// follows, so that it opens with a user message as every provider
		// wants, and the rounds read as work on a request.
		note := agent.Message{Role: agent.RoleUser, Content: "[agent] Your work so far on the person's current request (their message is repeated after these rounds):"}
		l6.msgs = slices.Insert(l6.msgs, 0, note)
		l6.items = slices.Insert(l6.items, 0, item{kind: "note", before: b.msgTokens(note), after: b.msgTokens(note)})
	}
	b.l6Hash.hashMsgs(l6, l6.msgs)
	for k := range newest {
		l3.hashMsg(&newest[k])
	}
	l3.items = append(l3.items, newestItems...)
	if m.c.Shrunk {
		l3.note = "the last rounds themselves were cut to fit the budget"
	}
	if task := m.task; task != "" {
		l4.addTk(agent.Message{Role: agent.RoleUser, Content: task}, item{kind: "plan"}, m.taskTk)
		l4.items[0].before = l4.items[0].after
	}
	var current agent.Message
	if h.current >= 0 {
		current = st.Messages[h.current]
		l2.addTk(current, item{kind: "person", seq: st.Meta[h.current].Seq, before: m.curTk}, m.curTk)
	}
	used := m.total()
	if capNewest > 0 {
		used = bg.b
	}
	snipRoom := min(shared*shareFiles/100-m.mapTk, bg.b-used)
	l5b.budget = max(shared*shareFiles/100-m.mapTk, 0)
	b.snippets(h, v, m, snipRoom, l5b)

	msgs := make([]agent.Message, 0, len(l6.msgs)+len(l3.msgs)+8)
	msgs = appendBreak(msgs, l1.msgs)
	msgs = appendBreak(msgs, l5a.msgs)
	stable := len(msgs)
	msgs = append(msgs, l6.msgs...)
	msgs = append(msgs, l3.msgs...)
	if len(msgs) > stable {
		msgs[len(msgs)-1].CacheBreak = true // the conversation so far
	}
	msgs = append(msgs, l5b.msgs...)
	msgs = append(msgs, l4.msgs...)
	msgs = append(msgs, l2.msgs...)
	msgs = append(msgs, newest...)
	req := &agent.Request{Model: b.opt.Model, Messages: msgs, Tools: b.tools}

	layers := []*layer{tools, l1, l5a, l6, l3, l5b, l4, l2}
	rep := event.ContextReport{Budget: bg.b, Window: bg.window, WindowSource: bg.source, Reserve: bg.reserve, Margin: bg.margin,
		Counting: event.CountEncoder, Encoding: b.counter.Encoding().String(), Ratio: bg.ratio, Samples: bg.samples}
	if bg.ratio > 0 {
		rep.Counting = event.CountMeasured
	}
	prev := map[event.LayerID]string{}
	if st.Context.Last != nil {
		for _, l := range st.Context.Last.Layers {
			prev[l.ID] = l.Hash
		}
	}
	ph := sha256.New()
	for _, l := range layers {
		cl := event.ContextLayer{Name: l.name, ID: l.id, Budget: l.budget, Hash: l.hash(), Note: l.note}
		for _, it := range l.items {
			if it.after > 0 {
				cl.Items++
			}
			cl.Tokens += it.after
		}
		if l.id == event.LayerTools {
			cl.Tokens = b.toolTk
			cl.Items = len(b.tools)
		}
		cl.Entries = group(l.items)
		rep.InputItems += len(l.items)
		rep.TotalTokens += cl.Tokens
		if l.id == event.LayerTools || l.id == event.LayerInstructions || l.id == event.LayerRepoMap {
			ph.Write(l.text)
		}
		if rep.FirstChanged == "" && st.Context.Last != nil && prev[l.id] != cl.Hash {
			rep.FirstChanged = l.id
		}
		rep.Layers = append(rep.Layers, cl)
	}
	rep.PrefixHash = hex.EncodeToString(ph.Sum(nil))[:16]
	if rep.TotalTokens > rep.Budget {
		// only what is never dropped is left: the person's words (in the
		// summary too), the instructions, the newest round cut to the bone
		return nil, rep, &agent.Failure{Class: agent.ClassContext, Err: fmt.Errorf(
			"the request still takes %d tokens after every compaction, over the budget of %d tokens of a %d-token window: "+
				"what is left is never dropped (your messages, the instructions, the newest round); start a new run, or raise [context] window in config.toml if the model has a larger one",
			rep.TotalTokens, rep.Budget, rep.Window)}
	}
	if cs := st.Context.Compactions; len(cs) > 0 && cs[len(cs)-1].Seq > st.Context.LastRequestSeq {
		rep.Compacted = cs[len(cs)-1].Seq
	}
	return req, rep, nil
}

func firstOf(msgs []agent.Message) []agent.Message {
	if len(msgs) == 0 {
		return nil
	}
	return msgs[:1]
}

// appendBreak appends a layer's messages with a cache breakpoint after the
// last one (msgs holds copies: the state's messages are not changed).
func appendBreak(dst, layer []agent.Message) []agent.Message {
	if len(layer) == 0 {
		return dst
	}
	dst = append(dst, layer...)
	dst[len(dst)-1].CacheBreak = true
	return dst
}

// renderNewest cuts the newest round's outputs until the request fits the
// budget: the round is never dropped, but it may be cut (to no less than
// 200 tokens an output).
func (b *Builder) renderNewest(h *history, u unit, m *measure, bg budget, capTk int) ([]agent.Message, []item) {
	rest := m.total() - m.cost[m.newest]
	for try := 0; ; try++ {
		msgs, items := b.renderUnit(h, u, &m.c, capTk)
		n := 0
		for _, msg := range msgs {
			n += b.msgTokens(msg)
		}
		over := rest + n - bg.b
		if over <= 0 || capTk <= 200 || try == 5 {
			return msgs, items
		}
		outputs := max(len(u.msgs)-1, 1)
		capTk = max(capTk-over/outputs-8, 200)
	}
}

// group merges runs of consecutive items treated alike (verbatim, masked,
// summarized) into one entry; cut items keep an entry each.
func group(items []item) []event.ContextItem {
	var out []event.ContextItem
	for _, it := range items {
		if n := len(out); n > 0 {
			last := &out[n-1]
			mergeable := it.reason == "" || it.reason == event.ReasonMasked || it.reason == event.ReasonSummarized
			if mergeable && last.Reason == it.reason && last.Kind != "tool" && it.kind != "tool" {
				if last.Kind != it.kind {
					last.Kind = "messages"
				}
				last.Count++
				last.TokensBefore += it.before
				last.Tokens += it.after
				if it.seq > 0 {
					last.LastSeq = it.seq
				}
				last.Ref = ""
				continue
			}
		}
		out = append(out, event.ContextItem{Kind: it.kind, Ref: it.ref, FirstSeq: it.seq, LastSeq: it.seq, Count: 1, TokensBefore: it.before, Tokens: it.after, Reason: it.reason})
	}
	return out
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}
