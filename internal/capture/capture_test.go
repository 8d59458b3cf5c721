package capture_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"agent/internal/capture"
	"agent/internal/checkpoint"
	"agent/internal/event"
	"agent/internal/replay"
)

// taskFile mirrors the task.toml keys of the spec (evals/README.md); decoding
// with it and no undecoded keys means the file holds only known keys.
type taskFile struct {
	Prompt      string `toml:"prompt"`
	Description string `toml:"description"`
	MaxSteps    int    `toml:"max_steps"`
	Policy      struct {
		Mode      string   `toml:"mode"`
		Allow     []string `toml:"allow"`
		Deny      []string `toml:"deny"`
		Decisions []struct {
			Call, Decision, Note, Scope string
		} `toml:"decisions"`
	} `toml:"policy"`
	Expect map[string]any `toml:"expect"`
}

type journal struct{ evs []event.Event }

func (j *journal) add(p event.Payload) {
	ev := event.New("run1", p)
	ev.Seq = int64(len(j.evs) + 1)
	j.evs = append(j.evs, ev)
}

// files is a fixture held in memory (the real sources are tested below).
type files []capture.File

func (f files) Files(_ context.Context, fn func(capture.File) error) error {
	for _, x := range f {
		if err := fn(x); err != nil {
			return err
		}
	}
	return nil
}
func (files) Describe() string { return "test files" }

// failing fails after its first file.
type failing struct{}

func (failing) Files(_ context.Context, fn func(capture.File) error) error {
	if err := fn(capture.File{Path: "a.txt", Mode: 0o644, Data: []byte("a")}); err != nil {
		return err
	}
	return errors.New("disk on fire")
}
func (failing) Describe() string { return "a failing source" }

type upper struct{}

func (upper) Redact(s string) string {
	return strings.ReplaceAll(s, "sk-live-123", "[REDACTED:key:ab12]")
}

// askRun is a run under ask: a person allowed one command for the run,
// denied another with a note, then denied a third without one (which
// cancelled a fourth call), and the run stopped.
func askRun() *journal {
	j := &journal{}
	j.add(&event.RunStartedData{Workspace: "/ws", Model: "gpt-x", Approval: "ask", MaxSteps: 12,
		Allow: []string{"run_command(go test *)"}, Deny: []string{`run_command(rm "*)`}})
	j.add(&event.UserMessageData{Text: "clean up\nthe \"build\" dir\t\x01"})
	j.add(&event.ModelRequestData{Step: 1})
	j.add(&event.AssistantMessageData{Step: 1, Text: "first", Tokens: &event.TokenCount{Input: 50, Output: 5},
		ToolCalls: []event.ToolCallRef{{ID: "c1", Name: "run_command", Arguments: `{"command":"make"}`}}})
	j.add(&event.ToolCallData{CallID: "c1", Name: "run_command", Arguments: `{"command":"make"}`, Risk: event.RiskExec})
	j.add(&event.ApprovalData{CallID: "c1", Decision: event.Allow, Scope: event.ScopeRun, Source: event.SourceUser})
	j.add(&event.CheckpointData{CheckpointID: "cp-first", CallID: "c1", Kind: event.CheckpointBefore})
	j.add(&event.CheckpointData{CheckpointID: "cp-2", CallID: "c1", Kind: event.CheckpointAfter, Files: []string{"out.bin"}})
	j.add(&event.ToolResultData{CallID: "c1", Status: event.ResultOK})
	j.add(&event.ModelRequestData{Step: 2})
	j.add(&event.AssistantMessageData{Step: 2, ToolCalls: []event.ToolCallRef{{ID: "c2", Name: "run_command", Arguments: `{"command":"rm -rf build"}`}}})
	j.add(&event.ToolCallData{CallID: "c2", Name: "run_command", Arguments: `{"command":"rm -rf build"}`, Risk: event.RiskExec})
	j.add(&event.ApprovalData{CallID: "c2", Decision: event.Deny, Source: event.SourceRule, Rule: "run_command(rm *)"})
	j.add(&event.ToolResultData{CallID: "c2", Status: event.ResultDenied})
	j.add(&event.RunFinishedData{Status: event.StatusAwaitingApproval})
	j.add(&event.ResumeData{FromSeq: 15})
	j.add(&event.UserMessageData{Text: "also the cache"})
	j.add(&event.ModelRequestData{Step: 3})
	j.add(&event.AssistantMessageData{Step: 3, ToolCalls: []event.ToolCallRef{
		{ID: "c3", Name: "run_command", Arguments: `{"command":"make clean"}`},
		{ID: "c4", Name: "write_file", Arguments: `{"path":"x","content":"y"}`}}})
	j.add(&event.ToolCallData{CallID: "c3", Name: "run_command", Arguments: `{"command":"make clean"}`, Risk: event.RiskExec})
	j.add(&event.ApprovalData{CallID: "c3", Decision: event.Deny, Source: event.SourceUser, Note: "use git clean"})
	j.add(&event.ToolResultData{CallID: "c3", Status: event.ResultDenied})
	j.add(&event.ModelRequestData{Step: 4})
	j.add(&event.AssistantMessageData{Step: 4, ToolCalls: []event.ToolCallRef{
		{ID: "c5", Name: "run_command", Arguments: `{"command":"git clean -fdx"}`},
		{ID: "c6", Name: "write_file", Arguments: `{"path":"x","content":"y"}`}}})
	j.add(&event.ToolCallData{CallID: "c5", Name: "run_command", Arguments: `{"command":"git clean -fdx"}`, Risk: event.RiskExec})
	j.add(&event.ApprovalData{CallID: "c5", Decision: event.Deny, Source: event.SourceUser})
	j.add(&event.ToolResultData{CallID: "c5", Status: event.ResultDenied})
	j.add(&event.ToolCallData{CallID: "c6", Name: "write_file", Arguments: `{"path":"x","content":"y"}`, Risk: event.RiskWrite})
	j.add(&event.ApprovalData{CallID: "c6", Decision: event.Deny, Source: event.SourceUser, Reason: "not run: the person denied c5, which ends the turn"})
	j.add(&event.ToolResultData{CallID: "c6", Status: event.ResultDenied})
	j.add(&event.RunFinishedData{Status: event.StatusStopped})
	return j
}

