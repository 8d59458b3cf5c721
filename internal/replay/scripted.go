package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"agent/internal/agent"
)

// FaultError is returned by Scripted for a request the Server would answer
// with an HTTP error the openai adapter does not retry (or retries no more):
// a turn with such an http_status, or a conversation OpenAI would reject (400).
type FaultError struct {
	Status    int
	Message   string
	Retryable bool // 429 or 5xx: transient (the retries were used up)
	Turn      int  // the turn that scripted it; 0 for a rejected conversation
}

func (e *FaultError) Error() string {
	return fmt.Sprintf("replay: HTTP %d: %s", e.Status, e.Message)
}

// DefaultMaxRetries matches the openai adapter's default.
const DefaultMaxRetries = 4

// Scripted is an agent.Provider playing a script without HTTP. For the same
// script it yields the events the openai adapter yields against a Server:
//
//   - text and arguments come in chunk_size fragments; EvToolCallStart(index,
//     id, name), the EvToolCallDelta fragments, EvToolCallEnd for every call
//     in index order at the finish chunk, then EvUsage and EvFinish; then io.EOF;
//   - a turn with a 429/5xx http_status (or drop_after_chunks 0) is consumed
//     silently like a retried request, at most MaxRetries times in a row; any
//     other http_status turn is a *FaultError from Stream;
//   - stall_after_chunks blocks (Stream itself for 0, as the adapter waits for
//     the first chunk) until ctx is done; drop_after_chunks N > 0 makes Recv fail.
//
// It is safe for concurrent use; set the exported fields before use.
type Scripted struct {
	play *player

	// OnRequest, if set, is called with the request number (from 1) before
	// request n is answered (also for the silently retried ones).
	OnRequest func(n int)
	// MaxRetries: see the type comment. 0 means DefaultMaxRetries, negative none.
	MaxRetries int
	// FollowConversation makes the first request of this provider start where
	// its conversation is: past as many answering turns as the request has
	// assistant messages. A new process resuming a run (`agent resume
	// --replay FILE`) then carries on with the turn that comes next.
	FollowConversation bool
	seeked             bool

	mu   sync.Mutex
	reqs []agent.Request
}

var _ agent.Provider = (*Scripted)(nil)

// NewScripted returns a provider playing s.
func NewScripted(s *Script) *Scripted {
	return &Scripted{play: newPlayer(s)}
}

// Requests returns copies of the requests received so far, one per attempt.
func (p *Scripted) Requests() []agent.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]agent.Request, len(p.reqs))
	for i, r := range p.reqs {
		out[i] = copyRequest(&r)
	}
	return out
}

// Stream plays the next turn.
func (p *Scripted) Stream(ctx context.Context, req *agent.Request) (agent.Stream, error) {
	maxRetries := p.MaxRetries
	if maxRetries == 0 {
		maxRetries = DefaultMaxRetries
	}
	msgs, tools := viewOf(req)
	raw, _ := json.Marshal(req)
	p.mu.Lock()
	if p.FollowConversation && !p.seeked && childOf(p.play.script.Children, msgs) < 0 {
		p.seeked = true
		// The newest answer in the request says where the script is: its
		// calls' ids (or its text) name the turn that gave it. Counting
		// answers is the fallback: a compacted request has folded older
		// ones away.
		k, last := 0, -1
		for i, m := range req.Messages {
			if m.Role == agent.RoleAssistant {
				k, last = k+1, i
			}
		}
		found := false
		if last >= 0 {
			m, id := req.Messages[last], ""
			if len(m.ToolCalls) > 0 {
				id = m.ToolCalls[0].ID
			}
			found = p.play.seekAfter(id, m.Content)
		}
		if !found {
			p.play.seek(k)
		}
	}
	p.mu.Unlock()
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		n := p.play.begin()
		p.mu.Lock()
		p.reqs = append(p.reqs, copyRequest(req))
		p.mu.Unlock()
		if p.OnRequest != nil {
			p.OnRequest(n)
		}
		if err := p.play.check(n, msgs, tools); err != nil {
			return nil, &FaultError{Status: 400, Message: err.Error()}
		}
		_, turnNo, t := p.play.pick(n, msgs, raw)
		retryable := t.retryable() || (t.DropAfterChunks != nil && *t.DropAfterChunks == 0)
		if t.HTTPStatus == 0 && !retryable {
			if t.StallAfterChunks != nil && *t.StallAfterChunks == 0 {
				<-ctx.Done()
				return nil, fmt.Errorf("replay: %w", ctx.Err())
			}
			return newScriptedStream(ctx, &t), nil
		}
		if retryable && attempt < maxRetries {
			continue
		}
		msg := errDropped.Error()
		if t.HTTPStatus != 0 {
			msg = t.errorMessage()
		}
		return nil, &FaultError{Status: t.HTTPStatus, Message: msg, Retryable: retryable, Turn: turnNo}
	}
}

