package contextbuild_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"agent/internal/agent"
	"agent/internal/contextbuild"
	"agent/internal/event"
	"agent/internal/tools"
)

// journal builds a run's state event by event, as the loop folds it.
type journal struct {
	st   *agent.State
	step int
	n    int
}

func newJournal(ws, prompt string) *journal {
	j := &journal{st: agent.NewState("r", ws, "gpt-4.1", "full-auto")}
	j.add(&event.RunStartedData{Workspace: ws, Model: "gpt-4.1", Approval: "full-auto"})
	j.add(&event.UserMessageData{Text: prompt})
	return j
}

func (j *journal) add(p event.Payload) {
	ev := event.New(j.st.RunID, p)
	ev.Seq = j.st.LastSeq + 1
	j.st.Apply(ev)
}

// round journals one model step with one call and its result.
func (j *journal) round(name, args, out string, risk event.Risk, exit *int) string {
	j.step++
	j.n++
	id := fmt.Sprintf("c%d", j.n)
	j.add(&event.ModelRequestData{Step: j.step})
	j.add(&event.AssistantMessageData{Step: j.step, ToolCalls: []event.ToolCallRef{{ID: id, Name: name, Arguments: args}}})
	j.add(&event.ToolCallData{CallID: id, Name: name, Arguments: args, Risk: risk})
	j.add(&event.ToolResultData{CallID: id, Status: event.ResultOK, Output: out, ExitCode: exit})
	return id
}

func words(n int, seed string) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "%s%d ", seed, i%97)
		if i%12 == 11 {
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

func newBuilder(t *testing.T, ws string, window int) *contextbuild.Builder {
	t.Helper()
	return contextbuild.MustNew(ws, "gpt-4.1", window, tools.Default())
}

// What is never cut and does not fit is a context failure that names the fix.
func TestReservedOverBudgetFails(t *testing.T) {
	ws := t.TempDir()
	j := newJournal(ws, words(9000, "w"))
	_, err := newBuilder(t, ws, 4096).Build(context.Background(), j.st, agent.BuildOptions{Decide: true})
	var f *agent.Failure
	if !errors.As(err, &f) || f.Class != agent.ClassContext || !strings.Contains(err.Error(), "[context] window") {
		t.Fatalf("err = %v, want a context failure naming [context] window", err)
	}
}

// L1 holds the AGENTS.md files from the user's global one through the root's
// to those of the directories the run touched, byte-stable until a
// compaction re-reads them; a symlink out of the workspace is not followed.
func TestInstructionsLayer(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "AGENTS.md"), "ROOT-RULE: run go vet.")
	write(filepath.Join(ws, "svc", "api", "AGENTS.md"), "API-RULE: keep handlers small.")
	write(filepath.Join(ws, "svc", "api", "h.go"), "package api\n")
	write(filepath.Join(outside, "AGENTS.md"), "OUTSIDE-RULE")
	os.MkdirAll(filepath.Join(ws, "evil"), 0o755)
	os.Symlink(filepath.Join(outside, "AGENTS.md"), filepath.Join(ws, "evil", "AGENTS.md"))
	global := filepath.Join(t.TempDir(), "AGENTS.md")
	write(global, "GLOBAL-RULE: answer briefly.")
	specs, _ := contextbuild.Specs(tools.Default())
	b, err := contextbuild.New(contextbuild.Options{Workspace: ws, Model: "gpt-4.1", Window: 16_000, Tools: specs, GlobalInstructions: global})
	if err != nil {
		t.Fatal(err)
	}
	j := newJournal(ws, "look around")
	j.round("read_file", `{"path":"svc/api/h.go"}`, "package api", event.RiskRead, nil)
	j.round("read_file", `{"path":"evil/x.go"}`, "no such file", event.RiskRead, nil)
	first := buildLikeTheLoop(t, b, j.st)
	l1 := first.req.Messages[0].Content
	for _, want := range []string{"GLOBAL-RULE", "ROOT-RULE", "API-RULE"} {
		if !strings.Contains(l1, want) {
			t.Errorf("L1 lacks %s", want)
		}
	}
	if strings.Contains(l1, "OUTSIDE-RULE") {
		t.Error("L1 followed a symlink out of the workspace")
	}
	if g, r, a := strings.Index(l1, "GLOBAL-RULE"), strings.Index(l1, "ROOT-RULE"), strings.Index(l1, "API-RULE"); !(g < r && r < a) {
		t.Error("L1 is not ordered global, root, subdirectory")
	}
	write(filepath.Join(ws, "AGENTS.md"), "ROOT-RULE-2: changed mid-run.")
	j.round("list_dir", `{}`, "AGENTS.md\nsvc/", event.RiskRead, nil)
	if again := buildLikeTheLoop(t, b, j.st); again.req.Messages[0].Content != l1 {
		t.Error("L1 changed between two requests without a compaction")
	}
	j.st.Context.Force = true
	j.round("list_dir", `{}`, "AGENTS.md\nsvc/", event.RiskRead, nil)
	for i := 0; i < 8; i++ {
		j.round("read_file", `{"path":"svc/api/h.go"}`, words(300, "x"), event.RiskRead, nil)
	}
	after := buildLikeTheLoop(t, b, j.st)
	if len(compactions(after.events)) != 1 || !strings.Contains(after.req.Messages[0].Content, "ROOT-RULE-2") {
		t.Errorf("after a forced compaction L1 was not re-read (%d compactions)", len(compactions(after.events)))
	}
}

