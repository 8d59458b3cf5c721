package replay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func mustParse(t *testing.T, s string) *Script {
	t.Helper()
	sc, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func post(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

const userReq = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`

// sseData returns the data payloads of an SSE body, checking the framing.
func sseData(t *testing.T, r io.Reader) []string {
	t.Helper()
	raw, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range strings.Split(strings.TrimSuffix(string(raw), "\n\n"), "\n\n") {
		if !strings.HasPrefix(ev, "data: ") || strings.Contains(ev, "\n") {
			t.Fatalf("bad SSE event %q", ev)
		}
		out = append(out, strings.TrimPrefix(ev, "data: "))
	}
	return out
}

func TestServerStreamsLikeOpenAI(t *testing.T) {
	srv, url := Start(t, mustParse(t, `{"turns":[{"text":"Hello there","chunk_size":6,
		"tool_calls":[{"id":"call_a","name":"read_file","arguments":"{\"path\":\"x\"}"},{"id":"call_b","name":"glob","arguments":"{}"}],
		"usage":{"input":11,"output":7}}]}`))
	resp := post(t, context.Background(), url, userReq)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content-type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	data := sseData(t, resp.Body)
	if data[len(data)-1] != "[DONE]" {
		t.Fatalf("last event %q, want [DONE]", data[len(data)-1])
	}
	want := []string{
		`{"id":"chatcmpl-replay-1","object":"chat.completion.chunk","created":0,"model":"m","system_fingerprint":null,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`"delta":{"content":"Hello "}`,
		`"delta":{"content":"there"}`,
		`"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}`,
		`"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path"}}]}`,
		`"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\":\"x\"}"}}]}`,
		`"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"glob","arguments":""}}]}`,
		`"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}`,
		`"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}`,
		`"choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`,
		`[DONE]`,
	}
	if len(data) != len(want) {
		t.Fatalf("got %d events, want %d:\n%s", len(data), len(want), strings.Join(data, "\n"))
	}
	for i, w := range want {
		got := data[i]
		if i == 0 { // normalise the timestamp
			var m map[string]any
			_ = json.Unmarshal([]byte(got), &m)
			got = strings.Replace(got, `"created":`+jsonNum(m["created"]), `"created":0`, 1)
		}
		if !strings.Contains(got, w) {
			t.Errorf("event %d = %s\nwant it to contain %s", i, got, w)
		}
	}
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Request == nil || reqs[0].Request.Messages[0].Content != "hi" || reqs[0].Turn != 1 || string(reqs[0].Body) != userReq {
		t.Errorf("recorded %+v", reqs)
	}
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestServerNoUsageWithoutStreamOptions(t *testing.T) {
	_, url := Start(t, mustParse(t, `{"turns":[{"text":"hi"}]}`))
	resp := post(t, context.Background(), url, `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`)
	for _, d := range sseData(t, resp.Body) {
		if strings.Contains(d, `"usage"`) {
			t.Errorf("usage sent without include_usage: %s", d)
		}
	}
}

func TestServerNonStreaming(t *testing.T) {
	_, url := Start(t, mustParse(t, `{"turns":[{"tool_calls":[{"id":"c","name":"glob","arguments":"{\"pattern\":\"*\"}"}],"usage":{"input":2,"output":3}}]}`))
	resp := post(t, context.Background(), url, `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x"}]}]}`)
	var got completionJSON
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	c := got.Choices[0]
	if got.Object != "chat.completion" || c.FinishReason != "tool_calls" || c.Message.Content != nil ||
		c.Message.ToolCalls[0].Function.Arguments != `{"pattern":"*"}` || got.Usage.TotalTokens != 5 {
		t.Errorf("response %+v", got)
	}
}

func TestServerFaultsAndExhaustion(t *testing.T) {
	srv, url := Start(t, mustParse(t, `{"turns":[{"http_status":429,"retry_after":"2","error":"slow down"},{"http_status":503},{"text":"ok"}]}`))
	var seen []int
	srv.OnRequest = func(n int) { seen = append(seen, n) }
	resp := post(t, context.Background(), url, userReq)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || !strings.Contains(string(body), `"message":"slow down"`) ||
		!strings.Contains(string(body), `"code":"rate_limit_exceeded"`) {
		t.Errorf("429: status %d, retry-after %q, body %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if resp := post(t, context.Background(), url, userReq); resp.StatusCode != 503 {
		t.Errorf("second: status %d", resp.StatusCode)
	}
	if d := sseData(t, post(t, context.Background(), url, userReq).Body); !strings.Contains(d[1], `"content":"ok"`) {
		t.Errorf("third: %v", d)
	}
	if srv.Err() != nil || srv.Remaining() != 0 {
		t.Errorf("err %v, remaining %d", srv.Err(), srv.Remaining())
	}
	d := sseData(t, post(t, context.Background(), url, userReq).Body)
	if !strings.Contains(strings.Join(d, ""), `"content":"exhaust"`) {
		t.Errorf("exhausted: %v", d)
	}
	if err := srv.Err(); err == nil || !strings.Contains(err.Error(), "request 4: script exhausted") {
		t.Errorf("err = %v", err)
	}
	if len(seen) != 4 || seen[3] != 4 {
		t.Errorf("OnRequest saw %v", seen)
	}
}

func TestServerRejectsBadConversations(t *testing.T) {
	srv, url := Start(t, mustParse(t, `{"turns":[{"text":"ok"}]}`))
	bad := `{"model":"m","stream":true,"messages":[{"role":"user","content":"x"},{"role":"tool","tool_call_id":"nope","content":"r"}]}`
	resp := post(t, context.Background(), url, bad)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "preceeding message with 'tool_calls'") {
		t.Errorf("status %d body %s", resp.StatusCode, body)
	}
	if resp := post(t, context.Background(), url, `{not json`); resp.StatusCode != 400 {
		t.Errorf("bad json: status %d", resp.StatusCode)
	}
	if srv.Remaining() != 1 || len(srv.Mismatches()) != 2 {
		t.Errorf("remaining %d, mismatches %q", srv.Remaining(), srv.Mismatches())
	}
	// lenient scripts accept it
	_, url2 := Start(t, mustParse(t, `{"lenient":true,"turns":[{"text":"ok"}]}`))
	if resp := post(t, context.Background(), url2, bad); resp.StatusCode != 200 {
		t.Errorf("lenient: status %d", resp.StatusCode)
	}
}

func TestServerExpect(t *testing.T) {
	srv, url := Start(t, mustParse(t, `{"turns":[{"text":"a","expect":{"tool_result_contains":"PASS","request_not_contains":["hunter2"]}}]}`))
	post(t, context.Background(), url, `{"model":"m","stream":true,"messages":[{"role":"user","content":"pw hunter2"},
		{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"x","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c","content":"FAIL"}]}`)
	ms := srv.Mismatches()
	if len(ms) != 2 || !strings.Contains(ms[0], `tool result containing "PASS"; got "FAIL"`) || !strings.Contains(ms[1], `"hunter2"`) {
		t.Errorf("mismatches %q", ms)
	}
}

func TestServerStallUntilClientLeaves(t *testing.T) {
	_, url := Start(t, mustParse(t, `{"turns":[{"text":"abcdefghijklmn","stall_after_chunks":2}]}`))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := post(t, ctx, url, userReq)
	br := bufio.NewReader(resp.Body)
	for i := 0; i < 2; i++ { // two chunks arrive, then nothing
		line, err := br.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "data: {") {
			t.Fatalf("chunk %d: %q %v", i, line, err)
		}
		_, _ = br.ReadString('\n')
	}
	done := make(chan error, 1)
	go func() { _, err := br.ReadString('\n'); done <- err }()
	cancel()
	if err := <-done; err == nil {
		t.Fatal("read after the stall succeeded")
	}
}

func TestServerDrop(t *testing.T) {
	_, url := Start(t, mustParse(t, `{"turns":[{"text":"abcdefghijklmn","drop_after_chunks":2}]}`))
	resp := post(t, context.Background(), url, userReq)
	_, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
}

func TestServerPathsAndMethods(t *testing.T) {
	srv, url := Start(t, mustParse(t, `{"turns":[{"text":"a"}]}`))
	base := strings.TrimSuffix(url, "/v1")
	for path, want := range map[string]int{"/v1/models": 404, "/v1/chat/completions": 405} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
	if resp := post(t, context.Background(), base, userReq); resp.StatusCode != 200 { // /chat/completions
		t.Errorf("POST /chat/completions: %d", resp.StatusCode)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("requests %d", len(srv.Requests()))
	}
}

func TestServerConcurrent(t *testing.T) {
	var turns []string
	for i := 0; i < 20; i++ {
		turns = append(turns, `{"text":"x"}`)
	}
	srv, url := Start(t, mustParse(t, `{"turns":[`+strings.Join(turns, ",")+`]}`))
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, url+"/chat/completions", strings.NewReader(userReq))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, r := range srv.Requests() {
		seen[r.Turn] = true
	}
	if len(seen) != 20 || srv.Err() != nil {
		t.Errorf("turns answered %v, err %v", seen, srv.Err())
	}
}

func TestListenAndServe(t *testing.T) {
	if err := ListenAndServe(context.Background(), "0.0.0.0:0", &Script{}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("non-loopback: err = %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, NewServer(mustParse(t, `{"turns":[{"text":"served"}]}`))) }()
	resp := post(t, context.Background(), "http://"+ln.Addr().String()+"/v1", userReq)
	if d := sseData(t, resp.Body); !strings.Contains(d[1], "served") {
		t.Errorf("got %v", d)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
