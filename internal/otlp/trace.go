package otlp

// The mapping of a run's events to spans. A run is one trace; each stretch
// of it (from run_started, or a resume, to run_finished) is an
// "invoke_agent" span, the first the trace's root and the later ones its
// children; under a stretch, a "chat MODEL" span per model request and an
// "execute_tool NAME" span per tool call. Approvals, checkpoints and
// command starts are events of their tool call's span; rollbacks, resumes,
// compactions, revoked grants and errors are events of the stretch.

import (
	"encoding/json"
	"strconv"
	"time"

	"agent/internal/event"
)

// GenAI semantic-convention names, and the agent's own.
const (
	attrOperation     = "gen_ai.operation.name"
	attrProvider      = "gen_ai.provider.name"
	attrSystem        = "gen_ai.system" // the older name of the provider, for backends that read it
	attrRequestModel  = "gen_ai.request.model"
	attrConversation  = "gen_ai.conversation.id"
	attrAgentName     = "gen_ai.agent.name"
	attrInputTokens   = "gen_ai.usage.input_tokens"
	attrOutputTokens  = "gen_ai.usage.output_tokens"
	attrFinishReasons = "gen_ai.response.finish_reasons"
	attrInputMsgs     = "gen_ai.input.messages"
	attrOutputMsgs    = "gen_ai.output.messages"
	attrToolName      = "gen_ai.tool.name"
	attrToolCallID    = "gen_ai.tool.call.id"
	attrToolType      = "gen_ai.tool.type"
	attrToolArgs      = "gen_ai.tool.call.arguments"
	attrToolResult    = "gen_ai.tool.call.result"
	attrErrorType     = "error.type"
)

// Operation names.
const (
	OpInvokeAgent = "invoke_agent"
	OpChat        = "chat"
	OpExecuteTool = "execute_tool"
)

// maxMessage bounds an error message carried in a status or event.
const maxMessage = 1024

// TraceOptions describe the run whose events are mapped.
type TraceOptions struct {
	RunID string
	// Model and Provider name the model when the events do not
	// (run_started carries the model; the provider is not journaled).
	Model    string
	Provider string
	// Content maps prompt and output text: the person's messages, the
	// model's text and tool calls, tool arguments and results. Off, a span
	// carries names, ids, statuses, sizes, token counts and times only.
	Content bool
	// Parent, when set, is the span the run's spans nest under: a child
	// run (a task call's subagent) is in its parent's trace, its root span
	// a child of the parent's "execute_tool task" span.
	Parent *SpanContext
}

// Builder maps a run's events, in journal order, to spans; Add returns
// the spans each event finishes. It is not safe for concurrent use.
type Builder struct {
	opt   TraceOptions
	trace TraceID
	seg   *open             // the stretch being mapped, nil between stretches
	chat  *open             // the model request awaiting its answer
	tools map[string]*open  // tool calls awaiting their result, by call id
	names map[string]string // tool names by call id (from calls and resumes)
	users []string          // the person's messages since the last request (content)
	last  time.Time         // the time of the latest event
}

// open is a span that has started.
type open struct {
	span Span
}

// NewBuilder starts the mapping of a run's events.
func NewBuilder(opt TraceOptions) *Builder {
	trace := TraceIDOf(opt.RunID)
	if opt.Parent != nil {
		trace = opt.Parent.Trace
	}
	return &Builder{opt: opt, trace: trace, tools: map[string]*open{}, names: map[string]string{}}
}

// TraceID is the trace the builder maps into.
func (b *Builder) TraceID() TraceID { return b.trace }

// ToolSpan is the span of a tool call still open (a task call whose child
// runs): the parent of the child's spans.
func (b *Builder) ToolSpan(callID string) (SpanContext, bool) {
	t, ok := b.tools[callID]
	if !ok {
		return SpanContext{}, false
	}
	return SpanContext{Trace: t.span.Trace, Span: t.span.ID}, true
}

