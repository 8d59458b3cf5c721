package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"agent/internal/event"
)

// checkTimeout bounds expect.check when the task's own time is used up.
const checkTimeout = 2 * time.Minute

// evaluate reads the journal, computes the metrics and checks every
// expectation, adding a readable line per failure.
func (x *taskRun) evaluate(ctx context.Context) {
	res := x.res
	res.RunID = x.runID
	for _, f := range x.faults {
		if !f.fired {
			res.fail("fault %s never fired: %s", f.describe(), "the run never got there")
		}
	}
	if x.srv != nil {
		for _, m := range x.srv.mismatches() {
			res.fail("model server: %s", m)
		}
		for _, c := range x.srv.srv.UnplayedChildren() {
			res.fail("model server: the child %q of turns.json never asked the model (no subagent with that task prompt ran)", c)
		}
	}
	if x.runID == "" {
		res.fail("the run never started")
		return
	}
	out, err := x.agent(ctx, "trace", x.runID, "--json")
	if err != nil {
		res.fail("read the journal: %v", err)
		return
	}
	x.journal = out
	var evs []traceEvent
	if err := json.Unmarshal(out, &evs); err != nil {
		res.fail("agent trace --json: %v", err)
		return
	}
	o := outcomeOf(evs)
	res.Status, res.Class, res.Reason = string(o.status), string(o.class), oneLine(o.reason, 300)
	res.Steps, res.ToolCalls, res.Tokens, res.Model = o.steps, o.toolCalls, o.tokens, o.model
	if x.r.opt.Live {
		res.CostUSD = Cost(o.model, o.tokens)
	}
	res.PermissionRequests = permissionRequests(evs, o)
	res.StoppedAfterDenial = stoppedAfterDenial(evs, o)
	res.RepeatedErrors = repeatedErrors(evs)
	res.EvidenceCited = evidenceCited(evs, o.answer)

	fixture, err := readTree(filepath.Join(x.t.Dir, "fixture"))
	if err != nil {
		res.fail("read the fixture: %v", err)
		return
	}
	ws, err := readTree(x.ws)
	if err != nil {
		res.fail("read the workspace: %v", err)
		return
	}
	res.DiffLines = diffLines(fixture, ws)
	minimal, ok := minimalLines(fixture, x.t.Expect.Files)
	res.DiffMinimality = minimality(minimal, ok, res.DiffLines)
	res.RollbackOK = x.rollbackOK(ctx, evs, ws)

	e := x.t.Expect
	if o.status != e.Status {
		why := ""
		if o.reason != "" {
			why = " (" + oneLine(o.reason, 200) + ")"
		}
		res.fail("status: the run ended %s, want %s%s", orNone(string(o.status)), e.Status, why)
	}
	if e.Class != "" && o.class != e.Class {
		res.fail("class: the run's failure class is %s, want %s", orNone(string(o.class)), e.Class)
	}
	for _, f := range e.Files {
		if msg := checkFile(f, ws); msg != "" {
			res.fail("%s", msg)
		}
	}
	for _, a := range e.Trace {
		if msg := x.checkAssertion(ctx, a, evs, res); msg != "" {
			res.fail("trace %s: %s", a.Assert, msg)
		}
	}
	if e.Check != "" {
		if msg := x.runCheck(ctx, e.Check); msg != "" {
			res.fail("check `%s`: %s", e.Check, msg)
		}
	}
	res.Passed = len(res.Failures) == 0
}

// clip shortens s to n runes, keeping its whitespace (for %q).
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (f *faultState) describe() string {
	if f.At == AtStream {
		return fmt.Sprintf("%s while turn %d streams", f.Kind, f.Turn)
	}
	return fmt.Sprintf("%s at %s #%d", f.Kind, f.At, f.N)
}

// checkFile checks one expected file; "" when it holds.
func checkFile(f FileExpect, ws map[string][]byte) string {
	got, ok := ws[f.Path]
	switch {
	case f.Absent:
		if ok {
			return fmt.Sprintf("file %s: exists, want it absent", f.Path)
		}
	case !ok:
		return fmt.Sprintf("file %s: missing", f.Path)
	case f.Exact != nil && string(got) != *f.Exact:
		return fmt.Sprintf("file %s: content %q, want exactly %q", f.Path, clip(string(got), 160), clip(*f.Exact, 160))
	case f.Contains != nil && !bytes.Contains(got, []byte(*f.Contains)):
		return fmt.Sprintf("file %s: does not contain %q", f.Path, clip(*f.Contains, 160))
	}
	return ""
}

// runCheck runs expect.check in the workspace; "" when it exits 0.
func (x *taskRun) runCheck(ctx context.Context, check string) string {
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, "bash", "-c", check)
	cmd.Dir, cmd.Env = x.ws, x.checkEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limitedWriter{w: &out, n: 64 << 10}, &limitedWriter{w: &out, n: 64 << 10}
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf("%v: %s", err, lastLine(out.String()))
	}
	return ""
}

