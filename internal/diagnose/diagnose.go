// Package diagnose owns the rules that explain why a run failed or stopped:
// from a run's journal it picks a failure class (model, tool, permission,
// context, runtime), the seq of the event that decided it and one line for a
// person. The loop journals the diagnosis in run_finished.failure; `agent
// trace` diagnoses older runs, journaled before the field existed, on the fly
// with the same rules. The rules are the table in docs/failure-modes.md
// ("Failure classes"); each has a case in diagnose_test.go.
//
// It reads events and nothing else: no store, no files, no model. It must not
// change the events it is given.
package diagnose

import (
	"encoding/json"
	"fmt"
	"strings"

	"agent/internal/event"
)

// RepeatLimit is how many identical failing calls make a pattern: the loop
// stops a run at the third identical tool error (class tool), and the third
// identical policy denial before the run ran out of steps makes it a
// permission failure.
const RepeatLimit = 3

// maxReason bounds the one-line reason, in runes.
const maxReason = 240

// Diagnose explains a finished run from its whole journal: the status of its
// last run_finished decides whether there is anything to explain (failed or
// stopped), and the events before it are judged. A run_finished that already
// carries a failure keeps it. It returns nil for a run that completed, was
// interrupted, is awaiting approval or has not finished.
func Diagnose(evs []event.Event) *event.FailureInfo {
	for i := len(evs) - 1; i >= 0; i-- {
		if d, ok := evs[i].Data.(*event.RunFinishedData); ok {
			if d.Failure != nil {
				return d.Failure
			}
			return Classify(d.Status, evs[:i])
		}
	}
	return nil
}

// Classify explains a run that is ending with status from the events
// journaled so far (the run's whole journal up to, not including, its
// run_finished). It returns nil unless status is failed or stopped; for
// those it always returns a diagnosis.
func Classify(status event.Status, evs []event.Event) *event.FailureInfo {
	if status != event.StatusFailed && status != event.StatusStopped {
		return nil
	}
	j := index(evs)
	if status == event.StatusStopped {
		return j.stopped()
	}
	return j.failed()
}

// journal is a run's events with the lookups the rules need.
type journal struct {
	evs []event.Event
	// from is the index of the first event of the stretch that is ending
	// (after the previous run_finished): the rules judge what happened in it.
	from  int
	calls map[string]*event.ToolCallData // by call_id
}

func index(evs []event.Event) *journal {
	j := &journal{evs: evs, calls: map[string]*event.ToolCallData{}}
	for i, ev := range evs {
		switch d := ev.Data.(type) {
		case *event.ToolCallData:
			j.calls[d.CallID] = d
		case *event.RunFinishedData:
			j.from = i + 1
		}
	}
	return j
}

// stopped: a person's denial without a note ends the turn (the contract).
func (j *journal) stopped() *event.FailureInfo {
	for i := len(j.evs) - 1; i >= j.from; i-- {
		a, ok := j.evs[i].Data.(*event.ApprovalData)
		if !ok || a.Decision != event.Deny || a.Source != event.SourceUser || a.Note != "" || a.Reason != "" {
			continue
		}
		return &event.FailureInfo{Class: event.ClassPermission, Seq: j.evs[i].Seq,
			Reason: clip(fmt.Sprintf("the person denied %s and stopped the turn", j.callText(a.CallID)))}
	}
	return &event.FailureInfo{Class: event.ClassRuntime, Seq: j.lastSeq(),
		Reason: "the run stopped, but no person's denial is on record"}
}

// failed: the error event the loop journaled names the class; the rules
// find the event that decided it and refine two cases (a repeated tool
// error, a policy that kept denying the same call).
func (j *journal) failed() *event.FailureInfo {
	ei := -1
	for i := len(j.evs) - 1; i >= j.from; i-- {
		if _, ok := j.evs[i].Data.(*event.ErrorData); ok {
			ei = i
			break
		}
	}
	if ei < 0 {
		return &event.FailureInfo{Class: event.ClassRuntime, Seq: j.lastSeq(),
			Reason: "the run failed without an error on record"}
	}
	e := j.evs[ei].Data.(*event.ErrorData)
	seq, msg := j.evs[ei].Seq, errorText(e)
	switch e.Class {
	case event.ClassTool:
		if f := j.repeatedError(ei); f != nil {
			return f
		}
		return &event.FailureInfo{Class: event.ClassTool, Seq: seq, Reason: clip("a tool failed: " + msg)}
	case event.ClassModel:
		return &event.FailureInfo{Class: event.ClassModel, Seq: seq, Reason: clip("the model request failed: " + msg)}
	case event.ClassContext:
		return &event.FailureInfo{Class: event.ClassContext, Seq: seq, Reason: clip("the context could not be built within its budget: " + msg)}
	case event.ClassPermission:
		return &event.FailureInfo{Class: event.ClassPermission, Seq: seq, Reason: clip("the approval could not be decided: " + msg)}
	}
	if f := j.repeatedDenial(ei); f != nil {
		return f
	}
	if strings.Contains(msg, "--max-steps") {
		return &event.FailureInfo{Class: event.ClassRuntime, Seq: seq, Reason: clip("the run ran out of steps: " + msg)}
	}
	return &event.FailureInfo{Class: event.ClassRuntime, Seq: seq, Reason: clip(msg)}
}

