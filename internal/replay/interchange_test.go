package replay_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"agent/internal/agent"
	"agent/internal/agent/openai"
	"agent/internal/replay"
)

// turnResult is what a mini agent loop saw of one model turn.
type turnResult struct {
	Events []agent.StreamEvent
	Err    bool
}

// miniLoop plays a conversation: it asks for turns until one has no tool
// calls, answering every call with "result of NAME: module example".
func miniLoop(t *testing.T, p agent.Provider, maxTurns int) []turnResult {
	t.Helper()
	req := &agent.Request{Model: "m",
		Messages: []agent.Message{{Role: agent.RoleSystem, Content: "sys"}, {Role: agent.RoleUser, Content: "do it"}},
		Tools:    []agent.ToolSpec{{Name: "read_file"}, {Name: "list_dir"}, {Name: "edit_file"}, {Name: "write_file"}}}
	var out []turnResult
	for i := 0; i < maxTurns; i++ {
		st, err := p.Stream(context.Background(), req)
		if err != nil {
			return append(out, turnResult{Err: true})
		}
		var evs []agent.StreamEvent
		var text strings.Builder
		var calls []agent.ToolCall
		for {
			ev, err := st.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				st.Close()
				return append(out, turnResult{Events: evs, Err: true})
			}
			evs = append(evs, ev)
			switch ev.Kind {
			case agent.EvTextDelta:
				text.WriteString(ev.Text)
			case agent.EvToolCallStart:
				calls = append(calls, agent.ToolCall{ID: ev.ID, Name: ev.Name})
			case agent.EvToolCallDelta:
				calls[ev.Index].Arguments += ev.Text
			}
		}
		st.Close()
		out = append(out, turnResult{Events: evs})
		if len(calls) == 0 {
			return out
		}
		req.Messages = append(req.Messages, agent.Message{Role: agent.RoleAssistant, Content: text.String(), ToolCalls: calls})
		for _, c := range calls {
			req.Messages = append(req.Messages, agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Name: c.Name,
				Content: "result of " + c.Name + ": module example"})
		}
	}
	return out
}

func merged(evs []agent.StreamEvent) []agent.StreamEvent {
	var out []agent.StreamEvent
	for _, ev := range evs {
		if n := len(out); n > 0 && (ev.Kind == agent.EvTextDelta || ev.Kind == agent.EvToolCallDelta) &&
			out[n-1].Kind == ev.Kind && out[n-1].Index == ev.Index {
			out[n-1].Text += ev.Text
			continue
		}
		out = append(out, ev)
	}
	return out
}

// TestScriptedMatchesOpenAIAdapter runs the same scripts through Scripted and
// through the openai adapter against a Server, and compares what a loop sees.
func TestScriptedMatchesOpenAIAdapter(t *testing.T) {
	scripts := map[string]string{
		"text only":               `{"turns":[{"text":"Nothing to do here, the tests pass.","usage":{"input":9,"output":4}}]}`,
		"tool calls":              `{"turns":[{"text":"Two reads.","chunk_size":3,"tool_calls":[{"name":"read_file","arguments":"{\"path\":\"a\"}"},{"name":"list_dir","arguments":"{}"}]},{"text":"ok"}]}`,
		"faults":                  `{"turns":[{"http_status":503},{"http_status":429,"retry_after":"0"},{"tool_calls":[{"name":"write_file","arguments":"{\"path\": broken"}]},{"text":"done","finish_reason":"length"}]}`,
		"drop before first chunk": `{"turns":[{"text":"lost","drop_after_chunks":0},{"text":"kept"}]}`,
		"drop mid-stream":         `{"turns":[{"text":"abcdefghijklmnop","drop_after_chunks":2}]}`,
		"unicode":                 `{"turns":[{"text":"héllo wörld ✓ 日本語テキスト","chunk_size":2}]}`,
		"exhausted":               `{"turns":[{"tool_calls":[{"name":"read_file","arguments":"{}"}]}]}`,
		"not retryable":           `{"turns":[{"http_status":401}]}`,
	}
	for name, src := range scripts {
		t.Run(name, func(t *testing.T) {
			compare(t, func() *replay.Script {
				s, err := replay.Parse([]byte(src))
				if err != nil {
					t.Fatal(err)
				}
				return s
			})
		})
	}
	t.Run("testdata/example.json", func(t *testing.T) {
		compare(t, func() *replay.Script {
			s, err := replay.Load(filepath.Join("testdata", "example.json"))
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	})
}

func compare(t *testing.T, load func() *replay.Script) {
	t.Helper()
	scripted := replay.NewScripted(load())
	viaScripted := miniLoop(t, scripted, 10)

	srv, url := replay.Start(t, load())
	p, err := openai.New(openai.Config{BaseURL: url, Model: "m", BaseBackoff: time.Millisecond,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		t.Fatal(err)
	}
	viaHTTP := miniLoop(t, p, 10)

	if len(viaScripted) != len(viaHTTP) {
		t.Fatalf("turns: scripted %d, http %d\nscripted %+v\nhttp %+v", len(viaScripted), len(viaHTTP), viaScripted, viaHTTP)
	}
	for i := range viaHTTP {
		s, h := viaScripted[i], viaHTTP[i]
		if s.Err != h.Err {
			t.Errorf("turn %d: scripted err %v, http err %v", i, s.Err, h.Err)
		}
		if !reflect.DeepEqual(merged(s.Events), merged(h.Events)) {
			t.Errorf("turn %d merged events differ:\nscripted %+v\nhttp     %+v", i, merged(s.Events), merged(h.Events))
		}
		if !reflect.DeepEqual(s.Events, h.Events) { // same fragments too
			t.Errorf("turn %d raw events differ:\nscripted %+v\nhttp     %+v", i, s.Events, h.Events)
		}
	}
	if !reflect.DeepEqual(scripted.Mismatches(), srv.Mismatches()) {
		t.Errorf("mismatches differ:\nscripted %q\nhttp     %q", scripted.Mismatches(), srv.Mismatches())
	}
	if a, b := len(scripted.Requests()), len(srv.Requests()); a != b {
		t.Errorf("requests: scripted %d, http %d", a, b)
	}
	if scripted.Remaining() != srv.Remaining() {
		t.Errorf("remaining: scripted %d, http %d", scripted.Remaining(), srv.Remaining())
	}
}
