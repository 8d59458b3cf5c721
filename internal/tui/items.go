package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"agent/internal/budget"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
	"agent/internal/tui/transcript"
)

// itemKind is what a transcript entry is.
type itemKind uint8

const (
	itemUser itemKind = iota + 1
	itemAssistant
	itemCard
	itemNotice
	itemWarn
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

// entry is one item of the transcript, built from events and deltas; its
// item is what the transcript view draws (sync brings it up to date).
type entry struct {
	kind      itemKind
	text      string // user, assistant, notice, error text
	streaming bool   // an assistant message still arriving
	item      transcript.Item
	seq       int64 // the journal event it comes from (0: none, or not yet)
	resultSeq int64 // a card's tool_result event

	// cards
	callID, tool, summary, args string
	risk                        event.Risk
	status                      cardStatus
	exit                        *int
	output, diff                string
	live                        string                // a running command's latest output
	allowed                     string                // the rule or grant that allowed it
	children                    []transcript.ChildRow // a task call's subagents (children.go)
	background                  int
	argsB                       strings.Builder // a streaming call's arguments so far
}

// summaryScan: a streaming call's summary is re-read while its arguments
// are at most this long.
const summaryScan = 4 << 10

// transcriptState folds events and stream deltas into entries, and the
// entries into the transcript view.
type transcriptState struct {
	view     *transcript.Model
	entries  []*entry
	cards    map[string]*entry // by call id
	stream   *entry            // the assistant message now streaming
	calls    map[int]*entry    // streaming cards by index, this step
	step     int
	lastStep int // the step of the last model request
	context  event.ContextReport
	// since is a compaction journaled after the last model request (the
	// next request is built from it), sinceSeq its event's seq
	since    *event.CompactionData
	sinceSeq int64
	mapError string // the last repo map error shown
	tokens   event.TokenCount
	status   event.Status
	// stopShown: the run's stop is said, with what to do next (words.go)
	stopShown bool
	// spend folds the session's usage for its cost; runSpend the current
	// run's alone, for its budget meter (budget.go)
	spend, runSpend budget.Tally
	budgetWarned    bool     // the 80 % warning of the run's budget was given
	shown           []string // how the next messages sent show (userdisplay.go)
}

// newTranscript returns an empty transcript drawn in th; diff draws the
// diff of an edit card (nil: the view's own colouring).
func newTranscript(th *theme.Theme, diff transcript.DiffFunc) *transcriptState {
	v, err := transcript.New(transcript.Options{Theme: th, Diff: diff})
	if err != nil {
		panic(err) // only a nil theme fails, and th is never nil here
	}
	return &transcriptState{view: v, cards: map[string]*entry{}, calls: map[int]*entry{}}
}

func (t *transcriptState) add(e *entry) *entry {
	t.entries = append(t.entries, e)
	switch e.kind {
	case itemUser:
		e.item = transcript.NewUser(e.text)
	case itemAssistant:
		if e.streaming {
			e.item = transcript.NewAssistant(e.text)
		} else {
			e.item = transcript.NewAssistantDone(e.text)
		}
	case itemNotice:
		e.item = transcript.NewNotice(transcript.NoticeInfo, e.text)
	case itemWarn:
		e.item = transcript.NewNotice(transcript.NoticeWarn, e.text)
	case itemError:
		e.item = transcript.NewError(e.text)
	case itemCard:
		e.item = transcript.NewToolCard(e.cardData())
	}
	t.view.Append(e.item)
	return e
}

// sync brings a card's item up to date after its fields changed.
func (t *transcriptState) sync(e *entry) {
	if c, ok := e.item.(*transcript.ToolCard); ok {
		c.Update(e.cardData())
	}
}

// cardData is what the card shows of an entry.
func (e *entry) cardData() transcript.CardData {
	d := transcript.CardData{Tool: e.tool, CallID: e.callID, Summary: e.summary, Exit: e.exit, Output: e.output, Diff: e.diff, Live: e.live, Allowed: e.allowed, Children: e.children}
	switch e.risk {
	case event.RiskRead:
		d.Risk = transcript.RiskRead
	case event.RiskWrite:
		d.Risk = transcript.RiskWrite
	case event.RiskExec:
		d.Risk = transcript.RiskExec
	}
	switch e.status {
	case cardAwaiting:
		d.Status = transcript.StatusAwaitingApproval
	case cardRunning:
		d.Status = transcript.StatusRunning
	case cardOK:
		d.Status = transcript.StatusOK
	case cardFailed:
		d.Status = transcript.StatusError
	case cardDenied:
		d.Status = transcript.StatusDenied
	case cardInterrupted:
		d.Status = transcript.StatusInterrupted
	default:
		d.Status = transcript.StatusPending
	}
	if e.background > 0 {
		d.Output = strings.TrimRight(d.Output, "\n") + fmt.Sprintf("\n(%d background process(es) left running: stopped when the run ends)", e.background)
	}
	return d
}

func (t *transcriptState) notice(format string, a ...any) {
	t.add(&entry{kind: itemNotice, text: fmt.Sprintf(format, a...)})
}

// warn is a notice that needs the person's attention.
func (t *transcriptState) warn(format string, a ...any) {
	t.add(&entry{kind: itemWarn, text: fmt.Sprintf(format, a...)})
}

// delta applies a piece of streamed assistant text.
func (t *transcriptState) delta(text string) {
	if t.stream == nil {
		t.stream = t.add(&entry{kind: itemAssistant, streaming: true})
	}
	t.stream.item.(*transcript.Assistant).Append(text) // the item keeps the text
}

// callDelta applies a piece of a streaming tool call.
func (t *transcriptState) callDelta(d protocol.CallDelta) {
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
	if d.Text == "" {
		return
	}
	// The arguments grow a fragment at a time (a file's content can be
	// megabytes): keep them in a builder, and re-read the one-line summary
	// only while they are short; the committed call brings the whole.
	c.argsB.WriteString(d.Text)
	if n := c.argsB.Len(); n <= summaryScan || c.summary == "" {
		c.summary = summarize(c.tool, c.argsB.String())
		t.sync(c)
	}
}

// apply folds one committed event.
func (t *transcriptState) apply(ev event.Event) {
	t.applySpend(ev)
	switch d := ev.Data.(type) {
	case *event.UserMessageData:
		t.add(&entry{kind: itemUser, text: t.userText(d.Text), seq: ev.Seq})
	case *event.ModelRequestData:
		t.context, t.status, t.lastStep = d.Context, event.StatusRunning, d.Step
		t.since, t.sinceSeq = nil, 0
	case *event.ModeChangedData:
		t.add(&entry{kind: itemNotice, text: protocol.ModeChangedLine(d), seq: ev.Seq})
	case *event.ModelChangedData:
		t.add(&entry{kind: itemNotice, text: protocol.ModelChangedLine(d), seq: ev.Seq})
	case *event.CompactionData:
		t.since, t.sinceSeq = d, ev.Seq
		t.add(&entry{kind: itemNotice, text: protocol.CompactionWords(d, textutil.Count, "→"), seq: ev.Seq})
	case *event.ContextRefreshData:
		// a refresh is routine: only a repo map that could not be built
		// is said, once until it changes
		if d.Error != "" && d.Error != t.mapError {
			t.notice("no repo map in the context: %s", oneLine(d.Error, 160))
		}
		t.mapError = d.Error
	case *event.AssistantMessageData:
		if t.stream != nil {
			t.stream.seq = ev.Seq
			t.stream.text, t.stream.streaming = d.Text, false
			a := t.stream.item.(*transcript.Assistant)
			if a.Text() != d.Text {
				a.SetText(d.Text)
			}
			a.Finish()
			t.stream = nil
		} else if d.Text != "" {
			t.add(&entry{kind: itemAssistant, text: d.Text, seq: ev.Seq})
		}
		if d.Tokens != nil {
			t.tokens.Input = event.SatAdd(t.tokens.Input, d.Tokens.Input)
			t.tokens.Output = event.SatAdd(t.tokens.Output, d.Tokens.Output)
		}
		if d.UsageWarning != "" {
			t.notice("warning: %s", d.UsageWarning)
		}
		for _, c := range d.ToolCalls {
			e := t.cards[c.ID]
			if e == nil {
				e = t.add(&entry{kind: itemCard, status: cardPending, callID: c.ID})
				t.cards[c.ID] = e
			}
			e.tool, e.args, e.seq = c.Name, c.Arguments, ev.Seq
			e.summary = summarize(c.Name, c.Arguments)
			t.sync(e)
		}
		t.calls = map[int]*entry{}
	case *event.ToolCallData:
		if e := t.card(d.CallID, d.Name); e != nil {
			e.risk = d.Risk
			t.sync(e)
		}
	case *event.ApprovalData:
		if e := t.card(d.CallID, ""); e != nil && d.Decision == event.Deny {
			e.status = cardDenied
			t.sync(e)
		} else if e != nil {
			if e.allowed = allowedBy(d); e.allowed != "" {
				t.sync(e)
			}
		}
	case *event.CommandStartedData:
		if e := t.card(d.CallID, ""); e != nil {
			e.status = cardRunning
			t.sync(e)
		}
	case *event.ToolResultData:
		if e := t.card(d.CallID, ""); e != nil {
			e.resultSeq, e.live = ev.Seq, ""
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
					// the first line says what changed; the rest is the diff
					e.output, e.diff = d.Output[:i], d.Output[i+1:]
				}
			}
			t.sync(e)
		}
	case *event.ResumeData:
		t.resumed(d)
	case *event.GrantRevokedData:
		t.notice("grant revoked: %s asks again", d.Rule)
	case *event.RollbackData:
		what := "files"
		if d.Conversation {
			what = "files and conversation"
			t.rewind(d.ToSeq)
		}
		t.notice("rolled back %s to checkpoint %s (%d files); undo: roll back to %s", what, short(d.CheckpointID), len(d.Files), short(d.Before))
	case *event.ErrorData:
		t.add(&entry{kind: itemError, text: protocol.ErrorWords(d.Class, d.Message), seq: ev.Seq})
	case *event.RunFinishedData:
		t.status = d.Status
		if t.stream != nil {
			t.stream.item.(*transcript.Assistant).Finish()
			t.stream = nil
		}
		if len(d.Ended) > 0 {
			for _, p := range d.Ended {
				t.notice("stopped what %s left running: %d process(es)", p.CallID, len(p.Processes))
			}
		}
		t.failed(d)
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
		if c.Action == event.ActionNotRerun {
			t.warn("%s", line)
		} else {
			t.notice("%s", line)
		}
	}
	for _, p := range d.Leftovers {
		t.warn("resumed: stopped %d process(es) that %s left running", len(p.Processes), p.CallID)
	}
}

// rewind dims the entries a conversation rollback took out of what the
// model sees: those of events after seq (they stay on screen, faint).
//
// As the run's state does, an assistant turn whose calls have no result by
// seq goes too (the model is asked again rather than left with half a
// turn): its text and cards share the assistant message's seq.
func (t *transcriptState) rewind(seq int64) {
	half := map[int64]bool{}
	for _, e := range t.entries {
		if e.kind == itemCard && e.seq > 0 && e.seq <= seq && (e.resultSeq == 0 || e.resultSeq > seq) {
			half[e.seq] = true
		}
	}
	for i, e := range t.entries {
		if e.seq > seq || half[e.seq] {
			t.view.SetDimmed(i, true)
		}
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
	if p, _ := m["pattern"].(string); p != "" {
		// a search is told by what it looks for; where, if narrowed, after
		s := p
		if d, _ := m["path"].(string); d != "" {
			s += " in " + d
		}
		if g, _ := m["include"].(string); g != "" {
			s += " (" + g + ")"
		}
		return oneLine(s, 200)
	}
	for _, k := range []string{"command", "path", "description"} { // description: a task call's
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