// The report names the first layer that changed, keeps the stable prefix's
// hash while only the conversation grows, and says how tokens were counted.
func TestReportBetweenRequests(t *testing.T) {
	ws := t.TempDir()
	b := newBuilder(t, ws, 64_000)
	j := newJournal(ws, "fix the parser")
	j.round("read_file", `{"path":"a.go"}`, words(200, "a"), event.RiskRead, nil)
	r1 := buildLikeTheLoop(t, b, j.st)
	j.add(&event.ModelRequestData{Step: j.step + 1, Context: r1.rep})
	j.add(&event.AssistantMessageData{Step: j.step + 1, Text: "reading more", ToolCalls: []event.ToolCallRef{{ID: "x1", Name: "grep", Arguments: `{"pattern":"parse"}`}},
		Tokens: &event.TokenCount{Input: r1.rep.TotalTokens * 3 / 2, Output: 10}})
	j.step++
	j.add(&event.ToolCallData{CallID: "x1", Name: "grep", Risk: event.RiskRead})
	j.add(&event.ToolResultData{CallID: "x1", Status: event.ResultOK, Output: "a.go:3: func parse()"})
	r2 := buildLikeTheLoop(t, b, j.st)
	if r2.rep.PrefixHash != r1.rep.PrefixHash {
		t.Error("the stable prefix changed though only the conversation grew")
	}
	// the turn's first round moves before the person's message: L6 opens
	// with a note saying so (once); from then on only the rounds change
	if r2.rep.FirstChanged != event.LayerHistory {
		t.Errorf("first changed layer %q, want %q", r2.rep.FirstChanged, event.LayerHistory)
	}
	j.step++
	j.add(&event.ModelRequestData{Step: j.step, Context: r2.rep})
	j.add(&event.AssistantMessageData{Step: j.step, ToolCalls: []event.ToolCallRef{{ID: "x2", Name: "grep", Arguments: `{"pattern":"lex"}`}}})
	j.add(&event.ToolCallData{CallID: "x2", Name: "grep", Risk: event.RiskRead})
	j.add(&event.ToolResultData{CallID: "x2", Status: event.ResultOK, Output: "a.go:9: func lex()"})
	r3 := buildLikeTheLoop(t, b, j.st)
	if r3.rep.FirstChanged != event.LayerRecent {
		t.Errorf("first changed layer %q, want %q", r3.rep.FirstChanged, event.LayerRecent)
	}
	if first := r3.req.Messages[1]; first.Role != agent.RoleUser {
		t.Errorf("the conversation opens with a %s message", first.Role)
	}
	if r1.rep.Counting != event.CountEncoder || r2.rep.Counting != event.CountMeasured || r2.rep.Ratio < 1.49 || r2.rep.Ratio > 1.51 {
		t.Errorf("counting %s then %s (ratio %v), want encoder then measured at 1.5", r1.rep.Counting, r2.rep.Counting, r2.rep.Ratio)
	}
	if r2.rep.Budget >= r1.rep.Budget*3/4 {
		t.Errorf("a provider that counts 1.5x did not shrink the budget (%d then %d)", r1.rep.Budget, r2.rep.Budget)
	}
}

// A provider that reports fewer tokens than the encoder does not raise the
// budget past the window.
func TestCorrectionNeverRaisesBudget(t *testing.T) {
	ws := t.TempDir()
	b := newBuilder(t, ws, 16_000)
	j := newJournal(ws, "go")
	r1 := buildLikeTheLoop(t, b, j.st)
	j.add(&event.ModelRequestData{Step: 1, Context: r1.rep})
	j.add(&event.AssistantMessageData{Step: 1, Text: "hm", Tokens: &event.TokenCount{Input: 100, Output: 1}})
	j.add(&event.UserMessageData{Text: "go on"})
	r2 := buildLikeTheLoop(t, b, j.st)
	if r2.rep.Budget != r1.rep.Budget || r2.rep.Ratio >= 1 {
		t.Errorf("budget %d -> %d with ratio %v", r1.rep.Budget, r2.rep.Budget, r2.rep.Ratio)
	}
}

