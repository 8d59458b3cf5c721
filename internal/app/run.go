package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/gofrs/flock"

	"agent/internal/agent"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/store"
)

// DefaultMaxSteps is how many model requests a run may make unless told
// otherwise (agent run --max-steps).
const DefaultMaxSteps = agent.DefaultMaxSteps

// Run is a run this session drives: it holds the run's lock until Close.
type Run struct {
	s      *Service
	id     string
	prompt string // the run row's prompt, for a run killed before it was journaled
	// checked is a message the user_prompt hooks passed already (a fork's
	// --message, checked before the fork was made): Message does not ask
	// them again about it.
	checked string
	state   *agent.State
	lock    *flock.Flock

	// stmu serializes the writers of the state outside Drive (a message, a
	// switch, a plan's decision) with each other and with the start of a
	// Drive. It is never held while waiting on a frontend.
	stmu sync.Mutex

	mu          sync.Mutex
	cancel      context.CancelFunc           // of the stretch being driven
	compactNext bool                         // CompactNext: the next Drive compacts first
	decided     map[string]protocol.Decision // Decide on a paused run: journaled by Resume
}

// ID is the run's id.
func (r *Run) ID() string { return r.id }

// State is the run's folded state. It is the loop's own: read it only
// while the run is not being driven.
func (r *Run) State() *agent.State { return r.state }

// NewRun creates a run of prompt in the session's workspace, takes its lock
// and journals its start; Drive then runs it. named, if set, is told the
// run's id before anything is journaled (a frontend shows it first).
func (s *Service) NewRun(ctx context.Context, prompt string, named func(runID string)) (*Run, error) {
	if strings.TrimSpace(prompt) == "" {
		return nil, usage("the request is empty")
	}
	if err := s.checkBudget(); err != nil {
		return nil, err
	}
	id := store.NewRunID()
	if err := s.promptHooks(ctx, id, prompt); err != nil {
		return nil, err
	}
	if named != nil {
		named(id)
	}
	r, err := s.createRun(ctx, id, prompt, "", s.Model(), s.Mode()) // as switched in the session
	if err != nil {
		return nil, err
	}
	if err := s.runner.Start(ctx, r.state, prompt); err != nil {
		r.Close()
		return nil, err
	}
	s.sessionHooks(id, "new")
	return r, nil
}

// createRun is the start NewRun and StartFork share: run id's approval
// policy, its row in the journal (listed with prompt), its lock and its
// first state in the session's workspace with model and mode. checked is
// the message whose prompt hooks ran already.
func (s *Service) createRun(ctx context.Context, id, prompt, checked, model string, mode event.ApprovalMode) (*Run, error) {
	set := s.set
	if err := s.setPolicy(id, mode, set.Allow, set.Deny); err != nil {
		return nil, err
	}
	if err := s.store.CreateRun(ctx, store.Run{ID: id, Workspace: set.Workspace, Model: model, Approval: mode, Prompt: s.red.Redact(prompt)}); err != nil {
		s.dropPolicy(id)
		return nil, err
	}
	r := &Run{s: s, id: id, prompt: prompt, checked: checked}
	if err := r.takeLock(); err != nil {
		s.dropPolicy(id)
		return nil, err
	}
	r.state = agent.NewState(id, set.Workspace, model, mode)
	r.state.Allow, r.state.Deny = set.Allow, set.Deny
	r.state.ModelSwitched = model != set.Model
	r.state.Spend.Limits = set.Budget
	r.startSwitches()
	return r, nil
}

// OpenRun takes over an existing run of the session's workspace: its lock,
// then its journal folded under the lock. The run keeps the approval rules
// it started with; the session's deny rules are added.
func (s *Service) OpenRun(ctx context.Context, id string) (*Run, error) {
	r, _, err := s.OpenRunHistory(ctx, id)
	return r, err
}