func TestCaptureTask(t *testing.T) {
	dir := t.TempDir()
	fx := files{
		{Path: "a.txt", Mode: 0o644, Data: []byte("v1\n")},
		{Path: "bin/run.sh", Mode: 0o755, Data: []byte("#!/bin/sh\n")},
		{Path: "sub/deep/.env", Mode: 0o644, Data: []byte("KEY=sk-live-123\n")},
		{Path: "link", Mode: os.ModeSymlink | 0o777, Data: []byte("a.txt")},
		{Path: "blob.bin", Mode: 0o644, Data: []byte("sk-live-123\x00\xff")},
	}
	task, err := capture.Capture(context.Background(), capture.Options{RunID: "run1", Events: askRun().evs, Fixture: fx, Dir: dir, Redactor: upper{}})
	if err != nil {
		t.Fatal(err)
	}
	if task.Dir != filepath.Join(dir, "run-run1") || task.Files != 4 || task.Turns != 4 {
		t.Errorf("task = %+v", task)
	}
	// fixture/: files with their modes, text redacted, symlinks left out and named
	for p, want := range map[string]string{"a.txt": "v1\n", "bin/run.sh": "#!/bin/sh\n", "sub/deep/.env": "KEY=[REDACTED:key:ab12]\n", "blob.bin": "sk-live-123\x00\xff"} {
		b, err := os.ReadFile(filepath.Join(task.Dir, "fixture", p))
		if err != nil || string(b) != want {
			t.Errorf("fixture/%s = %q, %v; want %q", p, b, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(task.Dir, "fixture", "bin/run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("bin/run.sh mode: %v %v", fi.Mode(), err)
	}
	if _, err := os.Lstat(filepath.Join(task.Dir, "fixture", "link")); err == nil {
		t.Error("a symlink was written into fixture/")
	}
	if len(task.Skipped) != 1 || len(task.Redacted) != 1 || task.Redacted[0] != "sub/deep/.env" {
		t.Errorf("skipped %v, redacted %v", task.Skipped, task.Redacted)
	}
	// turns.json: every answer in order, with ids, arguments and usage
	sc, err := replay.Load(filepath.Join(task.Dir, "turns.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Turns) != 4 || sc.Turns[0].Text != "first" || sc.Turns[0].Usage == nil || sc.Turns[0].Usage.Input != 50 ||
		sc.Turns[2].ToolCalls[1].ID != "c4" || sc.Turns[3].ToolCalls[0].Arguments != `{"command":"git clean -fdx"}` {
		t.Errorf("turns = %+v", sc.Turns)
	}
	// task.toml: only the spec's keys, the person's decisions in order
	raw, err := os.ReadFile(filepath.Join(task.Dir, "task.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var tf taskFile
	md, err := toml.Decode(string(raw), &tf)
	if err != nil {
		t.Fatalf("task.toml does not parse: %v\n%s", err, raw)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Errorf("task.toml has keys outside the spec: %v", u)
	}
	if tf.Prompt != "clean up\nthe \"build\" dir\t\x01" || tf.MaxSteps != 12 || tf.Policy.Mode != "ask" ||
		len(tf.Policy.Allow) != 1 || tf.Policy.Deny[0] != `run_command(rm "*)` || len(tf.Expect) != 0 {
		t.Errorf("task = %+v", tf)
	}
	d := tf.Policy.Decisions
	if len(d) != 3 || d[0].Call != "c1" || d[0].Decision != "allow" || d[0].Scope != "run" ||
		d[1].Call != "c3" || d[1].Note != "use git clean" || d[1].Scope != "" || d[2].Call != "c5" || d[2].Decision != "deny" {
		t.Errorf("decisions = %+v, want the person's c1 allow (run), c3 deny with note, c5 deny; not the rule's c2 nor the cancelled c6", d)
	}
	text := string(raw)
	for _, want := range []string{
		"# status = \"stopped\"\n", "# class = \"permission\"\n",
		"# reason (event 26): the person denied run_command `git clean -fdx` and stopped the turn\n",
		"# files changed: out.bin\n", "not replayed (a task has one prompt): also the cache\n",
		"# Secrets redacted in fixture/ (the run saw the real values): sub/deep/.env.\n",
		"# Left out of fixture/ (symlinks, which the eval cannot copy): link.\n",
		"resumed 1 time(s)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("task.toml lacks %q:\n%s", want, text)
		}
	}
	// no leftovers beside the task
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in --dir, want the task alone", len(entries))
	}
}

// A run that failed on a model error gets a last turn that fails the same
// way, without retries.
func TestCaptureModelFailure(t *testing.T) {
	j := &journal{}
	j.add(&event.RunStartedData{Workspace: "/ws", Model: "m", Approval: "full-auto"})
	j.add(&event.UserMessageData{Text: "hi"})
	j.add(&event.ModelRequestData{Step: 1})
	j.add(&event.ErrorData{Class: event.ClassModel, Message: "model error: HTTP 500 after 5 attempts"})
	j.add(&event.RunFinishedData{Status: event.StatusFailed})
	task, err := capture.Capture(context.Background(), capture.Options{RunID: "r", Events: j.evs, Fixture: files{}, Dir: t.TempDir(), Name: "m"})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := replay.Load(filepath.Join(task.Dir, "turns.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Turns) != 1 || sc.Turns[0].HTTPStatus != 400 || sc.Turns[0].Error != "HTTP 500 after 5 attempts" {
		t.Errorf("turns = %+v", sc.Turns)
	}
	if task.Outcome.Failure == nil || task.Outcome.Failure.Class != event.ClassModel {
		t.Errorf("outcome %+v", task.Outcome)
	}
}

// Refusals: an existing task (even an empty directory), a bad name, an
// unfinished run, a run without a prompt, a fixture that fails midway —
// each a clear error that leaves nothing behind.
func TestCaptureRefuses(t *testing.T) {
	dir := t.TempDir()
	done := askRun().evs
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	unfinished := done[:10]
	for _, tc := range []struct {
		name string
		opt  capture.Options
		want string
	}{
		{"existing", capture.Options{Events: done, Fixture: files{}, Name: "taken"}, "task directory exists; choose another --name"},
		{"bad name", capture.Options{Events: done, Fixture: files{}, Name: "../x"}, "task name"},
		{"unfinished", capture.Options{Events: unfinished, Fixture: files{}, Name: "u"}, "has not finished"},
		{"no prompt", capture.Options{Events: done[:1], Fixture: files{}, Name: "p"}, "no prompt on record"},
		{"fixture fails", capture.Options{Events: done, Fixture: failing{}, Name: "f"}, "disk on fire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Dir, tc.opt.RunID = dir, "run1"
			_, err := capture.Capture(context.Background(), tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 || entries[0].Name() != "taken" {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "taken")); len(entries) != 0 {
		t.Error("the existing directory was written into")
	}
}

// The real fixture sources: a checkpoint of the shadow repository, and the
// git HEAD of a workspace (read, never written).
func TestFixtureSources(t *testing.T) {
	ws := t.TempDir()
	for p, body := range map[string]string{"a.txt": "one\n", "dir/b.txt": "two\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		os.WriteFile(filepath.Join(ws, p), []byte(body), 0o644)
	}
	cps, err := checkpoint.Open(t.TempDir(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer cps.Close()
	snap, err := cps.Snapshot(context.Background(), checkpoint.Meta{RunID: "run1", CallID: "c1", Kind: checkpoint.Kind(event.CheckpointBefore)})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("changed later\n"), 0o644)
	got := map[string]string{}
	collect := func(f capture.File) error { got[f.Path] = string(f.Data); return nil }
	if err := (capture.Checkpoint{Store: cps, ID: snap.ID}).Files(context.Background(), collect); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a.txt"] != "one\n" || got["dir/b.txt"] != "two\n" {
		t.Errorf("checkpoint files = %v, want the snapshot's", got)
	}

	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("uncommitted\n"), 0o644)
	got = map[string]string{}
	if err := (capture.GitHead{Workspace: ws}).Files(context.Background(), collect); err != nil {
		t.Fatal(err)
	}
	if got["a.txt"] != "changed later\n" || got["dir/b.txt"] != "two\n" {
		t.Errorf("git HEAD files = %v", got)
	}
	err = (capture.GitHead{Workspace: t.TempDir()}).Files(context.Background(), collect)
	if !errors.Is(err, capture.ErrNoFixture) || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("GitHead outside a repository: %v", err)
	}
}
