package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"agent/internal/agent"
)

var errStreamClosed = errors.New("anthropic: stream closed")

// stream turns the events of one Messages stream into StreamEvents. Recv
// must not be called concurrently with itself; Close may be called from any
// goroutine, also while Recv blocks.
type stream struct {
	p           *Provider
	parent      context.Context // the caller's context
	actx        context.Context // the attempt's context (timeouts)
	cancel      func()
	cancelCause context.CancelCauseFunc
	dec         ssestream.Decoder
	idle        *time.Timer

	queue   []agent.StreamEvent
	tools   map[int]*toolBlock // the tool_use blocks, by content block index
	calls   int                // tool calls started so far (their agent index)
	usage   agent.Usage
	stop    string // stop_reason from message_delta
	stopped bool   // message_stop arrived
	done    error  // sticky terminal result: io.EOF or the error

	closed      atomic.Bool
	releaseOnce sync.Once
}

type toolBlock struct {
	call  int    // the agent's index of the call
	input string // the input of content_block_start, when not empty
	got   bool   // an input_json_delta arrived
	ended bool
}

func newStream(p *Provider, parent, actx context.Context, cancel func(), cancelCause context.CancelCauseFunc, dec ssestream.Decoder) *stream {
	return &stream{p: p, parent: parent, actx: actx, cancel: cancel, cancelCause: cancelCause, dec: dec, tools: map[int]*toolBlock{}}
}

// next reads the next event that carries data (pings and comments are
// skipped). ok false: the body ended (err nil) or failed.
func (s *stream) next() (ev wireEvent, ok bool, err error) {
	for s.dec.Next() {
		e := s.dec.Event()
		data := bytes.TrimSpace(e.Data)
		if e.Type == "ping" || len(data) == 0 {
			continue
		}
		if err := json.Unmarshal(data, &ev); err != nil {
			return ev, false, s.p.badEvent(err, data)
		}
		if ev.Type == "" {
			ev.Type = e.Type
		}
		if ev.Type == "error" {
			we := wireError{Type: "api_error"}
			if ev.Error != nil {
				we = *ev.Error
			}
			return ev, false, s.p.eventError(we)
		}
		return ev, true, nil
	}
	return ev, false, s.dec.Err()
}

// first reads the first event, so that a failure before any data arrived
// is returned (and retried) instead of surfacing from Recv.
func (s *stream) first() error {
	ev, ok, err := s.next()
	if !ok {
		var me *ModelError
		if errors.As(err, &me) && s.parent.Err() == nil {
			return me
		}
		if err == nil && s.parent.Err() == nil && context.Cause(s.actx) == nil {
			return &ModelError{Msg: fmt.Sprintf(
				"the model endpoint %s answered without any stream data: check that ANTHROPIC_BASE_URL / --base-url points to an Anthropic Messages API (the root, without /v1)", s.p.baseURL)}
		}
		return s.p.classify(s.parent, s.actx, err)
	}
	if d := s.p.cfg.IdleTimeout; d > 0 {
		s.idle = time.AfterFunc(d, func() { s.cancelCause(errIdleTimeout) })
	}
	s.handle(ev)
	return nil
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
		ev, ok, err := s.next()
		if !ok {
			s.done = s.end(err)
			s.release()
			continue
		}
		if s.idle != nil {
			s.idle.Reset(s.p.cfg.IdleTimeout)
		}
		s.handle(ev)
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
		if s.dec != nil {
			_ = s.dec.Close()
		}
	})
}

// end decides what the end of the underlying stream means (err nil: the
// body ended).
func (s *stream) end(err error) error {
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
	if err == nil {
		if !s.stopped && s.stop == "" {
			return &ModelError{Retryable: true, Err: io.ErrUnexpectedEOF,
				Msg: "the model stream ended before the turn was complete (no message_stop); the answer is incomplete"}
		}
		s.closeCalls()
		s.emit(agent.StreamEvent{Kind: agent.EvUsage, Usage: s.usage})
		stop := s.stop
		if stop == "" {
			stop = "end_turn"
		}
		s.emit(agent.StreamEvent{Kind: agent.EvFinish, FinishReason: stop})
		return io.EOF
	}
	var me *ModelError
	if errors.As(err, &me) {
		if me.Type != "" {
			me.Msg = "the model endpoint reported an error mid-stream: " + me.Msg
		}
		return me
	}
	return &ModelError{Retryable: true, Err: err, Msg: s.p.redact(fmt.Sprintf(
		"the connection to the model broke off mid-stream: %v (not retried: part of the answer was already delivered)", err))}
}

