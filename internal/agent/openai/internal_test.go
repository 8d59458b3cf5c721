package openai

import (
	"reflect"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"agent/internal/agent"
)

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
