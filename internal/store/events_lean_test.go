package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"agent/internal/event"
)

// EventsForReopen is Events with the context report of every model_request
// but the last left out; everything else, the last report included, is
// what Events decodes. Two runs in one journal: the other run's last
// request does not count as this one's.
func TestEventsForReopenKeepsAllButOldReports(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	usd := 0.25
	report := func(step int) event.ContextReport {
		return event.ContextReport{Budget: 1000, TotalTokens: 10 * step, Layers: []event.ContextLayer{{Name: "history", Tokens: step,
			Items: step, Entries: []event.ContextItem{{Kind: "messages", Count: step, Tokens: step}}}}}
	}
	for _, id := range []string{"20260101T000000-aaaaaa", "20260101T000001-bbbbbb"} {
		if err := st.CreateRun(ctx, Run{ID: id, Workspace: "/ws", Model: "m", Approval: "ask", Prompt: "p"}); err != nil {
			t.Fatal(err)
		}
		evs := []event.Payload{&event.RunStartedData{Workspace: "/ws", Model: "m", Approval: "ask"}, &event.UserMessageData{Text: "p"}}
		for step := 1; step <= 4; step++ {
			evs = append(evs, &event.ModelRequestData{Step: step, Context: report(step), Model: fmt.Sprintf("m%d", step),
				Spent: &event.Spent{Tokens: int64(100 * step), USD: &usd}},
				&event.AssistantMessageData{Step: step, Text: "step \"" + strings.Repeat("}", step) + "\""})
		}
		if id == "20260101T000000-aaaaaa" {
			evs = append(evs, &event.RunFinishedData{Status: event.StatusCompleted, Steps: 4, Answer: "done"})
		}
		for _, d := range evs {
			e := event.New(id, d)
			if err := st.Append(ctx, &e); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, id := range []string{"20260101T000000-aaaaaa", "20260101T000001-bbbbbb"} {
		whole, err := st.Events(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		lean, err := st.EventsForReopen(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(lean) != len(whole) {
			t.Fatalf("%s: %d events for reopening, %d in the journal", id, len(lean), len(whole))
		}
		last := int64(0)
		for _, ev := range whole {
			if ev.Type == event.ModelRequest {
				last = ev.Seq
			}
		}
		stripped := 0
		for i, ev := range whole {
			want := ev
			if d, ok := ev.Data.(*event.ModelRequestData); ok && ev.Seq != last {
				c := *d
				c.Context = event.ContextReport{}
				want.Data = &c
				stripped++
			}
			if !reflect.DeepEqual(lean[i], want) {
				t.Errorf("%s: event %d for reopening = %+v, want %+v", id, ev.Seq, lean[i].Data, want.Data)
			}
		}
		if stripped != 3 {
			t.Errorf("%s: %d reports left out, want 3 (every request but the last)", id, stripped)
		}
	}
}

// dropKey removes exactly one top-level member, wherever it is, whatever
// its value holds (strings with braces, quotes and escapes, nesting), and
// leaves objects without it alone.
func TestDropKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := []any{1, -2.5e3, "x}", `a"b\c{[`, true, nil, []any{1, "]", map[string]any{"context": 1}},
		map[string]any{"k": []any{}, "context": map[string]any{"deep": "}}}"}}}
	for n := 0; n < 2000; n++ {
		m := map[string]any{}
		for k := 0; k < rng.IntN(5); k++ {
			m[fmt.Sprintf("k%d", rng.IntN(9))] = vals[rng.IntN(len(vals))]
		}
		if rng.IntN(3) > 0 {
			m["context"] = vals[rng.IntN(len(vals))]
		}
		var raw []byte
		if rng.IntN(2) == 0 {
			raw, _ = json.Marshal(m)
		} else {
			raw, _ = json.MarshalIndent(m, " ", "  ")
		}
		got, ok := dropKey(raw, "context")
		if !ok {
			t.Fatalf("dropKey(%s) failed", raw)
		}
		var back map[string]any
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("dropKey(%s) = %s: not JSON: %v", raw, got, err)
		}
		delete(m, "context")
		want, _ := json.Marshal(m)
		have, _ := json.Marshal(back)
		if string(want) != string(have) {
			t.Fatalf("dropKey(%s) = %s, want %s", raw, have, want)
		}
	}
	for _, bad := range []string{``, `[1]`, `{"a":`, `{"a" 1}`, `{"context":"unterminated}`, `{"a":1 "b":2}`} {
		if _, ok := dropKey([]byte(bad), "context"); ok {
			t.Errorf("dropKey(%q) ok, want not ok", bad)
		}
	}
}