// repeatedError finds the identical failing call (tool, arguments, error)
// that came back most often before event end; at RepeatLimit
// or more it decided the run, at its last failing result.
func (j *journal) repeatedError(end int) *event.FailureInfo {
	// the loop counts identical failures over the whole run, resumes included
	i, n := j.mostRepeated(0, end, func(r *event.ToolResultData) bool { return r.Status == event.ResultError })
	if n < RepeatLimit {
		return nil
	}
	r := j.evs[i].Data.(*event.ToolResultData)
	return &event.FailureInfo{Class: event.ClassTool, Seq: j.evs[i].Seq, Reason: clip(fmt.Sprintf(
		"the model repeated the same failing %s %d times: %s", j.callText(r.CallID), n, firstLine(r.Output)))}
}

// repeatedDenial: the run ran out (of steps, or otherwise) after a rule or
// the approval mode denied the same call RepeatLimit times or more: the
// policy, not the step budget, is what ended it. The deciding event is the
// last of those denials.
func (j *journal) repeatedDenial(end int) *event.FailureInfo {
	i, n := j.mostRepeated(j.from, end, func(r *event.ToolResultData) bool { return r.Status == event.ResultDenied })
	if n < RepeatLimit {
		return nil
	}
	r := j.evs[i].Data.(*event.ToolResultData)
	seq, by := j.evs[i].Seq, "the approval mode"
	for k := i - 1; k >= j.from; k-- {
		if a, ok := j.evs[k].Data.(*event.ApprovalData); ok && a.CallID == r.CallID {
			if a.Source == event.SourceUser {
				return nil // a person's denial with a note: the model was told, the run went on
			}
			seq = j.evs[k].Seq
			if a.Rule != "" {
				by = "rule " + a.Rule
			}
			break
		}
	}
	return &event.FailureInfo{Class: event.ClassPermission, Seq: seq, Reason: clip(fmt.Sprintf(
		"%s denied %s %d times and the run ended without another way", by, j.callText(r.CallID), n))}
}

// mostRepeated groups the tool results of events [start, end) that keep
// match by call (name, arguments) and output, and returns the index of the
// last result of the biggest group and its size (of two groups as big, the
// one that came back last).
func (j *journal) mostRepeated(start, end int, keep func(*event.ToolResultData) bool) (int, int) {
	type group struct{ last, n int }
	groups := map[string]*group{}
	for i := start; i < end; i++ {
		r, ok := j.evs[i].Data.(*event.ToolResultData)
		if !ok || !keep(r) {
			continue
		}
		key := "\x00" + r.CallID + "\x00" + r.Output // a result whose call is not on record stands alone
		if c := j.calls[r.CallID]; c != nil {
			key = c.Name + "\x00" + c.Arguments + "\x00" + r.Output
		}
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
		}
		g.n++
		g.last = i
	}
	best := group{last: -1}
	for _, g := range groups {
		if g.n > best.n || (g.n == best.n && g.last > best.last) {
			best = *g
		}
	}
	return best.last, best.n
}

// callText names a call for a person: its tool and main argument,
// for example run_command `rm -rf build`; the call id when the call is unknown.
func (j *journal) callText(id string) string {
	c := j.calls[id]
	if c == nil {
		return "call " + id
	}
	if arg := mainArg(c.Arguments); arg != "" {
		return c.Name + " `" + arg + "`"
	}
	return c.Name
}

// mainArg is the argument a person recognises a call by (the command, the
// path, the pattern), shortened to one line.
func mainArg(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "path", "pattern"} {
		if s, ok := m[k].(string); ok && s != "" {
			return oneLine(s, 80)
		}
	}
	return ""
}

func (j *journal) lastSeq() int64 {
	if n := len(j.evs); n > 0 {
		return j.evs[n-1].Seq
	}
	return 0
}

// errorText is an error event's message without the "<class> error: "
// prefix the loop's errors carry.
func errorText(e *event.ErrorData) string {
	return strings.TrimPrefix(e.Message, string(e.Class)+" error: ")
}

func clip(s string) string { return oneLine(s, maxReason) }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
