package agent

import (
	"strings"

	"agent/internal/budget"
	"agent/internal/tools"

	"agent/internal/event"
	"agent/internal/tokens"
)

// State is what a run's events fold into: enough to continue it.
type State struct {
	RunID     string
	Workspace string
	Model     string
	Approval  event.ApprovalMode
	Provider  event.Provider // the model adapter the run started with ("" before it was recorded)
	Allow     []string       // the run's rules, from run_started
	Deny      []string
	Messages  []Message
	Step      int
	ToolCalls int
	Tokens    Usage
	// Spend is the run's budget and what it has spent (tokens by model,
	// active time), folded from the same events.
	Spend   budget.Tally
	Status  event.Status
	Answer  string
	LastSeq int64
	// Open are the calls of the newest assistant message without a result.
	Open []*OpenCall
	// Commands are the process groups of every command the run started
	// (command_started), so that what they leave running can be ended.
	Commands []event.CommandStartedData
	// Meta[i] says where Messages[i] came from.
	Meta []MessageMeta
	// ParentRun and ParentCall link a child run (a task call's) to its
	// parent, from run_started.
	ParentRun, ParentCall string
	// Tasks are the children the run's task calls started, by call id.
	Tasks map[string]event.TaskStartedData
	// Context is what the context builder folds: compactions, refreshes of
	// the slow layers, the plan, edits, the token correction.
	Context ContextState
	// failures counts identical failing calls (name + arguments + error).
	failures map[string]int
	// noteDenied is the call of the newest assistant message a person
	// denied with a note: the turn's other calls that would ask a person
	// are denied with it (Runner.cancelledByNote).
	noteDenied string
	// queued are events folded in but not yet committed (Runner.flush).
	queued []event.Event
	// ModelSwitched: a model_changed made Model the model of the next
	// request (over the configured one).
	ModelSwitched bool
	// Switches are mode and model changes asked for while the run is
	// being driven; the loop journals them before its next request or call
	// (nil: none can be asked).
	Switches *Switches
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

// MessageKind says where a conversation message came from.
type MessageKind uint8

const (
	KindPerson    MessageKind = iota + 1 // a user_message: words a person typed
	KindNote                             // a note of the agent's to the model (a rollback)
	KindAssistant                        // the model's answer, with its calls
	KindTool                             // a tool result
)

// MessageMeta is what the journal says about one message beyond its text.
type MessageMeta struct {
	Seq  int64 // the event that produced it
	Kind MessageKind
	Step int // assistant: the step (model request) it answered
	// Tool results: how the call ended, its exit code, the tool's risk.
	Status   event.ResultStatus
	ExitCode *int
	Risk     event.Risk
}

// ContextState is the part of a run's state only the context builder reads,
// folded from its own events (compaction, context_refresh), the plan's
// update_plan calls and the provider's usage. Each list keeps every entry
// with its event's seq, so a conversation rewind can drop what came after.
type ContextState struct {
	Compactions []Folded[event.CompactionData]
	Refreshes   []Folded[event.ContextRefreshData]
	// Plans are the arguments of every update_plan call that succeeded.
	Plans []Folded[string]
	// Edits counts successful file writes (write-risk tools).
	Edits int
	// Correction is the provider/encoder ratio of prompt tokens, folded from
	// each model_request's count and the usage its answer reported.
	Correction tokens.Correction
	// Last is the report of the newest model request.
	Last *event.ContextReport
	// Force asks the next build to compact (a person's /compact or
	// resume --compact); never journaled: the compaction is.
	Force bool
	// ModelSummaryTurn is the number of person messages when a model
	// summary was last made (at most one per turn); 0: none.
	ModelSummaryTurn int
	// LastRequestSeq is the seq of the newest model_request.
	LastRequestSeq int64
	counted        int // the newest request's encoder count, for the correction
}

// Folded is a value with the seq of the event it came from.
type Folded[T any] struct {
	Seq  int64
	Data T
}

// Compaction returns the newest compaction, or nil.
func (c *ContextState) Compaction() *event.CompactionData {
	if n := len(c.Compactions); n > 0 {
		return &c.Compactions[n-1].Data
	}
	return nil
}

// Refresh returns the newest refresh of the slow layers, or nil.
func (c *ContextState) Refresh() *Folded[event.ContextRefreshData] {
	if n := len(c.Refreshes); n > 0 {
		return &c.Refreshes[n-1]
	}
	return nil
}

// Plan returns the newest plan's arguments ("" for none).
func (c *ContextState) Plan() string {
	if n := len(c.Plans); n > 0 {
		return c.Plans[n-1].Data
	}
	return ""
}

// Persons counts the person's messages in the conversation.
func (s *State) Persons() int {
	n := 0
	for _, m := range s.Meta {
		if m.Kind == KindPerson {
			n++
		}
	}
	return n
}

// NewState starts the state of a new run.
func NewState(runID, workspace, model string, approval event.ApprovalMode) *State {
	return &State{RunID: runID, Workspace: workspace, Model: model, Approval: approval, Status: event.StatusRunning}
}

func (s *State) addMessage(m Message, meta MessageMeta) {
	s.Messages = append(s.Messages, m)
	s.Meta = append(s.Meta, meta)
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
	s.Spend.Apply(ev)
	switch d := ev.Data.(type) {
	case *event.RunStartedData:
		s.Workspace, s.Model, s.Approval, s.Provider = d.Workspace, d.Model, d.Approval, d.Provider
		s.Allow, s.Deny = d.Allow, d.Deny
		s.ParentRun, s.ParentCall = d.ParentRun, d.ParentCall
		s.Status = event.StatusRunning
	case *event.TaskStartedData:
		if s.Tasks == nil {
			s.Tasks = map[string]event.TaskStartedData{}
		}
		s.Tasks[d.CallID] = *d
	case *event.UserMessageData:
		s.addMessage(Message{Role: RoleUser, Content: d.Text}, MessageMeta{Seq: ev.Seq, Kind: KindPerson})
		s.Status = event.StatusRunning
	case *event.ModelRequestData:
		s.Step = d.Step
		rep := d.Context
		s.Context.Last, s.Context.counted, s.Context.LastRequestSeq = &rep, d.Context.TotalTokens, ev.Seq
	case *event.CompactionData:
		s.Context.Compactions = append(s.Context.Compactions, Folded[event.CompactionData]{ev.Seq, *d})
		s.Context.Force = false
		if d.Kind == event.SummaryModel {
			s.Context.ModelSummaryTurn = s.Persons()
		}
	case *event.ContextRefreshData:
		s.Context.Refreshes = append(s.Context.Refreshes, Folded[event.ContextRefreshData]{ev.Seq, *d})
	case *event.AssistantMessageData:
		m := Message{Role: RoleAssistant, Content: d.Text}
		s.Open, s.noteDenied = nil, ""
		for _, tc := range d.ToolCalls {
			c := ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
			m.ToolCalls = append(m.ToolCalls, c)
			s.Open = append(s.Open, &OpenCall{Call: c})
		}
		s.addMessage(m, MessageMeta{Seq: ev.Seq, Kind: KindAssistant, Step: d.Step})
		if d.Tokens != nil {
			s.Tokens.Input = event.SatAdd(s.Tokens.Input, d.Tokens.Input)
			s.Tokens.Output = event.SatAdd(s.Tokens.Output, d.Tokens.Output)
			s.Tokens.CacheRead = event.SatAdd(s.Tokens.CacheRead, d.Tokens.CacheRead)
			s.Tokens.CacheWrite = event.SatAdd(s.Tokens.CacheWrite, d.Tokens.CacheWrite)
			if s.Context.Correction.Model == "" {
				s.Context.Correction.Model = s.Model
			}
			s.Context.Correction.Fold(d.Tokens.Input, s.Context.counted)
			s.Context.counted = 0
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
			if d.Decision == event.Deny && d.Source == event.SourceUser && d.Note != "" {
				s.noteDenied = d.CallID
			}
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
		meta := MessageMeta{Seq: ev.Seq, Kind: KindTool, Status: d.Status, ExitCode: d.ExitCode}
		if oc := s.findOpen(d.CallID); oc != nil {
			name, meta.Risk = oc.Call.Name, oc.Risk
			if d.Status == event.ResultOK {
				switch {
				case oc.Risk == event.RiskWrite:
					s.Context.Edits++
				case oc.Call.Name == "update_plan":
					s.Context.Plans = append(s.Context.Plans, Folded[string]{ev.Seq, oc.Call.Arguments})
				}
			}
			if d.Status == event.ResultError {
				if s.failures == nil {
					s.failures = map[string]int{}
				}
				s.failures[failureKey(oc.Call, d.Output)]++
			}
		}
		s.closeCall(d.CallID)
		s.addMessage(Message{Role: RoleTool, ToolCallID: d.CallID, Name: name, Content: d.Output}, meta)
	case *event.RollbackData:
		if d.Conversation {
			s.RewindTo(d.ToSeq)
		}
		s.addMessage(Message{Role: RoleUser, Content: rollbackNote(d)}, MessageMeta{Seq: ev.Seq, Kind: KindNote})
	case *event.ResumeData:
		s.Status = event.StatusRunning
	case *event.ModeChangedData:
		s.applyModeChanged(d)
	case *event.ModelChangedData:
		s.applyModelChanged(d)
	case *event.RunFinishedData:
		s.Status, s.Answer = d.Status, d.Answer
		if d.Status == event.StatusAwaitingApproval {
			// The run paused on the first journaled call nobody decided.
			for _, oc := range s.Open {
				// a task call waits on its child's call (the child's journal
				// holds that pause), never on a person itself
				if oc.Journaled && oc.Approval == nil && oc.Call.Name != tools.TaskName {
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
	for n > 0 && s.Meta[n-1].Seq > seq {
		n--
	}
	s.Messages, s.Meta = s.Messages[:n], s.Meta[:n]
	c := &s.Context
	c.Compactions = dropAfter(c.Compactions, seq)
	c.Refreshes = dropAfter(c.Refreshes, seq)
	c.Plans = dropAfter(c.Plans, seq)
	// A rewind never leaves half a turn: drop a trailing assistant message whose
	// tool calls have no results, so the model is asked again.
	for len(s.Messages) > 0 {
		last := s.Messages[len(s.Messages)-1]
		if last.Role == RoleAssistant && len(last.ToolCalls) > 0 {
			s.Messages, s.Meta = s.Messages[:len(s.Messages)-1], s.Meta[:len(s.Meta)-1]
			continue
		}
		break
	}
	s.Open = nil
}

func dropAfter[T any](xs []Folded[T], seq int64) []Folded[T] {
	n := len(xs)
	for n > 0 && xs[n-1].Seq > seq {
		n--
	}
	return xs[:n]
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
	if d.CheckpointID == "" {
		// a rewind to before a message after which no file changed
		return "[agent] The user rewound the conversation to an earlier point; no file changed since then."
	}
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
