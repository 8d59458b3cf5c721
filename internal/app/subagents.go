package app

// Subagents: the children of task calls (agent.Subagents). Each child is
// a run of its own in the same journal (run_started names its parent_run
// and parent_call, its first user message is the task's prompt), with its
// own lock, approval policy, context builder and tools: an explorer gets
// the read-only tools in its parent's workspace; a worker gets every tool
// in its own git worktree (worktree.go), under its parent's approval mode,
// rules and sandbox mode, and checkpoints there. A child that waits for a
// person asks through its parent's frontend (childDecider), or, headless,
// pauses its parent; a resume of the parent continues the same children.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"agent/internal/agent"
	"agent/internal/approval"
	"agent/internal/budget"
	"agent/internal/checkpoint"
	"agent/internal/contextbuild"
	"agent/internal/event"
	"agent/internal/policy"
	"agent/internal/protocol"
	"agent/internal/store"
	"agent/internal/tools"
)

// Bounds of what a task result carries to the parent's model (the child's
// whole transcript stays in its journal).
const (
	maxTaskAnswer = 12000
	maxTaskDiff   = 24000
)

// subagentState is the session's bookkeeping of children: a semaphore per
// parent run (max_parallel at once) and the decisions a person gave on
// children's calls while their parent was paused.
type subagentState struct {
	mu      sync.Mutex
	sems    map[string]chan struct{}
	decided map[string]map[string]protocol.Decision // child run -> call -> decision
	ids     map[string]map[string]bool              // top run -> call ids of its tree
}

// claimTree records the call ids of a tree's top run and of the children
// its task calls name (their journals), once per process and top.
func (ss *subagentState) claimTree(ctx context.Context, st *store.Store, top *agent.State) {
	ss.mu.Lock()
	if ss.ids == nil {
		ss.ids = map[string]map[string]bool{}
	}
	_, known := ss.ids[top.RunID]
	if !known {
		ss.ids[top.RunID] = map[string]bool{}
	}
	ss.mu.Unlock()
	claim := func(msgs []agent.Message) {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		for _, m := range msgs {
			for _, c := range m.ToolCalls {
				ss.ids[top.RunID][c.ID] = true
			}
		}
	}
	claim(top.Messages) // the top's newest calls too
	if known {
		return
	}
	for _, ts := range top.Tasks {
		if evs, err := st.Events(ctx, ts.ChildRun, 0); err == nil {
			claim(agent.Fold(ts.ChildRun, evs).Messages)
		}
	}
}

// topID is uniqueID for a run's own calls: renamed only when the run has
// a tree of subagents and one of them has the id.
func (ss *subagentState) topID(run, id string) string {
	ss.mu.Lock()
	_, tree := ss.ids[run]
	ss.mu.Unlock()
	if !tree {
		return id
	}
	return ss.uniqueID(run, run, id)
}

// uniqueID returns id, or a variant of it, that no call of the tree of
// top has yet, and records it.
func (ss *subagentState) uniqueID(top, child, id string) string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	set := ss.ids[top]
	if set == nil {
		set = map[string]bool{}
		if ss.ids == nil {
			ss.ids = map[string]map[string]bool{}
		}
		ss.ids[top] = set
	}
	out := id
	tag := child[len(child)-min(6, len(child)):]
	for n := 0; set[out]; n++ {
		out = fmt.Sprintf("%s_%s", id, tag)
		if n > 0 {
			out = fmt.Sprintf("%s_%s%d", id, tag, n)
		}
	}
	set[out] = true
	return out
}

func (ss *subagentState) sem(parent string, n int) chan struct{} {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.sems == nil {
		ss.sems = map[string]chan struct{}{}
	}
	c, ok := ss.sems[parent]
	if !ok {
		c = make(chan struct{}, n)
		ss.sems[parent] = c
	}
	return c
}

func (ss *subagentState) decide(child, call string, d protocol.Decision) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.decided == nil {
		ss.decided = map[string]map[string]protocol.Decision{}
	}
	if ss.decided[child] == nil {
		ss.decided[child] = map[string]protocol.Decision{}
	}
	ss.decided[child][call] = d
}

func (ss *subagentState) take(child string) map[string]protocol.Decision {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	d := ss.decided[child]
	delete(ss.decided, child)
	return d
}

