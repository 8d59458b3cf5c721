package acp

import (
	"context"
	"encoding/json"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"agent/internal/app"
	"agent/internal/event"
)

// Extension methods: what no other ACP agent offers.
const (
	// MethodCheckpoints lists the session's checkpoints, each
	// after-checkpoint paired with its call's before and counted.
	MethodCheckpoints = "_agent/checkpoints"
	// MethodRollback puts the files, the conversation or both back to a
	// checkpoint; its answer names the checkpoint that undoes it.
	MethodRollback = "_agent/rollback"
	// MethodContext is the context report of a model request (the last
	// one, or the one of step).
	MethodContext = "_agent/context"
)

type extParams struct {
	SessionID    string `json:"sessionId"`
	CheckpointID string `json:"checkpointId"`
	// What is files, conversation or both (rollback; default files).
	What string `json:"what"`
	Step int    `json:"step"`
}

// CheckpointView is one checkpoint as _agent/checkpoints answers it.
type CheckpointView struct {
	ID      string               `json:"checkpointId"`
	Step    int                  `json:"step"`
	CallID  string               `json:"callId,omitempty"`
	Tool    string               `json:"tool,omitempty"`
	Kind    event.CheckpointKind `json:"kind"`
	Files   []string             `json:"files"`
	Before  string               `json:"before,omitempty"`
	Added   int                  `json:"added"`
	Removed int                  `json:"removed"`
	Created time.Time            `json:"created"`
}

// RollbackView is the answer of _agent/rollback.
type RollbackView struct {
	To    string   `json:"to"`
	Files []string `json:"files"`
	// Undo is the checkpoint of the state before the rollback: rolling
	// back to it (what files) undoes the rollback.
	Undo         string `json:"undo,omitempty"`
	Conversation bool   `json:"conversation"`
}

// HandleExtensionMethod implements sdk.ExtensionMethodHandler.
func (s *server) HandleExtensionMethod(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	switch method {
	case MethodCheckpoints, MethodRollback, MethodContext:
	default:
		return nil, sdk.NewMethodNotFound(method)
	}
	var p extParams
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, errInvalid("%s: params: %v", method, err)
		}
	}
	ss, err := s.session(sdk.SessionId(p.SessionID))
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	runID, busy, r := ss.runID, ss.busy, ss.run
	ss.mu.Unlock()
	if runID == "" {
		return nil, errState("session %s has no run yet: send a prompt first", ss.id)
	}
	home := ss.svc.Home()
	switch method {
	case MethodCheckpoints:
		cps, err := home.Checkpoints(ctx, runID, app.CheckpointOptions{Counts: true})
		if err != nil {
			return nil, fromApp(err)
		}
		out := []CheckpointView{}
		for _, c := range cps {
			out = append(out, CheckpointView{ID: c.ID, Step: c.Step, CallID: c.CallID, Tool: c.Tool, Kind: c.Kind, Files: nonNil(c.Files),
				Before: c.Before, Added: c.Added, Removed: c.Removed, Created: c.Created})
		}
		return map[string]any{"checkpoints": out}, nil
	case MethodRollback:
		if busy {
			return nil, errState("session %s is running a prompt: send session/cancel first, then roll back", ss.id)
		}
		if p.CheckpointID == "" {
			return nil, errInvalid("%s: checkpointId is required (see %s)", method, MethodCheckpoints)
		}
		opt := app.RollbackOptions{}
		switch p.What {
		case "", "files":
			opt.Files = true
		case "conversation":
			opt.Conversation = true
		case "both":
			opt.Files, opt.Conversation = true, true
		default:
			return nil, errInvalid("%s: what is files, conversation or both, not %q", method, p.What)
		}
		res, err := ss.svc.Rollback(ctx, p.CheckpointID, opt, r)
		if err != nil {
			return nil, fromApp(err)
		}
		// The replayed transcript keeps every turn; the next prompt goes
		// on from the rolled-back conversation.
		return RollbackView{To: res.To, Files: nonNil(res.Files), Undo: res.Before, Conversation: opt.Conversation}, nil
	default: // MethodContext
		evs, err := home.Events(ctx, runID)
		if err != nil {
			return nil, fromApp(err)
		}
		var found *event.ModelRequestData
		for _, ev := range evs {
			if d, ok := ev.Data.(*event.ModelRequestData); ok && (p.Step == 0 || d.Step == p.Step) {
				found = d
			}
		}
		if found == nil {
			return nil, errInvalid("%s: run %s has no model request%s yet", method, runID, stepWords(p.Step))
		}
		return map[string]any{"runId": runID, "step": found.Step, "context": found.Context}, nil
	}
}

func stepWords(step int) string {
	if step == 0 {
		return ""
	}
	b, _ := json.Marshal(step)
	return " at step " + string(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
