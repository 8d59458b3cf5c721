package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"agent/internal/event"
	"agent/internal/protocol"
)

// maxOutput bounds a tool's output shown in a tool_call_update, and
// maxFile the size of a file whose whole text goes into a diff.
const (
	maxOutput = 16 << 10
	maxFile   = 1 << 20
)

// translator turns the updates of a session's run into session/update
// notifications, in order, on the goroutine that drives the run.
type translator struct {
	ss *session

	mu       sync.Mutex
	streamed bool // text of the current model turn went out as it streamed
	calls    map[string]*callView
	tokens   event.TokenCount
	counted  bool
	// the children of task calls (children.go): by run, in order, and the
	// task calls already answered
	kids     map[string]*childView
	kidOrder []string
	settled  map[string]bool
}

// callView is what a tool_call needs to be shown and updated.
type callView struct {
	tool string
	kind sdk.ToolKind
	path string // absolute, for a file tool
	old  *string
	plan bool // update_plan: shown as the plan, not as a call
}

func newTranslator(ss *session) *translator {
	return &translator{ss: ss, calls: map[string]*callView{}, kids: map[string]*childView{}, settled: map[string]bool{}}
}

func (t *translator) send(ctx context.Context, u sdk.SessionUpdate) {
	conn := t.ss.srv.conn
	if conn == nil {
		return
	}
	// A notification is written whatever the turn's context: an
	// interrupted turn still reports how its calls ended.
	if err := conn.SessionUpdate(context.WithoutCancel(ctx), sdk.SessionNotification{SessionId: sdk.SessionId(t.ss.id), Update: u}); err != nil {
		t.ss.srv.log.Debug("session/update not sent", "error", err)
	}
}

func (t *translator) say(ctx context.Context, text string) {
	t.send(ctx, sdk.UpdateAgentMessageText(text))
}

func (t *translator) beginTurn() {
	t.mu.Lock()
	t.tokens, t.counted = event.TokenCount{}, false
	t.mu.Unlock()
}

// usage is the tokens of the prompt's model requests (nil when none was
// reported).
func (t *translator) usage() *sdk.Usage {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.counted {
		return nil
	}
	u := &sdk.Usage{InputTokens: t.tokens.Input, OutputTokens: t.tokens.Output, TotalTokens: t.tokens.Input + t.tokens.Output}
	if t.tokens.CacheRead > 0 {
		u.CachedReadTokens = sdk.Ptr(t.tokens.CacheRead)
	}
	if t.tokens.CacheWrite > 0 {
		u.CachedWriteTokens = sdk.Ptr(t.tokens.CacheWrite)
	}
	return u
}

// onUpdate is the session's subscriber.
func (t *translator) onUpdate(u protocol.Update) {
	ctx := t.ss.srv.ctx
	switch u.Kind {
	case protocol.UpdateText:
		if u.Text == "" {
			return
		}
		t.mu.Lock()
		t.streamed = true
		t.mu.Unlock()
		t.say(ctx, u.Text)
	case protocol.UpdateEvent:
		t.event(ctx, u.Event, false)
	case protocol.UpdateChild:
		t.child(ctx, u.Event)
	case protocol.UpdateApproval:
		if u.Approval != nil {
			req := *u.Approval
			go t.ss.ask(req) // the loop waits on Decide, not on this goroutine
		}
	}
}

// onUpdate of the session.
func (ss *session) onUpdate(u protocol.Update) { ss.tr.onUpdate(u) }

// replay sends a run's journal as the notifications a live session would
// have sent, the person's messages included.
func (t *translator) replay(ctx context.Context, evs []event.Event) {
	for _, ev := range evs {
		t.event(ctx, ev, true)
	}
}

func (t *translator) event(ctx context.Context, ev event.Event, replay bool) {
	switch d := ev.Data.(type) {
	case *event.UserMessageData:
		if replay {
			t.send(ctx, sdk.UpdateUserMessageText(d.Text))
		}
	case *event.AssistantMessageData:
		t.mu.Lock()
		streamed := t.streamed
		t.streamed = false
		if d.Tokens != nil && !replay {
			t.tokens.Input += d.Tokens.Input
			t.tokens.Output += d.Tokens.Output
			t.tokens.CacheRead += d.Tokens.CacheRead
			t.tokens.CacheWrite += d.Tokens.CacheWrite
			t.counted = true
		}
		t.mu.Unlock()
		if d.Text != "" && (replay || !streamed) {
			t.say(ctx, d.Text)
		}
	case *event.ToolCallData:
		t.toolCall(ctx, d, replay)
	case *event.TaskStartedData:
		t.taskStarted(ev.RunID, d)
	case *event.ApprovalData:
		cv := t.call(d.CallID)
		if cv == nil || cv.plan {
			return
		}
		if d.Decision == event.Deny {
			msg := "denied"
			if d.Source == event.SourceUser {
				msg = "denied by you"
			} else if d.Reason != "" {
				msg = "denied: " + d.Reason
			}
			if d.Note != "" {
				msg += ": " + d.Note
			}
			t.send(ctx, sdk.UpdateToolCall(sdk.ToolCallId(d.CallID), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
				sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(msg))})))
			return
		}
		t.send(ctx, sdk.UpdateToolCall(sdk.ToolCallId(d.CallID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	case *event.ToolResultData:
		t.toolResult(ctx, d, replay)
	case *event.ErrorData:
		if !replay {
			t.send(ctx, sdk.UpdateAgentThoughtText("error ("+string(d.Class)+"): "+d.Message))
		}
	case *event.RollbackData:
		what := "files"
		if d.Conversation {
			what = "files and conversation"
			if len(d.Files) == 0 {
				what = "conversation"
			}
		}
		t.send(ctx, sdk.UpdateAgentThoughtText("rolled back the "+what+" to checkpoint "+d.CheckpointID))
	}
}

func (t *translator) call(id string) *callView {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls[id]
}

// toolKind is ACP's kind of one of our tools.
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "read_file", "list_dir":
		return sdk.ToolKindRead
	case "grep", "glob", "repo_map":
		return sdk.ToolKindSearch
	case "edit_file", "write_file":
		return sdk.ToolKindEdit
	case "run_command":
		return sdk.ToolKindExecute
	case "update_plan":
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// callArgs are the arguments of our tools that a tool_call shows.
type callArgs struct {
	Path      string  `json:"path"`
	Command   string  `json:"command"`
	Pattern   string  `json:"pattern"`
	OldString string  `json:"old_string"`
	NewString string  `json:"new_string"`
	Content   *string `json:"content"`
	// Description is a task call's (the subagent's)
	Description string `json:"description"`
	Plan        []struct {
		Step   string `json:"step"`
		Status string `json:"status"`
	} `json:"plan"`
}

func title(name string, a callArgs) string {
	arg := ""
	switch {
	case a.Command != "":
		arg = a.Command
	case a.Pattern != "":
		arg = a.Pattern
	case a.Path != "":
		arg = a.Path
	case a.Description != "":
		arg = a.Description
	}
	if i := strings.IndexByte(arg, '\n'); i >= 0 {
		arg = arg[:i] + " …"
	}
	if len(arg) > 120 {
		arg = arg[:120] + "…"
	}
	if arg == "" {
		return name
	}
	return name + ": " + arg
}

func (t *translator) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(t.ss.svc.Settings().Workspace, p)
}

