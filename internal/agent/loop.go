package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"agent/internal/budget"
	"agent/internal/event"
	"agent/internal/pricing"
	"agent/internal/proc"
	"agent/internal/protocol"
	"agent/internal/tools"
)

// DefaultMaxSteps bounds the model requests of a run.
const DefaultMaxSteps = 50

// repeatLimit stops a run when the same failing call comes back this often.
const repeatLimit = 3

// Runner drives runs. One Runner serves one process; it holds no run state.
type Runner struct {
	Provider Provider
	Tools    *tools.Registry
	Journal  Journal
	Approver Approver
	// Decider lets a person decide a call while the run waits (nil:
	// headless, a call that needs a person pauses the run).
	Decider      Decider
	Redactor     Redactor     // nil: no redaction
	Checkpointer Checkpointer // nil: no checkpoints
	Observer     Observer
	Context      ContextSource
	// Model is the configured model (for a run whose start was never journaled).
	Model string
	// ProviderName names the model adapter (openai, anthropic) for the
	// run_started event, so that a resume picks the same one.
	ProviderName event.Provider
	// Processes ends what commands leave running (nil: nothing is ended).
	Processes Processes
	MaxSteps  int
	// ToolEnv is handed to every tool call (copied per call, with the
	// call's marker and start hook).
	ToolEnv *tools.Env
	// AfterCall sees each call's result and may add a note for the model
	// (the person's after_tool_call hooks; nil: none).
	AfterCall AfterCallHook
	// Prices price the run's tokens for its budget and model_request's
	// spent (nil: the built-in list).
	Prices *pricing.Table
	// Subagents runs the children of task calls and applies a worker's
	// changes (nil: task and apply_task_changes are tool errors).
	Subagents Subagents
	// CallIDs returns the id a call of run runID's model gets: the model's
	// own unless another run of its tree of subagents has it, so that call
	// ids are unique across the tree (nil: the model's).
	CallIDs func(runID, id string) string
}

func (r *Runner) redact(s string) string {
	if r.Redactor == nil {
		return s
	}
	return r.Redactor.Redact(s)
}

// record folds an event into the state at once and queues it for the
// journal: queued events are committed together, in one transaction, by the
// next flush, which the loop does before anything with an effect (a model
// request, a tool that writes or runs) and when a stretch of the run ends.
// A crash loses only queued events, as if it had come before them: nothing
// they describe has happened outside the agent yet. Observers see an event
// once it is committed.
func (r *Runner) record(_ context.Context, st *State, p event.Payload) error {
	ev := event.New(st.RunID, p)
	ev.Seq, ev.Time = st.LastSeq+1, time.Now().UTC()
	st.Apply(ev)
	st.queued = append(st.queued, ev)
	return nil
}

// recordSync records an event and flushes the queue durably: for the last
// event before a call's effect starts.
func (r *Runner) recordSync(ctx context.Context, st *State, p event.Payload) error {
	if err := r.record(ctx, st, p); err != nil {
		return err
	}
	return r.flush(ctx, st, true)
}

// flush commits the queued events in one transaction (with sync, fsynced
// before it returns) and shows them to observers.
func (r *Runner) flush(ctx context.Context, st *State, sync bool) error {
	if len(st.queued) == 0 {
		return nil
	}
	evs := make([]*event.Event, len(st.queued))
	for i := range st.queued {
		evs[i] = &st.queued[i]
	}
	add := r.Journal.Append
	if sync {
		add = r.Journal.AppendSync
	}
	if err := add(ctx, evs...); err != nil {
		return Fail(ClassRuntime, fmt.Errorf("journal: %w", err))
	}
	done := st.queued
	st.queued = st.queued[len(st.queued):]
	if r.Observer.Event != nil {
		for _, ev := range done {
			r.Observer.Event(ev)
		}
	}
	return nil
}

// RecordRollback journals a rollback of the run's files (and, with
// rb.Conversation, of its conversation): the checkpoint of the state before
// it, then the rollback itself, folded into st.
func (r *Runner) RecordRollback(ctx context.Context, st *State, pre *event.CheckpointData, rb *event.RollbackData) error {
	if pre != nil { // nil: the conversation alone was rewound
		if err := r.record(ctx, st, pre); err != nil {
			return err
		}
	}
	if err := r.record(ctx, st, rb); err != nil {
		return err
	}
	return r.flush(ctx, st, false)
}

