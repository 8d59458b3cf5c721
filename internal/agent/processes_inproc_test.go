package agent

import (
	"context"
	"testing"

	"agent/internal/event"
)

type countingProcesses struct{ calls int }

func (c *countingProcesses) End(context.Context, string, []event.CommandStartedData) []event.ProcessReport {
	c.calls++
	return nil
}

// A run whose commands all ran in-process (journaled with pid 0) cannot
// have left a process: the scan for them is skipped; one real command
// brings it back.
func TestEndProcessesSkipsInProcessCommands(t *testing.T) {
	p := &countingProcesses{}
	r := &Runner{Processes: p}
	st := &State{RunID: "r", Commands: []event.CommandStartedData{{CallID: "a"}, {CallID: "b"}}}
	r.endProcesses(context.Background(), st)
	if p.calls != 0 {
		t.Fatalf("processes scanned %d times for in-process commands only", p.calls)
	}
	st.Commands = append(st.Commands, event.CommandStartedData{CallID: "c", PID: 42, PGID: 42})
	r.endProcesses(context.Background(), st)
	if p.calls != 1 {
		t.Fatalf("processes scanned %d times with a real command; want 1", p.calls)
	}
}