func (s *stream) emit(ev agent.StreamEvent) { s.queue = append(s.queue, ev) }

// handle turns one server event into agent events.
func (s *stream) handle(ev wireEvent) {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			s.usage = agent.Usage{}
			s.applyUsage(ev.Message.Usage)
		}
	case "content_block_start":
		cb := ev.ContentBlock
		if cb == nil {
			return
		}
		switch cb.Type {
		case "text":
			if cb.Text != "" {
				s.emit(agent.StreamEvent{Kind: agent.EvTextDelta, Text: cb.Text})
			}
		case "tool_use":
			b := &toolBlock{call: s.calls}
			s.calls++
			if in := bytes.TrimSpace(cb.Input); len(in) > 0 && string(in) != "{}" && string(in) != "null" {
				b.input = string(in)
			}
			s.tools[ev.Index] = b
			id := cb.ID
			if id == "" {
				id = fmt.Sprintf("toolu_missing_%d", b.call)
			}
			s.emit(agent.StreamEvent{Kind: agent.EvToolCallStart, Index: b.call, ID: id, Name: cb.Name})
		}
	case "content_block_delta":
		d := ev.Delta
		if d == nil {
			return
		}
		switch d.Type {
		case "text_delta":
			if d.Text != "" {
				s.emit(agent.StreamEvent{Kind: agent.EvTextDelta, Text: d.Text})
			}
		case "input_json_delta":
			if b := s.tools[ev.Index]; b != nil && !b.ended && d.PartialJSON != "" {
				b.got = true
				s.emit(agent.StreamEvent{Kind: agent.EvToolCallDelta, Index: b.call, Text: d.PartialJSON})
			}
		}
	case "content_block_stop":
		if b := s.tools[ev.Index]; b != nil {
			s.endCall(b)
		}
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			s.stop = ev.Delta.StopReason
		}
		if ev.Usage != nil {
			s.applyUsage(*ev.Usage) // cumulative: a field sent replaces the start's
		}
	case "message_stop":
		s.stopped = true
	}
}

// applyUsage folds the fields a usage object carries into the turn's usage
// (Input counts every prompt token: uncached, read from and written to the cache).
func (s *stream) applyUsage(u wireUsage) {
	uncached := s.usage.Input - s.usage.CacheRead - s.usage.CacheWrite
	if u.InputTokens != nil {
		uncached = *u.InputTokens
	}
	if u.CacheRead != nil {
		s.usage.CacheRead = *u.CacheRead
	}
	if u.CacheCreation != nil {
		s.usage.CacheWrite = *u.CacheCreation
	}
	if u.OutputTokens != nil {
		s.usage.Output = *u.OutputTokens
	}
	s.usage.Input = uncached + s.usage.CacheRead + s.usage.CacheWrite
}

// endCall ends a tool call; one whose input never streamed gets the input
// of its start (or {}), so that its arguments are JSON.
func (s *stream) endCall(b *toolBlock) {
	if b.ended {
		return
	}
	b.ended = true
	if !b.got {
		in := b.input
		if in == "" {
			in = "{}"
		}
		s.emit(agent.StreamEvent{Kind: agent.EvToolCallDelta, Index: b.call, Text: in})
	}
	s.emit(agent.StreamEvent{Kind: agent.EvToolCallEnd, Index: b.call})
}

// closeCalls ends every open tool call, in order.
func (s *stream) closeCalls() {
	open := make([]*toolBlock, 0, len(s.tools))
	for _, b := range s.tools {
		if !b.ended {
			open = append(open, b)
		}
	}
	slices.SortFunc(open, func(a, b *toolBlock) int { return a.call - b.call })
	for _, b := range open {
		s.endCall(b)
	}
}
