package contextbuild

import (
	"encoding/json"
	"path"
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
	// edits[path] are the seqs of successful writes to path, ascending.
	edits map[string][]int64
}

// parsedArgs is what callArgs read from a call's arguments, memoised with
// the arguments it read them from.
type parsedArgs struct{ args, path, command string }

// analyze reads st; memo (nil: none) keeps each call's parsed arguments
// across builds of one run.
func analyze(st *agent.State, memo map[string]parsedArgs) *history {
	h := &history{st: st, current: -1, calls: map[string]*callInfo{}, edits: map[string][]int64{}}
	for i := len(st.Meta) - 1; i >= 0; i-- {
		if st.Meta[i].Kind == agent.KindPerson {
			h.current = i
			break
		}
	}
	var round *unit
	for i, m := range st.Messages {
		meta := st.Meta[i]
		if i == h.current {
			round = nil
			continue
		}
		switch meta.Kind {
		case agent.KindAssistant:
			h.units = append(h.units, unit{kind: unitRound, msgs: []int{i}, first: meta.Seq, last: meta.Seq})
			round = &h.units[len(h.units)-1]
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
				h.calls[c.ID] = ci
				h.order = append(h.order, c.ID)
			}
		case agent.KindTool:
			ci := h.calls[m.ToolCallID]
			if round == nil || ci == nil || ci.msg != round.msgs[0] {
				h.units = append(h.units, unit{kind: unitOrphan, msgs: []int{i}, first: meta.Seq, last: meta.Seq})
				round = nil
				continue
			}
			ci.result = i
			round.msgs = append(round.msgs, i)
			round.last = meta.Seq
			if meta.Status == event.ResultOK && meta.Risk == event.RiskWrite && ci.path != "" {
				h.edits[ci.path] = append(h.edits[ci.path], meta.Seq)
			}
		case agent.KindPerson:
			h.units = append(h.units, unit{kind: unitPerson, msgs: []int{i}, first: meta.Seq, last: meta.Seq})
			round = nil
		default:
			h.units = append(h.units, unit{kind: unitNote, msgs: []int{i}, first: meta.Seq, last: meta.Seq})
			round = nil
		}
	}
	return h
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

// callOf returns the call a tool message answers.
func (h *history) callOf(i int) *callInfo {
	return h.calls[h.st.Messages[i].ToolCallID]
}

// touchedDirs lists the workspace directories the run's file tools named,
// each once, shallowest first.
func (h *history) touchedDirs() []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range h.order {
		ci := h.calls[id]
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
		ci := h.calls[h.order[i]]
		if ci.path == "" || seen[ci.path] || ci.name == "list_dir" || ci.name == "glob" || ci.name == "grep" {
			continue
		}
		seen[ci.path] = true
		out = append(out, ci.path)
	}
	return out
}