// readText is a workspace file's text, redacted, when it is small enough
// to show whole (nil when it does not exist or is too big).
func (t *translator) readText(path string) *string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxFile {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := t.ss.svc.Redact(string(b))
	return &s
}

func (t *translator) toolCall(ctx context.Context, d *event.ToolCallData, replay bool) {
	var a callArgs
	_ = json.Unmarshal([]byte(d.Arguments), &a) // the journal's arguments are redacted JSON; a bad one shows no detail
	cv := &callView{tool: d.Name, kind: toolKind(d.Name), path: t.abs(a.Path)}
	if d.Name == "update_plan" {
		cv.plan = true
		var entries []sdk.PlanEntry
		for _, s := range a.Plan {
			st := sdk.PlanEntryStatusPending
			switch s.Status {
			case "in_progress":
				st = sdk.PlanEntryStatusInProgress
			case "done":
				st = sdk.PlanEntryStatusCompleted
			}
			entries = append(entries, sdk.PlanEntry{Content: s.Step, Priority: sdk.PlanEntryPriorityMedium, Status: st})
		}
		t.mu.Lock()
		t.calls[d.CallID] = cv
		t.mu.Unlock()
		t.send(ctx, sdk.UpdatePlan(entries...))
		return
	}
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(cv.kind), sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartRawInput(json.RawMessage(rawOr(d.Arguments)))}
	if cv.path != "" {
		opts = append(opts, sdk.WithStartLocations([]sdk.ToolCallLocation{{Path: cv.path}}))
	}
	if cv.kind == sdk.ToolKindEdit && cv.path != "" {
		if !replay {
			cv.old = t.readText(cv.path) // before the call runs: the tool_call is journaled first
		}
		if c, ok := argsDiff(cv.path, d.Name, a); ok {
			opts = append(opts, sdk.WithStartContent([]sdk.ToolCallContent{c}))
		}
	}
	t.mu.Lock()
	t.calls[d.CallID] = cv
	t.mu.Unlock()
	t.send(ctx, sdk.StartToolCall(sdk.ToolCallId(d.CallID), title(d.Name, a), opts...))
}

// argsDiff is the change a file tool's arguments describe, as ACP diff
// content (the part of the file it replaces, or the whole new file).
func argsDiff(path, tool string, a callArgs) (sdk.ToolCallContent, bool) {
	switch {
	case tool == "edit_file" && (a.OldString != "" || a.NewString != ""):
		return sdk.ToolDiffContent(path, a.NewString, a.OldString), true
	case tool == "write_file" && a.Content != nil:
		return sdk.ToolDiffContent(path, *a.Content), true
	}
	return sdk.ToolCallContent{}, false
}

func rawOr(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func (t *translator) toolResult(ctx context.Context, d *event.ToolResultData, replay bool) {
	cv := t.call(d.CallID)
	if cv != nil && cv.plan {
		return
	}
	t.settle(d.CallID)
	st := sdk.ToolCallStatusCompleted
	if d.Status != event.ResultOK {
		st = sdk.ToolCallStatusFailed
	}
	out := d.Output
	if len(out) > maxOutput {
		out = out[:maxOutput] + "\n… (output cut; the whole of it is in the journal)"
	}
	var content []sdk.ToolCallContent
	if cv != nil && cv.kind == sdk.ToolKindEdit && cv.path != "" && d.Status == event.ResultOK && !replay {
		if now := t.readText(cv.path); now != nil {
			if cv.old != nil {
				content = append(content, sdk.ToolDiffContent(cv.path, *now, *cv.old))
			} else {
				content = append(content, sdk.ToolDiffContent(cv.path, *now))
			}
		}
	}
	if out != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(out)))
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(st), sdk.WithUpdateRawOutput(map[string]any{"status": d.Status, "exit_code": d.ExitCode})}
	if len(content) > 0 {
		opts = append(opts, sdk.WithUpdateContent(content))
	}
	t.send(ctx, sdk.UpdateToolCall(sdk.ToolCallId(d.CallID), opts...))
}
