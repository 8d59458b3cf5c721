package event

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// On the wire an event is one flat object: the header beside the payload's
// fields, as the contract's event stream lists them; it reads back the same.
func TestEventJSONIsFlatAndRoundTrips(t *testing.T) {
	ev := Event{Type: ToolResult, RunID: "r1", Seq: 7, Time: time.Date(2026, 11, 29, 1, 2, 3, 0, time.UTC),
		Data: &ToolResultData{CallID: "c1", Status: ResultOK, Output: "hi"}}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var flat map[string]any
	if err := json.Unmarshal(b, &flat); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "tool_result", "run_id": "r1", "seq": 7.0, "time": "2026-11-29T01:02:03Z",
		"call_id": "c1", "status": "ok", "output": "hi"}
	if !reflect.DeepEqual(flat, want) {
		t.Errorf("wire form = %v\nwant %v", flat, want)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Data, ev.Data) || back.Seq != 7 || back.Type != ToolResult {
		t.Errorf("round trip = %+v", back)
	}
	if err := json.Unmarshal([]byte(`{"type":"nope","seq":1}`), &back); err == nil {
		t.Error("an unknown type decoded without error")
	}
}
