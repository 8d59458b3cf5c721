package openai

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"agent/internal/agent"
)

var errStreamClosed = errors.New("openai: stream closed")

// stream turns the chunks of one chat-completions stream into StreamEvents.
// Recv must not be called concurrently with itself; Close may be called from
// any goroutine, also while Recv blocks.
type stream struct {
	p           *Provider
	parent      context.Context // the caller's context
	actx        context.Context // the attempt's context (timeouts)
	cancel      func()
	cancelCause context.CancelCauseFunc
	cs          *goopenai.ChatCompletionStream
	idle        *time.Timer
	info        *attemptInfo

	queue  []agent.StreamEvent
	calls  map[int]*toolCall
	last   int // index of the tool call the previous fragment belonged to
	usage  *agent.Usage
	finish string
	done   error // sticky terminal result: io.EOF or the error

	closed      atomic.Bool
	releaseOnce sync.Once
}

type toolCall struct {
	index   int
	id      string
	name    string
	started bool
	ended   bool
	pending string // argument text received before the name
}

func newStream(p *Provider, parent, actx context.Context, cancel func(), cancelCause context.CancelCauseFunc, cs *goopenai.ChatCompletionStream, info *attemptInfo) *stream {
	return &stream{p: p, parent: parent, actx: actx, cancel: cancel, cancelCause: cancelCause, cs: cs, info: info,
		calls: map[int]*toolCall{}, last: -1}
}

// started arms the idle timer once the first chunk has arrived.
func (s *stream) started() {
	if d := s.p.cfg.IdleTimeout; d > 0 {
		s.idle = time.AfterFunc(d, func() { s.cancelCause(errIdleTimeout) })
	}
}

func (s *stream) touch() {
	if s.idle != nil {
		s.idle.Reset(s.p.cfg.IdleTimeout)
	}
}

// Recv returns the next event, io.EOF after EvFinish, or the error that ended
// the stream (*ModelError, or an error wrapping the caller's ctx.Err()).
func (s *stream) Recv() (agent.StreamEvent, error) {
	for {
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue = s.queue[1:]
			return ev, nil
		}
		if s.done != nil {
			return agent.StreamEvent{}, s.done
		}
		if s.closed.Load() {
			return agent.StreamEvent{}, errStreamClosed
		}
		resp, err := s.cs.Recv()
		if err != nil {
			s.done = s.end(err)
			s.release()
			continue
		}
		s.touch()
		s.handle(resp)
	}
}

// Close releases the connection. It is safe to call more than once.
func (s *stream) Close() error {
	s.closed.Store(true)
	s.release()
	return nil
}

func (s *stream) release() {
	s.releaseOnce.Do(func() {
		if s.idle != nil {
			s.idle.Stop()
		}
		s.cancel()
		_ = s.cs.Close()
	})
}

