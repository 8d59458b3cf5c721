package otlp_test

import (
	"strconv"
	"testing"

	"agent/internal/otlp"
)

// BenchmarkLiveObserve is what the live export costs the run's goroutine
// per committed event: the mapping and the queueing (the posts happen on
// the exporter's goroutine).
func BenchmarkLiveObserve(b *testing.B) {
	rcv := newReceiver(&testing.T{})
	defer rcv.srv.Close()
	ep, _ := otlp.ParseEndpoint(rcv.srv.URL)
	l := otlp.NewLive(otlp.LiveOptions{Endpoint: ep, Content: func(string) bool { return true }})
	defer l.Close()
	evs := oneRun()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := "run-" + strconv.Itoa(i)
		for _, ev := range evs {
			ev.RunID = id
			l.Observe(ev)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}

// BenchmarkEncode is the protobuf encoding of a batch of 256 spans of a
// run with content.
func BenchmarkEncode(b *testing.B) {
	var spans []otlp.Span
	for len(spans) < 256 {
		spans = append(spans, otlp.Trace(otlp.TraceOptions{RunID: "run-a", Content: true}, oneRun())...)
	}
	spans = spans[:256]
	b.ReportAllocs()
	var n int
	for i := 0; i < b.N; i++ {
		n = len(otlp.Encode(otlp.Resource{}, otlp.Scope{Name: "agent"}, spans, nil))
	}
	b.SetBytes(int64(n))
}

// BenchmarkTrace is the mapping alone, per event.
func BenchmarkTrace(b *testing.B) {
	evs := oneRun()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		otlp.Trace(otlp.TraceOptions{RunID: "run-a", Content: true}, evs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}
