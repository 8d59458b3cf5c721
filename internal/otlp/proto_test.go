package otlp_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"agent/internal/otlp"
)

// The hand-written encoding decodes with the official OTLP types, field for
// field, and every string but the attribute keys passes the redactor.
func TestEncodingDecodes(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC)
	root := otlp.Span{Trace: otlp.TraceIDOf("run-1"), ID: otlp.SpanID{1, 2, 3, 4, 5, 6, 7, 8}, Name: "invoke_agent agent",
		Kind: otlp.KindInternal, Start: start, End: start.Add(3 * time.Second),
		Attrs: []otlp.Attr{otlp.String("s", "text SECRET"), otlp.Int("i", -42), otlp.Int("big", math.MaxInt64), otlp.Bool("t", true),
			otlp.Bool("f", false), otlp.Float("x", 0.25), otlp.Strings("l", []string{"a", "SECRET", ""}), otlp.String("empty", "")},
		Status: otlp.StatusError, Message: "failed: SECRET",
		Events: []otlp.SpanEvent{{Time: start.Add(time.Second), Name: "approval", Attrs: []otlp.Attr{otlp.String("k", "v")}}, {Time: start, Name: "bare"}}}
	child := otlp.Span{Trace: root.Trace, ID: otlp.SpanID{9}, Parent: root.ID, Name: "chat m", Kind: otlp.KindClient,
		Start: start.Add(time.Millisecond), End: start.Add(2 * time.Second)}
	red := func(s string) string { return strings.ReplaceAll(s, "SECRET", "[REDACTED]") }
	body := otlp.Encode(otlp.Resource{Attrs: []otlp.Attr{otlp.String("service.name", "agent")}}, otlp.Scope{Name: "scope", Version: "v9"},
		[]otlp.Span{root, child}, red)
	if bytes.Contains(body, []byte("SECRET")) {
		t.Fatal("a string passed the encoder unredacted")
	}
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	if len(req.ResourceSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans) != 1 {
		t.Fatalf("shape: %v", &req)
	}
	rs := req.ResourceSpans[0]
	if a := attrs(rs.GetResource().GetAttributes()); a["service.name"] != "agent" {
		t.Errorf("resource %v", a)
	}
	ss := rs.ScopeSpans[0]
	if ss.GetScope().GetName() != "scope" || ss.GetScope().GetVersion() != "v9" || len(ss.Spans) != 2 {
		t.Fatalf("scope spans: %v", ss)
	}
	s := ss.Spans[0]
	tid := otlp.TraceIDOf("run-1")
	if !bytes.Equal(s.TraceId, tid[:]) || !bytes.Equal(s.SpanId, root.ID[:]) || len(s.ParentSpanId) != 0 {
		t.Errorf("ids %x %x %x", s.TraceId, s.SpanId, s.ParentSpanId)
	}
	if s.Name != "invoke_agent agent" || s.Kind != tracepb.Span_SPAN_KIND_INTERNAL ||
		s.StartTimeUnixNano != uint64(start.UnixNano()) || s.EndTimeUnixNano != uint64(start.Add(3*time.Second).UnixNano()) {
		t.Errorf("span %v", s)
	}
	if s.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || s.Status.GetMessage() != "failed: [REDACTED]" {
		t.Errorf("status %v", s.Status)
	}
	want := map[string]string{"s": "text [REDACTED]", "i": "-42", "big": "9223372036854775807", "t": "true", "f": "false",
		"l": "a|[REDACTED]|", "empty": ""}
	got := attrs(s.Attributes)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("attribute %s = %q, want %q", k, got[k], v)
		}
	}
	if d := s.Attributes[5].GetValue().GetDoubleValue(); d != 0.25 {
		t.Errorf("double %v", d)
	}
	if len(s.Events) != 2 || s.Events[0].Name != "approval" || s.Events[0].TimeUnixNano != uint64(start.Add(time.Second).UnixNano()) ||
		attrs(s.Events[0].Attributes)["k"] != "v" || s.Events[1].Name != "bare" {
		t.Errorf("events %v", s.Events)
	}
	c := ss.Spans[1]
	if !bytes.Equal(c.ParentSpanId, root.ID[:]) || c.Kind != tracepb.Span_SPAN_KIND_CLIENT || c.Status != nil || len(c.Attributes) != 0 {
		t.Errorf("child %v", c)
	}
}

func TestParseEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:4318":                         "http://127.0.0.1:4318/v1/traces",
		"http://127.0.0.1:4318/":                        "http://127.0.0.1:4318/v1/traces",
		"https://cloud.langfuse.com/api/public/otel":    "https://cloud.langfuse.com/api/public/otel/v1/traces",
		"http://tempo:4318/v1/traces":                   "http://tempo:4318/v1/traces",
		" https://pk:sk-secret@collector.example:4318 ": "https://pk:xxxxx@collector.example:4318/v1/traces",
	} {
		ep, err := otlp.ParseEndpoint(in)
		if err != nil || ep.String() != want {
			t.Errorf("%q: %v %q, want %q", in, err, ep.String(), want)
		}
	}
	for in, want := range map[string]string{
		"":                      "is not an OTLP/HTTP endpoint: give an http:// or https:// URL, e.g. http://127.0.0.1:4318",
		"127.0.0.1:4318":        "is not an OTLP/HTTP endpoint",
		"grpc://h:4317":         "is not an OTLP/HTTP endpoint",
		"http://h:4318/?x=1":    "leave out the query and fragment",
		"ftp://u:sk-secret@h/x": `"ftp://u:xxxxx@h/x" is not an OTLP/HTTP endpoint`,
	} {
		_, err := otlp.ParseEndpoint(in)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("%q: %v, want …%s", in, err, want)
		}
	}
}