// OpenRunHistory is OpenRun that also returns the journal it folded, for a
// frontend that shows the run's transcript (the journal is read and
// decoded once).
func (s *Service) OpenRunHistory(ctx context.Context, id string) (*Run, []event.Event, error) {
	r, evs, err := s.openRun(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return r, evs, nil
}

func (s *Service) openRun(ctx context.Context, id string) (*Run, []event.Event, error) {
	row, err := s.store.GetRun(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	r := &Run{s: s, id: row.ID, prompt: row.Prompt}
	if err := r.takeLock(); err != nil {
		return nil, nil, err
	}
	evs, err := s.store.EventsForReopen(ctx, row.ID) // only the last request's report whole
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	st := agent.Fold(row.ID, evs)
	if err := checkNotChild(st); err != nil {
		r.Close()
		return nil, nil, err
	}
	if st.Approval == "" { // killed before run_started was journaled
		st.Approval, st.Model, st.Workspace = s.set.Approval, s.set.Model, ""
		st.Allow, st.Deny = s.set.Allow, s.set.Deny
	}
	// The run goes on in the session's mode and model (the run's own, as
	// switched, unless a flag or the environment names others), but a
	// run paused at its plan stays in plan mode until the plan is approved.
	if !st.AwaitingPlan() {
		st.Approval = s.Mode()
	} else {
		_ = s.SetMode(event.ApprovalPlan)
	}
	// the settings carry the run's model, unless switched in this session
	st.ModelSwitched = false
	if m := s.Model(); m != s.set.Model {
		st.Model, st.ModelSwitched = m, true
	}
	r.state = st
	r.startSwitches()
	if err := s.setPolicy(row.ID, st.Approval, st.Allow, append(append([]string{}, st.Deny...), s.set.Deny...)); err != nil {
		r.Close()
		return nil, nil, err
	}
	if err := s.runner.Begin(ctx, st, row.Prompt); err != nil {
		r.Close()
		return nil, nil, err
	}
	if raise := s.set.BudgetFlags; !raise.IsZero() {
		// --budget-* given to a continued run replace its limits of those
		// kinds (journaled as budget_changed)
		if err := s.runner.SetBudget(ctx, st, st.Spend.Limits.Over(raise), event.SourceUser); err != nil {
			r.Close()
			return nil, nil, err
		}
	}
	s.sessionHooks(row.ID, "resume")
	return r, evs, nil
}

func (r *Run) takeLock() error {
	l, err := TryLockRun(r.s.set.Home, r.id)
	if err != nil {
		return err
	}
	r.lock = l
	return nil
}

// Close releases the run's lock; the run stays in the journal.
func (r *Run) Close() {
	r.s.dropPolicy(r.id)
	r.s.sb.EndRun(r.id) // its spawner and temporary directory
	if r.lock != nil {
		r.lock.Unlock()
		r.lock = nil
	}
}

// Finished reports whether the run ended with a final answer or a person's
// stop (nothing to continue without a new message).
func (r *Run) Finished() bool { return protocol.Finished(r.state.Status) }

// Resume prepares a run that crashed, was interrupted or paused: it says
// what happens to every interrupted call (journaled as a resume event) and
// journals the decisions given with Decide since the run paused; Drive then
// continues it. A decision that does not fit the run is a *UsageError.
func (r *Run) Resume(ctx context.Context) error {
	_ = r.s.tools.ensure(ctx) // an open call may be an MCP server's; an error is the first Build's to report
	r.mu.Lock()
	opt := agent.ResumeOptions{Decisions: r.decided}
	r.decided = nil
	r.mu.Unlock()
	if err := r.s.runner.Resume(ctx, r.state, opt); err != nil {
		var re *agent.ResumeError
		if errors.As(err, &re) {
			return &UsageError{Err: err}
		}
		return err
	}
	return nil
}

// Message adds a person's message to the run's conversation; Drive then
// continues it.
func (r *Run) Message(ctx context.Context, text string) error {
	if strings.TrimSpace(text) == "" {
		return usage("the message is empty")
	}
	if len(r.state.Open) > 0 {
		ids := make([]string, len(r.state.Open))
		for i, oc := range r.state.Open {
			ids[i] = oc.Call.ID
		}
		return usage("run %s has calls without results (%s); decide them before adding a message", r.id, strings.Join(ids, ", "))
	}
	if text != r.checked {
		if err := r.s.promptHooks(ctx, r.id, text); err != nil {
			return err
		}
	}
	r.stmu.Lock()
	defer r.stmu.Unlock()
	r.checked = ""
	return r.s.runner.AddUserMessage(ctx, r.state, text)
}

// Drive runs the run until the model gives a final answer, the run fails,
// is interrupted (Interrupt, or ctx), stops or pauses for a person. It
// journals run_finished.
func (r *Run) Drive(ctx context.Context) protocol.Outcome {
	ctx, cancel := context.WithCancel(ctx)
	r.stmu.Lock() // a switch being journaled ends first
	r.mu.Lock()
	r.stmu.Unlock()
	r.cancel = cancel
	if r.compactNext {
		// the state is the loop's from here: set before it runs
		r.state.Context.Force, r.compactNext = true, false
	}
	r.mu.Unlock()
	defer func() {
		cancel()
		r.mu.Lock()
		r.cancel = nil
		r.mu.Unlock()
		r.stmu.Lock()
		r.drainSwitches(ctx) // a switch posted as the stretch ended
		r.stmu.Unlock()
	}()
	_ = r.s.tools.ensure(ctx) // the MCP servers, before an open call runs; an error is the first Build's to report
	out := r.s.runner.Run(ctx, r.state)
	// The stretch's snapshots, durable in the object log, become a pack
	// and refs git reads; failing that, the next open or Close does it.
	_ = r.s.cps.Settle()
	if out.Pending != nil && r.s.runner.Decider == nil {
		r.s.approvalHooks(*out.Pending) // headless: the run pauses for a person
	}
	return out
}

// Interrupt stops the stretch being driven, as a signal would: a model
// request is abandoned, a running command's process group is killed, the
// run ends interrupted and can be continued.
func (r *Run) Interrupt() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
	}
}

// OpenCalls are the ids of the calls without a result (pending a
// decision, or cut short), in journal order.
func (r *Run) OpenCalls() []string {
	ids := make([]string, 0, len(r.state.Open))
	for _, oc := range r.state.Open {
		ids = append(ids, oc.Call.ID)
	}
	return ids
}

// PendingCalls are the ids of calls awaiting a person's decision.
func (r *Run) PendingCalls() []string { return r.state.PendingCalls() }

func (r *Run) String() string { return fmt.Sprintf("run %s", r.id) }

// Grants are the run's "allow for this run" grants that have not expired.
func (r *Run) Grants(ctx context.Context) ([]protocol.GrantInfo, error) {
	return r.s.Home().Grants(ctx, r.id)
}

// RevokeGrant withdraws one of the run's grants (journaled as
// grant_revoked, an audit fact); the calls it covered ask again. A rule the
// run has not granted is a *UsageError.
func (r *Run) RevokeGrant(ctx context.Context, rule string) error {
	r.mu.Lock()
	driving := r.cancel != nil
	r.mu.Unlock()
	if driving {
		return usage("run %s is being driven: interrupt it (Esc) before revoking a grant", r.id)
	}
	gs, err := r.Grants(ctx)
	if err != nil {
		return err
	}
	for _, g := range gs {
		if g.Rule == rule {
			return r.s.runner.RevokeGrant(ctx, r.state, rule)
		}
	}
	return usage("run %s has no active grant %q", r.id, rule)
}