// Start journals the beginning of a new run and its prompt.
func (r *Runner) Start(ctx context.Context, st *State, prompt string) error {
	if err := r.record(ctx, st, &event.RunStartedData{
		Workspace: st.Workspace, Model: st.Model, Approval: st.Approval, Provider: r.ProviderName, MaxSteps: r.maxSteps(), Allow: st.Allow, Deny: st.Deny,
		Sandbox: r.ToolEnv.RunSandbox(), Budget: st.Spend.Limits.Event(), ParentRun: st.ParentRun, ParentCall: st.ParentCall,
	}); err != nil {
		return err
	}
	return r.AddUserMessage(ctx, st, prompt)
}

// Begin completes the start of a run that died before its prompt was
// journaled (resume of a run killed in its first instant); otherwise no-op.
func (r *Runner) Begin(ctx context.Context, st *State, prompt string) error {
	if st.Workspace == "" {
		if err := r.record(ctx, st, &event.RunStartedData{
			Workspace: r.ToolEnv.Workspace, Model: r.Model, Approval: st.Approval, Provider: r.ProviderName, MaxSteps: r.maxSteps(), Allow: st.Allow, Deny: st.Deny,
			Sandbox: r.ToolEnv.RunSandbox(), ParentRun: st.ParentRun, ParentCall: st.ParentCall,
		}); err != nil {
			return err
		}
	}
	if len(st.Messages) == 0 {
		return r.AddUserMessage(ctx, st, prompt)
	}
	return r.flush(ctx, st, false)
}

// AddUserMessage journals a user message (the prompt, or resume --message).
func (r *Runner) AddUserMessage(ctx context.Context, st *State, text string) error {
	if err := r.record(ctx, st, &event.UserMessageData{Text: r.redact(text)}); err != nil {
		return err
	}
	return r.flush(ctx, st, false)
}

// RevokeGrant journals that a person withdrew one of the run's grants (the
// journal deletes the grant with the event, durably): the calls it covered
// ask again.
func (r *Runner) RevokeGrant(ctx context.Context, st *State, rule string) error {
	if err := r.record(ctx, st, &event.GrantRevokedData{Rule: rule, Source: event.SourceUser}); err != nil {
		return err
	}
	return r.flush(ctx, st, true)
}

func (r *Runner) maxSteps() int {
	if r.MaxSteps > 0 {
		return r.MaxSteps
	}
	return DefaultMaxSteps
}

// Run continues st until the model gives a final answer, the run fails, is
// interrupted, stops or pauses for a person. It journals run_finished.
func (r *Runner) Run(ctx context.Context, st *State) protocol.Outcome {
	out := r.loop(ctx, st)
	return r.finish(ctx, st, out)
}

