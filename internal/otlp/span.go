// Package otlp owns the agent's OpenTelemetry traces: the mapping of a run's
// journaled events to one trace (a span per model request with the GenAI
// semantic conventions, a span per tool call, span events for approvals,
// checkpoints, rollbacks and resumes), its encoding as an OTLP/HTTP protobuf
// request, the HTTP client that posts it to a receiver's /v1/traces, and the
// live exporter that batches a running session's spans in the background.
// A child run (a task call's subagent) is mapped into its parent's trace,
// its root span under the parent's execute_tool task span (Builder's
// TraceOptions.Parent; the live exporter learns it from task_started).
//
// The protobuf encoding is written here for the dozen OTLP messages a trace
// needs (see proto.go), so that the binary links neither the OpenTelemetry
// SDK nor a protobuf runtime; the tests decode it with the official OTLP
// types. Every string that leaves through this package (span names,
// attribute values, event names, status messages) passes a redactor at
// encoding time, and prompt and output text is only mapped when the caller
// asks for content.
//
// It must not touch anything else: it reads no configuration and no journal
// (callers hand it events and options), writes no audit row itself (the
// live exporter calls the caller's Audit), and never fails or blocks a run.
package otlp

import (
	"crypto/sha256"
	"time"
)

// SpanKind is an OTLP span kind (the values are the protocol's).
type SpanKind int32

// Span kinds used by the agent.
const (
	KindInternal SpanKind = 1
	KindClient   SpanKind = 3
)

// StatusCode is an OTLP span status code (the values are the protocol's).
type StatusCode int32

// Status codes.
const (
	StatusUnset StatusCode = 0
	StatusOK    StatusCode = 1
	StatusError StatusCode = 2
)

// TraceID and SpanID are OTLP identifiers.
type (
	TraceID [16]byte
	SpanID  [8]byte
)

// Span is one finished span.
type Span struct {
	Trace   TraceID
	ID      SpanID
	Parent  SpanID // zero: a root span
	Name    string
	Kind    SpanKind
	Start   time.Time
	End     time.Time
	Attrs   []Attr
	Events  []SpanEvent
	Status  StatusCode
	Message string // the status message (for StatusError)
	// run is the run whose events made the span (the live exporter's
	// accounting: a child run's spans are in its parent's trace)
	run string
}

// SpanContext names a span of a trace: the parent of a child run's spans.
type SpanContext struct {
	Trace TraceID
	Span  SpanID
}

// SpanEvent is a timed event of a span.
type SpanEvent struct {
	Time  time.Time
	Name  string
	Attrs []Attr
}

// valueKind says which field of a Value is set.
type valueKind uint8

const (
	kindString valueKind = iota
	kindInt
	kindBool
	kindFloat
	kindStrings
)

// Attr is a key and a value.
type Attr struct {
	Key   string
	Value Value
}

// Value is a string, an int, a bool, a float or a list of strings.
type Value struct {
	kind valueKind
	s    string
	i    int64
	b    bool
	f    float64
	ss   []string
}

// String, Int, Bool, Float and Strings make attributes.
func String(k, v string) Attr           { return Attr{k, Value{kind: kindString, s: v}} }
func Int(k string, v int64) Attr        { return Attr{k, Value{kind: kindInt, i: v}} }
func Bool(k string, v bool) Attr        { return Attr{k, Value{kind: kindBool, b: v}} }
func Float(k string, v float64) Attr    { return Attr{k, Value{kind: kindFloat, f: v}} }
func Strings(k string, v []string) Attr { return Attr{k, Value{kind: kindStrings, ss: v}} }

// Str is the value as text (tests and messages).
func (v Value) Str() string { return v.s }

// Attr returns the attribute of a span with that key.
func (s *Span) Attr(key string) (Value, bool) {
	for _, a := range s.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return Value{}, false
}

// TraceIDOf is the trace id of a run: the same for every export of it,
// live or later, and every stretch of it (a resume continues its trace).
func TraceIDOf(runID string) TraceID {
	h := sha256.Sum256([]byte("agent otlp trace\x00" + runID))
	var t TraceID
	copy(t[:], h[:])
	return t
}

// spanIDOf derives a span id from the run and what the span stands for, so
// that exporting a run twice gives the same spans.
func spanIDOf(runID, what string, seq int64) SpanID {
	h := sha256.New()
	h.Write([]byte("agent otlp span\x00" + runID + "\x00" + what + "\x00"))
	var b [8]byte
	for i := range b {
		b[i] = byte(uint64(seq) >> (8 * i))
	}
	h.Write(b[:])
	var s SpanID
	copy(s[:], h.Sum(nil))
	if s == (SpanID{}) {
		s[7] = 1 // the zero id means "no span"
	}
	return s
}