func viewOf(req *agent.Request) (msgs []convMsg, tools []string) {
	for _, m := range req.Messages {
		cm := convMsg{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			cm.ToolCallIDs = append(cm.ToolCallIDs, tc.ID)
			cm.ToolArgs = append(cm.ToolArgs, tc.Arguments)
		}
		msgs = append(msgs, cm)
	}
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	return msgs, tools
}

func copyRequest(r *agent.Request) agent.Request {
	c := agent.Request{Model: r.Model}
	for _, m := range r.Messages {
		m.ToolCalls = append([]agent.ToolCall(nil), m.ToolCalls...)
		c.Messages = append(c.Messages, m)
	}
	for _, t := range r.Tools {
		t.Parameters = append([]byte(nil), t.Parameters...)
		c.Tools = append(c.Tools, t)
	}
	return c
}

var errScriptedClosed = errors.New("replay: stream closed")

// scriptedStream turns the planned parts of a turn into events.
type scriptedStream struct {
	ctx    context.Context
	turn   *Turn
	parts  []part
	i      int // next part; len(parts) is the [DONE] line
	calls  int // tool calls started
	usage  *Usage
	finish string
	queue  []agent.StreamEvent
	done   error

	closeOnce sync.Once
	closed    chan struct{}
}

func newScriptedStream(ctx context.Context, t *Turn) *scriptedStream {
	return &scriptedStream{ctx: ctx, turn: t, parts: plan(t, true), closed: make(chan struct{})}
}

func (s *scriptedStream) Recv() (agent.StreamEvent, error) {
	for {
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue = s.queue[1:]
			return ev, nil
		}
		if s.done != nil {
			return agent.StreamEvent{}, s.done
		}
		select {
		case <-s.closed:
			return agent.StreamEvent{}, errScriptedClosed
		default:
		}
		if err := s.ctx.Err(); err != nil {
			s.done = fmt.Errorf("replay: %w", err)
			continue
		}
		t := s.turn
		if t.StallAfterChunks != nil && *t.StallAfterChunks == s.i {
			select {
			case <-s.ctx.Done():
				s.done = fmt.Errorf("replay: %w", s.ctx.Err())
			case <-s.closed:
				s.done = errScriptedClosed
			}
			continue
		}
		if t.DropAfterChunks != nil && *t.DropAfterChunks == s.i {
			s.done = errDropped
			continue
		}
		if s.i == len(s.parts) {
			if s.usage != nil {
				s.emit(agent.StreamEvent{Kind: agent.EvUsage, Usage: agent.Usage{Input: s.usage.Input, Output: s.usage.Output}})
			}
			s.emit(agent.StreamEvent{Kind: agent.EvFinish, FinishReason: s.finish})
			s.done = io.EOF
			continue
		}
		s.apply(s.parts[s.i])
		s.i++
	}
}

func (s *scriptedStream) apply(p part) {
	switch p.kind {
	case partText:
		s.emit(agent.StreamEvent{Kind: agent.EvTextDelta, Text: p.text})
	case partToolHead:
		s.calls++
		s.emit(agent.StreamEvent{Kind: agent.EvToolCallStart, Index: p.index, ID: p.id, Name: p.name})
		if p.object { // the adapter turns the JSON value back into its text
			s.emit(agent.StreamEvent{Kind: agent.EvToolCallDelta, Index: p.index, Text: p.text})
		}
	case partBad:
		s.done = fmt.Errorf("replay: the model endpoint sent a stream chunk this agent cannot read; it received: %s", p.text)
	case partToolArgs:
		s.emit(agent.StreamEvent{Kind: agent.EvToolCallDelta, Index: p.index, Text: p.text})
	case partFinish:
		for i := 0; i < s.calls; i++ {
			s.emit(agent.StreamEvent{Kind: agent.EvToolCallEnd, Index: i})
		}
		s.finish = p.text
	case partUsage:
		u := p.usage
		s.usage = &u
	}
}

func (s *scriptedStream) emit(ev agent.StreamEvent) { s.queue = append(s.queue, ev) }

func (s *scriptedStream) Close() error {
	s.closeOnce.Do(func() { close(s.closed) })
	return nil
}

// Mismatches returns what went differently than scripted: failed expect
// checks, conversations rejected like OpenAI would, requests after the script
// ran out.
func (p *Scripted) Mismatches() []string { return p.play.list() }

// Err joins the mismatches into one error; nil when everything went as scripted.
func (p *Scripted) Err() error { return p.play.err() }

// Remaining is the number of top-level turns not played yet.
func (p *Scripted) Remaining() int { return p.play.remaining() }

// UnplayedChildren are the matches of the child scripts no request was
// answered from, in script order.
func (p *Scripted) UnplayedChildren() []string { return p.play.unplayedChildren() }
