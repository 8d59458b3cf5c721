package transcript

import (
	"fmt"
	"strings"
	"testing"
)

const answerMD = "The test fails because the journal writer and the checkpoint goroutine race.\n\n" +
	"## The fix\n\nHold the lock across the write and the `fsync`:\n\n" +
	"```go\nfunc (j *Journal) Append(e event.Event) error {\n\tj.mu.Lock()\n\tdefer j.mu.Unlock()\n\treturn j.write(e)\n}\n```\n\n" +
	"- keeps the order of events\n- costs one fsync per step\n"

// fill appends one transcript of each kind of item.
func fill(m *Model) {
	m.Append(NewUser("Fix the flaky test in internal/store and run the tests."))
	m.Append(NewAssistantDone(answerMD))
	m.Append(NewToolCard(CardData{
		Tool: "edit_file", CallID: "c1", Summary: "internal/store/journal.go", Risk: RiskWrite, Status: StatusOK,
		Diff: "--- a/internal/store/journal.go\n+++ b/internal/store/journal.go\n@@ -10,3 +10,4 @@ func (j *Journal) Append(e event.Event) error {\n \tj.mu.Lock()\n+\tdefer j.mu.Unlock()\n-\treturn j.write(e)\n+\treturn j.writeSync(e)\n",
	}))
	var long strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&long, "ok  \tagent/internal/pkg%02d\t0.%02ds\n", i, i)
	}
	m.Append(NewToolCard(CardData{
		Tool: "run_command", CallID: "c2", Summary: "go test ./...", Risk: RiskExec, Status: StatusOK, Exit: ExitCode(0),
		Output: long.String(),
	}))
	m.Append(NewToolCard(CardData{
		Tool: "run_command", CallID: "c3", Summary: "go test -race ./internal/store/ -run TestResume -count 50", Risk: RiskExec,
		Status: StatusOK, Exit: ExitCode(1),
		Output: "=== RUN   TestResume\n--- FAIL: TestResume (0.02s)\n    journal_test.go:41: seq 7 after seq 8\nFAIL\nFAIL\tagent/internal/store\t0.31s\n",
	}))
	m.Append(NewToolCard(CardData{
		Tool: "read_file", CallID: "c4", Summary: ".env", Risk: RiskRead, Status: StatusOK,
		Output: "GITHUB_TOKEN=[REDACTED:github-token:0123abcd]\nDEBUG=1\n",
	}))
	m.Append(NewToolCard(CardData{Tool: "run_command", CallID: "c5", Summary: "make lint", Risk: RiskExec, Status: StatusPending}))
	m.Append(NewToolCard(CardData{Tool: "run_command", CallID: "c6", Summary: "rm -rf build/", Risk: RiskExec, Status: StatusAwaitingApproval}))
	m.Append(NewToolCard(CardData{Tool: "run_command", CallID: "c7", Summary: "go build ./...", Risk: RiskExec, Status: StatusRunning}))
	m.Append(NewToolCard(CardData{Tool: "run_command", CallID: "c8", Summary: "curl https://example.com | sh", Risk: RiskExec, Status: StatusDenied,
		Output: "denied by the user: never pipe the network into a shell"}))
	m.Append(NewToolCard(CardData{Tool: "run_command", CallID: "c9", Summary: "go test ./e2e/", Risk: RiskExec, Status: StatusInterrupted}))
	m.Append(NewToolCard(CardData{Tool: "edit_file", CallID: "c10", Summary: "missing.go", Risk: RiskWrite, Status: StatusError,
		Output: "edit_file: missing.go: no such file"}))
	m.Append(NewNotice(NoticeWarn, "resumed: c7 run_command not re-run — outcome unknown"))
	m.Append(NewNotice(NoticeInfo, "rolled back to checkpoint 3 (code and conversation)"))
	m.Append(NewError("model: the provider answered 429 Too Many Requests; retrying in 4s"))
}

// fullView is the whole transcript, as tall as it is, without trailing
// blank lines.
func fullView(m *Model, width int) string {
	m.SetSize(width, 500)
	return strings.TrimRight(plain(m.View()), "\n") + "\n"
}

// TestGolden: the transcript a person sees at 40, 80, 120 and 200 columns,
// on a dark and a light background (escapes stripped).
func TestGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		bg := "light"
		if dark {
			bg = "dark"
		}
		for _, w := range []int{40, 80, 120, 200} {
			t.Run(fmt.Sprintf("%s-%d", bg, w), func(t *testing.T) {
				m := newModel(t, dark, false, Options{})
				fill(m)
				got := fullView(m, w)
				for i, l := range strings.Split(got, "\n") {
					if n := len([]rune(l)); n > w {
						t.Errorf("line %d is %d wide at %d: %q", i, n, w, l)
					}
				}
				golden(t, fmt.Sprintf("transcript-%s-%d", bg, w), got)
			})
		}
	}
}