// Trace maps a whole journal: every span, those the journal leaves open
// ended at its last event.
func Trace(opt TraceOptions, evs []event.Event) []Span {
	b := NewBuilder(opt)
	var out []Span
	for _, ev := range evs {
		out = append(out, b.Add(ev)...)
	}
	return append(out, b.Finish(time.Time{})...)
}

func (b *Builder) model() string {
	if b.opt.Model != "" {
		return b.opt.Model
	}
	return "unknown"
}

func (b *Builder) provider() string {
	if b.opt.Provider != "" {
		return b.opt.Provider
	}
	return "openai"
}

// Add maps one event and returns the spans it finishes.
func (b *Builder) Add(ev event.Event) []Span {
	b.last = ev.Time
	var done []Span
	if b.seg == nil {
		b.startStretch(ev)
	}
	switch d := ev.Data.(type) {
	case *event.RunStartedData:
		if d.Model != "" {
			b.opt.Model = d.Model
			b.setSeg(String(attrRequestModel, d.Model))
		}
		b.setSeg(String("agent.approval", string(d.Approval)), String("agent.workspace", d.Workspace))
	case *event.UserMessageData:
		if b.opt.Content {
			b.users = append(b.users, d.Text)
		}
	case *event.ModelRequestData:
		done = append(done, b.endChat(ev.Time, StatusUnset, "")...)
		b.startChat(ev, d)
	case *event.AssistantMessageData:
		done = append(done, b.answer(ev, d)...)
	case *event.ToolCallData:
		if _, ok := b.tools[d.CallID]; !ok {
			b.startTool(ev, d.CallID, d.Name, d.Risk, d.Arguments)
		}
	case *event.ApprovalData:
		attrs := []Attr{String("agent.approval.decision", string(d.Decision)), String("agent.approval.scope", string(d.Scope)),
			String("agent.approval.source", string(d.Source))}
		if d.Rule != "" {
			attrs = append(attrs, String("agent.approval.rule", d.Rule))
		}
		if d.Reason != "" {
			attrs = append(attrs, String("agent.approval.reason", d.Reason))
		}
		if d.Note != "" && b.opt.Content {
			attrs = append(attrs, String("agent.approval.note", d.Note))
		}
		b.eventOn(d.CallID, SpanEvent{Time: ev.Time, Name: "approval", Attrs: attrs})
	case *event.CheckpointData:
		b.eventOn(d.CallID, SpanEvent{Time: ev.Time, Name: "checkpoint", Attrs: []Attr{
			String("agent.checkpoint.id", d.CheckpointID), String("agent.checkpoint.kind", string(d.Kind)),
			Strings("agent.checkpoint.files", d.Files), Int("agent.checkpoint.files_count", int64(len(d.Files))),
		}})
	case *event.CommandStartedData:
		b.eventOn(d.CallID, SpanEvent{Time: ev.Time, Name: "command_started", Attrs: []Attr{Int("agent.command.pid", int64(d.PID))}})
	case *event.ToolResultData:
		done = append(done, b.endTool(ev, d)...)
	case *event.RollbackData:
		b.segEvent(SpanEvent{Time: ev.Time, Name: "rollback", Attrs: []Attr{
			String("agent.checkpoint.id", d.CheckpointID), String("agent.rollback.before_checkpoint_id", d.Before),
			Bool("agent.rollback.conversation", d.Conversation), Strings("agent.checkpoint.files", d.Files),
			Int("agent.checkpoint.files_count", int64(len(d.Files))),
		}})
	case *event.ResumeData:
		calls := make([]string, 0, len(d.Interrupted))
		for _, ic := range d.Interrupted {
			b.names[ic.CallID] = ic.Name
			calls = append(calls, ic.Name+" "+ic.CallID+": "+string(ic.Action))
		}
		b.segEvent(SpanEvent{Time: ev.Time, Name: "resume", Attrs: []Attr{
			Int("agent.resume.from_seq", d.FromSeq), Strings("agent.resume.interrupted", calls),
		}})
		// the interrupted calls go on in this stretch: their approvals and
		// results belong to a span here
		for _, ic := range d.Interrupted {
			if _, ok := b.tools[ic.CallID]; !ok {
				b.startTool(ev, ic.CallID, ic.Name, "", "")
			}
		}
	case *event.CompactionData:
		b.segEvent(SpanEvent{Time: ev.Time, Name: "compaction", Attrs: []Attr{
			String("agent.compaction.trigger", string(d.Trigger)), String("agent.compaction.kind", string(d.Kind)),
			Int("agent.compaction.tokens_before", int64(d.TokensBefore)), Int("agent.compaction.tokens_after", int64(d.TokensAfter)),
		}})
	case *event.GrantRevokedData:
		b.segEvent(SpanEvent{Time: ev.Time, Name: "grant_revoked", Attrs: []Attr{String("agent.approval.rule", d.Rule)}})
	case *event.ErrorData:
		msg := clip(d.Message)
		attrs := []Attr{String("exception.type", string(d.Class)), String("exception.message", msg)}
		if b.chat != nil {
			b.chat.span.Events = append(b.chat.span.Events, SpanEvent{Time: ev.Time, Name: "exception", Attrs: attrs})
			b.chat.span.Attrs = append(b.chat.span.Attrs, String(attrErrorType, string(d.Class)))
			done = append(done, b.endChat(ev.Time, StatusError, msg)...)
		} else {
			b.segEvent(SpanEvent{Time: ev.Time, Name: "exception", Attrs: attrs})
		}
		b.seg.span.Status, b.seg.span.Message = StatusError, msg
	case *event.RunFinishedData:
		done = append(done, b.finishStretch(ev.Time, d)...)
	}
	return done
}

