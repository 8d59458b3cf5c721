package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"agent/internal/agent"
	"agent/internal/event"
)

// switches are the session's current approval mode and model, as switched
// in the session (shift+tab, /mode, /model, an approved plan); zero: the
// settings'. A new run starts with them.
type switches struct {
	mu    sync.Mutex
	mode  event.ApprovalMode
	model string
}

// Mode is the session's approval mode: the settings', or the one switched to.
func (s *Service) Mode() event.ApprovalMode {
	s.sw.mu.Lock()
	defer s.sw.mu.Unlock()
	if s.sw.mode != "" {
		return s.sw.mode
	}
	return s.set.Approval
}

// Model is the session's model: the settings', or the one switched to.
func (s *Service) Model() string {
	s.sw.mu.Lock()
	defer s.sw.mu.Unlock()
	if s.sw.model != "" {
		return s.sw.model
	}
	return s.set.Model
}

// ModeNames are the approval modes, strictest first, for a frontend to
// offer.
func ModeNames() []event.ApprovalMode { return event.ApprovalModes() }

// NextMode is the mode shift+tab goes to from m: the next looser one, from
// full-auto back to read-only.
func NextMode(m event.ApprovalMode) event.ApprovalMode {
	ms := event.ApprovalModes()
	i := slices.Index(ms, m)
	return ms[(i+1)%len(ms)]
}

// ParseMode reads a mode a person typed (/mode NAME): a *UsageError names
// the valid ones.
func ParseMode(s string) (event.ApprovalMode, error) {
	n := event.ApprovalMode(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-"))
	if !n.Valid() {
		names := make([]string, 0, 5)
		for _, m := range event.ApprovalModes() {
			names = append(names, string(m))
		}
		return "", usage("unknown approval mode %q: use one of %s", s, strings.Join(names, ", "))
	}
	return n, nil
}

// SetMode switches the session's approval mode for the runs it starts next
// (with no run open; Run.SetMode switches a run's).
func (s *Service) SetMode(mode event.ApprovalMode) error {
	if !mode.Valid() {
		_, err := ParseMode(string(mode))
		return err
	}
	s.sw.mu.Lock()
	s.sw.mode = mode
	s.sw.mu.Unlock()
	return nil
}

// modelLister is a provider that can list its models.
type modelLister interface {
	ListModels(ctx context.Context) ([]string, error)
}

// Models lists the provider's models (GET /v1/models). An endpoint without
// the list, or a replayed script, is an error that says so.
func (s *Service) Models(ctx context.Context) ([]string, error) {
	l, ok := s.runner.Provider.(modelLister)
	if !ok {
		return nil, errors.New("this session's model source has no model list (a replayed script)")
	}
	return l.ListModels(ctx)
}

// checkName refuses what cannot be a model name: empty, flag-like, with
// spaces.
func checkName(name string) error {
	switch {
	case name == "":
		return usage("no model name: /model NAME switches, /model alone lists the provider's models")
	case strings.HasPrefix(name, "-"):
		return usage("%q is not a model name (/model takes no flags): /model NAME switches, /model alone lists the models", name)
	case strings.ContainsAny(name, " \t\n"):
		return usage("%q is not a model name (one word, no spaces)", name)
	}
	return nil
}

// CheckModel checks a model name a person gave (/model NAME) against the
// provider's list. A name that is empty, looks like a flag or has spaces,
// or that the list does not hold, is a *UsageError naming the fix; when
// the list cannot be had the name is accepted and note says why it was not
// checked.
func (s *Service) CheckModel(ctx context.Context, name string) (note string, err error) {
	name = strings.TrimSpace(name)
	if err := checkName(name); err != nil {
		return "", err
	}
	list, lerr := s.Models(ctx)
	if lerr != nil {
		return fmt.Sprintf("could not check %s against the provider's list (%v); the next request will tell", name, lerr), nil
	}
	if slices.Contains(list, name) {
		return "", nil
	}
	shown := list
	if len(shown) > 8 {
		shown = shown[:8]
	}
	more := ""
	if len(list) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(list)-len(shown))
	}
	return "", usage("unknown model %q: the provider lists %s%s (/model shows them all)", name, strings.Join(shown, ", "), more)
}

// SetModel switches the session's model for the runs it starts next (a
// name CheckModel passed; with no run open: Run.SetModel switches a run's).
func (s *Service) SetModel(name string) error {
	name = strings.TrimSpace(name)
	if err := checkName(name); err != nil {
		return err
	}
	s.sw.mu.Lock()
	s.sw.model = name
	s.sw.mu.Unlock()
	return nil
}

// driving reports whether the run is being driven (its state is the loop's).
func (r *Run) driving() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cancel != nil
}

// Mode is the run's approval mode as journaled (with switches applied).
// Read it while the run is not being driven.
func (r *Run) Mode() event.ApprovalMode { return r.state.Approval }

// Frontends that run on one goroutine with the session's updates (the
// TUI) call the journaling methods below from a command, never from that
// goroutine: a journaled event is published to them before the call
// returns.

