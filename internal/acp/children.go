package acp

// Subagents over ACP: each child run of a task call is shown in that call's
// tool_call. While the children run, tool_call_update notifications (status
// in_progress) replace the call's content with one text block per child:
// its description, kind, state, steps and tokens, and its latest actions.
// The task's result replaces that content when it comes. Children's events
// arrive as protocol.UpdateChild.

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"agent/internal/event"
)

// childLines is how many of a child's latest actions its block shows.
const childLines = 8

// childView is one child run as the task call's content shows it.
type childView struct {
	call       string // the top run's task call it reports under
	desc, kind string
	workspace  string // a worker's worktree ("": the session's workspace)
	status     event.Status
	steps      int
	tokens     int
	lines      []string
	pending    map[string]int // a call of the child still running → its line
}

// taskStarted registers the child a task call starts (a grandchild
// reports under its parent child's call).
func (t *translator) taskStarted(parentRun string, d *event.TaskStartedData) {
	t.mu.Lock()
	defer t.mu.Unlock()
	call := d.CallID
	if p := t.kids[parentRun]; p != nil {
		call = p.call
	}
	if t.kids[d.ChildRun] == nil {
		t.kidOrder = append(t.kidOrder, d.ChildRun)
	}
	t.kids[d.ChildRun] = &childView{call: call, desc: d.Description, kind: string(d.Kind), workspace: d.Worktree, status: event.StatusRunning, pending: map[string]int{}}
}

// child folds an event of a child run and reports its task call's children.
func (t *translator) child(ctx context.Context, ev event.Event) {
	if d, ok := ev.Data.(*event.TaskStartedData); ok {
		t.taskStarted(ev.RunID, d)
	}
	t.mu.Lock()
	c := t.kids[ev.RunID]
	if c == nil || t.settled[c.call] {
		t.mu.Unlock()
		return
	}
	changed := true
	switch d := ev.Data.(type) {
	case *event.RunStartedData, *event.ResumeData:
		c.status = event.StatusRunning
	case *event.ModelRequestData:
		c.steps = max(c.steps, d.Step)
		changed = false
	case *event.AssistantMessageData:
		if d.Tokens != nil {
			c.tokens += d.Tokens.Input + d.Tokens.Output
		}
		if d.Text != "" && len(d.ToolCalls) == 0 {
			c.add("answered: " + firstLine(d.Text))
		}
	case *event.ToolCallData:
		var a callArgs
		_ = decodeArgs(d.Arguments, &a)
		c.pending[d.CallID] = c.add("… " + title(d.Name, a))
	case *event.ToolResultData:
		if i, ok := c.pending[d.CallID]; ok && i >= 0 && i < len(c.lines) {
			mark := "✓ "
			if d.Status != event.ResultOK {
				mark = "✗ (" + string(d.Status) + ") "
			}
			c.lines[i] = mark + strings.TrimPrefix(c.lines[i], "… ")
		}
		delete(c.pending, d.CallID)
	case *event.RunFinishedData:
		c.status = d.Status
	default:
		changed = false
	}
	var content []sdk.ToolCallContent
	if changed {
		content = t.childContent(c.call)
	}
	call := c.call
	t.mu.Unlock()
	if changed {
		t.send(ctx, sdk.UpdateToolCall(sdk.ToolCallId(call), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress), sdk.WithUpdateContent(content)))
	}
}

// add appends an action and returns its line's index; the oldest go once
// there are more than childLines.
func (c *childView) add(s string) int {
	c.lines = append(c.lines, s)
	if n := len(c.lines) - childLines; n > 0 {
		c.lines = c.lines[n:]
		for id, i := range c.pending {
			c.pending[id] = i - n
		}
	}
	return len(c.lines) - 1
}

// childContent is the task call's content: a block per child (t.mu held).
func (t *translator) childContent(call string) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	for _, id := range t.kidOrder {
		c := t.kids[id]
		if c.call != call {
			continue
		}
		head := fmt.Sprintf("subagent %q (%s, run %s): %s", c.desc, c.kind, id, c.status)
		if c.steps > 0 {
			head += fmt.Sprintf(" · %d step(s)", c.steps)
		}
		if c.tokens > 0 {
			head += fmt.Sprintf(" · %d tokens", c.tokens)
		}
		out = append(out, sdk.ToolContent(sdk.TextBlock(strings.Join(append([]string{head}, c.lines...), "\n"))))
	}
	return out
}

// settle marks a task call answered: its children's later events no
// longer replace its content.
func (t *translator) settle(call string) {
	t.mu.Lock()
	t.settled[call] = true
	t.mu.Unlock()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// decodeArgs reads a call's (redacted JSON) arguments; a bad one shows no
// detail.
func decodeArgs(s string, a *callArgs) error { return json.Unmarshal([]byte(s), a) }

// absIn is a path of a call of run: a worker's paths are in its worktree.
func (t *translator) absIn(run, p string) string {
	t.mu.Lock()
	c := t.kids[run]
	t.mu.Unlock()
	if c != nil && c.workspace != "" && p != "" && !filepath.IsAbs(p) {
		return filepath.Join(c.workspace, p)
	}
	return t.abs(p)
}