// subagents is the agent.Subagents of the runs of one runner: depth is the
// depth of those runs in their tree (0: a run a person started).
type subagents struct {
	s      *Service
	runner *agent.Runner // the parents' runner (its Decider asks for children)
	depth  int
	top    string // the tree's top run, below depth 0 ("": the parent is the top)
}

var _ agent.Subagents = (*subagents)(nil)

// Prepare implements agent.Subagents.
func (sa *subagents) Prepare(ctx context.Context, parent *agent.State, callID string, args tools.TaskArgs, siblings int) (event.TaskStartedData, error) {
	s := sa.s
	ts := event.TaskStartedData{CallID: callID, ChildRun: store.NewRunID(), Kind: args.Kind, Description: oneLineLabel(args.Description), Depth: sa.depth + 1,
		Budget: budget.Share(&parent.Spend, sa.runner.Prices, s.set.Subagents.BudgetShare, siblings, time.Now()).Event()}
	if ts.Depth > s.set.Subagents.MaxDepth {
		return ts, fmt.Errorf("a subagent cannot start subagents of its own here ([subagents] max_depth = %d); do the task yourself", s.set.Subagents.MaxDepth)
	}
	if args.Kind == event.TaskWorker {
		// made by Run, after task_started is journaled: a crash in between
		// leaves a named worktree that a resume makes or finishes
		ts.Worktree, ts.Branch = worktreeDir(s.set.Home, ts.ChildRun), taskBranch(ts.ChildRun)
		if err := checkWorkerRepo(parent.Workspace); err != nil {
			return ts, fmt.Errorf("%w; or use kind explore", err)
		}
	}
	return ts, nil
}

// Run implements agent.Subagents.
func (sa *subagents) Run(ctx context.Context, parent *agent.State, ts event.TaskStartedData, args tools.TaskArgs) agent.TaskResult {
	n := sa.s.set.Subagents.MaxParallel
	if n < 1 {
		n = 1
	}
	sem := sa.s.subs.sem(parent.RunID, n)
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return agent.TaskResult{Status: event.ResultInterrupted}
	}
	defer func() { <-sem }()
	res, err := sa.run(ctx, parent, ts, args)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrRunInUse) {
			// not a result: the task call stays open for a resume
			return agent.TaskResult{Status: event.ResultInterrupted}
		}
		return agent.TaskResult{Status: event.ResultError, Output: fmt.Sprintf("task %q (run %s) could not run: %v", ts.Description, ts.ChildRun, err)}
	}
	return res
}