// After a conversation rewind a result whose call is gone is dropped, and
// a call whose result is gone gets one, so no call is unpaired; a rewind to
// before a compaction undoes it.
func TestPairingAfterRewind(t *testing.T) {
	ws := t.TempDir()
	b := newBuilder(t, ws, 64_000)
	j := newJournal(ws, "go")
	j.round("read_file", `{"path":"a"}`, "A", event.RiskRead, nil)
	// an assistant message whose call never got a result (a journal cut
	// short by hand), then a stray result
	j.add(&event.AssistantMessageData{Step: 9, ToolCalls: []event.ToolCallRef{{ID: "lost", Name: "read_file", Arguments: `{"path":"b"}`}}})
	j.add(&event.UserMessageData{Text: "and now?"})
	j.add(&event.ToolResultData{CallID: "ghost", Status: event.ResultOK, Output: "from nowhere"})
	got := buildLikeTheLoop(t, b, j.st)
	if err := pairing(got.req); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(joinContents(got.req), "from nowhere") {
		t.Error("a result without its call was sent")
	}
	seen := false
	for _, l := range got.rep.Layers {
		for _, e := range l.Entries {
			seen = seen || e.Reason == event.ReasonOrphan
		}
	}
	if !seen {
		t.Error("the report does not account for the orphan")
	}

	j.st.Context.Force = true
	for i := 0; i < 10; i++ {
		j.round("read_file", `{"path":"c"}`, words(200, "c"), event.RiskRead, nil)
	}
	mark := j.st.LastSeq
	buildLikeTheLoop(t, b, j.st)
	if len(j.st.Context.Compactions) != 1 {
		t.Fatalf("%d compactions", len(j.st.Context.Compactions))
	}
	j.st.RewindTo(mark)
	if len(j.st.Context.Compactions) != 0 {
		t.Error("a rewind to before the compaction kept it")
	}
}

// A file the run edited, whose read is no longer shown, comes back as a
// snippet of its current content on disk.
func TestSnippetsOfEditedFiles(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "conf.go"), []byte("package conf\n\nconst Port = 48213 // CURRENT\n"), 0o644)
	b := newBuilder(t, ws, 16_000)
	j := newJournal(ws, "change the port")
	j.round("read_file", `{"path":"conf.go"}`, "1\tpackage conf\n3\tconst Port = 8080 // OLD\n"+words(400, "pad"), event.RiskRead, nil)
	j.round("edit_file", `{"path":"conf.go","old_string":"8080","new_string":"48213"}`, "edited conf.go", event.RiskWrite, nil)
	for i := 0; i < 12; i++ {
		j.round("grep", `{"pattern":"Port"}`, words(500, fmt.Sprintf("g%d", i)), event.RiskRead, nil)
	}
	got := buildLikeTheLoop(t, b, j.st)
	text := joinContents(got.req)
	if strings.Contains(text, "8080 // OLD") {
		t.Error("the stale read is still sent")
	}
	if !strings.Contains(text, "48213 // CURRENT") {
		t.Error("the edited file's current content is not in the snippets")
	}
}

// A hostile repository's AGENTS.md or edited file that is a FIFO is not
// opened (opening one would block the run forever), and an AGENTS.md that
// is a directory is skipped.
func TestHostileInstructionFiles(t *testing.T) {
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "AGENTS.md"), 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	os.MkdirAll(filepath.Join(ws, "sub", "AGENTS.md"), 0o755)
	syscall.Mkfifo(filepath.Join(ws, "pipe.go"), 0o600)
	j := newJournal(ws, "go")
	j.round("read_file", `{"path":"sub/x.go"}`, "x", event.RiskRead, nil)
	j.round("write_file", `{"path":"pipe.go","content":"package p"}`, "wrote", event.RiskWrite, nil)
	for i := 0; i < 10; i++ {
		j.round("grep", `{"pattern":"p"}`, words(300, "q"), event.RiskRead, nil)
	}
	j.st.Context.Force = true
	done := make(chan built, 1)
	go func() { done <- buildLikeTheLoop(t, newBuilder(t, ws, 8_000), j.st) }()
	select {
	case got := <-done:
		if got.req == nil || !strings.HasPrefix(got.req.Messages[0].Content, "You are agent") {
			t.Error("no request")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the build blocked on a FIFO")
	}
}