func (r *Runner) loop(ctx context.Context, st *State) protocol.Outcome {
	start := st.Step // --max-steps bounds each stretch: a resumed run gets a fresh budget
	for {
		if err := r.DrainSwitches(ctx, st); err != nil {
			return protocol.Outcome{Status: event.StatusFailed, Err: err}
		}
		if len(st.Open) > 0 {
			if out, stop := r.runOpenCalls(ctx, st); stop {
				return out
			}
		}
		if err := ctx.Err(); err != nil {
			return protocol.Outcome{Status: event.StatusInterrupted, Err: err}
		}
		if st.Step-start >= r.maxSteps() {
			return protocol.Outcome{Status: event.StatusFailed, Err: Fail(ClassRuntime,
				fmt.Errorf("reached --max-steps %d without a final answer; raise --max-steps or narrow the request", r.maxSteps()))}
		}
		text, calls, usage, err := r.turn(ctx, st)
		if err != nil {
			if _, over := budget.IsExhausted(err); over {
				return protocol.Outcome{Status: event.StatusBudgetExhausted, Err: err}
			}
			if ctx.Err() != nil {
				return protocol.Outcome{Status: event.StatusInterrupted, Err: ctx.Err()}
			}
			return protocol.Outcome{Status: event.StatusFailed, Err: err}
		}
		refs := make([]event.ToolCallRef, len(calls))
		for i, c := range calls {
			refs[i] = event.ToolCallRef{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
		am := &event.AssistantMessageData{Step: st.Step, Text: text, ToolCalls: refs}
		tok := event.TokenCount{Input: usage.Input, Output: usage.Output, CacheRead: usage.CacheRead, CacheWrite: usage.CacheWrite}
		if tok.Plausible() {
			am.Tokens = &tok
		} else {
			// A provider's absurd usage would poison the run's totals and
			// its budget: recorded as unknown, and said.
			am.UsageWarning = fmt.Sprintf("the provider reported an impossible usage (input %d, output %d, cache read %d, cache write %d tokens); recorded as unknown",
				tok.Input, tok.Output, tok.CacheRead, tok.CacheWrite)
		}
		if err := r.record(ctx, st, am); err != nil {
			return protocol.Outcome{Status: event.StatusFailed, Err: err}
		}
		if len(calls) == 0 {
			if err := r.DrainSwitches(ctx, st); err != nil {
				return protocol.Outcome{Status: event.StatusFailed, Err: err}
			}
			if st.Approval == event.ApprovalPlan {
				// plan mode: the turn's end is the plan, which waits for a person
				return protocol.Outcome{Status: event.StatusAwaitingApproval, Answer: text, Plan: PlanText(st, text)}
			}
			return protocol.Outcome{Status: event.StatusCompleted, Answer: text}
		}
	}
}

// turn asks the model once and assembles its streamed answer.
func (r *Runner) turn(ctx context.Context, st *State) (string, []ToolCall, Usage, error) {
	built, err := r.buildRequest(ctx, st)
	if err != nil {
		return "", nil, Usage{}, err
	}
	req := built.Request
	if err := r.checkBudget(st, built.Report); err != nil {
		return "", nil, Usage{}, err
	}
	mr := &event.ModelRequestData{Step: st.Step + 1, Context: built.Report, Spent: st.Spend.Spent(r.Prices)}
	if m := requestModel(st); m != "" {
		req.Model, mr.Model = m, m
	}
	if err := r.record(ctx, st, mr); err != nil {
		return "", nil, Usage{}, err
	}
	// Committed before the request is sent.
	if err := r.flush(ctx, st, false); err != nil {
		return "", nil, Usage{}, err
	}
	stream, err := r.Provider.Stream(ctx, req)
	if err != nil {
		return "", nil, Usage{}, Fail(ClassModel, err)
	}
	defer stream.Close()
	var text strings.Builder
	var usage Usage
	asm := newCallAssembler(st.Step)
	live := r.liveText()
	defer func() { live.Close() }()
	textOpen := false // text went to live since the last flush
	shown := r.liveCalls()
	defer shown.close()
	for {
		se, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", nil, Usage{}, Fail(ClassModel, err)
		}
		switch se.Kind {
		case EvTextDelta:
			text.WriteString(se.Text)
			io.WriteString(live, se.Text)
			textOpen = true
		case EvToolCallStart, EvToolCallDelta, EvToolCallEnd:
			if textOpen {
				// the text before a call is shown before the call: the
				// redactor's held-back tail is let out now (a secret
				// cannot continue across a tool call)
				live.Close()
				live, textOpen = r.liveText(), false
			}
			asm.add(se)
			shown.add(st.Step, se)
		case EvUsage:
			usage = se.Usage
		case EvError:
			return "", nil, Usage{}, Fail(ClassModel, se.Err)
		}
	}
	calls := asm.calls()
	for i := range calls {
		calls[i].Arguments = r.redactArgs(calls[i].Arguments)
		if r.CallIDs != nil {
			calls[i].ID = r.CallIDs(st.RunID, calls[i].ID)
		}
	}
	return r.redact(text.String()), calls, usage, nil
}

// liveText returns where the model's streamed text goes for display: through
// a streaming redactor, so a secret split across chunks is still caught. A
// redactor that cannot stream gets the whole text once the turn ends.
func (r *Runner) liveText() io.WriteCloser {
	if r.Observer.Delta == nil {
		return nopWriteCloser{io.Discard}
	}
	out := funcWriter(r.Observer.Delta)
	switch red := r.Redactor.(type) {
	case nil:
		return nopWriteCloser{out}
	case StreamRedactor:
		return red.NewStream(out)
	}
	return &bufferedRedact{r: r.Redactor, w: out}
}

// liveCalls shows streaming tool calls to the observer, each call's
// arguments through its own streaming redactor.
func (r *Runner) liveCalls() *callStreams {
	return &callStreams{r: r, by: map[int]io.WriteCloser{}}
}

type callStreams struct {
	r  *Runner
	by map[int]io.WriteCloser
}

func (c *callStreams) add(step int, se StreamEvent) {
	obs := c.r.Observer.CallDelta
	if obs == nil {
		return
	}
	switch se.Kind {
	case EvToolCallStart:
		idx, id, name := se.Index, se.ID, se.Name
		obs(protocol.CallDelta{Step: step, Index: idx, ID: id, Name: name})
		var w io.Writer = funcWriter(func(s string) { obs(protocol.CallDelta{Step: step, Index: idx, ID: id, Name: name, Text: s}) })
		switch red := c.r.Redactor.(type) {
		case nil:
			c.by[idx] = nopWriteCloser{w}
		case StreamRedactor:
			c.by[idx] = red.NewStream(w)
		default:
			c.by[idx] = &bufferedRedact{r: c.r.Redactor, w: w}
		}
	case EvToolCallDelta:
		if w := c.by[se.Index]; w != nil {
			io.WriteString(w, se.Text)
		}
	case EvToolCallEnd:
		if w := c.by[se.Index]; w != nil {
			w.Close()
			delete(c.by, se.Index)
			obs(protocol.CallDelta{Step: step, Index: se.Index, Done: true})
		}
	}
}

func (c *callStreams) close() {
	for i, w := range c.by {
		w.Close()
		delete(c.by, i)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

type bufferedRedact struct {
	r Redactor
	w io.Writer
	b strings.Builder
}

func (b *bufferedRedact) Write(p []byte) (int, error) { return b.b.Write(p) }
func (b *bufferedRedact) Close() error {
	_, err := io.WriteString(b.w, b.r.Redact(b.b.String()))
	return err
}

// redactArgs redacts the string values of a call's JSON arguments, keeping
// the JSON well-formed (redacting the raw text could swallow quotes and
// braces). Arguments that do not parse are redacted as text: they are
// answered with an error anyway.
func (r *Runner) redactArgs(args string) string {
	if r.Redactor == nil {
		return args
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return r.redact(args)
	}
	changed := false
	v = redactValue(r.Redactor, v, &changed)
	if !changed {
		return args
	}
	out, err := json.Marshal(v)
	if err != nil {
		return r.redact(args)
	}
	return string(out)
}

func redactValue(red Redactor, v any, changed *bool) any {
	switch x := v.(type) {
	case string:
		if y := red.Redact(x); y != x {
			*changed = true
			return y
		}
	case []any:
		for i := range x {
			x[i] = redactValue(red, x[i], changed)
		}
	case map[string]any:
		for k := range x {
			x[k] = redactValue(red, x[k], changed)
		}
	}
	return v
}

// runOpenCalls executes the calls of the newest assistant message that have no
// result. It reports stop when the run must end here.
func (r *Runner) runOpenCalls(ctx context.Context, st *State) (protocol.Outcome, bool) {
	for len(st.Open) > 0 {
		oc := st.Open[0]
		if err := ctx.Err(); err != nil {
			return protocol.Outcome{Status: event.StatusInterrupted, Err: err}, true
		}
		if r.Subagents != nil && oc.Call.Name == tools.TaskName {
			if out, stop := r.runTasks(ctx, st); stop {
				return out, true
			}
			continue
		}
		out, stop := r.runCall(ctx, st, oc)
		if stop {
			return out, true
		}
	}
	return protocol.Outcome{}, false
}

// toolResult journals a call's result.
func (r *Runner) toolResult(ctx context.Context, st *State, callID string, status event.ResultStatus, output string) error {
	return r.record(ctx, st, &event.ToolResultData{CallID: callID, Status: status, Output: r.redact(output)})
}

func (r *Runner) runCall(ctx context.Context, st *State, oc *OpenCall) (protocol.Outcome, bool) {
	c := oc.Call
	tool, args, verr := r.Tools.Validate(c.Name, c.Arguments)
	risk := r.riskOf(c.Name)
	if !oc.Journaled {
		if err := r.record(ctx, st, &event.ToolCallData{CallID: c.ID, Name: c.Name, Arguments: c.Arguments, Risk: risk,
			Sandbox: r.ToolEnv.CallSandbox(c.Name, c.Arguments)}); err != nil {
			return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
		}
	}
	if verr != nil {
		return r.failedCall(ctx, st, c, verr.Error())
	}
	if oc.Approval == nil || oc.Approval.Pending {
		// a mode switched while the run was driven decides this call
		if err := r.DrainSwitches(ctx, st); err != nil {
			return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
		}
		req := protocol.ApprovalRequest{RunID: st.RunID, Step: st.Step, CallID: c.ID, Tool: c.Name, Arguments: c.Arguments, Risk: risk, Mode: st.Approval}
		dec, err := r.Approver.Approve(ctx, req)
		if err == nil && dec.Verdict == protocol.Pending {
			req.Diff, req.Reason = dec.Diff, dec.Reason
			if c.Name == tools.ApplyTaskChangesName && r.Subagents != nil {
				req.Diff = r.applyPreview(ctx, st, args)
			}
			var decided bool
			dec, decided, err = r.askPerson(ctx, st, &req)
			if err == nil && !decided {
				// Nobody can decide now, so no approval event: run_finished
				// with status awaiting_approval is the journaled fact (Apply
				// marks the call).
				return protocol.Outcome{Status: event.StatusAwaitingApproval, Pending: &req}, true
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return protocol.Outcome{Status: event.StatusInterrupted, Err: ctx.Err()}, true
			}
			return protocol.Outcome{Status: event.StatusFailed, Err: Fail(ClassPermission, err)}, true
		}
		switch {
		case risk == event.RiskRead && dec.Verdict == protocol.Allow && dec.Hook == "":
			// Reads are never asked; only a denial of a read is an audit fact.
		default:
			if err := r.record(ctx, st, &event.ApprovalData{
				CallID: c.ID, Decision: dec.Verdict.Event(), Scope: dec.Scope, Source: dec.Source,
				Rule: dec.Rule, Note: r.redact(dec.Note), Reason: r.redact(dec.Reason), ArgsHash: ArgsHash(c.Name, c.Arguments),
				Grant: dec.Grant, GrantExpires: dec.GrantExpires, Hook: r.redact(dec.Hook),
			}); err != nil {
				return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
			}
			if dec.Hook != "" { // a hook's answer is not asked for twice
				if err := r.flush(ctx, st, true); err != nil {
					return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
				}
			}
		}
	}
	if a := oc.Approval; a != nil && a.Decision == event.Deny {
		return r.deniedCall(ctx, st, c, a)
	}
	return r.execute(ctx, st, oc, tool, args)
}

// deniedCall returns a denial to the model. A person's denial without a note
// ends the turn (stopped); with a note, or by a rule or mode, the run goes on.
func (r *Runner) deniedCall(ctx context.Context, st *State, c ToolCall, a *event.ApprovalData) (protocol.Outcome, bool) {
	msg := fmt.Sprintf("denied: %s was not run", c.Name)
	switch {
	case a.Source == event.SourceUser && a.Note != "":
		msg += ". The user said: " + a.Note
	case a.Source == event.SourceUser && a.Reason != "":
		msg += ": " + a.Reason // cancelled with the person's decision on another call
	case a.Source == event.SourceUser:
		msg += " (denied by the user)"
	case a.Reason != "":
		msg += ": " + a.Reason + ". Do not retry it; choose another way or ask the user"
	case a.Rule != "":
		msg += " (denied by rule " + a.Rule + "); do not retry it, choose another way or ask the user"
	default:
		msg += " (denied by approval mode " + string(st.Approval) + "); do not retry it"
	}
	if err := r.toolResult(ctx, st, c.ID, event.ResultDenied, msg); err != nil {
		return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
	}
	if a.Source == event.SourceUser && a.Note == "" && a.Reason == "" {
		for len(st.Open) > 0 { // the turn ends: the other calls are not run
			oc := st.Open[0]
			if !oc.Journaled {
				if err := r.record(ctx, st, &event.ToolCallData{CallID: oc.Call.ID, Name: oc.Call.Name, Arguments: oc.Call.Arguments, Risk: r.riskOf(oc.Call.Name)}); err != nil {
					return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
				}
			}
			// The person's denial decided this call too: an audit fact.
			if err := r.record(ctx, st, &event.ApprovalData{CallID: oc.Call.ID, Decision: event.Deny, Scope: event.ScopeOnce, Source: event.SourceUser,
				Reason: "not run: the person denied " + c.ID + ", which ends the turn", ArgsHash: ArgsHash(oc.Call.Name, oc.Call.Arguments)}); err != nil {
				return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
			}
			if err := r.toolResult(ctx, st, oc.Call.ID, event.ResultDenied, "not run: the user stopped the turn"); err != nil {
				return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
			}
		}
		return protocol.Outcome{Status: event.StatusStopped}, true
	}
	return protocol.Outcome{}, false
}

// failedCall returns a tool error and stops the run when the same failing call
// keeps coming back.
func (r *Runner) failedCall(ctx context.Context, st *State, c ToolCall, msg string) (protocol.Outcome, bool) {
	if err := r.toolResult(ctx, st, c.ID, event.ResultError, msg); err != nil {
		return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
	}
	if n := st.failures[failureKey(c, r.redact(msg))]; n >= repeatLimit {
		return protocol.Outcome{Status: event.StatusFailed, Err: Fail(ClassTool,
			fmt.Errorf("the model repeated the same failing %s call %d times: %s", c.Name, n, firstLine(msg)))}, true
	}
	return protocol.Outcome{}, false
}

// riskOf is the registry's risk of a tool; an unknown tool counts as exec.
func (r *Runner) riskOf(name string) event.Risk {
	if t, ok := r.Tools.Get(name); ok {
		return t.Risk()
	}
	return event.RiskExec
}

func (r *Runner) execute(ctx context.Context, st *State, oc *OpenCall, tool tools.Tool, args json.RawMessage) (protocol.Outcome, bool) {
	c := oc.Call
	risk := tool.Risk()
	snap := r.Checkpointer != nil && risk != event.RiskRead
	if snap {
		// For a file write this is the last event before the effect: fsynced.
		// A command's is command_started, journaled once its process exists.
		if err := r.checkpoint(ctx, st, c.ID, event.CheckpointBefore, r.touched(tool, c), risk == event.RiskWrite); err != nil {
			return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
		}
	}
	if risk == event.RiskWrite || tools.Remote(c.Name) {
		// The intent of a write is durable before the write (with a
		// checkpointer, the before-checkpoint's sync did it); so is that of
		// an MCP call before it is sent, which a resume must not send again.
		if err := r.flush(ctx, st, true); err != nil {
			return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
		}
	}
	env := r.ToolEnv
	if risk == event.RiskExec {
		env = env.ForCall(st.RunID+"/"+c.ID, func(id proc.Identity) error {
			return r.recordSync(context.WithoutCancel(ctx), st, &event.CommandStartedData{CallID: c.ID, PID: id.PID, PGID: id.PGID,
				BootID: id.BootID, StartTicks: id.StartTicks, Marker: id.Marker})
		})
		// Only a person's approval of scope escalate lets a call leave the
		// sandbox: not a rule's, the mode's or a run grant's, whatever scope
		// a journaled decision claims.
		env.OutsideSandbox = escalated(oc.Approval)
	}
	var live *outputTail
	if risk == event.RiskExec && env != r.ToolEnv {
		// a per-call env (ForCall): the command's output shows as it runs
		if live = r.liveOutput(c.ID); live != nil {
			env.Output = live
		}
	}
	var res tools.Result
	var err error
	if c.Name == tools.ApplyTaskChangesName && r.Subagents != nil {
		res, err = r.applyTask(ctx, st, args)
	} else {
		res, err = tool.Run(ctx, env, args)
	}
	live.Close()
	if snap {
		// The after-checkpoint is taken even when the call was interrupted:
		// whatever it did is recorded before the result is.
		changed := res.Changed
		if risk == event.RiskExec {
			changed = nil // a command may have touched anything: scan
		} else if changed == nil {
			changed = []string{}
		}
		if cerr := r.checkpoint(context.WithoutCancel(ctx), st, c.ID, event.CheckpointAfter, changed, false); cerr != nil {
			return protocol.Outcome{Status: event.StatusFailed, Err: cerr}, true
		}
	}
	if ctx.Err() != nil {
		out := "interrupted by the user before the call finished"
		if res.Output != "" {
			out += "; partial output:\n" + res.Output
		}
		if err := r.toolResult(context.WithoutCancel(ctx), st, c.ID, event.ResultInterrupted, out); err != nil {
			return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
		}
		return protocol.Outcome{Status: event.StatusInterrupted, Err: ctx.Err()}, true
	}
	if err != nil {
		return r.failedCall(ctx, st, c, r.afterCall(ctx, st, c, event.ResultError, err.Error()))
	}
	if res.IsError {
		return r.failedCall(ctx, st, c, r.afterCall(ctx, st, c, event.ResultError, res.Output))
	}
	res.Output = r.afterCall(ctx, st, c, event.ResultOK, res.Output)
	if err := r.record(ctx, st, &event.ToolResultData{CallID: c.ID, Status: event.ResultOK, Output: r.redact(res.Output),
		ExitCode: res.ExitCode, Background: r.processInfos(res.Background), Sandbox: r.sandboxInfo(res.Sandbox)}); err != nil {
		return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
	}
	return protocol.Outcome{}, false
}

// escalated reports whether a is a person's allow of this one call outside
// the OS sandbox (scope escalate, no run grant).
func escalated(a *event.ApprovalData) bool {
	return a != nil && !a.Pending && a.Decision == event.Allow && a.Scope == event.ScopeEscalate && a.Source == event.SourceUser && a.Grant == ""
}

// sandboxInfo is the journaled form of what a command ran under: the
// targets it blocked redacted (they come from the command's output).
func (r *Runner) sandboxInfo(in *event.SandboxInfo) *event.SandboxInfo {
	if in == nil || len(in.Blocked) == 0 {
		return in
	}
	out := *in
	out.Blocked = make([]event.SandboxBlock, len(in.Blocked))
	for i, b := range in.Blocked {
		b.Target = r.redact(b.Target)
		out.Blocked[i] = b
	}
	return &out
}

// processInfos is the journaled form of processes: command lines redacted.
func (r *Runner) processInfos(ps []proc.Info) []event.ProcessInfo {
	if len(ps) == 0 {
		return nil
	}
	out := make([]event.ProcessInfo, len(ps))
	for i, p := range ps {
		out[i] = event.ProcessInfo{PID: p.PID, Command: r.redact(p.Command)}
	}
	return out
}

// touched returns the workspace-relative paths a call can change: the file
// tool's path, or nil for a command (anything).
func (r *Runner) touched(tool tools.Tool, c ToolCall) []string {
	if tool.Risk() == event.RiskExec || c.Name == tools.ApplyTaskChangesName {
		return nil
	}
	out := []string{}
	for _, p := range callPaths(c) {
		if _, rel, err := tools.Resolve(r.ToolEnv.Workspace, p); err == nil {
			out = append(out, rel)
		}
	}
	return out
}

// finish ends what the run's commands left running and journals the end of
// a stretch of the run.
func (r *Runner) finish(ctx context.Context, st *State, out protocol.Outcome) protocol.Outcome {
	wctx := context.WithoutCancel(ctx)
	ended := r.endProcesses(wctx, st)
	if err := r.DrainSwitches(wctx, st); err != nil && out.Err == nil {
		out.Err = err
	}
	if out.Status == event.StatusFailed && out.Err != nil {
		_ = r.record(wctx, st, &event.ErrorData{Class: ClassOf(out.Err), Message: r.redact(out.Err.Error())})
	}
	if err := r.record(wctx, st, &event.RunFinishedData{
		Status: out.Status, Steps: st.Step, ToolCalls: st.ToolCalls,
		Tokens: event.TokenCount{Input: st.Tokens.Input, Output: st.Tokens.Output, CacheRead: st.Tokens.CacheRead, CacheWrite: st.Tokens.CacheWrite}, Answer: out.Answer, Ended: ended,
		Failure: r.diagnose(wctx, st, out.Status),
	}); err != nil && out.Err == nil {
		out.Err = err
	}
	if err := r.flush(wctx, st, false); err != nil && out.Err == nil {
		out.Err = err
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
