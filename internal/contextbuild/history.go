package contextbuild

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"agent/internal/agent"
	"agent/internal/event"
)

// unitKind is what one history unit is.
type unitKind uint8

const (
	unitPerson unitKind = iota + 1 // a person's message (not the current one)
	unitNote                       // an agent note (a rollback)
	unitRound                      // an assistant message and the results of its calls
	unitOrphan                     // a tool result whose call is gone
)

// unit is a run of messages that stay together: a round keeps each call
// with its result.
type unit struct {
	kind        unitKind
	msgs        []int // indexes into State.Messages
	first, last int64 // seqs of its first and last message
}

// callInfo is what the history knows of one tool call.
type callInfo struct {
	name, args string
	path       string // the file tools' path argument, cleaned ("" for none)
	command    string // run_command's command
	msg        int    // index of the assistant message
	result     int    // index of its result (-1: none)
	step       int
}

// history is a State read once for one Build: its units, the person's
// current message, and per call what it was.
type history struct {
	st      *agent.State
	current int // index of the person's current message (L2), -1 for none
	units   []unit
	calls   map[string]*callInfo // by call id
	order   []string             // call ids in order
	ordered []*callInfo          // each call's info, in order (callAt)
	// edits[path] are the seqs of successful writes to path, ascending.
	edits map[string][]int64
	// dupIDs: two calls have the same id (calls holds the later one's).
	dupIDs bool
}

// parsedArgs is what callArgs read from a call's arguments, memoised with
// the arguments it read them from.
type parsedArgs struct{ args, path, command string }

// analyze reads st; memo (nil: none) keeps each call's parsed arguments
// across builds of one run.
func analyze(st *agent.State, memo map[string]parsedArgs) *history {
	h := newHistory(st)
	round := -1
	for i := range st.Messages {
		h.add(i, memo, &round)
	}
	return h
}

func newHistory(st *agent.State) *history {
	return &history{st: st, current: currentPerson(st), calls: map[string]*callInfo{}, edits: map[string][]int64{}}
}

// currentPerson is the index of the person's current message (-1: none).
func currentPerson(st *agent.State) int {
	for i := len(st.Meta) - 1; i >= 0; i-- {
		if st.Meta[i].Kind == agent.KindPerson {
			return i
		}
	}
	return -1
}

// add folds message i into h; *round is the index in h.units of the round
// its results join (-1: none).
func (h *history) add(i int, memo map[string]parsedArgs, round *int) {
	st := h.st
	m, meta := st.Messages[i], st.Meta[i]
	if i == h.current {
		*round = -1
		return
	}
	switch meta.Kind {
	case agent.KindAssistant:
		h.units = append(h.units, unit{kind: unitRound, msgs: []int{i}, first: meta.Seq, last: meta.Seq})
		*round = len(h.units) - 1
		for _, c := range m.ToolCalls {
			ci := &callInfo{name: c.Name, args: c.Arguments, msg: i, result: -1, step: meta.Step}
			if pa, ok := memo[c.ID]; ok && pa.args == c.Arguments {
				ci.path, ci.command = pa.path, pa.command
			} else {
				ci.path, ci.command = callArgs(c.Name, c.Arguments)
				if memo != nil {
					if len(memo) > 8192 {
						clear(memo)
					}
					memo[c.ID] = parsedArgs{args: c.Arguments, path: ci.path, command: ci.command}
				}
			}
			if h.calls[c.ID] != nil {
				h.dupIDs = true
			}
			h.calls[c.ID] = ci
			h.order = append(h.order, c.ID)
			h.ordered = append(h.ordered, ci)
		}
	case agent.KindTool:
		ci := h.calls[m.ToolCallID]
		if *round < 0 || ci == nil || ci.msg != h.units[*round].msgs[0] {
			h.units = append(h.units, unit{kind: unitOrphan, msgs: []int{i}, first: meta.Seq, last: meta.Seq})
			*round = -1
			return
		}
		ci.result = i
		r := &h.units[*round]
		r.msgs = append(r.msgs, i)
		r.last = meta.Seq
		if meta.Status == event.ResultOK && meta.Risk == event.RiskWrite && ci.path != "" {
			h.edits[ci.path] = append(h.edits[ci.path], meta.Seq)
		}
	case agent.KindPerson:
		h.units = append(h.units, unit{kind: unitPerson, msgs: []int{i}, first: meta.Seq, last: meta.Seq})
		*round = -1
	default:
		h.units = append(h.units, unit{kind: unitNote, msgs: []int{i}, first: meta.Seq, last: meta.Seq})
		*round = -1
	}
}