// The newest round alone over the budget is cut, never dropped: the request
// fits, the call keeps its result, and the result keeps both ends.
func TestNewestRoundCutToFit(t *testing.T) {
	minified := strings.Repeat("a=b+c;d(e,f){g[h]}", 4000) // one 72 KB line
	lines := ""
	for i := 0; i < 3000; i++ {
		lines += fmt.Sprintf("line %d of the build log: compiling package %d\n", i, i)
	}
	for _, tc := range []struct {
		name    string
		outputs []string
	}{
		{"one giant line", []string{"HEAD" + minified + "TAIL"}},
		{"many lines", []string{"HEAD\n" + lines + "FAILURE AT THE END TAIL"}},
		{"two big outputs", []string{"HEAD" + minified + "TAIL", "HEAD\n" + lines + "TAIL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			j := newJournal(ws, "look")
			j.step++
			j.add(&event.ModelRequestData{Step: 1})
			var refs []event.ToolCallRef
			for i := range tc.outputs {
				refs = append(refs, event.ToolCallRef{ID: fmt.Sprintf("c%d", i), Name: "run_command", Arguments: `{"command":"cat x"}`})
			}
			j.add(&event.AssistantMessageData{Step: 1, ToolCalls: refs})
			for i, out := range tc.outputs {
				j.add(&event.ToolCallData{CallID: refs[i].ID, Name: "run_command", Risk: event.RiskExec})
				zero := 0
				j.add(&event.ToolResultData{CallID: refs[i].ID, Status: event.ResultOK, Output: out, ExitCode: &zero})
			}
			got := buildLikeTheLoop(t, newBuilder(t, ws, 4096), j.st)
			if got.rep.TotalTokens > got.rep.Budget {
				t.Errorf("%d tokens over the budget of %d", got.rep.TotalTokens, got.rep.Budget)
			}
			if err := pairing(got.req); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, m := range got.req.Messages {
				if m.Role != agent.RoleTool {
					continue
				}
				n++
				if !strings.HasPrefix(m.Content, "HEAD") || !strings.HasSuffix(m.Content, "TAIL") || !strings.Contains(m.Content, "[agent] ...") {
					t.Errorf("the cut output lost an end or its marker: %.80q ... %.80q", m.Content, m.Content[max(len(m.Content)-80, 0):])
				}
			}
			if n != len(tc.outputs) {
				t.Errorf("%d results sent, want %d", n, len(tc.outputs))
			}
		})
	}
}

// When what is never dropped outgrows the budget (a long session's
// messages), the build fails with a context error rather than overflow.
func TestPersonMessagesOutgrowTheBudget(t *testing.T) {
	ws := t.TempDir()
	j := newJournal(ws, "first")
	for i := 0; i < 40; i++ {
		j.add(&event.UserMessageData{Text: words(200, fmt.Sprintf("m%d-", i))})
		j.round("grep", `{"pattern":"x"}`, words(50, "g"), event.RiskRead, nil)
	}
	b := newBuilder(t, ws, 8_000)
	out, err := b.Build(context.Background(), j.st, agent.BuildOptions{Decide: true})
	if err == nil {
		for _, p := range out.Events { // journaled, as the loop does
			ev := event.New(j.st.RunID, p)
			ev.Seq = j.st.LastSeq + 1
			j.st.Apply(ev)
		}
		got, err2 := b.Build(context.Background(), j.st, agent.BuildOptions{})
		if err2 == nil {
			t.Fatalf("a request of %d tokens for a budget of %d was built", got.Report.TotalTokens, got.Report.Budget)
		}
		err = err2
	}
	var f *agent.Failure
	if !errors.As(err, &f) || f.Class != agent.ClassContext || !strings.Contains(err.Error(), "start a new run") {
		t.Fatalf("err = %v, want a context failure that says what to do", err)
	}
}

// Cache breakpoints mark the stable prefixes: after L1, after the repo map
// (none here) and after the conversation before the volatile layers; never
// on the state's own messages.
func TestCacheBreakpoints(t *testing.T) {
	ws := t.TempDir()
	j := newJournal(ws, "go")
	j.round("read_file", `{"path":"a"}`, "A", event.RiskRead, nil)
	j.round("read_file", `{"path":"b"}`, "B", event.RiskRead, nil)
	got := buildLikeTheLoop(t, newBuilder(t, ws, 64_000), j.st)
	var marks []int
	for i, m := range got.req.Messages {
		if m.CacheBreak {
			marks = append(marks, i)
		}
	}
	// L1, then the first round (the newest one follows L2)
	if len(marks) != 2 || marks[0] != 0 || got.req.Messages[marks[1]].Role != agent.RoleTool {
		t.Errorf("breakpoints at %v", marks)
	}
	for _, m := range j.st.Messages {
		if m.CacheBreak {
			t.Error("a breakpoint leaked into the state")
		}
	}
}
