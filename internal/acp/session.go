package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/protocol"
)

// session is one ACP session: an application service in the session's
// workspace and, from the first prompt on, the run it drives.
type session struct {
	id    string
	srv   *server
	svc   *app.Service
	tr    *translator
	unsub func()
	noGit bool // the workspace is not in a git repository (said once)

	mu         sync.Mutex
	run        *app.Run
	runID      string
	busy       bool
	stop       context.CancelFunc // of the prompt being driven
	mode       event.ApprovalMode
	denyRules  []string // "reject always" of this process
	needResume bool     // the run was opened from the journal or left calls open
}

func (ss *session) close() {
	ss.mu.Lock()
	r := ss.run
	ss.run = nil
	ss.mu.Unlock()
	if r != nil {
		r.Close()
	}
	if ss.unsub != nil {
		ss.unsub()
	}
	ss.svc.Close()
}

func (ss *session) modes() *sdk.SessionModeState {
	desc := map[event.ApprovalMode]string{
		event.ApprovalReadOnly: "reads only; every edit and command is refused",
		event.ApprovalPlan:     "reads and update_plan only; the turn ends with a plan (switch to another mode to carry it out)",
		event.ApprovalAsk:      "reads freely; asks before every edit and command",
		event.ApprovalAutoEdit: "edits without asking; asks before commands",
		event.ApprovalFullAuto: "runs everything the rules allow without asking",
	}
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(ss.mode)}
	for _, m := range event.ApprovalModes() {
		d := desc[m]
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m), Name: string(m), Description: &d})
	}
	return st
}

func (ss *session) setMode(ctx context.Context, m event.ApprovalMode) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.run != nil {
		if err := ss.run.SetPolicy(m, ss.denyRules); err != nil {
			return fromApp(err)
		}
		// journaled (mode_changed, an audit fact); while a prompt is being
		// driven the loop journals it before its next call
		if err := ss.run.SetMode(ctx, m, event.SourceUser); err != nil {
			return fromApp(err)
		}
	} else if err := ss.svc.SetMode(m); err != nil { // the run starts with it
		return fromApp(err)
	}
	ss.mode = m
	return nil
}

// cancel is the TUI's Esc: the stretch being driven ends (a running
// command's process group is killed), journaled as interrupted.
func (ss *session) cancel() {
	ss.mu.Lock()
	stop, r := ss.stop, ss.run
	ss.mu.Unlock()
	if r != nil {
		r.Interrupt()
	}
	if stop != nil {
		stop()
	}
}

// load opens run id (its lock), replays its journal and prepares it as
// `agent resume` does.
func (ss *session) load(ctx context.Context, runID string) error {
	r, hist, err := ss.svc.OpenRunHistory(ctx, runID)
	if err != nil {
		return fromApp(err)
	}
	ss.mu.Lock()
	ss.run, ss.runID = r, r.ID()
	ss.mode = r.State().Approval
	ss.mu.Unlock()
	ss.tr.replay(ctx, hist)
	if !r.Finished() {
		// What a crash left running is ended now, and every interrupted
		// call gets its resume action journaled (a command is not run
		// again); the next prompt drives the run on.
		if err := r.Resume(ctx); err != nil {
			return fromApp(err)
		}
	}
	ss.mu.Lock()
	ss.needResume = len(r.State().Open) > 0
	ss.mu.Unlock()
	return nil
}

// prompt runs one turn: a new run for the first prompt, else a message to
// the session's run; it ends with the run's stop reason.
func (ss *session) prompt(parent context.Context, text string) (sdk.PromptResponse, error) {
	ss.mu.Lock()
	if ss.busy {
		ss.mu.Unlock()
		return sdk.PromptResponse{}, errState("session %s is already running a prompt: wait for its answer, or send session/cancel first", ss.id)
	}
	ctx, stop := context.WithCancel(parent)
	ss.busy, ss.stop = true, stop
	r := ss.run
	note := ss.noGit
	ss.noGit = false
	ss.mu.Unlock()
	defer func() {
		stop()
		ss.mu.Lock()
		ss.busy, ss.stop = false, nil
		ss.mu.Unlock()
	}()
	ss.tr.beginTurn()
	if note {
		ss.tr.say(ctx, fmt.Sprintf("Note: %s is not inside a git repository. The agent still checkpoints every change in its own shadow repository, so rollback works; git commands will fail.\n\n", ss.svc.Settings().Workspace))
	}
	var out protocol.Outcome
	if r == nil {
		run, err := ss.svc.NewRun(ctx, text, func(id string) {
			if err := rememberRun(ss.id, id); err != nil {
				ss.srv.log.Warn("session/load will not find this session", "session", ss.id, "error", err)
			}
			ss.mu.Lock()
			ss.runID = id
			ss.mu.Unlock()
		})
		if err != nil {
			return sdk.PromptResponse{}, fromApp(err)
		}
		ss.mu.Lock()
		ss.run = run
		if ss.mode != run.State().Approval {
			_ = run.SetPolicy(ss.mode, ss.denyRules)
		}
		ss.mu.Unlock()
		out = run.Drive(ctx)
	} else {
		var err error
		out, err = ss.continueRun(ctx, r, text)
		if err != nil {
			return sdk.PromptResponse{}, err
		}
	}
	ss.mu.Lock()
	if run := ss.run; run != nil {
		ss.needResume = len(run.State().Open) > 0
	}
	ss.mu.Unlock()
	return ss.finish(out)
}

