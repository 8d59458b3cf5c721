package openai

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"agent/internal/agent"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"none", nil, 0, false},
		{"zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"seconds", map[string]string{"Retry-After": "12"}, 12 * time.Second, true},
		{"fraction", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{"cap", map[string]string{"Retry-After": "86400"}, maxRetryAfter, true},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"date", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second, true},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"ms wins", map[string]string{"Retry-After-Ms": "40", "Retry-After": "5"}, 40 * time.Millisecond, true},
		{"bad ms falls back", map[string]string{"Retry-After-Ms": "x", "Retry-After": "5"}, 5 * time.Second, true},
		{"garbage", map[string]string{"Retry-After": "later"}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := parseRetryAfter(h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %v %v, want %v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	base := 100 * time.Millisecond
	for attempt := 0; attempt < 12; attempt++ {
		full := min(base<<attempt, maxBackoff)
		for i := 0; i < 50; i++ {
			d := backoff(base, attempt)
			if d < full/2 || d > full {
				t.Fatalf("attempt %d: %v outside [%v, %v]", attempt, d, full/2, full)
			}
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST.": true, "app.localhost": true, "127.0.0.1": true, "127.9.9.9": true,
		"::1": true, "[::1]": true, "0.0.0.0": false, "10.0.0.1": false, "api.openai.com": false,
		"localhost.example.com": false, "": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func chunk(deltas ...goopenai.ToolCall) goopenai.ChatCompletionStreamResponse {
	return goopenai.ChatCompletionStreamResponse{Choices: []goopenai.ChatCompletionStreamChoice{
		{Delta: goopenai.ChatCompletionStreamChoiceDelta{ToolCalls: deltas}}}}
}

func tc(index *int, id, name, args string) goopenai.ToolCall {
	return goopenai.ToolCall{Index: index, ID: id, Function: goopenai.FunctionCall{Name: name, Arguments: args}}
}

func TestToolCallAssemblyEdgeCases(t *testing.T) {
	one := 1
	s := newStream(&Provider{}, nil, nil, nil, nil, nil, nil)
	// A server without indexes: a new id starts a new call, fragments follow the last one.
	s.handle(chunk(tc(nil, "a", "read_file", `{"pa`)))
	s.handle(chunk(tc(nil, "", "", `th":1}`)))
	s.handle(chunk(tc(nil, "b", "glob", "")))
	s.handle(chunk(tc(nil, "", "", `{}`)))
	// Arguments before the name are held back until it arrives; an id-less call gets one.
	s.handle(chunk(tc(&one, "", "", `{"x"`)))
	s.handle(goopenai.ChatCompletionStreamResponse{Choices: []goopenai.ChatCompletionStreamChoice{
		{Delta: goopenai.ChatCompletionStreamChoiceDelta{Content: "hi"}, FinishReason: goopenai.FinishReasonToolCalls},
		{Index: 1, Delta: goopenai.ChatCompletionStreamChoiceDelta{Content: "other choice"}},
	}})
	var got []string
	for _, ev := range s.queue {
		got = append(got, evString(ev))
	}
	want := []string{
		"start 0 a read_file", `delta 0 {"pa`, `delta 0 th":1}`,
		"start 1 b glob", "delta 1 {}", `delta 1 {"x"`,
		"text hi", "end 0", "end 1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}

	// Name arriving late, id missing entirely: synthesised at the start.
	s = newStream(&Provider{}, nil, nil, nil, nil, nil, nil)
	zero := 0
	s.handle(chunk(tc(&zero, "", "", `{"q":`)))
	s.handle(chunk(tc(&zero, "", "grep", `1}`)))
	s.closeCalls()
	if len(s.queue) != 4 || s.queue[0].Kind != agent.EvToolCallStart || !strings.HasPrefix(s.queue[0].ID, "call_") ||
		s.queue[1].Text != `{"q":` || s.queue[2].Text != "1}" || s.queue[3].Kind != agent.EvToolCallEnd {
		t.Errorf("late name: %+v", s.queue)
	}
}

func evString(ev agent.StreamEvent) string {
	switch ev.Kind {
	case agent.EvTextDelta:
		return "text " + ev.Text
	case agent.EvToolCallStart:
		return "start " + itoa(ev.Index) + " " + ev.ID + " " + ev.Name
	case agent.EvToolCallDelta:
		return "delta " + itoa(ev.Index) + " " + ev.Text
	case agent.EvToolCallEnd:
		return "end " + itoa(ev.Index)
	}
	return "other"
}

func itoa(i int) string { return string(rune('0' + i)) }
