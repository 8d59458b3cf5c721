package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestACPSubagents drives `agent acp` with the official TypeScript SDK's
// client: a prompt whose task calls start an explorer and a worker. Each
// child shows in its task call: tool_call_update notifications (in
// progress) whose content names the child and its actions as it goes, then
// the task's result; the worker's edit is asked through session/
// request_permission, labelled with the child's description.
func TestACPSubagents(t *testing.T) {
	tools := npmTools(t, "sdk", "@agentclientprotocol/sdk", "2.4.0")
	parent := &treeScript{key: "PARENT-55", steps: []treeStep{
		{calls: []map[string]any{
			taskCall("call_a1", "look around", "EXPLORE-55: what does README.md say?", "explore"),
			taskCall("call_a2", "write the note", "WORKER-55: write note.txt", "worker")}},
		{text: "PARENT-55-DONE"}}}
	ex := &treeScript{key: "EXPLORE-55", steps: []treeStep{
		{calls: []map[string]any{toolCall("ea_1", "read_file", map[string]string{"path": "README.md"})}},
		{text: "EXPLORE-ANSWER-55"}}}
	w := &treeScript{key: "WORKER-55", steps: []treeStep{
		{calls: []map[string]any{toolCall("wa_1", "write_file", map[string]string{"path": "note.txt", "content": "n\n"})}},
		{text: "WORKER-ANSWER-55"}}}
	s := newTreeServer(t, parent, ex, w)
	e := newEnv(t, "")
	e.url = s.url
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(tools, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	client, err := os.ReadFile(filepath.Join("testdata", "acp", "subagents.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "client.mjs"), client, 0o644)
	b, _ := json.Marshal(map[string]string{"agent": agentBin, "ws": e.ws, "prompt": "PARENT-55: delegate"})
	os.WriteFile(filepath.Join(work, "cfg.json"), b, 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", "cfg.json")
	cmd.Dir = work
	cmd.Env = e.environ("AGENT_APPROVAL=ask", "AGENT_MODEL=test-model", "OPENAI_API_KEY=sk-test")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	var got struct {
		Error, Stderr, StopReason string
		Updates                   []struct {
			SessionUpdate string          `json:"sessionUpdate"`
			ToolCallID    string          `json:"toolCallId"`
			Title         string          `json:"title"`
			Status        string          `json:"status"`
			Content       json.RawMessage `json:"content"` // a list for tool calls
		}
		Perms []struct {
			ToolCall struct {
				ToolCallID string `json:"toolCallId"`
				Title      string `json:"title"`
				Locations  []struct {
					Path string `json:"path"`
				} `json:"locations"`
			} `json:"toolCall"`
		}
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Error != "" {
		t.Fatalf("client output %v: %s", err, out)
	}
	if got.StopReason != "end_turn" {
		t.Fatalf("stop reason %q", got.StopReason)
	}
	// per task call: its start, the children's progress, its result
	type seen struct {
		started, done           bool
		progress                []string // the content texts while in progress
		progressAfterDone, last string
	}
	calls := map[string]*seen{"call_a1": {}, "call_a2": {}}
	for _, u := range got.Updates {
		c := calls[u.ToolCallID]
		if c == nil {
			continue
		}
		var cts []struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		json.Unmarshal(u.Content, &cts)
		var texts []string
		for _, ct := range cts {
			texts = append(texts, ct.Content.Text)
		}
		txt := strings.Join(texts, "\n")
		switch {
		case u.SessionUpdate == "tool_call":
			c.started = true
			if !strings.Contains(u.Title, "task: ") {
				t.Errorf("the task call's title %q does not name the task", u.Title)
			}
		case u.Status == "in_progress" && txt != "":
			if c.done {
				c.progressAfterDone = txt
			}
			c.progress = append(c.progress, txt)
		case u.Status == "completed":
			c.done, c.last = true, txt
		}
	}
	for id, c := range calls {
		if !c.started || !c.done || len(c.progress) < 2 || c.progressAfterDone != "" {
			t.Errorf("%s: started %v, done %v, %d progress updates (after done: %q)", id, c.started, c.done, len(c.progress), c.progressAfterDone)
		}
	}
	joined := strings.Join(calls["call_a1"].progress, "\n---\n")
	for _, want := range []string{`subagent "look around" (explore`, "… read_file: README.md", "✓ read_file: README.md", "answered: EXPLORE-ANSWER-55", ": completed"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the explorer's progress lacks %q:\n%s", want, joined)
		}
	}
	if !strings.Contains(calls["call_a1"].last, "EXPLORE-ANSWER-55") {
		t.Errorf("the explorer's task result lacks its answer: %q", calls["call_a1"].last)
	}
	if j := strings.Join(calls["call_a2"].progress, "\n"); !strings.Contains(j, "✓ write_file: note.txt") || !strings.Contains(j, `subagent "write the note" (worker`) {
		t.Errorf("the worker's progress:\n%s", j)
	}
	asked := false
	for _, p := range got.Perms {
		if p.ToolCall.ToolCallID == "wa_1" && strings.HasPrefix(p.ToolCall.Title, `subagent "write the note": write_file`) {
			asked = true
			// the file the worker writes is in its worktree, not the session's workspace
			if len(p.ToolCall.Locations) != 1 || !strings.Contains(p.ToolCall.Locations[0].Path, filepath.Join("worktrees", "")) {
				t.Errorf("the worker's write is located at %+v, want its worktree", p.ToolCall.Locations)
			}
		}
	}
	if !asked {
		t.Errorf("no permission request for the worker's write labelled with the child: %+v", got.Perms)
	}
}