// histCache is the history of the builder's previous build: the next
// build extends it when the state only grew since (a step's new messages)
// instead of reading the whole conversation again.
type histCache struct {
	h     *history
	round int       // the open round (history.add)
	seen  []seenMsg // what add read of each message folded
	// units[i] is unit i of h as renderUnit last rendered it (measure.recost)
	units []cachedUnit
}

// cachedUnit is a unit's rendering and what it was rendered from: the
// unit's extent and the compaction's bounds. A unit of a history that is
// only ever extended renders the same while these are the same: its
// messages are unchanged (history checks what it reads, and their text),
// results join only the open round (its extent grows), the edits that
// supersede a read are at or before the compaction's bound, which is
// before every new message; a call id used twice (a later call would
// change what an earlier one's unit shows) turns the cache off.
type cachedUnit struct {
	first, last int64
	n           int
	r           renderedUnit
}

// unit returns the cached rendering of unit i of h under at, if any.
func (c *histCache) unit(h *history, i int, at bounds) (renderedUnit, bool) {
	if h != c.h || h.dupIDs || i >= len(c.units) {
		return renderedUnit{}, false
	}
	u, e := &h.units[i], &c.units[i]
	if e.r.items == nil || e.r.at != at || e.first != u.first || e.last != u.last || e.n != len(u.msgs) {
		return renderedUnit{}, false
	}
	return e.r, true
}

// keep caches r as unit i of h's rendering.
func (c *histCache) keep(h *history, i int, r renderedUnit) {
	if h != c.h || h.dupIDs {
		return
	}
	if len(c.units) < len(h.units) {
		c.units = append(c.units, make([]cachedUnit, len(h.units)-len(c.units))...)
	}
	u := &h.units[i]
	c.units[i] = cachedUnit{first: u.first, last: u.last, n: len(u.msgs), r: r}
}

// seenMsg is what history.add reads of a message.
type seenMsg struct {
	seq        int64
	kind       agent.MessageKind
	step       int
	status     event.ResultStatus
	risk       event.Risk
	toolCallID string
	content    string           // read by renderUnit (the cached units)
	calls      []agent.ToolCall // a copy
}

func seenOf(st *agent.State, i int) seenMsg {
	m, meta := &st.Messages[i], &st.Meta[i]
	return seenMsg{seq: meta.Seq, kind: meta.Kind, step: meta.Step, status: meta.Status, risk: meta.Risk,
		toolCallID: m.ToolCallID, content: m.Content, calls: slices.Clone(m.ToolCalls)}
}

func (s *seenMsg) same(st *agent.State, i int) bool {
	m, meta := &st.Messages[i], &st.Meta[i]
	if s.seq != meta.Seq || s.kind != meta.Kind || s.step != meta.Step || s.status != meta.Status || s.risk != meta.Risk ||
		s.toolCallID != m.ToolCallID || s.content != m.Content || len(s.calls) != len(m.ToolCalls) {
		return false
	}
	for k := range s.calls {
		a, b := &s.calls[k], &m.ToolCalls[k]
		if a.ID != b.ID || a.Name != b.Name || a.Arguments != b.Arguments {
			return false
		}
	}
	return true
}

