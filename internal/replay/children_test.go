package replay

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"agent/internal/agent"
)

const treeScript = `{
  "turns": [
    {"tool_calls": [{"id": "p1", "name": "task", "arguments": "{}"}, {"id": "p2", "name": "task", "arguments": "{}"}]},
    {"text": "parent done"}
  ],
  "children": [
    {"match": "ALPHA-TASK", "turns": [
      {"tool_calls": [{"name": "read_file", "arguments": "{\"path\":\"a\"}"}]},
      {"text": "alpha answer", "stall_after_chunks": 2}
    ]},
    {"match": "BETA-TASK", "turns": [{"text": "beta answer", "expect": {"message_contains": "BETA-TASK"}}]}
  ]
}`

// chatBody is a streamed request whose conversation has users' texts and,
// after the first, answers assistant messages (text only).
func chatBody(t *testing.T, user string, answers int) string {
	t.Helper()
	msgs := []map[string]any{{"role": "system", "content": "sys"}, {"role": "user", "content": user}}
	for i := 0; i < answers; i++ {
		msgs = append(msgs, map[string]any{"role": "assistant", "content": "earlier"}, map[string]any{"role": "user", "content": "go on"})
	}
	b, err := json.Marshal(map[string]any{"model": "m", "stream": true, "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// textOf joins the content deltas of an SSE body.
func textOf(t *testing.T, r io.Reader) string {
	t.Helper()
	var b strings.Builder
	for _, d := range sseData(t, r) {
		var c struct {
			Choices []struct {
				Delta struct {
					Content   string `json:"content"`
					ToolCalls []struct {
						ID string `json:"id"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if d == "[DONE]" || json.Unmarshal([]byte(d), &c) != nil {
			continue
		}
		for _, ch := range c.Choices {
			b.WriteString(ch.Delta.Content)
			for _, tc := range ch.Delta.ToolCalls {
				if tc.ID != "" {
					b.WriteString("[" + tc.ID + "]")
				}
			}
		}
	}
	return b.String()
}

func TestParseChildren(t *testing.T) {
	s := mustParse(t, treeScript)
	if got := s.Children[0].Turns[0].ToolCalls[0].ID; got != "c1_1_1" {
		t.Fatalf("a child's default call id = %q, want c1_1_1 (not the parent's call_T_I)", got)
	}
	for _, tc := range []struct{ script, want string }{
		{`{"turns":[{"text":"a"}],"children":[{"match":"","turns":[{"text":"b"}]}]}`, "children[1]: match is required"},
		{`{"turns":[{"text":"a"}],"children":[{"match":"X","turns":[{"text":"b"}]},{"match":"X","turns":[{"text":"c"}]}]}`, `match "X" is given twice`},
		{`{"turns":[{"text":"a"}],"children":[{"match":"X"}]}`, "no turns"},
		{`{"turns":[{"text":"a"}],"children":[{"match":"X","turns":[{"http_status":429}]}]}`, "http_status is not allowed in a child's turns"},
		{`{"turns":[{"text":"a"}],"children":[{"match":"X","turns":[{"tool_calls":[{"id":"a","name":"x","arguments":"{}"},{"id":"a","name":"y","arguments":"{}"}]}]}]}`, `duplicate id "a"`},
		{`{"turns":[{"text":"a"}],"children":[{"match":"X","turns":[{"text":"b","colour":1}]}]}`, `unknown field "colour"`},
	} {
		_, err := Parse([]byte(tc.script))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", tc.script, err, tc.want)
		}
	}
}

// TestServerRoutesChildren: the parent's and two children's requests,
// interleaved and in parallel, each get their own turns; a child's turn
// follows its conversation, and its stall plays once.
func TestServerRoutesChildren(t *testing.T) {
	srv := NewServer(mustParse(t, treeScript))
	var mu sync.Mutex
	var seen []string
	srv.OnTurn = func(r *http.Request, child string, turn int) {
		mu.Lock()
		seen = append(seen, child+"#"+string(rune('0'+turn)))
		mu.Unlock()
	}
	_, url := startWith(t, srv)

	if got := textOf(t, post(t, context.Background(), url, chatBody(t, "PARENT asks", 0)).Body); got != "[p1][p2]" {
		t.Fatalf("parent turn 1 = %q", got)
	}
	var wg sync.WaitGroup
	got := make([]string, 2)
	for i, user := range []string{"do the BETA-TASK now", "ALPHA-TASK: read a"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = textOf(t, post(t, context.Background(), url, chatBody(t, user, 0)).Body)
		}()
	}
	wg.Wait()
	if got[0] != "beta answer" || got[1] != "[c1_1_1]" {
		t.Fatalf("children's first turns = %q", got)
	}
	// Alpha's second turn stalls the first time (the agent is killed)...
	ctx, cancel := context.WithCancel(context.Background())
	resp := post(t, ctx, url, chatBody(t, "ALPHA-TASK: read a", 1))
	buf := make([]byte, 64)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	// ...and is played whole to the resumed child, which asks again.
	if got := textOf(t, post(t, context.Background(), url, chatBody(t, "ALPHA-TASK: read a", 1)).Body); got != "alpha answer" {
		t.Fatalf("alpha's resumed turn 2 = %q", got)
	}
	if got := textOf(t, post(t, context.Background(), url, chatBody(t, "PARENT asks", 1)).Body); got != "parent done" {
		t.Fatalf("parent turn 2 = %q (the children must not consume the parent's turns)", got)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	if u := srv.UnplayedChildren(); len(u) != 0 {
		t.Fatalf("unplayed children %v", u)
	}
	var reqs []string
	for _, r := range srv.Requests() {
		reqs = append(reqs, r.Child+"#"+string(rune('0'+r.Turn)))
	}
	if strings.Join(reqs[:1], ",") != "#1" || strings.Join(reqs[3:], ",") != "ALPHA-TASK#2,ALPHA-TASK#2,#2" {
		t.Fatalf("recorded requests %v", reqs)
	}
	mu.Lock()
	n := len(seen)
	mu.Unlock()
	if n != 6 {
		t.Fatalf("OnTurn saw %v, want one call per request", seen)
	}

	// A child asking past its turns is a mismatch; the parent's turns are untouched.
	textOf(t, post(t, context.Background(), url, chatBody(t, "BETA-TASK", 1)).Body)
	if err := srv.Err(); err == nil || !strings.Contains(err.Error(), `child "BETA-TASK"): script exhausted after 1 turns`) {
		t.Fatalf("err = %v", err)
	}
}

func TestServerUnplayedChildAndExpect(t *testing.T) {
	srv := NewServer(mustParse(t, treeScript))
	_, url := startWith(t, srv)
	// the expect of beta's turn is checked on beta's own request
	textOf(t, post(t, context.Background(), url, `{"model":"m","stream":true,"messages":[{"role":"user","content":"x BETA-TASK"}]}`).Body)
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	if u := srv.UnplayedChildren(); len(u) != 1 || u[0] != "ALPHA-TASK" {
		t.Fatalf("unplayed children = %v, want [ALPHA-TASK]", u)
	}
}

// TestScriptedRoutesChildren: the in-process player routes the same way,
// and a child's request does not move a following parent's cursor.
func TestScriptedRoutesChildren(t *testing.T) {
	p := NewScripted(mustParse(t, treeScript))
	p.FollowConversation = true
	ask := func(user string, answers int) string {
		req := &agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleUser, Content: user}}}
		for i := 0; i < answers; i++ {
			req.Messages = append(req.Messages, agent.Message{Role: agent.RoleAssistant, Content: "earlier"}, agent.Message{Role: agent.RoleUser, Content: "go on"})
		}
		st, err := p.Stream(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := recvAll(st)
		if err != nil && err != io.EOF {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, ev := range evs {
			if ev.Kind == agent.EvTextDelta {
				b.WriteString(ev.Text)
			}
			if ev.Kind == agent.EvToolCallStart {
				b.WriteString("[" + ev.ID + "]")
			}
		}
		return b.String()
	}
	if got := ask("BETA-TASK", 0); got != "beta answer" {
		t.Fatalf("beta = %q", got)
	}
	if got := ask("PARENT", 0); got != "[p1][p2]" {
		t.Fatalf("parent's first turn after a child's request = %q", got)
	}
	if got := ask("ALPHA-TASK", 0); got != "[c1_1_1]" {
		t.Fatalf("alpha = %q", got)
	}
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
}

// startWith serves srv (with its hooks set) for the test.
func startWith(t *testing.T, srv *Server) (*Server, string) {
	t.Helper()
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, hs.URL + "/v1"
}

// The first user message decides before later ones: a parent whose later
// message quotes a child's prompt stays the parent; a child whose prompt
// moved after a summary is still found.
func TestChildOfPrefersFirstUserMessage(t *testing.T) {
	cs := []Child{{Match: "ALPHA"}, {Match: "BETA"}}
	for _, c := range []struct {
		users []string
		want  int
	}{
		{[]string{"do BETA", "then ALPHA"}, 1},
		{[]string{"summary of earlier rounds", "ALPHA: the task"}, 0},
		{[]string{"the parent's prompt"}, -1},
		{nil, -1},
	} {
		var msgs []convMsg
		for _, u := range c.users {
			msgs = append(msgs, convMsg{Role: "system", Content: "ALPHA in a system message does not count"}, convMsg{Role: "user", Content: u})
		}
		if got := childOf(cs, msgs); got != c.want {
			t.Errorf("childOf(%q) = %d, want %d", c.users, got, c.want)
		}
	}
}
