package replay

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"agent/internal/agent"
)

var hello = &agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}}

func recvAll(s agent.Stream) ([]agent.StreamEvent, error) {
	var evs []agent.StreamEvent
	for {
		ev, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestScriptedEvents(t *testing.T) {
	p := NewScripted(mustParse(t, `{"turns":[{"text":"abcdefghij","chunk_size":4,
		"tool_calls":[{"id":"c1","name":"grep","arguments":"{\"pattern\":\"x\"}"}],"usage":{"input":3,"output":4}}]}`))
	st, err := p.Stream(context.Background(), hello)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := recvAll(st)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, ev := range evs {
		kinds = append(kinds, map[agent.StreamEventKind]string{agent.EvTextDelta: "T", agent.EvToolCallStart: "S",
			agent.EvToolCallDelta: "D", agent.EvToolCallEnd: "E", agent.EvUsage: "U", agent.EvFinish: "F"}[ev.Kind])
	}
	if got := strings.Join(kinds, ""); got != "TTTSDDDDEUF" {
		t.Errorf("kinds %s", got)
	}
	if evs[3].ID != "c1" || evs[3].Name != "grep" || evs[9].Usage != (agent.Usage{Input: 3, Output: 4}) || evs[10].FinishReason != "tool_calls" {
		t.Errorf("events %+v", evs)
	}
	if _, err := st.Recv(); !errors.Is(err, io.EOF) {
		t.Errorf("after end: %v", err)
	}
}

func TestScriptedFaults(t *testing.T) {
	t.Run("retryable turns are skipped like retries", func(t *testing.T) {
		p := NewScripted(mustParse(t, `{"turns":[{"http_status":429},{"http_status":500},{"text":"ok"}]}`))
		var seen []int
		p.OnRequest = func(n int) { seen = append(seen, n) }
		st, err := p.Stream(context.Background(), hello)
		if err != nil {
			t.Fatal(err)
		}
		evs, _ := recvAll(st)
		if evs[0].Text != "ok" || len(seen) != 3 || len(p.Requests()) != 3 {
			t.Errorf("events %+v, requests %v", evs, seen)
		}
	})
	t.Run("retries run out", func(t *testing.T) {
		p := NewScripted(mustParse(t, `{"turns":[{"http_status":500},{"http_status":502},{"text":"ok"}]}`))
		p.MaxRetries = 1
		_, err := p.Stream(context.Background(), hello)
		var fe *FaultError
		if !errors.As(err, &fe) || fe.Status != 502 || !fe.Retryable || fe.Turn != 2 {
			t.Fatalf("err = %#v", err)
		}
	})
	t.Run("401 is an error", func(t *testing.T) {
		p := NewScripted(mustParse(t, `{"turns":[{"http_status":401,"error":"bad key"},{"text":"ok"}]}`))
		_, err := p.Stream(context.Background(), hello)
		var fe *FaultError
		if !errors.As(err, &fe) || fe.Status != 401 || fe.Retryable || fe.Message != "bad key" || p.Remaining() != 1 {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("bad conversation is a 400 and consumes nothing", func(t *testing.T) {
		p := NewScripted(mustParse(t, `{"turns":[{"text":"ok"}]}`))
		req := &agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleUser},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c", Name: "x"}}}}}
		_, err := p.Stream(context.Background(), req)
		var fe *FaultError
		if !errors.As(err, &fe) || fe.Status != 400 || !strings.Contains(fe.Message, "did not have response messages: c") ||
			p.Remaining() != 1 || p.Err() == nil {
			t.Fatalf("err = %v, remaining %d", err, p.Remaining())
		}
	})
	t.Run("drop mid-stream", func(t *testing.T) {
		p := NewScripted(mustParse(t, `{"turns":[{"text":"abcdefghijklmnop","drop_after_chunks":2}]}`))
		st, err := p.Stream(context.Background(), hello)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := recvAll(st)
		if len(evs) != 1 || err == nil {
			t.Fatalf("events %+v, err %v", evs, err)
		}
	})
}

func TestScriptedStall(t *testing.T) {
	t.Run("mid-stream until cancel", func(t *testing.T) {
		p := NewScripted(mustParse(t, `{"turns":[{"text":"abcdefghijklmnop","stall_after_chunks":2}]}`))
		ctx, cancel := context.WithCancel(context.Background())
		st, err := p.Stream(ctx, hello)
		if err != nil {
			t.Fatal(err)
		}
		if ev, err := st.Recv(); err != nil || ev.Text != "abcdefg" {
			t.Fatalf("%+v %v", ev, err)
		}
		errc := make(chan error, 1)
		go func() { _, err := st.Recv(); errc <- err }()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("close releases", func(t *testing.T) {
		p := NewScripted(mustParse(t, `{"turns":[{"text":"abc","stall_after_chunks":1}]}`))
		st, err := p.Stream(context.Background(), hello)
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { _, err := st.Recv(); errc <- err }()
		st.Close()
		if err := <-errc; err == nil {
			t.Fatal("Recv after Close succeeded")
		}
	})
	t.Run("before the first chunk blocks Stream", func(t *testing.T) {
		p := NewScripted(mustParse(t, `{"turns":[{"text":"abc","stall_after_chunks":0}]}`))
		ctx, cancel := context.WithCancel(context.Background())
		p.OnRequest = func(int) { cancel() }
		if _, err := p.Stream(ctx, hello); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestScriptedRecordsCopies(t *testing.T) {
	p := NewScripted(mustParse(t, `{"turns":[{"text":"a","expect":{"request_not_contains":["hunter2"]}},{"text":"b"}]}`))
	req := &agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleUser, Content: "password hunter2"}}}
	if _, err := p.Stream(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	req.Messages[0].Content = "changed"
	if got := p.Requests()[0].Messages[0].Content; got != "password hunter2" {
		t.Errorf("recorded request aliased the caller's: %q", got)
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), `must not contain "hunter2"`) {
		t.Errorf("err = %v", err)
	}
}

func TestScriptedConcurrent(t *testing.T) {
	p := NewScripted(mustParse(t, `{"turns":[{"text":"1"},{"text":"2"},{"text":"3"},{"text":"4"},{"text":"5"},{"text":"6"},{"text":"7"},{"text":"8"}]}`))
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]bool{}
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := p.Stream(context.Background(), hello)
			if err != nil {
				t.Error(err)
				return
			}
			evs, _ := recvAll(st)
			mu.Lock()
			got[evs[0].Text] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(got) != 8 || p.Remaining() != 0 || p.Err() != nil {
		t.Errorf("got %v, err %v", got, p.Err())
	}
}

func TestScriptedFollowConversation(t *testing.T) {
	s, err := Parse([]byte(`{"turns":[{"text":"one"},{"http_status":429},{"text":"two"},{"text":"three"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := NewScripted(s)
	p.FollowConversation = true
	req := &agent.Request{Messages: []agent.Message{
		{Role: agent.RoleUser, Content: "q"}, {Role: agent.RoleAssistant, Content: "one"},
		{Role: agent.RoleUser, Content: "q2"}, {Role: agent.RoleAssistant, Content: "two"}, {Role: agent.RoleUser, Content: "q3"},
	}}
	st, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for {
		ev, err := st.Recv()
		if err != nil {
			break
		}
		text += ev.Text
	}
	if text != "three" {
		t.Errorf("a conversation with two answers continues with %q, want the third turn", text)
	}
}

// A compacted conversation has folded older answers away: the newest
// answer's call id says where the script is, not the number of answers.
func TestScriptedFollowCompactedConversation(t *testing.T) {
	s, err := Parse([]byte(`{"turns":[
		{"tool_calls":[{"name":"read_file","arguments":"{\"path\":\"a\"}"}]},
		{"tool_calls":[{"name":"read_file","arguments":"{\"path\":\"b\"}"}]},
		{"tool_calls":[{"name":"read_file","arguments":"{\"path\":\"c\"}"}]},
		{"text":"done"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := NewScripted(s)
	p.FollowConversation = true
	req := &agent.Request{Messages: []agent.Message{
		{Role: agent.RoleUser, Content: "[agent] Summary of the earlier part ..."},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "call_3_1", Name: "read_file", Arguments: `{"path":"c"}`}}},
		{Role: agent.RoleTool, ToolCallID: "call_3_1", Content: "C"},
	}}
	st, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for {
		ev, err := st.Recv()
		if err != nil {
			break
		}
		text += ev.Text
	}
	if text != "done" {
		t.Errorf("after the third turn's call the script continues with %q, want the fourth turn", text)
	}
}
