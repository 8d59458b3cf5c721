package evals

// Delegation tasks: a task whose run starts subagents (task calls) scripts
// each child in turns.json "children" (internal/replay, children.go), keyed
// by a substring of its task prompt. This file checks those keys, holds the
// children's first requests for subagents_parallel, and reads the
// children's journals for the assertions that look into them.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"agent/internal/event"
)

// parallelWait bounds how long subagents_parallel holds a child's first
// request while it waits for the others'.
const parallelWait = 30 * time.Second

// childFault checks a stream fault's child and turn against turns.json.
func childFault(t *Task, at, child string, turn int) error {
	if t.Script == nil {
		return nil
	}
	for _, c := range t.Script.Children {
		if c.Match == child {
			if turn > len(c.Turns) {
				return fmt.Errorf("%s: turn = %d, but the child %q has %d turns in turns.json", at, turn, child, len(c.Turns))
			}
			return nil
		}
	}
	return fmt.Errorf(`%s: child = %q is not the match of a child in turns.json "children"`, at, child)
}

// checkChildren refuses a child key the parent's own messages hold: the
// parent's requests would be answered from the child's turns.
func checkChildren(t *Task) error {
	if t.Script == nil {
		return nil
	}
	texts := []string{t.Prompt}
	for _, a := range t.Actions {
		if a.Kind == ActionMessage {
			texts = append(texts, a.Text)
		}
	}
	for _, c := range t.Script.Children {
		for _, s := range texts {
			if strings.Contains(s, c.Match) {
				return fmt.Errorf("turns.json: the child match %q is in the task's own prompt or message %q: "+
					"pick a part of the child's task prompt that the parent's messages do not contain", c.Match, oneLine(s, 80))
			}
		}
	}
	for _, a := range t.Expect.Trace {
		if a.Assert == AssertSubagentsParallel && a.N > len(t.Script.Children) {
			return fmt.Errorf("expect.trace: subagents_parallel n = %d, but turns.json scripts %d children", a.N, len(t.Script.Children))
		}
	}
	return nil
}

// barrier holds the first request of each child until n children have
// sent theirs (subagents_parallel): children that run one after the other
// never get there, and the first is released after parallelWait.
type barrier struct {
	n       int
	wait    time.Duration // how long a first request is held
	mu      sync.Mutex
	arrived []string // the children whose first request came, in order
	held    int      // first requests held now
	most    int      // the most held at once
	broken  bool     // a first request waited out the bound: the others are not held
	met     chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, wait: parallelWait, met: make(chan struct{})} }

// onTurn is the replay Server's OnTurn: it holds a child's first turn.
func (b *barrier) onTurn(r *http.Request, child string, turn int) {
	if child == "" || turn != 1 {
		return
	}
	b.mu.Lock()
	if slices.Contains(b.arrived, child) { // a resumed child's first request again
		b.mu.Unlock()
		return
	}
	b.arrived = append(b.arrived, child)
	select {
	case <-b.met: // met before: nothing to wait for
		b.mu.Unlock()
		return
	default:
	}
	if b.broken {
		b.mu.Unlock()
		return
	}
	b.held++
	b.most = max(b.most, b.held)
	if b.held == b.n {
		close(b.met)
	}
	b.mu.Unlock()
	t := time.NewTimer(b.wait)
	defer t.Stop()
	select {
	case <-b.met:
		return
	case <-r.Context().Done():
	case <-t.C:
		b.mu.Lock()
		b.broken = true
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.held--
	b.mu.Unlock()
}

// result is "" when n children's first requests were in flight at once.
func (b *barrier) result() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.met:
		return ""
	default:
	}
	return fmt.Sprintf("at most %d of %d subagents' first requests were in flight at once (each was held up to %s for the others; "+
		"first requests came from: %s): the subagents did not run in parallel", b.most, b.n, b.wait, orNone(strings.Join(b.arrived, ", ")))
}

// child is one subagent of the run, as its parent's journal names it.
type child struct {
	call, run string
	starts    int // task_started events of its call
	evs       []traceEvent
	err       error
}

// children reads the journal of every child the run's task_started events
// name, once.
func (x *taskRun) children(ctx context.Context, evs []traceEvent) []*child {
	if x.kids != nil {
		return x.kids
	}
	x.kids = []*child{}
	byCall := map[string]*child{}
	for _, e := range evs {
		if e.Type != event.TaskStarted {
			continue
		}
		c := byCall[e.CallID]
		if c == nil {
			c = &child{call: e.CallID, run: e.ChildRun}
			byCall[e.CallID] = c
			x.kids = append(x.kids, c)
		}
		c.starts++
		if e.ChildRun != c.run {
			c.err = fmt.Errorf("task call %s names two child runs, %s and %s", e.CallID, c.run, e.ChildRun)
		}
	}
	for _, c := range x.kids {
		out, err := x.agent(ctx, "trace", c.run, "--json")
		if err == nil {
			err = json.Unmarshal(out, &c.evs)
		}
		if err != nil && c.err == nil {
			c.err = fmt.Errorf("read the journal of child run %s: %w", c.run, err)
		}
	}
	return x.kids
}

// subagentsCompleted checks that the run started n children, each once,
// each linked to the run and completed; "" when it holds.
func (x *taskRun) subagentsCompleted(ctx context.Context, evs []traceEvent, n int) string {
	kids := x.children(ctx, evs)
	if len(kids) != n {
		return fmt.Sprintf("the run started %d subagent(s) (task_started), want %d", len(kids), n)
	}
	for _, c := range kids {
		if c.err != nil {
			return c.err.Error()
		}
		if c.starts > 1 {
			return fmt.Sprintf("task call %s was started %d times", c.call, c.starts)
		}
		starts := 0
		for _, e := range c.evs {
			if e.Type == event.RunStarted {
				starts++
				if e.ParentRun != x.runID || e.ParentCall != c.call {
					return fmt.Sprintf("child run %s names parent %s call %s, want %s call %s", c.run, orNone(e.ParentRun), orNone(e.ParentCall), x.runID, c.call)
				}
			}
		}
		if starts != 1 {
			return fmt.Sprintf("child run %s (call %s) has %d run_started events, want 1", c.run, c.call, starts)
		}
		if o := outcomeOf(c.evs); o.status != event.StatusCompleted {
			why := ""
			if o.reason != "" {
				why = " (" + oneLine(o.reason, 160) + ")"
			}
			return fmt.Sprintf("child run %s (call %s) ended %s, want completed%s", c.run, c.call, orNone(string(o.status)), why)
		}
	}
	return ""
}

// callJournal is the journal that holds call: the run's own, else the
// child's whose conversation has it (call ids are unique across a tree).
func (x *taskRun) callJournal(ctx context.Context, evs []traceEvent, call string) []traceEvent {
	if hasCall(evs, call) {
		return evs
	}
	for _, c := range x.children(ctx, evs) {
		if hasCall(c.evs, call) {
			return c.evs
		}
	}
	return evs
}
