package evals

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/internal/event"
)

const goodTurns = `{"turns": [
  {"text": "a", "tool_calls": [{"id": "call_1", "name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}]},
  {"text": "done"}
]}`

// writeTask makes a task folder with a fixture, turns.json and task.toml.
func writeTask(t *testing.T, toml string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "fixture"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"fixture/a.txt": "v1\n", "turns.json": goodTurns, "task.toml": toml} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A task using every key parses into exactly what it says.
func TestLoadTaskEveryKey(t *testing.T) {
	dir := writeTask(t, `
prompt = "  make it pass  "
description = "one line"
max_steps = 7
timeout = "45s"
[policy]
mode = "ask"
allow = ["run_command(go test *)"]
deny = ["run_command(rm *)"]
[[policy.decisions]]
call = "call_1"
decision = "allow"
scope = "run"
[[policy.decisions]]
call = "call_2"
decision = "deny"
note = "use util.go"
[config]
window = 16000
[server]
quirks = ["finish-stop", "no-id", "no-index", "one-chunk", "args-object", "no-id"]
[[faults]]
kind = "sigkill"
at = "command_started"
n = 2
[[faults]]
kind = "sigkill"
at = "stream"
turn = 2
[[actions]]
kind = "rollback"
call = "call_1"
checkpoint = "after"
conversation = true
[[actions]]
kind = "undo"
[[actions]]
kind = "message"
text = "go on"
[expect]
status = "failed"
class = "tool"
check = "go test ./..."
files = [
  { path = "./greet.go", contains = "Hello, " },
  { path = "old.go", absent = true },
  { path = "VERSION", exact = "1.2.0\n" },
]
trace = [
  { assert = "denied_call_never_ran", call = "call_2" },
  { assert = "stopped_after_denial" },
  { assert = "command_ran_at_most_once", call = "call_3" },
  { assert = "rollback_restored" },
  { assert = "no_secret_in_requests", secrets = ["sk-live-1"] },
  { assert = "compacted" },
  { assert = "max_identical_errors", n = 1 },
  { assert = "cites", paths = ["greet.go"] },
]
`)
	task, err := LoadTask(dir, "edit/every-key")
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"name", task.Name, "edit/every-key"},
		{"category", task.Category, "edit"},
		{"prompt", task.Prompt, "make it pass"},
		{"description", task.Description, "one line"},
		{"max_steps", task.MaxSteps, 7},
		{"timeout", task.Timeout, 45 * time.Second},
		{"mode", task.Policy.Mode, "ask"},
		{"allow", strings.Join(task.Policy.Allow, ","), "run_command(go test *)"},
		{"deny", strings.Join(task.Policy.Deny, ","), "run_command(rm *)"},
		{"decisions", len(task.Policy.Decisions), 2},
		{"decision 1", task.Policy.Decisions[0], Decision{Call: "call_1", Decision: event.Allow, Scope: event.ScopeRun}},
		{"decision 2", task.Policy.Decisions[1], Decision{Call: "call_2", Decision: event.Deny, Note: "use util.go", Scope: event.ScopeOnce}},
		{"window", task.Config.Window, 16000},
		{"quirks (deduplicated)", len(task.Server.Quirks), 5},
		{"fault 1", task.Faults[0], Fault{Kind: FaultSIGKILL, At: "command_started", N: 2}},
		{"fault 2", task.Faults[1], Fault{Kind: FaultSIGKILL, At: AtStream, N: 1, Turn: 2}},
		{"action 1", task.Actions[0], Action{Kind: ActionRollback, Call: "call_1", Checkpoint: event.CheckpointAfter, Conversation: true}},
		{"action 2", task.Actions[1].Kind, ActionUndo},
		{"action 3", task.Actions[2], Action{Kind: ActionMessage, Text: "go on"}},
		{"status", task.Expect.Status, event.StatusFailed},
		{"class", task.Expect.Class, event.ClassTool},
		{"check", task.Expect.Check, "go test ./..."},
		{"files", len(task.Expect.Files), 3},
		{"file 1 path (cleaned)", task.Expect.Files[0].Path, "greet.go"},
		{"file 1 contains", *task.Expect.Files[0].Contains, "Hello, "},
		{"file 2 absent", task.Expect.Files[1].Absent, true},
		{"file 3 exact", *task.Expect.Files[2].Exact, "1.2.0\n"},
		{"trace", len(task.Expect.Trace), 8},
		{"trace 1", task.Expect.Trace[0].Call, "call_2"},
		{"trace 5", task.Expect.Trace[4].Secrets[0], "sk-live-1"},
		{"trace 7", task.Expect.Trace[6].N, 1},
		{"trace 8", task.Expect.Trace[7].Paths[0], "greet.go"},
		{"turns", len(task.Script.Turns), 2},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

