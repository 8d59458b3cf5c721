package event

import (
	"encoding/json"
	"strings"
	"testing"
)

// run_finished carries "failure" for a diagnosed run and omits it
// otherwise; it survives the journal's round trip.
func TestRunFinishedFailureJSON(t *testing.T) {
	ev := New("r", &RunFinishedData{Status: StatusFailed, Failure: &FailureInfo{Class: ClassTool, Seq: 12, Reason: "the same edit 3 times"}})
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"failure":{"class":"tool","seq":12,"reason":"the same edit 3 times"}`) {
		t.Errorf("run_finished = %s", b)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if f := back.Data.(*RunFinishedData).Failure; f == nil || *f != (FailureInfo{ClassTool, 12, "the same edit 3 times"}) {
		t.Errorf("decoded failure = %+v", f)
	}
	b, _ = json.Marshal(New("r", &RunFinishedData{Status: StatusCompleted}))
	if strings.Contains(string(b), "failure") {
		t.Errorf("a completed run_finished has a failure field: %s", b)
	}
}
