package app

import (
	"context"
	"strings"
	"sync"
	"testing"

	"agent/internal/event"
	"agent/internal/protocol"
)

// A mode switched while the run is driven (here: while it waits for a
// person on its first call) is journaled before the next call's approval,
// which obeys it: under full-auto the second command runs without asking.
func TestModeSwitchWhileDrivenDecidesTheNextCall(t *testing.T) {
	svc := decideEnv(t, true)
	ctx := context.Background()
	var mu sync.Mutex
	var run *Run
	var asked []string
	var order []string
	svc.Subscribe(func(u protocol.Update) {
		switch u.Kind {
		case protocol.UpdateApproval:
			mu.Lock()
			asked = append(asked, u.Approval.CallID)
			r := run
			mu.Unlock()
			if err := r.SetMode(ctx, event.ApprovalFullAuto, event.SourceUser); err != nil {
				t.Errorf("SetMode: %v", err)
			}
			if err := r.Decide(ctx, u.Approval.CallID, protocol.AllowOnce()); err != nil {
				t.Errorf("Decide: %v", err)
			}
		case protocol.UpdateEvent:
			mu.Lock()
			switch d := u.Event.Data.(type) {
			case *event.ModeChangedData:
				order = append(order, "mode "+string(d.From)+">"+string(d.To))
			case *event.ApprovalData:
				order = append(order, d.CallID+" "+string(d.Decision)+" by "+string(d.Source))
			}
			mu.Unlock()
		}
	})
	r, err := svc.NewRun(ctx, "make two files", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mu.Lock()
	run = r
	mu.Unlock()
	if out := r.Drive(ctx); out.Status != event.StatusCompleted {
		t.Fatalf("outcome %+v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(asked, ",") != "c1" {
		t.Errorf("asked for %v, want c1 only", asked)
	}
	if got := strings.Join(order, "; "); got != "c1 allow by user; mode ask>full-auto; c2 allow by mode" {
		t.Errorf("journal order %q", got)
	}
	if r.Mode() != event.ApprovalFullAuto || svc.Mode() != event.ApprovalFullAuto {
		t.Errorf("mode after the switch: run %s, session %s", r.Mode(), svc.Mode())
	}
}

// A model switched on an idle run is the model of its next request, and of
// the session's next run; a name like a flag is refused.
func TestModelSwitch(t *testing.T) {
	svc := decideEnv(t, false)
	ctx := context.Background()
	r, err := svc.NewRun(ctx, "make two files", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.SetModel(ctx, "--no-such-flag"); err == nil || !strings.Contains(err.Error(), "not a model name") {
		t.Errorf("SetModel(--no-such-flag) = %v", err)
	}
	if note, err := svc.CheckModel(ctx, "other"); err != nil || !strings.Contains(note, "could not check") {
		t.Errorf("CheckModel without a model list = %q, %v; want accepted with a note", note, err)
	}
	if err := r.SetModel(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	r.Drive(ctx) // pauses on the first command (headless)
	evs, err := svc.Home().Events(ctx, r.ID())
	if err != nil {
		t.Fatal(err)
	}
	var changed, asked bool
	for _, ev := range evs {
		switch d := ev.Data.(type) {
		case *event.ModelChangedData:
			changed = d.From == "m" && d.To == "other" && d.Source == event.SourceUser
		case *event.ModelRequestData:
			asked = changed && d.Model == "other"
		}
	}
	if !changed || !asked {
		t.Errorf("model_changed %t, the next request asked for other %t", changed, asked)
	}
	if svc.Model() != "other" {
		t.Errorf("the session's model is %q", svc.Model())
	}
	rows, err := svc.Home().Runs(ctx)
	if err != nil || len(rows) != 1 || rows[0].Model != "other" {
		t.Errorf("the runs row keeps the switched model (for resume): %+v %v", rows, err)
	}
}