// The defaults a minimal task gets.
func TestLoadTaskDefaults(t *testing.T) {
	task, err := LoadTask(writeTask(t, `prompt = "p"`), "solo")
	if err != nil {
		t.Fatal(err)
	}
	if task.MaxSteps != DefaultMaxSteps || task.Timeout != DefaultTimeout || task.Policy.Mode != DefaultMode ||
		task.Expect.Status != event.StatusCompleted || task.Category != "" {
		t.Errorf("defaults = steps %d, timeout %s, mode %s, status %s, category %q", task.MaxSteps, task.Timeout, task.Policy.Mode, task.Expect.Status, task.Category)
	}
}

// Every unknown key and every bad value is an error naming the file, the
// key and the fix.
func TestLoadTaskErrors(t *testing.T) {
	cases := []struct {
		name, toml string
		want       []string // all must appear in the message
	}{
		{"unknown top key", "prompt = \"p\"\napproval = \"ask\"", []string{`unknown key "approval"`, "at the top level", "max_steps"}},
		{"unknown policy key", "prompt = \"p\"\n[policy]\nmodes = \"ask\"", []string{`"policy.modes"`, "mode, allow"}},
		{"unknown decision key", "prompt = \"p\"\n[[policy.decisions]]\ncall = \"c\"\ndecision = \"allow\"\nwhy = 1", []string{`"policy.decisions.why"`, "call, decision, note, scope"}},
		{"unknown config key", "prompt = \"p\"\n[config]\nmodel = \"x\"", []string{`"config.model"`, "window"}},
		{"unknown server key", "prompt = \"p\"\n[server]\ndialect = []", []string{`"server.dialect"`}},
		{"unknown fault key", "prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"tool_call\"\nsignal = 9", []string{`"faults.signal"`}},
		{"unknown action key", "prompt = \"p\"\n[[actions]]\nkind = \"undo\"\nto = 1", []string{`"actions.to"`}},
		{"unknown expect key", "prompt = \"p\"\n[expect]\nexit = 0", []string{`"expect.exit"`, "status, class, check"}},
		{"unknown file key", "prompt = \"p\"\n[expect]\nfiles = [{ path = \"a\", has = \"x\" }]", []string{`"expect.files.has"`}},
		{"unknown trace key", "prompt = \"p\"\n[expect]\ntrace = [{ assert = \"compacted\", times = 2 }]", []string{`"expect.trace.times"`}},
		{"bad toml", "prompt = ", []string{"not valid TOML", "fix the syntax"}},
		{"no prompt", "description = \"d\"", []string{"prompt is required"}},
		{"zero max_steps", "prompt = \"p\"\nmax_steps = 0", []string{"max_steps = 0", ">= 1"}},
		{"bad timeout", "prompt = \"p\"\ntimeout = \"soon\"", []string{`timeout = "soon"`, "Go duration"}},
		{"negative timeout", "prompt = \"p\"\ntimeout = \"-1s\"", []string{"positive"}},
		{"bad mode", "prompt = \"p\"\n[policy]\nmode = \"yolo\"", []string{"policy.mode"}},
		{"bad rule", "prompt = \"p\"\n[policy]\nallow = [\"run_command(\"]", []string{"policy.allow"}},
		{"decision without call", "prompt = \"p\"\n[[policy.decisions]]\ndecision = \"allow\"", []string{"policy.decisions[1]", "call is required"}},
		{"bad decision", "prompt = \"p\"\n[[policy.decisions]]\ncall = \"c\"\ndecision = \"maybe\"", []string{`decision = "maybe"`}},
		{"note with allow", "prompt = \"p\"\n[[policy.decisions]]\ncall = \"c\"\ndecision = \"allow\"\nnote = \"n\"", []string{"note goes with"}},
		{"scope with deny", "prompt = \"p\"\n[[policy.decisions]]\ncall = \"c\"\ndecision = \"deny\"\nscope = \"run\"", []string{"scope goes with"}},
		{"bad scope", "prompt = \"p\"\n[[policy.decisions]]\ncall = \"c\"\ndecision = \"allow\"\nscope = \"forever\"", []string{`scope = "forever"`}},
		{"bad window", "prompt = \"p\"\n[config]\nwindow = 0", []string{"config.window = 0"}},
		{"bad quirk", "prompt = \"p\"\n[server]\nquirks = [\"no-ids\"]", []string{`unknown quirk "no-ids"`, "no-id, no-index"}},
		{"bad fault kind", "prompt = \"p\"\n[[faults]]\nkind = \"sigterm\"\nat = \"tool_call\"", []string{`kind = "sigterm"`}},
		{"fault without at", "prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"", []string{"at is required"}},
		{"fault at unknown event", "prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"tool_calls\"", []string{`at = "tool_calls" is not an event type`}},
		{"stream without turn", "prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"stream\"", []string{"needs turn"}},
		{"stream turn past the script", "prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"stream\"\nturn = 3", []string{"turns.json has 2 turns"}},
		{"stream with n", "prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"stream\"\nturn = 1\nn = 1", []string{"n goes with an event type"}},
		{"turn without stream", "prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"tool_call\"\nturn = 1", []string{"turn and child go with"}},
		{"zero n", "prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"tool_call\"\nn = 0", []string{"n = 0"}},
		{"bad action", "prompt = \"p\"\n[[actions]]\nkind = \"revert\"", []string{`kind = "revert"`}},
		{"rollback without call", "prompt = \"p\"\n[[actions]]\nkind = \"rollback\"", []string{"rollback needs call"}},
		{"bad checkpoint", "prompt = \"p\"\n[[actions]]\nkind = \"rollback\"\ncall = \"c\"\ncheckpoint = \"middle\"", []string{`checkpoint = "middle"`}},
		{"undo with call", "prompt = \"p\"\n[[actions]]\nkind = \"undo\"\ncall = \"c\"", []string{"undo takes no call"}},
		{"message without text", "prompt = \"p\"\n[[actions]]\nkind = \"message\"", []string{"message needs text"}},
		{"text on rollback", "prompt = \"p\"\n[[actions]]\nkind = \"rollback\"\ncall = \"c\"\ntext = \"t\"", []string{"text goes with"}},
		{"bad status", "prompt = \"p\"\n[expect]\nstatus = \"ok\"", []string{`expect.status = "ok"`}},
		{"bad class", "prompt = \"p\"\n[expect]\nstatus = \"failed\"\nclass = \"network\"", []string{`expect.class = "network"`}},
		{"class on completed", "prompt = \"p\"\n[expect]\nclass = \"tool\"", []string{"goes with expect.status"}},
		{"file without path", "prompt = \"p\"\n[expect]\nfiles = [{ exact = \"x\" }]", []string{"path is required"}},
		{"file outside", "prompt = \"p\"\n[expect]\nfiles = [{ path = \"../x\", absent = true }]", []string{"inside the workspace"}},
		{"file absolute", "prompt = \"p\"\n[expect]\nfiles = [{ path = \"/etc/passwd\", absent = true }]", []string{"inside the workspace"}},
		{"file in .git", "prompt = \"p\"\n[expect]\nfiles = [{ path = \".git/config\", absent = true }]", []string{"inside the workspace"}},
		{"file two checks", "prompt = \"p\"\n[expect]\nfiles = [{ path = \"a\", exact = \"x\", contains = \"x\" }]", []string{"exactly one of"}},
		{"file no check", "prompt = \"p\"\n[expect]\nfiles = [{ path = \"a\" }]", []string{"exactly one of"}},
		{"absent false", "prompt = \"p\"\n[expect]\nfiles = [{ path = \"a\", absent = false }]", []string{"absent = false"}},
		{"bad assert", "prompt = \"p\"\n[expect]\ntrace = [{ assert = \"never_crashed\" }]", []string{`assert = "never_crashed"`, "compacted"}},
		{"assert missing call", "prompt = \"p\"\n[expect]\ntrace = [{ assert = \"denied_call_never_ran\" }]", []string{"needs call"}},
		{"assert extra param", "prompt = \"p\"\n[expect]\ntrace = [{ assert = \"compacted\", call = \"c\" }]", []string{"takes no call"}},
		{"assert zero n", "prompt = \"p\"\n[expect]\ntrace = [{ assert = \"max_identical_errors\", n = 0 }]", []string{"n = 0"}},
		{"assert empty secrets", "prompt = \"p\"\n[expect]\ntrace = [{ assert = \"no_secret_in_requests\", secrets = [] }]", []string{"non-empty"}},
		{"assert empty paths", "prompt = \"p\"\n[expect]\ntrace = [{ assert = \"cites\", paths = [] }]", []string{"paths is empty"}},
		{"wrong type", "prompt = 3", []string{"not valid TOML"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTask(t, c.toml)
			_, err := LoadTask(dir, "x")
			var te *TaskError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a *TaskError", err)
			}
			if !strings.HasPrefix(err.Error(), filepath.Join(dir, "task.toml")) {
				t.Errorf("error %q does not start with the file", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// The folder's other parts: fixture/ and turns.json, and the old layout.
func TestLoadTaskFolder(t *testing.T) {
	cases := []struct {
		name  string
		setup func(dir string)
		want  string
	}{
		{"no fixture", func(d string) { os.RemoveAll(filepath.Join(d, "fixture")) }, "fixture: missing"},
		{"no turns", func(d string) { os.Remove(filepath.Join(d, "turns.json")) }, "turns.json: missing"},
		{"bad turns", func(d string) {
			os.WriteFile(filepath.Join(d, "turns.json"), []byte(`{"turns": [{"txt": "a"}]}`), 0o644)
		}, "unknown field"},
		{"old layout", func(d string) {
			os.RemoveAll(filepath.Join(d, "fixture"))
			os.Mkdir(filepath.Join(d, "workspace"), 0o755)
		}, "rename workspace/ to fixture/"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTask(t, `prompt = "p"`)
			c.setup(dir)
			_, err := LoadTask(dir, "x")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}
