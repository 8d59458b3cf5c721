package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"agent/internal/event"
)

// Switches is a run's mailbox of approval-mode and model changes asked for
// while the loop drives the run (the state is the loop's then): the loop
// journals them before its next model request or approval, so the next
// call obeys them, and when the stretch ends. Safe for concurrent use.
type Switches struct {
	mu      sync.Mutex
	pending []event.Payload
}

// PostMode asks for a switch of the approval mode.
func (s *Switches) PostMode(to event.ApprovalMode, source event.Source) {
	s.post(&event.ModeChangedData{To: to, Source: source})
}

// PostModel asks for a switch of the model.
func (s *Switches) PostModel(to string, source event.Source) {
	s.post(&event.ModelChangedData{To: to, Source: source})
}

func (s *Switches) post(p event.Payload) {
	s.mu.Lock()
	s.pending = append(s.pending, p)
	s.mu.Unlock()
}

func (s *Switches) take() []event.Payload {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.pending
	s.pending = nil
	return out
}

func (s *State) applyModeChanged(d *event.ModeChangedData) { s.Approval = d.To }

func (s *State) applyModelChanged(d *event.ModelChangedData) {
	s.Model, s.ModelSwitched = d.To, true
}

// AwaitingPlan reports whether the run paused at a plan a person has not
// approved yet (plan mode, the model's turn ended, no call open).
func (s *State) AwaitingPlan() bool {
	return s.Status == event.StatusAwaitingApproval && s.Approval == event.ApprovalPlan && len(s.Open) == 0
}

// SwitchMode journals a switch of st's approval mode (a no-op when it is
// already to). Only while the run is not driven: a frontend posts to
// st.Switches then.
func (r *Runner) SwitchMode(ctx context.Context, st *State, to event.ApprovalMode, source event.Source) error {
	if err := r.recordSwitch(ctx, st, &event.ModeChangedData{To: to, Source: source}); err != nil {
		return err
	}
	return r.flush(ctx, st, true)
}

// SwitchModel journals a switch of st's model: the next request asks for
// it, and so does a resume (the fold keeps it).
func (r *Runner) SwitchModel(ctx context.Context, st *State, to string, source event.Source) error {
	if err := r.recordSwitch(ctx, st, &event.ModelChangedData{To: to, Source: source}); err != nil {
		return err
	}
	return r.flush(ctx, st, true)
}

// DrainSwitches journals the switches posted to st.Switches; the loop does
// it before each request and approval, a frontend after a stretch ends.
func (r *Runner) DrainSwitches(ctx context.Context, st *State) error {
	ps := st.Switches.take()
	if len(ps) == 0 {
		return nil
	}
	for _, p := range ps {
		if err := r.recordSwitch(ctx, st, p); err != nil {
			return err
		}
	}
	return r.flush(ctx, st, true)
}

// recordSwitch records one switch with its from filled in; a switch to the
// current value records nothing.
func (r *Runner) recordSwitch(ctx context.Context, st *State, p event.Payload) error {
	switch d := p.(type) {
	case *event.ModeChangedData:
		if !d.To.Valid() {
			return fmt.Errorf("unknown approval mode %q", d.To)
		}
		if d.To == st.Approval {
			return nil
		}
		d.From = st.Approval
	case *event.ModelChangedData:
		if strings.TrimSpace(d.To) == "" {
			return fmt.Errorf("no model name")
		}
		if d.To == st.Model {
			return nil
		}
		d.From = st.Model
	}
	return r.record(ctx, st, p)
}

// requestModel is the model the next request asks for when a switch chose
// it ("": the configured one).
func requestModel(st *State) string {
	if st.ModelSwitched {
		return st.Model
	}
	return ""
}

// PlanText is the plan a run under plan mode ended its turn with: the
// model's answer, then the steps of its newest update_plan.
func PlanText(st *State, answer string) string {
	out := strings.TrimSpace(answer)
	var a struct {
		Plan []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"plan"`
	}
	if raw := st.Context.Plan(); raw != "" && json.Unmarshal([]byte(raw), &a) == nil && len(a.Plan) > 0 {
		var b strings.Builder
		for i, s := range a.Plan {
			fmt.Fprintf(&b, "%d. %s", i+1, s.Step)
			if s.Status != "" && s.Status != "pending" {
				fmt.Fprintf(&b, " (%s)", s.Status)
			}
			b.WriteString("\n")
		}
		if out != "" {
			out += "\n\n"
		}
		out += "Steps:\n" + strings.TrimRight(b.String(), "\n")
	}
	if out == "" {
		out = "(the model ended its turn without writing a plan)"
	}
	return out
}
