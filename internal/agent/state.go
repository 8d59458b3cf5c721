package agent

import (
	"strings"

	"agent/internal/event"
)

// State is what a run's events fold into: enough to continue it.
type State struct {
	RunID     string
	Workspace string
	Model     string
	Approval  string
	Allow     []string // the run's rules, from run_started
	Deny      []string
	Messages  []Message
	Step      int
	ToolCalls int
	Tokens    Usage
	Status    event.Status
	Answer    string
	LastSeq   int64
	// Open are the calls of the newest assistant message without a result.
	Open []*OpenCall
	// Commands are the process groups of every command the run started
	// (command_started), so that what they leave running can be ended.
	Commands []event.CommandStartedData
	// failures counts identical failing calls (name + arguments + error).
	failures map[string]int
	// firstSeqOfMessage[i] is the seq of the event that produced Messages[i].
	msgSeq []int64
	// queued are events folded in but not yet committed (Runner.flush).
	queued []event.Event
}

// OpenCall is a tool call the model asked for that has no result yet.
type OpenCall struct {
	Call      ToolCall
	Journaled bool                // its tool_call event is committed
	Risk      event.Risk          // from the tool_call event
	Approval  *event.ApprovalData // the newest decision, if any
	BeforeCP  string              // checkpoint taken before it ran, if any
	// Started is the command's process group, once it was started.
	Started *event.CommandStartedData
}

// NewState starts the state of a new run.
func NewState(runID, workspace, model, approval string) *State {
	return &State{RunID: runID, Workspace: workspace, Model: model, Approval: approval, Status: event.StatusRunning}
}

func (s *State) addMessage(m Message, seq int64) {
	s.Messages = append(s.Messages, m)
	s.msgSeq = append(s.msgSeq, seq)
}

func (s *State) findOpen(id string) *OpenCall {
	for _, oc := range s.Open {
		if oc.Call.ID == id {
			return oc
		}
	}
	return nil
}

func (s *State) closeCall(id string) {
	for i, oc := range s.Open {
		if oc.Call.ID == id {
			s.Open = append(s.Open[:i], s.Open[i+1:]...)
			return
		}
	}
}

// Apply folds one event into the state. The loop applies each event it
// commits, and resume applies the journal, so both paths share this code.
func (s *State) Apply(ev event.Event) {
	s.LastSeq = ev.Seq
	switch d := ev.Data.(type) {
	case *event.RunStartedData:
		s.Workspace, s.Model, s.Approval = d.Workspace, d.Model, d.Approval
		s.Allow, s.Deny = d.Allow, d.Deny
		s.Status = event.StatusRunning
	case *event.UserMessageData:
		s.addMessage(Message{Role: RoleUser, Content: d.Text}, ev.Seq)
		s.Status = event.StatusRunning
	case *event.ModelRequestData:
		s.Step = d.Step
	case *event.AssistantMessageData:
		m := Message{Role: RoleAssistant, Content: d.Text}
		s.Open = nil
		for _, tc := range d.ToolCalls {
			c := ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
			m.ToolCalls = append(m.ToolCalls, c)
			s.Open = append(s.Open, &OpenCall{Call: c})
		}
		s.addMessage(m, ev.Seq)
		if d.Tokens != nil {
			s.Tokens.Input += d.Tokens.Input
			s.Tokens.Output += d.Tokens.Output
		}
	case *event.ToolCallData:
		if oc := s.findOpen(d.CallID); oc != nil {
			oc.Journaled, oc.Risk = true, d.Risk
		}
		s.ToolCalls++
	case *event.ApprovalData:
		if oc := s.findOpen(d.CallID); oc != nil {
			cp := *d
			oc.Approval = &cp
		}
	case *event.CheckpointData:
		if oc := s.findOpen(d.CallID); oc != nil && d.Kind == event.CheckpointBefore {
			oc.BeforeCP = d.CheckpointID
		}
	case *event.CommandStartedData:
		s.Commands = append(s.Commands, *d)
		if oc := s.findOpen(d.CallID); oc != nil {
			cp := *d
			oc.Started = &cp
		}
	case *event.ToolResultData:
		name := ""
		if oc := s.findOpen(d.CallID); oc != nil {
			name = oc.Call.Name
			if d.Status == event.ResultError {
				if s.failures == nil {
					s.failures = map[string]int{}
				}
				s.failures[failureKey(oc.Call, d.Output)]++
			}
		}
		s.closeCall(d.CallID)
		s.addMessage(Message{Role: RoleTool, ToolCallID: d.CallID, Name: name, Content: d.Output}, ev.Seq)
	case *event.RollbackData:
		if d.Conversation {
			s.RewindTo(d.ToSeq)
		}
		s.addMessage(Message{Role: RoleUser, Content: rollbackNote(d)}, ev.Seq)
	case *event.ResumeData:
		s.Status = event.StatusRunning
	case *event.RunFinishedData:
		s.Status, s.Answer = d.Status, d.Answer
		if d.Status == event.StatusAwaitingApproval {
			// The run paused on the first journaled call nobody decided.
			for _, oc := range s.Open {
				if oc.Journaled && oc.Approval == nil {
					oc.Approval = &event.ApprovalData{CallID: oc.Call.ID, Pending: true}
					break
				}
			}
		}
	}
}

// RewindTo drops the messages produced by events after seq (a rollback with
// --conversation), and the open calls with them.
func (s *State) RewindTo(seq int64) {
	n := len(s.Messages)
	for n > 0 && s.msgSeq[n-1] > seq {
		n--
	}
	s.Messages, s.msgSeq = s.Messages[:n], s.msgSeq[:n]
	// A rewind never leaves half a turn: drop a trailing assistant message whose
	// tool calls have no results, so the model is asked again.
	for len(s.Messages) > 0 {
		last := s.Messages[len(s.Messages)-1]
		if last.Role == RoleAssistant && len(last.ToolCalls) > 0 {
			s.Messages, s.msgSeq = s.Messages[:len(s.Messages)-1], s.msgSeq[:len(s.msgSeq)-1]
			continue
		}
		break
	}
	s.Open = nil
}

// Fold rebuilds a state from a run's journal.
func Fold(runID string, events []event.Event) *State {
	s := &State{RunID: runID}
	for _, ev := range events {
		s.Apply(ev)
	}
	return s
}

func rollbackNote(d *event.RollbackData) string {
	msg := "[agent] The user rolled the workspace files back to checkpoint " + d.CheckpointID
	if d.Conversation {
		msg += " and rewound the conversation to that point"
	}
	msg += "."
	if len(d.Files) > 0 {
		msg += " Files restored: " + strings.Join(d.Files, ", ") + "."
	} else {
		msg += " No file differed."
	}
	return msg + " Re-read files before editing them."
}

func failureKey(c ToolCall, output string) string {
	return c.Name + "\x00" + c.Arguments + "\x00" + output
}