// end decides what a Recv error of the underlying stream means.
func (s *stream) end(err error) error {
	if isEOF(err) {
		if s.finish == "" {
			msg := "the model stream ended before the turn was complete (no finish reason); the answer is incomplete"
			if s.info != nil && s.info.sse != nil {
				if got := s.info.sse.lastData(); got != "" {
					msg += "; the last chunk received was: " + snippet(got)
				}
			}
			return &ModelError{Retryable: true, Err: io.ErrUnexpectedEOF, Msg: s.p.redact(msg)}
		}
		s.closeCalls()
		if s.usage != nil {
			s.emit(agent.StreamEvent{Kind: agent.EvUsage, Usage: *s.usage})
		}
		s.emit(agent.StreamEvent{Kind: agent.EvFinish, FinishReason: s.finish})
		return io.EOF
	}
	if s.parent.Err() != nil {
		return fmt.Errorf("model stream: %w", s.parent.Err())
	}
	if s.closed.Load() {
		return errStreamClosed
	}
	switch cause := context.Cause(s.actx); {
	case errors.Is(cause, errIdleTimeout):
		return &ModelError{Retryable: true, Err: cause,
			Msg: fmt.Sprintf("the model stream stalled: no data for %s", s.p.cfg.IdleTimeout)}
	case errors.Is(cause, errRequestTimeout):
		return &ModelError{Retryable: true, Err: cause,
			Msg: fmt.Sprintf("the model stream exceeded the request timeout of %s", s.p.cfg.RequestTimeout)}
	}
	var apiErr *goopenai.APIError
	if errors.As(err, &apiErr) {
		code, _ := apiErr.Code.(string)
		me := s.p.statusError(inBandStatus(apiErr.Code), code, apiErr.Message, nil, "", err)
		me.Msg = "the model endpoint reported an error mid-stream: " + me.Msg
		return me
	}
	if me := s.info.badChunk(s.p, err); me != nil {
		return me
	}
	return &ModelError{Retryable: true, Err: err, Msg: s.p.redact(fmt.Sprintf(
		"the connection to the model broke off mid-stream: %v (not retried: part of the answer was already delivered)", err))}
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

func (s *stream) emit(ev agent.StreamEvent) { s.queue = append(s.queue, ev) }

// handle turns one chunk into events.
func (s *stream) handle(resp goopenai.ChatCompletionStreamResponse) {
	if resp.Usage != nil {
		s.usage = &agent.Usage{Input: resp.Usage.PromptTokens, Output: resp.Usage.CompletionTokens}
	}
	for _, ch := range resp.Choices {
		if ch.Index != 0 {
			continue // we never ask for n > 1
		}
		if ch.Delta.Content != "" {
			s.emit(agent.StreamEvent{Kind: agent.EvTextDelta, Text: ch.Delta.Content})
		}
		if ch.Delta.Refusal != "" {
			s.emit(agent.StreamEvent{Kind: agent.EvTextDelta, Text: ch.Delta.Refusal})
		}
		for _, tc := range ch.Delta.ToolCalls {
			s.toolDelta(tc)
		}
		if r := string(ch.FinishReason); r != "" && ch.FinishReason != goopenai.FinishReasonNull && s.finish == "" {
			s.finish = r
			s.closeCalls()
		}
	}
}

// toolDelta applies one tool-call fragment. Calls are tracked by index; the
// id and name come with the first fragment of a call, the arguments in pieces.
func (s *stream) toolDelta(tc goopenai.ToolCall) {
	idx := s.last
	switch {
	case tc.Index != nil:
		idx = *tc.Index
	case tc.ID != "": // servers that omit the index: a new id starts a new call
		if i, ok := s.indexOf(tc.ID); ok {
			idx = i
		} else {
			idx = s.freeIndex()
		}
	case idx < 0:
		idx = s.freeIndex()
	}
	s.last = idx
	c := s.calls[idx]
	if c == nil {
		c = &toolCall{index: idx}
		s.calls[idx] = c
	}
	if c.ended {
		return
	}
	if c.id == "" {
		c.id = tc.ID
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	if !c.started && c.name != "" {
		s.start(c)
	}
	if a := tc.Function.Arguments; a != "" {
		if c.started {
			s.emit(agent.StreamEvent{Kind: agent.EvToolCallDelta, Index: idx, Text: a})
		} else {
			c.pending += a
		}
	}
}

func (s *stream) indexOf(id string) (int, bool) {
	for i, c := range s.calls {
		if c.id == id {
			return i, true
		}
	}
	return 0, false
}

func (s *stream) freeIndex() int {
	i := len(s.calls)
	for s.calls[i] != nil {
		i++
	}
	return i
}

func (s *stream) start(c *toolCall) {
	if c.id == "" {
		c.id = syntheticID()
	}
	c.started = true
	s.emit(agent.StreamEvent{Kind: agent.EvToolCallStart, Index: c.index, ID: c.id, Name: c.name})
	if c.pending != "" {
		s.emit(agent.StreamEvent{Kind: agent.EvToolCallDelta, Index: c.index, Text: c.pending})
		c.pending = ""
	}
}

// closeCalls ends every open tool call, in index order.
func (s *stream) closeCalls() {
	idxs := make([]int, 0, len(s.calls))
	for i := range s.calls {
		idxs = append(idxs, i)
	}
	slices.Sort(idxs)
	for _, i := range idxs {
		c := s.calls[i]
		if c.ended {
			continue
		}
		if !c.started {
			s.start(c) // a call without a name: the loop reports it as a bad call
		}
		c.ended = true
		s.emit(agent.StreamEvent{Kind: agent.EvToolCallEnd, Index: i})
	}
}

// syntheticID names a tool call whose id the server did not send.
func syntheticID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