// continueRun adds the prompt to a run that has turns already, as
// `agent resume --message` does: calls left open are settled first.
func (ss *session) continueRun(ctx context.Context, r *app.Run, text string) (protocol.Outcome, error) {
	ss.mu.Lock()
	resume := ss.needResume
	ss.needResume = false
	ss.mu.Unlock()
	if resume {
		if err := r.Resume(ctx); err != nil {
			return protocol.Outcome{}, fromApp(err)
		}
	}
	if len(r.State().Open) > 0 {
		// Calls to run again or to decide: drive them (a command that
		// may have run is never among them), then the new message.
		out := r.Drive(ctx)
		if out.Status != event.StatusCompleted && out.Status != event.StatusStopped {
			return out, nil
		}
	}
	if err := r.Message(ctx, text); err != nil {
		return protocol.Outcome{}, fromApp(err)
	}
	return r.Drive(ctx), nil
}

// finish maps how the run's stretch ended to an ACP stop reason; a failed
// run is an error that says why and how to go on.
func (ss *session) finish(out protocol.Outcome) (sdk.PromptResponse, error) {
	resp := sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}
	if u := ss.tr.usage(); u != nil {
		resp.Usage = u
	}
	switch out.Status {
	case event.StatusCompleted, event.StatusStopped, event.StatusAwaitingApproval:
	case event.StatusInterrupted:
		resp.StopReason = sdk.StopReasonCancelled
	case event.StatusBudgetExhausted:
		// the run paused before a request that would cross its budget
		resp.StopReason = sdk.StopReasonMaxTokens
		if out.Err != nil {
			ss.tr.say(context.Background(), "\n\npaused: "+out.Err.Error()+"; raise it with `agent resume "+ss.runID+" --budget-...`\n")
		}
	default:
		msg := "the run failed"
		if out.Err != nil {
			msg = out.Err.Error()
		}
		if strings.Contains(msg, "--max-steps") {
			resp.StopReason = sdk.StopReasonMaxTurnRequests
			ss.tr.say(context.Background(), "\n\n"+msg+"\n")
			return resp, nil
		}
		var ue *app.UsageError
		if errors.As(out.Err, &ue) {
			return sdk.PromptResponse{}, errInvalid("%s", msg)
		}
		return sdk.PromptResponse{}, errState("%s (run %s; send another prompt to continue it, or `agent resume %s`)", msg, ss.runID, ss.runID)
	}
	return resp, nil
}

// promptText is the prompt's content as the run's text: text blocks as
// they are, an attached file's contents (an embedded resource) inside a
// <file> element, a resource link as a reference the model can read.
func promptText(blocks []sdk.ContentBlock) (string, error) {
	var b strings.Builder
	for i, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			fmt.Fprintf(&b, "\n[attached: %s (%s)]\n", c.ResourceLink.Name, c.ResourceLink.Uri)
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			t := c.Resource.Resource.TextResourceContents
			fmt.Fprintf(&b, "\n<file uri=%q>\n%s\n</file>\n", t.Uri, t.Text)
		case c.Resource != nil:
			return "", errInvalid("prompt[%d]: a binary resource is not supported; attach text files", i)
		case c.Image != nil, c.Audio != nil:
			return "", errInvalid("prompt[%d]: images and audio are not supported (promptCapabilities)", i)
		default:
			return "", errInvalid("prompt[%d]: unknown content block", i)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", errInvalid("the prompt is empty")
	}
	return b.String(), nil
}