// Finish ends what is still open (at the latest event's time when at is
// zero) and returns those spans: the end of a journal, or of the process.
func (b *Builder) Finish(at time.Time) []Span {
	if at.IsZero() {
		at = b.last
	}
	if b.seg == nil {
		return nil
	}
	return b.finishStretch(at, nil)
}

func (b *Builder) startStretch(ev event.Event) {
	id, parent := spanIDOf(b.opt.RunID, "run", 0), SpanID{}
	if b.opt.Parent != nil {
		parent = b.opt.Parent.Span
	}
	if ev.Type != event.RunStarted {
		id, parent = spanIDOf(b.opt.RunID, "stretch", ev.Seq), spanIDOf(b.opt.RunID, "run", 0)
	}
	b.seg = &open{span: Span{Trace: b.trace, ID: id, Parent: parent, Name: OpInvokeAgent + " agent", Kind: KindInternal, Start: ev.Time,
		Attrs: []Attr{
			String(attrOperation, OpInvokeAgent), String(attrAgentName, "agent"), String(attrConversation, b.opt.RunID),
			String(attrProvider, b.provider()), String(attrSystem, b.provider()), String("agent.run.id", b.opt.RunID),
			Bool("agent.resumed", ev.Type != event.RunStarted), Int("agent.first_seq", ev.Seq),
		}}}
	if ev.Type != event.RunStarted {
		b.setSeg(String(attrRequestModel, b.model()))
	}
}

// setSeg sets attributes of the stretch, replacing those it has.
func (b *Builder) setSeg(attrs ...Attr) {
	s := &b.seg.span
outer:
	for _, a := range attrs {
		for i := range s.Attrs {
			if s.Attrs[i].Key == a.Key {
				s.Attrs[i] = a
				continue outer
			}
		}
		s.Attrs = append(s.Attrs, a)
	}
}

func (b *Builder) segEvent(e SpanEvent) { b.seg.span.Events = append(b.seg.span.Events, e) }

