package transcript

import (
	"fmt"
	"strings"
	"testing"
)

// fillLife: the orientation block, /status, a running command with its live
// tail (a progress bar rewritten with CRs, an escape it printed) and the
// same card once its result came.
func fillLife(m *Model) {
	m.Append(NewInfo("agent · shellwords · feature/quoting", []InfoRow{
		{Value: "model gpt-4.1 · approval ask · sandbox workspace-write"},
		{Value: "not a git repository: /checkpoints can still roll back what the agent changes, but nothing else keeps a history of these files (git init gives you one)", Warn: true},
		{Value: "? for help · / for commands · @ to attach a file · esc interrupts · ctrl+c twice quits"},
	}))
	m.Append(NewInfo("session", []InfoRow{
		{Key: "workspace", Value: "/home/ana/src/shellwords"},
		{Key: "branch", Value: "feature/quoting"},
		{Key: "provider", Value: "openai at api.openai.com"},
		{Key: "model", Value: "gpt-4.1"},
		{Key: "tokens", Value: "12k in · 1.4k out"},
		{Key: "journal", Value: "/home/ana/.local/state/agent/a-very-long-directory-name-that-wraps/agent.db"},
	}))
	var live strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&live, "ok  \tagent/internal/pkg%02d\t0.%02ds\n", i, i)
	}
	live.WriteString("\x1b[31mdownloading\x1b[0m 10%\r20%\r30%\n")
	m.Append(NewToolCard(CardData{Tool: "run_command", CallID: "c1", Summary: "go test ./...", Risk: RiskExec,
		Status: StatusRunning, Live: live.String()}))
	m.Append(NewToolCard(CardData{Tool: "run_command", CallID: "c2", Summary: "go test ./...", Risk: RiskExec,
		Status: StatusOK, Exit: ExitCode(0), Live: live.String(), Output: "ok  \tagent/internal/pkg01\t0.01s\n"}))
}

func TestLifeGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		mode := map[bool]string{true: "dark", false: "light"}[dark]
		for _, w := range []int{40, 80, 120, 200} {
			m := newModel(t, dark, false, Options{})
			fillLife(m)
			golden(t, fmt.Sprintf("life_%d_%s", w, mode), fullView(m, w))
		}
	}
}

// A running card shows the last LiveLines lines of its output as they
// stand (a CR-rewritten line at its last state, escapes gone); once the
// result comes, the result shows instead.
func TestLiveTail(t *testing.T) {
	m := newModel(t, true, false, Options{})
	fillLife(m)
	v := fullView(m, 120)
	if !strings.Contains(v, "│ 30%") || strings.Contains(v, "10%") || strings.Contains(v, "\x1b") {
		t.Fatalf("the progress line is not at its last state:\n%s", v)
	}
	if strings.Contains(v, "pkg04") || !strings.Contains(v, "pkg05") {
		t.Fatalf("want the last %d lines of the live output:\n%s", LiveLines, v)
	}
	if n := strings.Count(v, "pkg08"); n != 1 {
		t.Fatalf("the finished card still shows its live tail (%d times pkg08):\n%s", n, v)
	}
}