func (sa *subagents) run(ctx context.Context, parent *agent.State, ts event.TaskStartedData, args tools.TaskArgs) (agent.TaskResult, error) {
	s := sa.s
	ws := parent.Workspace
	if ts.Kind == event.TaskWorker {
		ws = ts.Worktree
	}
	if ts.Kind == event.TaskWorker && ts.Base == "" {
		base, err := ensureWorktree(ctx, s.set.Home, parent.Workspace, ts)
		if err != nil {
			return agent.TaskResult{}, err
		}
		ts.Base = base
	}
	row, err := s.store.GetRun(ctx, ts.ChildRun)
	exists := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return agent.TaskResult{}, err
	}
	if exists && row.ID != ts.ChildRun { // a prefix of another run's id: never
		exists = false
	}
	if exists {
		evs, err := s.store.Events(ctx, ts.ChildRun, 0)
		if err != nil {
			return agent.TaskResult{}, err
		}
		if st := agent.Fold(ts.ChildRun, evs); ended(st.Status) {
			// Finished before the parent journaled its result (a crash in
			// between): its result is rebuilt from its journal.
			return sa.result(ctx, ts, st, protocol.Outcome{Status: st.Status, Answer: st.Answer, Err: lastError(evs)}), nil
		}
	}
	if sa.top == "" { // the parent is the tree's top
		s.subs.claimTree(ctx, s.store, parent)
	}
	cr, done, err := sa.childRunner(ts, ws, parent.RunID)
	if err != nil {
		return agent.TaskResult{}, err
	}
	defer done()
	lock, err := TryLockRun(s.set.Home, ts.ChildRun)
	if err != nil {
		return agent.TaskResult{}, err
	}
	defer lock.Unlock()
	mode := parent.Approval
	if err := s.setPolicyIn(ts.ChildRun, mode, parent.Allow, parent.Deny, ws); err != nil {
		return agent.TaskResult{}, err
	}
	defer s.dropPolicy(ts.ChildRun)
	var st *agent.State
	if !exists {
		if err := s.store.CreateRun(ctx, store.Run{ID: ts.ChildRun, Workspace: ws, Model: parent.Model, Approval: mode, Prompt: s.red.Redact(args.Prompt)}); err != nil {
			return agent.TaskResult{}, err
		}
		st = agent.NewState(ts.ChildRun, ws, parent.Model, mode)
		st.Allow, st.Deny = parent.Allow, parent.Deny
		st.ParentRun, st.ParentCall = parent.RunID, ts.CallID
		st.Spend.Limits = budget.FromEvent(ts.Budget)
		if err := cr.Start(ctx, st, args.Prompt); err != nil {
			return agent.TaskResult{}, err
		}
	} else {
		evs, err := s.store.Events(ctx, ts.ChildRun, 0)
		if err != nil {
			return agent.TaskResult{}, err
		}
		st = agent.Fold(ts.ChildRun, evs)
		if st.Workspace == "" { // killed before its start was journaled
			st.Approval, st.Model, st.Allow, st.Deny = mode, parent.Model, parent.Allow, parent.Deny
			st.ParentRun, st.ParentCall = parent.RunID, ts.CallID
			st.Spend.Limits = budget.FromEvent(ts.Budget)
		}
		if err := cr.Begin(ctx, st, args.Prompt); err != nil {
			return agent.TaskResult{}, err
		}
		if err := cr.Resume(ctx, st, agent.ResumeOptions{Decisions: s.subs.take(ts.ChildRun)}); err != nil {
			return agent.TaskResult{}, err
		}
	}
	out := cr.Run(ctx, st)
	return sa.result(ctx, ts, st, out), nil
}

// ended reports whether a child has nothing left to do without a person's
// new message.
func ended(s event.Status) bool {
	switch s {
	case event.StatusCompleted, event.StatusStopped, event.StatusFailed, event.StatusBudgetExhausted:
		return true
	}
	return false
}

func lastError(evs []event.Event) error {
	for i := len(evs) - 1; i >= 0; i-- {
		if e, ok := evs[i].Data.(*event.ErrorData); ok {
			return errors.New(e.Message)
		}
	}
	return nil
}

// result is what the parent's model gets of a child's outcome.
func (sa *subagents) result(ctx context.Context, ts event.TaskStartedData, st *agent.State, out protocol.Outcome) agent.TaskResult {
	res := sa.outcome(ctx, ts, st, out)
	if res.Status != event.ResultInterrupted && res.Pending == nil {
		res.Usage = maps.Clone(st.Spend.ByModel)
	}
	return res
}

// outcome is result without the child's usage.
func (sa *subagents) outcome(ctx context.Context, ts event.TaskStartedData, st *agent.State, out protocol.Outcome) agent.TaskResult {
	head := fmt.Sprintf("task %q (%s, run %s)", ts.Description, ts.Kind, ts.ChildRun)
	switch out.Status {
	case event.StatusCompleted:
		var b strings.Builder
		fmt.Fprintf(&b, "%s finished. Its answer:\n%s", head, bound(out.Answer, maxTaskAnswer))
		if ts.Kind == event.TaskWorker {
			b.WriteString("\n\n")
			b.WriteString(sa.diffReport(ctx, ts))
		}
		return agent.TaskResult{Status: event.ResultOK, Output: b.String()}
	case event.StatusAwaitingApproval:
		if out.Pending != nil {
			p := *out.Pending
			if p.Subagent == "" {
				p.Subagent, p.ChildRun = ts.Description, ts.ChildRun
			}
			p.RunID = st.ParentRun
			return agent.TaskResult{Pending: &p}
		}
		return agent.TaskResult{Status: event.ResultError, Output: head + " is awaiting a person's approval"}
	case event.StatusInterrupted:
		return agent.TaskResult{Status: event.ResultInterrupted}
	case event.StatusStopped:
		return agent.TaskResult{Status: event.ResultError, Output: head + " was stopped by the person (a denial): it did not finish"}
	case event.StatusBudgetExhausted:
		msg := head + " ended with budget_exhausted: it reached its share of the budget before finishing"
		if out.Err != nil {
			msg += " (" + out.Err.Error() + ")"
		}
		if st.Answer != "" {
			msg += ". Its last answer:\n" + bound(st.Answer, maxTaskAnswer)
		}
		if ts.Kind == event.TaskWorker {
			msg += "\n\n" + sa.diffReport(ctx, ts)
		}
		return agent.TaskResult{Status: event.ResultError, Output: msg}
	}
	msg := head + " failed"
	if out.Err != nil {
		msg += ": " + out.Err.Error()
	}
	if ts.Kind == event.TaskWorker {
		msg += "\n\n" + sa.diffReport(ctx, ts)
	}
	return agent.TaskResult{Status: event.ResultError, Output: msg}
}

