package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"agent/internal/agent"
	"agent/internal/event"
)

// itemKind is what a transcript entry is.
type itemKind uint8

const (
	itemUser itemKind = iota + 1
	itemAssistant
	itemCard
	itemNotice
	itemError
)

// cardStatus is a tool card's state as a person reads it.
type cardStatus uint8

const (
	cardPending  cardStatus = iota + 1 // streaming or journaled, not started
	cardAwaiting                       // waiting for a person
	cardRunning
	cardOK
	cardFailed // a tool error, or a command that exited non-zero
	cardDenied
	cardInterrupted
)

// entry is one item of the transcript, built from events and deltas.
type entry struct {
	kind      itemKind
	text      string // user, assistant, notice, error text
	streaming bool   // an assistant message still arriving
	version   int    // bumped on every change (render caches key on it)

	// cards
	callID, tool, summary, args string
	risk                        event.Risk
	status                      cardStatus
	exit                        *int
	output, diff                string
	background                  int
	expanded                    bool
}

// transcriptState folds events and stream deltas into entries.
type transcriptState struct {
	entries  []*entry
	cards    map[string]*entry // by call id
	stream   *entry            // the assistant message now streaming
	calls    map[int]*entry    // streaming cards by index, this step
	step     int
	lastStep int // the step of the last model request
	context  event.ContextReport
	tokens   event.TokenCount
	status   event.Status
}

func newTranscript() *transcriptState {
	return &transcriptState{cards: map[string]*entry{}, calls: map[int]*entry{}}
}

func (t *transcriptState) add(e *entry) *entry {
	t.entries = append(t.entries, e)
	return e
}

func (t *transcriptState) notice(format string, a ...any) {
	t.add(&entry{kind: itemNotice, text: fmt.Sprintf(format, a...)})
}

// delta applies a piece of streamed assistant text.
func (t *transcriptState) delta(text string) {
	if t.stream == nil {
		t.stream = t.add(&entry{kind: itemAssistant, streaming: true})
	}
	t.stream.text += text
	t.stream.version++
}

// callDelta applies a piece of a streaming tool call.
func (t *transcriptState) callDelta(d agent.CallDelta) {
	if d.Step != t.step {
		t.step, t.calls = d.Step, map[int]*entry{}
	}
	c := t.calls[d.Index]
	if c == nil {
		if d.Done {
			return
		}
		c = t.add(&entry{kind: itemCard, status: cardPending, callID: d.ID, tool: d.Name})
		t.calls[d.Index] = c
		if d.ID != "" {
			t.cards[d.ID] = c
		}
	}
	if d.Text != "" {
		c.args += d.Text
		c.summary = summarize(c.tool, c.args)
	}
	c.version++
}

// apply folds one committed event.
func (t *transcriptState) apply(ev event.Event) {
	switch d := ev.Data.(type) {
	case *event.UserMessageData:
		t.add(&entry{kind: itemUser, text: d.Text})
	case *event.ModelRequestData:
		t.context, t.status, t.lastStep = d.Context, event.StatusRunning, d.Step
	case *event.AssistantMessageData:
		if t.stream != nil {
			t.stream.text, t.stream.streaming = d.Text, false
			t.stream.version++
			t.stream = nil
		} else if d.Text != "" {
			t.add(&entry{kind: itemAssistant, text: d.Text})
		}
		if d.Tokens != nil {
			t.tokens.Input += d.Tokens.Input
			t.tokens.Output += d.Tokens.Output
		}
		for _, c := range d.ToolCalls {
			e := t.cards[c.ID]
			if e == nil {
				e = t.add(&entry{kind: itemCard, status: cardPending, callID: c.ID})
				t.cards[c.ID] = e
			}
			e.tool, e.args = c.Name, c.Arguments
			e.summary = summarize(c.Name, c.Arguments)
			e.version++
		}
		t.calls = map[int]*entry{}
	case *event.ToolCallData:
		if e := t.card(d.CallID, d.Name); e != nil {
			e.risk = d.Risk
			e.version++
		}
	case *event.ApprovalData:
		if e := t.card(d.CallID, ""); e != nil && d.Decision == event.Deny {
			e.status = cardDenied
			e.version++
		}
	case *event.CommandStartedData:
		if e := t.card(d.CallID, ""); e != nil {
			e.status = cardRunning
			e.version++
		}
	case *event.ToolResultData:
		if e := t.card(d.CallID, ""); e != nil {
			e.output, e.exit, e.background = d.Output, d.ExitCode, len(d.Background)
			switch {
			case d.Status == event.ResultDenied:
				e.status = cardDenied
			case d.Status == event.ResultInterrupted:
				e.status = cardInterrupted
			case d.Status == event.ResultError, d.ExitCode != nil && *d.ExitCode != 0:
				e.status = cardFailed
			default:
				e.status = cardOK
			}
			if e.tool == "write_file" || e.tool == "edit_file" {
				if i := strings.Index(d.Output, "\n"); i >= 0 && d.Status == event.ResultOK {
					e.diff = d.Output[i+1:]
				}
			}
			e.version++
		}
	case *event.ResumeData:
		t.resumed(d)
	case *event.RollbackData:
		what := "files"
		if d.Conversation {
			what = "files and conversation"
		}
		t.notice("rolled back %s to checkpoint %s (%d files); undo: roll back to %s", what, short(d.CheckpointID), len(d.Files), short(d.Before))
	case *event.ErrorData:
		t.add(&entry{kind: itemError, text: fmt.Sprintf("%s error: %s", d.Class, d.Message)})
	case *event.RunFinishedData:
		t.status = d.Status
		t.stream = nil
		if len(d.Ended) > 0 {
			for _, p := range d.Ended {
				t.notice("stopped what %s left running: %d process(es)", p.CallID, len(p.Processes))
			}
		}
	}
}

// resumed says, on screen, what the resume decided for each interrupted call.
func (t *transcriptState) resumed(d *event.ResumeData) {
	if len(d.Interrupted) == 0 && len(d.Leftovers) == 0 {
		t.notice("resumed")
		return
	}
	for _, c := range d.Interrupted {
		line := fmt.Sprintf("resumed: %s %s — ", c.CallID, c.Name)
		switch c.Action {
		case event.ActionNotRerun:
			line += "not re-run: the agent stopped while it ran, so its outcome is unknown"
		case event.ActionRerun:
			line += "run again (it had no effect yet)"
		case event.ActionAwaitingApproval:
			line += "waiting for your decision"
		}
		if p := c.Processes; p != nil && p.Action == event.ProcessKilled {
			line += fmt.Sprintf("; stopped %d process(es) it left running", len(p.Processes))
		}
		t.notice("%s", line)
	}
	for _, p := range d.Leftovers {
		t.notice("resumed: stopped %d process(es) that %s left running", len(p.Processes), p.CallID)
	}
}

// running reports whether a tool card is running.
func (t *transcriptState) running() bool {
	for _, e := range t.cards {
		if e.status == cardRunning {
			return true
		}
	}
	return false
}

func (t *transcriptState) card(id, name string) *entry {
	e := t.cards[id]
	if e == nil && id != "" {
		e = t.add(&entry{kind: itemCard, status: cardPending, callID: id, tool: name})
		t.cards[id] = e
	}
	return e
}

// summarize is the one line a card shows of a call's arguments.
func summarize(tool, args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return oneLine(args, 200)
	}
	for _, k := range []string{"command", "path", "pattern"} {
		if v, ok := m[k].(string); ok && v != "" {
			return oneLine(v, 200)
		}
	}
	if tool == "update_plan" {
		return "plan"
	}
	return oneLine(args, 200)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