// eventOn adds an event to the span of a tool call, else to the stretch.
func (b *Builder) eventOn(callID string, e SpanEvent) {
	if t, ok := b.tools[callID]; ok && callID != "" {
		t.span.Events = append(t.span.Events, e)
		return
	}
	if callID != "" {
		e.Attrs = append(e.Attrs, String(attrToolCallID, callID))
	}
	b.segEvent(e)
}

func (b *Builder) startChat(ev event.Event, d *event.ModelRequestData) {
	attrs := []Attr{
		String(attrOperation, OpChat), String(attrProvider, b.provider()), String(attrSystem, b.provider()),
		String(attrRequestModel, b.model()), String(attrConversation, b.opt.RunID), Int("agent.step", int64(d.Step)),
		Int("agent.context.tokens", int64(d.Context.TotalTokens)), Int("agent.context.budget", int64(d.Context.Budget)),
	}
	if b.opt.Content && len(b.users) > 0 {
		msgs := make([]message, len(b.users))
		for i, u := range b.users {
			msgs[i] = message{Role: "user", Parts: []part{{Type: "text", Content: u}}}
		}
		attrs = append(attrs, String(attrInputMsgs, jsonText(msgs)))
		b.users = nil
	}
	b.chat = &open{span: Span{Trace: b.trace, ID: spanIDOf(b.opt.RunID, "chat", ev.Seq), Parent: b.seg.span.ID,
		Name: OpChat + " " + b.model(), Kind: KindClient, Start: ev.Time, Attrs: attrs}}
}

// answer ends the model request with the model's answer.
func (b *Builder) answer(ev event.Event, d *event.AssistantMessageData) []Span {
	if b.chat == nil { // an answer without its request (a journal cut short)
		b.startChat(event.Event{Seq: ev.Seq, Time: ev.Time}, &event.ModelRequestData{Step: d.Step})
	}
	s := &b.chat.span
	reason := "stop"
	if len(d.ToolCalls) > 0 {
		reason = "tool_calls"
	}
	s.Attrs = append(s.Attrs, Strings(attrFinishReasons, []string{reason}), Int("agent.response.tool_calls", int64(len(d.ToolCalls))))
	if d.Tokens != nil {
		s.Attrs = append(s.Attrs, Int(attrInputTokens, int64(d.Tokens.Input)), Int(attrOutputTokens, int64(d.Tokens.Output)))
	}
	names := make([]string, len(d.ToolCalls))
	for i, tc := range d.ToolCalls {
		names[i] = tc.Name
		b.names[tc.ID] = tc.Name
	}
	if len(names) > 0 {
		s.Attrs = append(s.Attrs, Strings("agent.response.tool_names", names))
	}
	if b.opt.Content {
		m := message{Role: "assistant", FinishReason: reason}
		if d.Text != "" {
			m.Parts = append(m.Parts, part{Type: "text", Content: d.Text})
		}
		for _, tc := range d.ToolCalls {
			m.Parts = append(m.Parts, part{Type: "tool_call", ID: tc.ID, Name: tc.Name, Arguments: rawArgs(tc.Arguments)})
		}
		s.Attrs = append(s.Attrs, String(attrOutputMsgs, jsonText([]message{m})))
	}
	return b.endChat(ev.Time, StatusUnset, "")
}

func (b *Builder) endChat(at time.Time, code StatusCode, msg string) []Span {
	if b.chat == nil {
		return nil
	}
	s := b.chat.span
	s.End, s.Status, s.Message = at, code, msg
	b.chat = nil
	return []Span{s}
}

