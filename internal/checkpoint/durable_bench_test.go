package checkpoint

import (
	"testing"
	"time"
)

// The durability benchmarks time one snapshot call on the bench_test.go
// fixture and report, besides wall time, the CPU the process spent in it
// (user+system, from getrusage) and the fsyncs it made. Run with
//
//	go test -run '^$' -bench Durable -benchtime 200x ./internal/checkpoint/

// durableMeter accumulates the CPU and fsyncs of the timed calls.
type durableMeter struct {
	cpu    time.Duration
	fsyncs int
}

func (m *durableMeter) measure(s *Store, fn func()) {
	n := countFsyncs(s)
	c := cpuNow()
	fn()
	m.cpu += cpuNow() - c
	m.fsyncs += n()
}

func (m *durableMeter) report(b *testing.B) {
	b.ReportMetric(float64(m.cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(m.fsyncs)/float64(b.N), "fsyncs/op")
}

func BenchmarkDurableOneFileEdit(b *testing.B) {
	ws := benchRepo(b)
	s, base := benchStore(b, ws)
	rel := "pkg07/mod11/file023.go"
	var m durableMeter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		benchEdit(b, ws, rel, i)
		b.StartTimer()
		m.measure(s, func() {
			snap, err := s.SnapshotPaths(bg, base, []string{rel}, Meta{RunID: "bench", CallID: "c", Kind: KindAfter})
			if err != nil {
				b.Fatal(err)
			}
			base = snap
		})
	}
	m.report(b)
}

func BenchmarkDurableScanFewChanged(b *testing.B) {
	ws := benchRepo(b)
	s, _ := benchStore(b, ws)
	var m durableMeter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for _, f := range fewFiles {
			benchEdit(b, ws, f, i)
		}
		b.StartTimer()
		m.measure(s, func() {
			if _, err := s.Snapshot(bg, Meta{RunID: "bench", Kind: KindAfter}); err != nil {
				b.Fatal(err)
			}
		})
	}
	m.report(b)
}