// history returns analyze(st, b.args): the previous build's history
// extended by the messages added since when every message it read is
// unchanged and the person's current message is the same; else read afresh.
func (b *Builder) history(st *agent.State) *history {
	c := &b.hist
	if c.h != nil && len(st.Messages) == len(st.Meta) && len(st.Messages) >= len(c.seen) && currentPerson(st) == c.h.current && c.prefixOf(st) {
		c.h.st = st
		for i := len(c.seen); i < len(st.Messages); i++ {
			c.h.add(i, b.args, &c.round)
			c.seen = append(c.seen, seenOf(st, i))
		}
		return c.h
	}
	h := newHistory(st)
	c.h, c.round, c.seen, c.units = h, -1, make([]seenMsg, 0, len(st.Messages)), nil
	for i := range st.Messages {
		h.add(i, b.args, &c.round)
		c.seen = append(c.seen, seenOf(st, i))
	}
	return h
}

func (c *histCache) prefixOf(st *agent.State) bool {
	for i := range c.seen {
		if !c.seen[i].same(st, i) {
			return false
		}
	}
	return true
}

// callArgs reads the path and command arguments of a call, if it has them.
func callArgs(name, args string) (p, command string) {
	var a struct {
		Path    string `json:"path"`
		Command string `json:"command"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return "", ""
	}
	if a.Path != "" {
		p = path.Clean(strings.TrimPrefix(a.Path, "./"))
	}
	return p, a.Command
}

// rounds returns the indexes (into h.units) of the round units.
func (h *history) rounds() []int {
	var out []int
	for i, u := range h.units {
		if u.kind == unitRound {
			out = append(out, i)
		}
	}
	return out
}

// newestAfterCurrent reports whether the last unit is a round that came
// after the person's current message: it goes after L2 in the request.
func (h *history) newestAfterCurrent() bool {
	if len(h.units) == 0 {
		return false
	}
	u := h.units[len(h.units)-1]
	return u.kind == unitRound && (h.current < 0 || u.first > h.st.Meta[h.current].Seq)
}

// supersededAt returns the seq of the first successful write to the read's
// path after the read, at or before through (0: none).
func (h *history) supersededAt(ci *callInfo, readSeq, through int64) int64 {
	if ci == nil || ci.name != "read_file" || ci.path == "" {
		return 0
	}
	for _, w := range h.edits[ci.path] {
		if w > readSeq && w <= through {
			return w
		}
	}
	return 0
}

// callAt is h.calls[h.order[i]]: the info of the i-th call, or of the
// last call with its id when an id repeats.
func (h *history) callAt(i int) *callInfo {
	if h.dupIDs {
		return h.calls[h.order[i]]
	}
	return h.ordered[i]
}

// callOf returns the call a tool message answers.
func (h *history) callOf(i int) *callInfo {
	return h.calls[h.st.Messages[i].ToolCallID]
}

// touchedDirs lists the workspace directories the run's file tools named,
// each once, shallowest first.
func (h *history) touchedDirs() []string {
	seen := map[string]bool{}
	var out []string
	for i := range h.order {
		ci := h.callAt(i)
		if ci.path == "" || strings.HasPrefix(ci.path, "..") || path.IsAbs(ci.path) {
			continue
		}
		d := ci.path
		if ci.name != "list_dir" && ci.name != "glob" && ci.name != "grep" {
			d = path.Dir(d)
		}
		for d != "." && d != "/" && d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
			d = path.Dir(d)
		}
	}
	return out
}

// filesInPlay lists the paths the run read or edited, most recent first.
func (h *history) filesInPlay(limit int) []string {
	seen := map[string]bool{}
	var out []string
	for i := len(h.order) - 1; i >= 0 && len(out) < limit; i-- {
		ci := h.callAt(i)
		if ci.path == "" || seen[ci.path] || ci.name == "list_dir" || ci.name == "glob" || ci.name == "grep" {
			continue
		}
		seen[ci.path] = true
		out = append(out, ci.path)
	}
	return out
}
