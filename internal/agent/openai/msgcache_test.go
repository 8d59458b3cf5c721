package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"agent/internal/agent"
)

// The messages and the tools are encoded once and put into go-openai's body
// by the doer: what reaches the server must be, byte for byte, what
// go-openai would have sent itself (json.Marshal of its request), at every
// request of a growing conversation, with messages that repeat, change,
// move, are left out or folded away, carry HTML, quotes, unicode and tool
// calls; tools that change, go and come back; and model names and a tool
// description that spell the placeholders.
func TestSplicedBodyIsGoOpenAIsOwn(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if int64(len(b)) != r.ContentLength {
			t.Errorf("Content-Length %d, body %d bytes", r.ContentLength, len(b))
		}
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	p, err := New(Config{BaseURL: srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	conv := []agent.Message{
		{Role: agent.RoleSystem, Content: "system <b>&amp;</b> \"quoted\" \u2028 ünïcödé"},
		{Role: agent.RoleUser, Content: "do it"},
		{Role: agent.RoleAssistant}, // an empty answer: left out
	}
	models := []string{"m", `m","messages":null,"x`, "m", `m","tools":[{"type":"agent:tools-placeholder"}],"x`}
	toolsA := []agent.ToolSpec{
		{Name: "write_file", Description: "writes <files>", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "noargs", Description: `says "agent:tools-placeholder"`},
	}
	toolsB := []agent.ToolSpec{{Name: "write_file", Description: "writes <files> & more", Parameters: json.RawMessage(` { "type" : "object" } `)}, toolsA[1]}
	const steps = 16
	for step := 0; step < steps; step++ {
		id := fmt.Sprintf("call_%d", step)
		conv = append(conv,
			agent.Message{Role: agent.RoleAssistant, Content: "", ToolCalls: []agent.ToolCall{{ID: id, Name: "write_file", Arguments: fmt.Sprintf(`{"path":"f%d.txt","content":"<x> & \"%d\""}`, step, step)}}},
			agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: "write_file", Content: strings.Repeat("out ", step)})
		switch step {
		case 3:
			conv[1].Content = "do it, changed" // an earlier message the context builder rewrote
		case 6:
			// the person's message moves after the rounds, as L2 does
			conv = append(append(append([]agent.Message(nil), conv[:1]...), conv[2:]...), conv[1])
		case 11:
			// a compaction: a summary replaces more rounds than the cache looks around
			sum := agent.Message{Role: agent.RoleUser, Content: "[agent] summary of rounds 0-5"}
			conv = append([]agent.Message{conv[0], sum}, conv[15:]...)
		}
		var tools []agent.ToolSpec
		switch {
		case step < 5:
			tools = toolsA
		case step == 5 || step == 9:
			tools = nil
		default:
			tools = toolsB
		}
		req := &agent.Request{Model: models[step%len(models)], Messages: append([]agent.Message(nil), conv...), Tools: tools}
		want, err := p.buildRequest(req)
		if err != nil {
			t.Fatal(err)
		}
		wantBody, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		s, err := p.Stream(context.Background(), req)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		for {
			if _, err := s.Recv(); err != nil {
				break
			}
		}
		s.Close()
		mu.Lock()
		got := bodies[len(bodies)-1]
		mu.Unlock()
		if !bytes.Equal(got, wantBody) {
			t.Fatalf("step %d: body differs from go-openai's own encoding\n got: %s\nwant: %s", step, got, wantBody)
		}
	}
	if len(bodies) != steps {
		t.Fatalf("%d requests, want %d", len(bodies), steps)
	}
}
