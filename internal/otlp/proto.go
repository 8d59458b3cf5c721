package otlp

// The OTLP/HTTP protobuf encoding of an ExportTraceServiceRequest, written
// by hand for the messages a trace needs, with the field numbers of
// opentelemetry-proto (opentelemetry/proto/trace/v1/trace.proto,
// common/v1/common.proto, resource/v1/resource.proto). TestEncodingDecodes
// decodes it with the official generated types.

import (
	"encoding/binary"
	"math"
	"time"
)

// Resource describes the process that made the spans.
type Resource struct {
	Attrs []Attr
}

// Scope names the instrumentation (this package) and its version.
type Scope struct {
	Name, Version string
}

// Encode renders spans as the body of an OTLP/HTTP trace export
// (Content-Type application/x-protobuf). red, if not nil, is applied to
// every string that is not an attribute key: the last redaction boundary
// before the wire.
func Encode(res Resource, scope Scope, spans []Span, red func(string) string) []byte {
	if red == nil {
		red = func(s string) string { return s }
	}
	e := encoder{red: red}
	var rs buf
	rs.msg(1, e.resource(res))
	var ss buf
	ss.msg(1, e.scope(scope))
	for i := range spans {
		ss.msg(2, e.span(&spans[i]))
	}
	rs.msg(2, ss)
	var req buf
	req.msg(1, rs) // ExportTraceServiceRequest.resource_spans
	return req
}

type encoder struct {
	red func(string) string
}

// buf is a protobuf message being written.
type buf []byte

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func (b *buf) tag(field int, wire int) { *b = binary.AppendUvarint(*b, uint64(field)<<3|uint64(wire)) }

func (b *buf) varint(field int, v uint64) {
	b.tag(field, wireVarint)
	*b = binary.AppendUvarint(*b, v)
}

func (b *buf) fixed64(field int, v uint64) {
	b.tag(field, wireFixed64)
	*b = binary.LittleEndian.AppendUint64(*b, v)
}

func (b *buf) bytes(field int, v []byte) {
	b.tag(field, wireBytes)
	*b = binary.AppendUvarint(*b, uint64(len(v)))
	*b = append(*b, v...)
}

func (b *buf) str(field int, s string) {
	b.tag(field, wireBytes)
	*b = binary.AppendUvarint(*b, uint64(len(s)))
	*b = append(*b, s...)
}

// msg writes an embedded message (written even when empty: a present
// message differs from an absent one).
func (b *buf) msg(field int, m buf) { b.bytes(field, m) }

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

func (e encoder) resource(r Resource) buf {
	var b buf
	for _, a := range r.Attrs {
		b.msg(1, e.keyValue(a))
	}
	return b
}

func (e encoder) scope(s Scope) buf {
	var b buf
	b.str(1, s.Name)
	if s.Version != "" {
		b.str(2, s.Version)
	}
	return b
}

func (e encoder) span(s *Span) buf {
	var b buf
	b.bytes(1, s.Trace[:])
	b.bytes(2, s.ID[:])
	if s.Parent != (SpanID{}) {
		b.bytes(4, s.Parent[:])
	}
	b.str(5, e.red(s.Name))
	if s.Kind != 0 {
		b.varint(6, uint64(s.Kind))
	}
	b.fixed64(7, unixNano(s.Start))
	b.fixed64(8, unixNano(s.End))
	for _, a := range s.Attrs {
		b.msg(9, e.keyValue(a))
	}
	for _, ev := range s.Events {
		var m buf
		m.fixed64(1, unixNano(ev.Time))
		m.str(2, e.red(ev.Name))
		for _, a := range ev.Attrs {
			m.msg(3, e.keyValue(a))
		}
		b.msg(11, m)
	}
	if s.Status != StatusUnset || s.Message != "" {
		var st buf
		if s.Message != "" {
			st.str(2, e.red(s.Message))
		}
		if s.Status != StatusUnset {
			st.varint(3, uint64(s.Status))
		}
		b.msg(15, st)
	}
	return b
}

func (e encoder) keyValue(a Attr) buf {
	var b buf
	b.str(1, a.Key)
	b.msg(2, e.anyValue(a.Value))
	return b
}

// anyValue encodes an AnyValue: string_value 1, bool_value 2, int_value 3,
// double_value 4, array_value 5 (ArrayValue.values 1).
func (e encoder) anyValue(v Value) buf {
	var b buf
	switch v.kind {
	case kindString:
		b.str(1, e.red(v.s))
	case kindBool:
		var x uint64
		if v.b {
			x = 1
		}
		b.varint(2, x)
	case kindInt:
		b.varint(3, uint64(v.i))
	case kindFloat:
		b.fixed64(4, math.Float64bits(v.f))
	case kindStrings:
		var arr buf
		for _, s := range v.ss {
			var el buf
			el.str(1, e.red(s))
			arr.msg(1, el)
		}
		b.msg(5, arr)
	}
	return b
}