func (b *Builder) startTool(ev event.Event, callID, name string, risk event.Risk, args string) {
	if name == "" {
		name = b.names[callID]
	}
	b.names[callID] = name
	attrs := []Attr{String(attrOperation, OpExecuteTool), String(attrToolName, name), String(attrToolCallID, callID),
		String(attrToolType, "function")}
	if risk != "" {
		attrs = append(attrs, String("agent.tool.risk", string(risk)))
	}
	if b.opt.Content && args != "" {
		attrs = append(attrs, String(attrToolArgs, args))
	}
	spanName := OpExecuteTool
	if name != "" {
		spanName += " " + name
	}
	b.tools[callID] = &open{span: Span{Trace: b.trace, ID: spanIDOf(b.opt.RunID, "tool\x00"+callID, ev.Seq), Parent: b.seg.span.ID,
		Name: spanName, Kind: KindInternal, Start: ev.Time, Attrs: attrs}}
}

func (b *Builder) endTool(ev event.Event, d *event.ToolResultData) []Span {
	t, ok := b.tools[d.CallID]
	if !ok { // its call was journaled in an earlier stretch (a resume)
		b.startTool(ev, d.CallID, "", "", "")
		t = b.tools[d.CallID]
	}
	delete(b.tools, d.CallID)
	s := t.span
	s.End = ev.Time
	s.Attrs = append(s.Attrs, String("agent.tool.status", string(d.Status)), Int("agent.tool.output_bytes", int64(len(d.Output))))
	if d.ExitCode != nil {
		s.Attrs = append(s.Attrs, Int("agent.tool.exit_code", int64(*d.ExitCode)))
	}
	if b.opt.Content {
		s.Attrs = append(s.Attrs, String(attrToolResult, d.Output))
	}
	switch {
	case d.Status == event.ResultError:
		s.Status, s.Message = StatusError, "the tool returned an error"
		s.Attrs = append(s.Attrs, String(attrErrorType, "tool_error"))
	case d.ExitCode != nil && *d.ExitCode != 0:
		s.Status, s.Message = StatusError, "exit code "+strconv.Itoa(*d.ExitCode)
		s.Attrs = append(s.Attrs, String(attrErrorType, "exit_code"))
	}
	return []Span{s}
}

// finishStretch ends the stretch and what is open in it. d is nil when the
// journal (or the process) ends without run_finished.
func (b *Builder) finishStretch(at time.Time, d *event.RunFinishedData) []Span {
	var done []Span
	status := "unfinished"
	if d != nil {
		status = string(d.Status)
	}
	done = append(done, b.endChat(at, StatusUnset, "")...)
	for id, t := range b.tools {
		s := t.span
		s.End = at
		s.Attrs = append(s.Attrs, String("agent.tool.status", "no_result_"+status))
		done = append(done, s)
		delete(b.tools, id)
	}
	sortSpans(done)
	b.setSeg(String("agent.run.status", status))
	if d != nil {
		b.setSeg(Int("agent.run.steps", int64(d.Steps)), Int("agent.run.tool_calls", int64(d.ToolCalls)),
			Int(attrInputTokens, int64(d.Tokens.Input)), Int(attrOutputTokens, int64(d.Tokens.Output)))
		if d.Failure != nil {
			b.setSeg(String(attrErrorType, string(d.Failure.Class)))
		}
		if b.opt.Content && d.Answer != "" {
			b.setSeg(String(attrOutputMsgs, jsonText([]message{{Role: "assistant", Parts: []part{{Type: "text", Content: d.Answer}}}})))
		}
		if d.Status == event.StatusFailed && b.seg.span.Status == StatusUnset {
			b.seg.span.Status = StatusError
		}
	}
	s := b.seg.span
	s.End = at
	b.seg, b.users = nil, nil
	return append(done, s)
}

// sortSpans orders spans by start (map order is random).
func sortSpans(s []Span) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Start.Before(s[j-1].Start); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// message and part are the GenAI conventions' message shape
// (gen_ai.input.messages / gen_ai.output.messages).
type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

type part struct {
	Type      string `json:"type"`
	Content   string `json:"content,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
}

// rawArgs keeps tool-call arguments as JSON when they are, else as text.
func rawArgs(s string) any {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return strconv.Quote(err.Error())
	}
	return string(b)
}

func clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