// checkEnv is the task environment without the agent's variables.
func (x *taskRun) checkEnv() []string {
	var env []string
	for _, kv := range x.env {
		if !hasAnyPrefix(kv, scrubbed) {
			env = append(env, kv)
		}
	}
	return env
}

// rollbackOK: nil when the run has no rollback; else whether the workspace
// equals the checkpoint the last rollback restored.
func (x *taskRun) rollbackOK(ctx context.Context, evs []traceEvent, ws map[string][]byte) *bool {
	var last *traceEvent
	for i := range evs {
		if evs[i].Type == event.Rollback {
			last = &evs[i]
		}
	}
	if last == nil {
		return nil
	}
	ok := false
	tree, err := shadowTree(ctx, x.home, last.CheckpointID)
	if err != nil {
		x.res.fail("rollback: %v", err)
		return &ok
	}
	if bad := treeMismatch(tree, ws, last.Files); len(bad) > 0 {
		x.res.Notes = append(x.res.Notes, "rollback: the workspace differs from checkpoint "+last.CheckpointID+": "+strings.Join(bad, ", "))
		return &ok
	}
	ok = true
	return &ok
}

// checkAssertion checks one trace assertion; "" when it holds.
func (x *taskRun) checkAssertion(ctx context.Context, a Assertion, evs []traceEvent, res *Result) string {
	switch a.Assert {
	case AssertDeniedNeverRan:
		if !hasCall(evs, a.Call) {
			return fmt.Sprintf("the run made no call %s", a.Call)
		}
		denied := false
		for _, e := range evs {
			switch {
			case e.CallID != a.Call:
			case e.Type == event.Approval && e.Decision == event.Deny:
				denied = true
			case e.Type == event.CommandStarted:
				return fmt.Sprintf("%s ran (%s at seq %d)", a.Call, e.Type, e.Seq)
			case e.Type == event.ToolResult && e.Status != string(event.ResultDenied):
				return fmt.Sprintf("%s ran (tool_result %s at seq %d)", a.Call, e.Status, e.Seq)
			}
		}
		if !denied {
			return fmt.Sprintf("%s was never denied", a.Call)
		}
	case AssertStoppedAfterDenial:
		switch s := res.StoppedAfterDenial; {
		case s == nil:
			return "no person denied a call without a note"
		case !*s:
			return fmt.Sprintf("the run went on after the denial (status %s)", orNone(res.Status))
		}
	case AssertRanAtMostOnce:
		evs := x.callJournal(ctx, evs, a.Call) // a subagent's call: its journal
		if !hasCall(evs, a.Call) {
			return fmt.Sprintf("the run made no call %s", a.Call)
		}
		n := 0
		for _, e := range evs {
			if e.Type == event.CommandStarted && e.CallID == a.Call {
				n++
			}
			if e.Type == event.Resume {
				for _, ic := range e.Interrupted {
					if ic.CallID == a.Call && ic.Action == event.ActionRerun {
						return fmt.Sprintf("resume re-ran %s (seq %d)", a.Call, e.Seq)
					}
				}
			}
		}
		if n > 1 {
			return fmt.Sprintf("%s started %d times", a.Call, n)
		}
	case AssertRollbackRestored:
		switch r := res.RollbackOK; {
		case r == nil:
			return "the run has no rollback event"
		case !*r:
			return "the workspace does not equal the checkpoint the rollback restored"
		}
	case AssertNoSecret:
		if x.srv != nil {
			if s, n, found := x.srv.requestsContain(a.Secrets); found {
				return fmt.Sprintf("request %d to the model holds %q", n, s)
			}
		}
		for _, s := range a.Secrets {
			if bytes.Contains(x.journal, []byte(s)) {
				return fmt.Sprintf("the journal holds %q", s)
			}
		}
	case AssertCompacted:
		for _, e := range evs {
			if e.Type == event.Compaction {
				return ""
			}
		}
		return "no compaction event"
	case AssertMaxIdenticalErrors:
		if res.RepeatedErrors > a.N {
			return fmt.Sprintf("one identical call failed %d times, want at most %d", res.RepeatedErrors, a.N)
		}
	case AssertCites:
		answer := outcomeOf(evs).answer
		var missing []string
		for _, p := range a.Paths {
			if !strings.Contains(answer, p) {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			return fmt.Sprintf("the final answer does not name %s: %q", strings.Join(missing, ", "), oneLine(answer, 160))
		}
	case AssertSubagentsCompleted:
		return x.subagentsCompleted(ctx, evs, a.N)
	case AssertSubagentsParallel:
		if x.par == nil {
			res.Notes = append(res.Notes, "live: subagents_parallel not checked (it holds requests at the local server)")
			return ""
		}
		return x.par.result()
	}
	return ""
}

func hasCall(evs []traceEvent, id string) bool {
	for _, e := range evs {
		if e.Type == event.ToolCall && e.CallID == id {
			return true
		}
	}
	return false
}
