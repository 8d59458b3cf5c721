package transcript

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// build10000 fills m with 10,000 mixed items, each distinct: per ten, one
// user message, three assistant answers (one with a code block), five tool
// cards (outputs of 4 to 40 lines, an edit's diff, a failing command) and
// a notice.
func build10000(m *Model) {
	for i := 0; i < 10000; i += 10 {
		m.Append(NewUser(fmt.Sprintf("Request %d: fix the test in internal/pkg%d and run it again, then tell me what changed.", i, i%97)))
		m.Append(NewAssistantDone(fmt.Sprintf("Looking at `pkg%d` first. The failure in step %d comes from a stale cache; I will read the file and then edit it.", i%97, i)))
		m.Append(NewAssistantDone(fmt.Sprintf("## Change %d\n\nThe function now checks its input:\n\n```go\nfunc check%d(x int) error {\n\tif x < 0 {\n\t\treturn fmt.Errorf(\"negative: %%d\", x)\n\t}\n\treturn nil\n}\n```\n\n- it returns early\n- it wraps nothing", i, i)))
		m.Append(NewAssistantDone(fmt.Sprintf("Done with %d. The tests pass now; the **race detector** is quiet too.", i)))
		var out strings.Builder
		for l := 0; l < 4+i%37; l++ {
			fmt.Fprintf(&out, "ok  \tagent/internal/pkg%d/sub%d\t0.%03ds\n", i%97, l, (i+l)%1000)
		}
		m.Append(NewToolCard(CardData{Tool: "run_command", CallID: fmt.Sprintf("c%d-1", i), Summary: "go test ./...", Risk: RiskExec, Status: StatusOK, Exit: ExitCode(0), Output: out.String()}))
		m.Append(NewToolCard(CardData{Tool: "read_file", CallID: fmt.Sprintf("c%d-2", i), Summary: fmt.Sprintf("internal/pkg%d/file.go", i%97), Risk: RiskRead, Status: StatusOK,
			Output: fmt.Sprintf("package pkg%d\n\nfunc check(x int) error {\n\treturn nil\n}\n", i%97)}))
		m.Append(NewToolCard(CardData{Tool: "edit_file", CallID: fmt.Sprintf("c%d-3", i), Summary: fmt.Sprintf("internal/pkg%d/file.go", i%97), Risk: RiskWrite, Status: StatusOK,
			Diff: fmt.Sprintf("@@ -3,3 +3,6 @@ func check(x int) error {\n-\treturn nil\n+\tif x < %d {\n+\t\treturn errNegative\n+\t}\n+\treturn nil\n", i)}))
		m.Append(NewToolCard(CardData{Tool: "run_command", CallID: fmt.Sprintf("c%d-4", i), Summary: fmt.Sprintf("go test -run TestCheck%d", i), Risk: RiskExec, Status: StatusOK, Exit: ExitCode(1),
			Output: fmt.Sprintf("--- FAIL: TestCheck%d (0.00s)\n    file_test.go:12: got nil, want error\nFAIL\n", i)}))
		m.Append(NewToolCard(CardData{Tool: "run_command", CallID: fmt.Sprintf("c%d-5", i), Summary: "rm -rf /tmp/cache", Risk: RiskExec, Status: StatusDenied, Output: "denied: not now"}))
		m.Append(NewNotice(NoticeWarn, fmt.Sprintf("resumed: c%d-4 run_command not re-run — outcome unknown", i)))
	}
}

func newBig(b *testing.B) *Model {
	m := newModel(b, true, false, Options{})
	build10000(m)
	m.SetSize(120, 40)
	m.View()
	return m
}

// BenchmarkScroll10000Items is one frame while scrolling a 10,000-item
// transcript at 120×40: a page up and the View. "cold" scrolls through items
// never rendered before (each page renders its few new items: markdown,
// cards); "warm" scrolls through cached ones. Goal: ≤ 16 ms a frame.
func BenchmarkScroll10000Items(b *testing.B) {
	b.Run("cold", func(b *testing.B) {
		m := newBig(b)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if m.AtTop() {
				b.StopTimer()
				m = newBig(b)
				b.StartTimer()
			}
			m.ScrollUp(40)
			_ = m.View()
		}
	})
	b.Run("warm", func(b *testing.B) {
		m := newBig(b)
		for !m.AtTop() {
			m.ScrollUp(40)
			m.View()
		}
		m.GotoBottom()
		m.View()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if m.AtTop() {
				m.GotoBottom()
			}
			m.ScrollUp(40)
			_ = m.View()
		}
	})
}

func heapMiB() (heap, sys float64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20), float64(ms.Sys) / (1 << 20)
}

// BenchmarkMemory10000Items measures the live heap with 10,000 mixed items:
// built (nothing rendered), then after every item was rendered once at 120
// columns (scrolled through from top to bottom: the worst case, each item's
// lines cached). Goal: resident memory ≤ 60 MiB.
func BenchmarkMemory10000Items(b *testing.B) {
	for i := 0; i < b.N; i++ {
		base, _ := heapMiB()
		m := newModel(b, true, false, Options{})
		build10000(m)
		built, _ := heapMiB()
		m.SetSize(120, 40)
		m.GotoTop()
		for !m.Following() {
			m.View()
			m.ScrollDown(40)
		}
		m.View()
		rendered, sys := heapMiB()
		b.ReportMetric(built-base, "MiB-heap-built")
		b.ReportMetric(rendered-base, "MiB-heap-rendered")
		b.ReportMetric(sys, "MiB-sys")
		if rss, ok := rssMiB(); ok {
			b.ReportMetric(rss, "MiB-rss-process")
		}
		runtime.KeepAlive(m)
	}
}

// rssMiB is the process's resident set (Linux), test binary included.
func rssMiB() (float64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024, err == nil
		}
	}
	return 0, false
}

// BenchmarkStreamingFrame10000Items is one frame while the last answer of a
// 10,000-item transcript streams: a 4-character delta and the View at
// 120×40 (the list's part and the markdown tail together).
func BenchmarkStreamingFrame10000Items(b *testing.B) {
	text := strings.Repeat(answerMD+"\n", 15)
	m := newBig(b)
	a := NewAssistant("")
	m.Append(a)
	k := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if k >= len(text) {
			b.StopTimer()
			a = NewAssistant("")
			m.Append(a)
			k = 0
			b.StartTimer()
		}
		a.Append(text[k:min(k+4, len(text))])
		k += 4
		_ = m.View()
	}
}
