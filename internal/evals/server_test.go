package evals

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"agent/internal/replay"
)

func scriptTask(t *testing.T, quirks []Quirk, faults []Fault) *Task {
	t.Helper()
	s, err := replay.Parse([]byte(`{"turns": [
	  {"text": "one", "tool_calls": [{"id": "call_1", "name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}]},
	  {"text": "two"},
	  {"text": "three"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	return &Task{Script: s, Server: Server{Quirks: quirks}, Faults: faults}
}

// A stream fault at turn K puts a stalling copy of turn K before it, so the
// resumed run gets turn K as written; the task's own script is not changed.
func TestPrepareScriptStreamFault(t *testing.T) {
	task := scriptTask(t, nil, []Fault{{Kind: FaultSIGKILL, At: "tool_call", N: 1}, {Kind: FaultSIGKILL, At: AtStream, Turn: 2}, {Kind: FaultSIGKILL, At: AtStream, Turn: 3}})
	s, stalled := prepareScript(task)
	var texts []string
	for _, tu := range s.Turns {
		mark := ""
		if tu.StallAfterChunks != nil {
			mark = "(stall)"
		}
		texts = append(texts, tu.Text+mark)
	}
	if got := strings.Join(texts, " "); got != "one two(stall) two three(stall) three" {
		t.Errorf("played turns = %s", got)
	}
	if stalled[1] != 2 || stalled[2] != 4 || len(stalled) != 2 {
		t.Errorf("stalled turns = %v, want fault 1 at turn 2, fault 2 at turn 4", stalled)
	}
	if len(task.Script.Turns) != 3 || task.Script.Turns[1].StallAfterChunks != nil {
		t.Error("prepareScript changed the task's own script")
	}
}

// readStream posts one streaming request and returns the decoded chunks.
func readStream(t *testing.T, url string) []map[string]any {
	t.Helper()
	body := `{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}`
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var chunks []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("bad chunk %q: %v", data, err)
		}
		chunks = append(chunks, c)
	}
	return chunks
}

// The dialect quirks go out on the wire: tool-call chunks without ids or
// indexes, finish_reason stop with tool calls, each call in one chunk.
func TestServerQuirksOnTheWire(t *testing.T) {
	for _, c := range []struct {
		quirks          []Quirk
		id, index, stop bool
	}{
		{nil, true, true, false},
		{[]Quirk{QuirkNoID, QuirkNoIndex, QuirkFinishStop, QuirkOneChunk}, false, false, true},
		{[]Quirk{QuirkNoIndex}, true, false, false},
	} {
		task := scriptTask(t, c.quirks, nil)
		s, _ := prepareScript(task)
		srv, err := startServer(task, s, nil)
		if err != nil {
			t.Fatal(err)
		}
		var sawID, sawIndex, sawStop bool
		argChunks := 0
		for _, ch := range readStream(t, srv.url) {
			for _, choice := range ch["choices"].([]any) {
				choice := choice.(map[string]any)
				if choice["finish_reason"] == "stop" {
					sawStop = true
				}
				delta, _ := choice["delta"].(map[string]any)
				calls, _ := delta["tool_calls"].([]any)
				for _, call := range calls {
					call := call.(map[string]any)
					_, hasID := call["id"]
					_, hasIndex := call["index"]
					sawID, sawIndex = sawID || hasID, sawIndex || hasIndex
					if fn, ok := call["function"].(map[string]any); ok && fn["arguments"] != "" {
						argChunks++
					}
				}
			}
		}
		srv.close()
		if sawID != c.id || sawIndex != c.index || sawStop != c.stop {
			t.Errorf("quirks %v: id %v index %v stop %v, want %v %v %v", c.quirks, sawID, sawIndex, sawStop, c.id, c.index, c.stop)
		}
		if len(c.quirks) > 1 && argChunks != 1 {
			t.Errorf("one-chunk: the arguments came in %d chunks", argChunks)
		}
		if m := srv.mismatches(); len(m) > 0 {
			t.Errorf("mismatches: %v", m)
		}
	}
}
