package histgen_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"agent/internal/agent"
	"agent/internal/contextbuild/histgen"
	"agent/internal/event"
	"agent/internal/tokens"
)

func generate(t testing.TB, seed int64, target int) *histgen.History {
	t.Helper()
	h, err := histgen.Generate(histgen.Options{Seed: seed, Tokens: target, Encoding: tokens.O200kBase})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func eventsJSON(t *testing.T, evs []event.Event) []byte {
	t.Helper()
	b, err := json.Marshal(evs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The same seed gives the same history byte for byte; another seed gives
// another one.
func TestDeterministic(t *testing.T) {
	a, b := generate(t, 42, 50_000), generate(t, 42, 50_000)
	if !bytes.Equal(eventsJSON(t, a.Events), eventsJSON(t, b.Events)) {
		t.Fatal("seed 42 gave two different event streams")
	}
	a.Events, b.Events = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("seed 42 gave two different histories:\n%+v\n%+v", a, b)
	}
	c := generate(t, 43, 50_000)
	d := generate(t, 42, 50_000)
	if bytes.Equal(eventsJSON(t, c.Events), eventsJSON(t, d.Events)) {
		t.Fatal("seeds 42 and 43 gave the same events")
	}
	if reflect.DeepEqual(c.Canaries, d.Canaries) || c.Fact == d.Fact {
		t.Errorf("seeds 42 and 43 planted the same canaries %v or fact %q", c.Canaries, c.Fact)
	}
}

// countState is the total the brief defines: every message's content and
// every tool call's arguments, counted with a fresh counter.
func countState(t *testing.T, st *agent.State, enc tokens.Encoding) int {
	t.Helper()
	tk, err := tokens.New(enc)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range st.Messages {
		n += tk.Count(m.Content)
		for _, c := range m.ToolCalls {
			n += tk.Count(c.Arguments)
		}
	}
	return n
}

// The folded conversation is within 10 % of the target, for both
// encodings, and the generator's own count agrees with a fresh count.
func TestTokenTotal(t *testing.T) {
	for _, tc := range []struct {
		target int
		seed   int64
		enc    tokens.Encoding
	}{
		{200_000, 1, tokens.O200kBase},
		{200_000, 7, tokens.O200kBase},
		{50_000, 1, tokens.O200kBase},
		{50_000, 9, tokens.O200kBase},
		{200_000, 3, tokens.Cl100kBase},
		{histgen.MinTokens, 5, tokens.O200kBase},
	} {
		t.Run(fmt.Sprintf("%d-%d-%v", tc.target, tc.seed, tc.enc), func(t *testing.T) {
			h, err := histgen.Generate(histgen.Options{Seed: tc.seed, Tokens: tc.target, Encoding: tc.enc})
			if err != nil {
				t.Fatal(err)
			}
			got := countState(t, agent.Fold(h.RunID, h.Events), tc.enc)
			if got != h.Tokens {
				t.Errorf("History.Tokens = %d, a fresh count of the folded state = %d", h.Tokens, got)
			}
			if lo, hi := tc.target*9/10, tc.target*11/10; got < lo || got > hi {
				t.Errorf("total %d tokens, want %d..%d", got, lo, hi)
			}
			t.Logf("%d tokens, %d events, %d steps", got, len(h.Events), lastStep(h.Events))
		})
	}
}

func lastStep(evs []event.Event) int {
	n := 0
	for _, ev := range evs {
		if d, ok := ev.Data.(*event.ModelRequestData); ok {
			n = d.Step
		}
	}
	return n
}

// The journal is well formed as the loop writes it: contiguous seqs, one
// run, increasing times, a model request before each assistant message
// with steps counting up, every call journaled once with exactly one
// result after it; Fold ends on the last message with nothing open.
func TestWellFormed(t *testing.T) {
	for _, target := range []int{200_000, 50_000} {
		h := generate(t, 11, target)
		evs := h.Events
		calls := map[string]int{}   // call id -> tool_call events
		results := map[string]int{} // call id -> tool_result events
		asked := map[string]bool{}  // ids of assistant tool calls
		step := 0
		for i, ev := range evs {
			if ev.Seq != int64(i+1) || ev.RunID != h.RunID {
				t.Fatalf("event %d: seq %d run %q", i, ev.Seq, ev.RunID)
			}
			if i > 0 && !ev.Time.After(evs[i-1].Time) {
				t.Fatalf("event %d: time %v not after %v", i, ev.Time, evs[i-1].Time)
			}
			switch d := ev.Data.(type) {
			case *event.ModelRequestData:
				if d.Step != step+1 {
					t.Fatalf("seq %d: model_request step %d after step %d", ev.Seq, d.Step, step)
				}
				step = d.Step
				if next, ok := evs[i+1].Data.(*event.AssistantMessageData); !ok || next.Step != step {
					t.Fatalf("seq %d: model_request not followed by the assistant message of its step", ev.Seq)
				}
			case *event.AssistantMessageData:
				for _, c := range d.ToolCalls {
					asked[c.ID] = true
				}
			case *event.ToolCallData:
				if !asked[d.CallID] {
					t.Fatalf("seq %d: tool_call %s that no assistant message asked for", ev.Seq, d.CallID)
				}
				calls[d.CallID]++
			case *event.ToolResultData:
				if calls[d.CallID] != 1 {
					t.Fatalf("seq %d: result of %s before its tool_call", ev.Seq, d.CallID)
				}
				results[d.CallID]++
			}
		}
		for id := range asked {
			if calls[id] != 1 || results[id] != 1 {
				t.Errorf("call %s: %d tool_call and %d tool_result events, want 1 and 1", id, calls[id], results[id])
			}
		}
		st := agent.Fold(h.RunID, evs)
		last := st.Messages[len(st.Messages)-1]
		if last.Role != agent.RoleUser || last.Content != h.LastMessage || h.LastMessage != "continue step 6" {
			t.Errorf("last message = %+v, LastMessage %q", last, h.LastMessage)
		}
		if d, ok := evs[len(evs)-1].Data.(*event.UserMessageData); !ok || d.Text != h.LastMessage {
			t.Errorf("the last event is %s, not the last message", evs[len(evs)-1].Type)
		}
		if len(st.Open) != 0 || st.Status != event.StatusRunning || st.ToolCalls != len(calls) {
			t.Errorf("folded: %d open calls, status %s, %d tool calls (journal has %d)", len(st.Open), st.Status, st.ToolCalls, len(calls))
		}
	}
}

// Every event survives the event package's JSON encoding unchanged, and
// the decoded journal folds into the same conversation.
func TestJSONRoundTrip(t *testing.T) {
	h := generate(t, 5, 50_000)
	var decoded []event.Event
	for _, ev := range h.Events {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatalf("seq %d: %v", ev.Seq, err)
		}
		var back event.Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("seq %d: %v", ev.Seq, err)
		}
		again, _ := json.Marshal(back)
		if !bytes.Equal(b, again) {
			t.Fatalf("seq %d changed in a round trip:\n%s\n%s", ev.Seq, b, again)
		}
		decoded = append(decoded, back)
	}
	a, b := agent.Fold(h.RunID, h.Events), agent.Fold(h.RunID, decoded)
	if !reflect.DeepEqual(a.Messages, b.Messages) {
		t.Error("the decoded journal folds into another conversation")
	}
}

// Options that cannot give a history are refused with the field to fix.
func TestOptionsErrors(t *testing.T) {
	for _, opt := range []histgen.Options{
		{Tokens: 0}, {Tokens: histgen.MinTokens - 1}, {Tokens: histgen.MaxTokens + 1},
		{Tokens: 50_000, Encoding: tokens.Encoding(99)},
	} {
		h, err := histgen.Generate(opt)
		if err == nil || h != nil || !strings.Contains(err.Error(), "Options.") {
			t.Errorf("Generate(%+v) = %v, %v; want an error naming the option", opt, h, err)
		}
	}
	if h, err := histgen.Generate(histgen.Options{Tokens: 40_000}); err != nil || h == nil {
		t.Errorf("a zero Encoding (the default) failed: %v", err)
	}
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

func BenchmarkGenerate200K(b *testing.B) {
	for i := range b.N {
		if _, err := histgen.Generate(histgen.Options{Seed: int64(i), Tokens: 200_000}); err != nil {
			b.Fatal(err)
		}
	}
}