// diffReport is a worker's changes for its parent's model.
func (sa *subagents) diffReport(ctx context.Context, ts event.TaskStartedData) string {
	base, err := worktreeBase(ts)
	if err != nil {
		return "Its changes could not be read: " + err.Error()
	}
	files, diff, err := worktreeChanges(ctx, sa.s.set.Home, ts.Worktree, base, true)
	if err != nil {
		return "Its changes could not be read: " + err.Error()
	}
	if len(files) == 0 {
		return fmt.Sprintf("It changed no file (worktree %s, branch %s).", ts.Worktree, ts.Branch)
	}
	return fmt.Sprintf("It changed %d file(s) in its worktree %s (branch %s); bring them into this workspace with "+
		"apply_task_changes {\"call_id\": %q}. Its diff against its base:\n%s", len(files), ts.Worktree, ts.Branch, ts.CallID,
		bound(sa.s.red.Redact(diff), maxTaskDiff))
}

// bound cuts s to at most n bytes, saying so.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("\n[... cut: %d more bytes; the whole text is in the child's journal]", len(s)-n)
}

func oneLineLabel(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// Diff implements agent.Subagents.
func (sa *subagents) Diff(ctx context.Context, parent *agent.State, ts event.TaskStartedData) (string, error) {
	base, err := worktreeBase(ts)
	if err != nil {
		return "", err
	}
	_, diff, err := worktreeChanges(ctx, sa.s.set.Home, ts.Worktree, base, true)
	if err != nil {
		return "", err
	}
	if diff == "" {
		return "(the worker changed no file)", nil
	}
	return sa.s.red.Redact(diff), nil
}

// Apply implements agent.Subagents.
func (sa *subagents) Apply(ctx context.Context, parent *agent.State, ts event.TaskStartedData) (tools.Result, error) {
	row, err := sa.s.store.GetRun(ctx, ts.ChildRun)
	if err != nil {
		return tools.Result{}, fmt.Errorf("the worker of task call %s never started: %w", ts.CallID, err)
	}
	if !ended(row.Status) {
		return tools.Result{}, fmt.Errorf("the worker of task call %s has not finished (status %s)", ts.CallID, row.Status)
	}
	base, err := worktreeBase(ts)
	if err != nil {
		return tools.Result{}, err
	}
	applied, same, conflicts, err := applyWorktree(ctx, sa.s.set.Home, parent.Workspace, ts.Worktree, base)
	res := tools.Result{Changed: applied}
	if res.Changed == nil {
		res.Changed = []string{}
	}
	if err != nil {
		return res, fmt.Errorf("apply the changes of task call %s (applied so far: %s): %w", ts.CallID, listOr(applied), err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "applied %d file(s) of task call %s: %s", len(applied), ts.CallID, listOr(applied))
	if len(same) > 0 {
		fmt.Fprintf(&b, "\nalready as the worker left them: %s", strings.Join(same, ", "))
	}
	if len(conflicts) > 0 {
		fmt.Fprintf(&b, "\nCONFLICTS, not applied (%d):\n- %s", len(conflicts), strings.Join(conflicts, "\n- "))
		res.IsError = true
	}
	res.Output = b.String()
	return res, nil
}

func listOr(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}

// setPolicyIn is setPolicy for a run whose workspace is ws.
func (s *Service) setPolicyIn(runID string, mode event.ApprovalMode, allow, deny []string, ws string) error {
	m, err := policy.ParseMode(string(mode))
	if err != nil {
		return err
	}
	p, err := policy.New(m, allow, append(append([]string{}, deny...), s.set.Deny...), ws)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.policies[runID] = p
	s.mu.Unlock()
	return nil
}

// childRunner is the loop of one child: the session's runner with the
// child's tools, workspace, sandbox, checkpoints, context builder and
// approvals. done releases what it opened.
func (sa *subagents) childRunner(ts event.TaskStartedData, ws, parentRun string) (*agent.Runner, func(), error) {
	s := sa.s
	var closers []func()
	done := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	cr := *s.runner
	// Frontends see a child's events as UpdateChild of the run they drive
	// (the tree's top): never as the parent's own.
	top := parentRun
	if sa.top != "" {
		top = sa.top
	}
	cr.Observer = agent.Observer{Event: func(ev event.Event) {
		s.hub.publish(protocol.Update{Kind: protocol.UpdateChild, RunID: top, Event: ev})
	}}
	cr.Subagents = nil
	base := s.runner.ToolEnv
	env := &tools.Env{Workspace: ws, DefaultTimeoutSec: base.DefaultTimeoutSec, Sandbox: base.Sandbox, CommandEnv: base.CommandEnv,
		Escalation: base.Escalation, Hidden: base.Hidden}
	var reg *tools.Registry
	if ts.Kind == event.TaskWorker {
		reg = tools.Default()
		if ts.Depth < s.set.Subagents.MaxDepth {
			if err := reg.Add(tools.Task{}, tools.ApplyTaskChanges{}); err != nil {
				return nil, done, err
			}
			cr.Subagents = &subagents{s: s, runner: &cr, depth: ts.Depth, top: top}
		}
		set := *s.set
		set.Workspace = ws
		sb, cmdEnv := commandSandbox(&set, func(string) {}) // the session warned already
		closers = append(closers, sb.Close)
		env.Sandbox, env.CommandEnv = sb, cmdEnv
		cps, err := checkpoint.Open(s.set.Home, ws)
		if err != nil {
			return nil, done, fmt.Errorf("open the checkpoint repository of the worker's worktree: %w", err)
		}
		closers = append(closers, func() { cps.Close() })
		cr.Checkpointer = checkpoint.Checkpointer{Store: cps}
	} else {
		reg = tools.NewRegistry(tools.ReadFile{}, tools.ListDir{}, tools.Glob{}, tools.Grep{})
		cr.Checkpointer = nil
		closers = append(closers, func() { s.sb.EndRun(ts.ChildRun) })
	}
	specs, err := contextbuild.Specs(reg)
	if err != nil {
		return nil, done, err
	}
	o := s.cbOpt
	o.Workspace, o.Tools = ws, specs
	if ts.Kind == event.TaskWorker {
		o.RepoMap = &repoMapper{root: ws, store: s.store, warn: s.warn, red: s.red}
	}
	cb, err := contextbuild.New(o)
	if err != nil {
		return nil, done, err
	}
	cr.Tools, cr.ToolEnv, cr.Context = reg, env, cb
	cr.CallIDs = func(_, id string) string { return s.subs.uniqueID(top, ts.ChildRun, id) }
	cr.Approver = &approval.Approver{PolicyFor: s.policyFor, Grants: s.store, TTL: s.set.RunGrantTTL, Tools: reg, ToolEnv: env}
	if sa.runner.Decider != nil {
		cr.Decider = &childDecider{inner: sa.runner.Decider, label: ts.Description, child: ts.ChildRun, parent: parentRun}
	} else {
		cr.Decider = nil
	}
	return &cr, done, nil
}

// childDecider asks a person about a child's call through its parent's
// Decider: the question is the parent's (a frontend decides it on the run
// it drives), labelled with the child's description.
type childDecider struct {
	inner        agent.Decider
	label, child string
	parent       string
}

// Await implements agent.Decider.
func (d *childDecider) Await(ctx context.Context, req protocol.ApprovalRequest) (protocol.Decision, bool, error) {
	if req.Subagent == "" {
		req.Subagent, req.ChildRun = d.label, d.child
	}
	if d.parent != "" {
		req.RunID = d.parent
	}
	return d.inner.Await(ctx, req)
}
