package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/app"
	"agent/internal/event"
)

// session/set_mode is the TUI's shift+tab for an editor: under plan a write
// is refused to the model (it never runs) and the turn ends at the plan;
// set_mode auto-edit journals mode_changed plan -> auto-edit (by the user)
// and the next prompt's write runs without asking.
func TestSetModePlanThenAutoEdit(t *testing.T) {
	home := t.TempDir()
	t.Setenv("AGENT_HOME", home)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := workspace(t)
	write := func(id string) map[string]any {
		return map[string]any{"id": id, "name": "write_file", "arguments": `{"path":"p.txt","content":"x\n"}`}
	}
	sc := map[string]any{"turns": []any{
		map[string]any{"text": "", "tool_calls": []any{write("w1")}},
		map[string]any{"text": "Plan: write p.txt."},
		map[string]any{"text": "", "tool_calls": []any{write("w2")}},
		map[string]any{"text": "Written."},
	}}
	b, _ := json.Marshal(sc)
	scriptFile := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(scriptFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	w := serve(t, app.Flags{Replay: scriptFile, Approval: "ask", Sandbox: "off"})
	w.request(1, "initialize", map[string]any{"protocolVersion": 1})
	w.answer(1)
	w.request(2, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}})
	res := w.answer(2)["result"].(map[string]any)
	sid := res["sessionId"].(string)
	if !strings.Contains(mustJSON(res["modes"]), `"plan"`) {
		t.Errorf("session/new offers no plan mode: %v", res["modes"])
	}
	w.request(3, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "plan"})
	if m := w.answer(3); m["error"] != nil {
		t.Fatalf("set_mode plan: %v", m)
	}
	prompt := func(id int, text string) {
		w.request(id, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": text}}})
		if m := w.answer(id); m["error"] != nil {
			t.Fatalf("prompt %q: %v", text, m)
		}
	}
	prompt(4, "plan it")
	if _, err := os.Stat(filepath.Join(ws, "p.txt")); err == nil {
		t.Fatal("the write ran under plan mode")
	}
	w.request(5, "session/set_mode", map[string]any{"sessionId": sid, "modeId": "auto-edit"})
	if m := w.answer(5); m["error"] != nil {
		t.Fatalf("set_mode auto-edit: %v", m)
	}
	prompt(6, "go on")
	if _, err := os.Stat(filepath.Join(ws, "p.txt")); err != nil {
		t.Fatal("the write did not run after set_mode auto-edit")
	}
	w.in.Close()
	<-w.done

	h, err := app.OpenHome(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	runs, err := h.Runs(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	evs, err := h.Events(context.Background(), runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	var switches []string
	for _, ev := range evs {
		switch d := ev.Data.(type) {
		case *event.RunStartedData:
			if d.Approval != event.ApprovalPlan {
				t.Errorf("the run started in %s, want plan (set before the first prompt)", d.Approval)
			}
		case *event.ModeChangedData:
			switches = append(switches, string(d.From)+">"+string(d.To)+":"+string(d.Source))
		case *event.ToolResultData:
			if d.CallID == "w1" && (d.Status != event.ResultDenied || !strings.Contains(d.Output, "plan mode is on")) {
				t.Errorf("the write under plan: %s %q", d.Status, d.Output)
			}
		}
	}
	if got := strings.Join(switches, " "); got != "plan>auto-edit:user" {
		t.Errorf("mode_changed events %q, want plan>auto-edit:user", got)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