// SetMode switches the run's approval mode (journaled as mode_changed with
// source, an audit fact): the run's next call obeys it. While the run is
// being driven the switch is journaled by the loop before its next request
// or approval. The session's next runs start in it too.
func (r *Run) SetMode(ctx context.Context, mode event.ApprovalMode, source event.Source) error {
	if !mode.Valid() {
		_, err := ParseMode(string(mode))
		return err
	}
	if err := r.s.SetMode(mode); err != nil {
		return err
	}
	r.stmu.Lock()
	defer r.stmu.Unlock()
	if r.driving() {
		r.state.Switches.PostMode(mode, source)
		return nil
	}
	return r.s.runner.SwitchMode(ctx, r.state, mode, source)
}

// SetModel switches the run's model to a name Service.CheckModel passed
// (journaled as model_changed, source user): the next request asks for
// it, and a resume keeps it. While the run is being driven the loop
// journals it before its next request.
func (r *Run) SetModel(ctx context.Context, name string) error {
	name = strings.TrimSpace(name)
	if err := r.s.SetModel(name); err != nil {
		return err
	}
	r.stmu.Lock()
	defer r.stmu.Unlock()
	if r.driving() {
		r.state.Switches.PostModel(name, event.SourceUser)
		return nil
	}
	return r.s.runner.SwitchModel(ctx, r.state, name, event.SourceUser)
}

// PostMode and PostModel queue a switch for a frontend that may be about to
// drive the run (its state may be the loop's any moment): the loop
// journals it at its next step, or FlushSwitches once the stretch ended.
// The session's value changes at once.
func (r *Run) PostMode(mode event.ApprovalMode, source event.Source) error {
	if err := r.s.SetMode(mode); err != nil {
		return err
	}
	r.state.Switches.PostMode(mode, source)
	return nil
}

// PostModel: see PostMode.
func (r *Run) PostModel(name string) error {
	name = strings.TrimSpace(name)
	if err := r.s.SetModel(name); err != nil {
		return err
	}
	r.state.Switches.PostModel(name, event.SourceUser)
	return nil
}

// FlushSwitches journals the queued switches of a run that is not being
// driven.
func (r *Run) FlushSwitches(ctx context.Context) error {
	r.stmu.Lock()
	defer r.stmu.Unlock()
	if r.driving() {
		return nil // the loop journals them
	}
	return r.s.runner.DrainSwitches(ctx, r.state)
}

// AwaitingPlan reports whether the run paused at a plan (approval mode
// plan) that a person has not approved yet.
func (r *Run) AwaitingPlan() bool { return !r.driving() && r.state.AwaitingPlan() }

// Plan is the plan the run paused at (see AwaitingPlan).
func (r *Run) Plan() string { return agent.PlanText(r.state, r.state.Answer) }

// ApprovePlan approves the plan the run paused at: the run leaves plan mode
// for mode (mode_changed, source user; "" or plan: ask), and the model is
// told to carry the plan out. Drive then continues the run.
func (r *Run) ApprovePlan(ctx context.Context, mode event.ApprovalMode) error {
	r.stmu.Lock()
	defer r.stmu.Unlock()
	if !r.AwaitingPlan() {
		return usage("run %s is not waiting for a plan to be approved", r.id)
	}
	if mode == "" || mode == event.ApprovalPlan {
		mode = event.ApprovalAsk
	}
	if !mode.Valid() {
		_, err := ParseMode(string(mode))
		return err
	}
	if err := r.s.runner.SwitchMode(ctx, r.state, mode, event.SourceUser); err != nil {
		return err
	}
	_ = r.s.SetMode(mode)
	return r.s.runner.AddUserMessage(ctx, r.state,
		fmt.Sprintf("I approve your plan. Carry it out now (approval mode %s).", mode))
}

// RejectPlan keeps the run planning: the person's note (what to change)
// goes to the model as their message. Drive then continues the run, still
// in plan mode.
func (r *Run) RejectPlan(ctx context.Context, note string) error {
	r.stmu.Lock()
	defer r.stmu.Unlock()
	if !r.AwaitingPlan() {
		return usage("run %s is not waiting for a plan to be approved", r.id)
	}
	note = strings.TrimSpace(note)
	if note == "" {
		note = "revise it"
	}
	return r.s.runner.AddUserMessage(ctx, r.state, "I do not approve the plan yet: "+note)
}

// startSwitches readies a run's state for switches while it is driven.
func (r *Run) startSwitches() {
	if r.state.Switches == nil {
		r.state.Switches = &agent.Switches{}
	}
}

// drainSwitches journals switches posted too late for the stretch that
// just ended (the run is not driven any more).
func (r *Run) drainSwitches(ctx context.Context) {
	if err := r.s.runner.DrainSwitches(context.WithoutCancel(ctx), r.state); err != nil {
		r.s.warn(fmt.Sprintf("run %s: a mode or model switch was not journaled: %v", r.id, err))
	}
}
