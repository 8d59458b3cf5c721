package evals

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const childTurns = `{"turns": [{"text": "done"}],
 "children": [{"match": "KID-TASK", "turns": [{"text": "a"}, {"text": "b"}]}]}`

func writeChildTask(t *testing.T, toml string) string {
	t.Helper()
	dir := writeTask(t, toml)
	if err := os.WriteFile(filepath.Join(dir, "turns.json"), []byte(childTurns), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoadTaskChildren(t *testing.T) {
	task, err := LoadTask(writeChildTask(t, `prompt = "p"
[[faults]]
kind = "sigkill"
at = "stream"
child = "KID-TASK"
turn = 2
[expect]
trace = [{ assert = "subagents_completed", n = 1 }, { assert = "subagents_parallel", n = 1 }]
`), "x")
	if err != nil {
		t.Fatal(err)
	}
	if f := task.Faults[0]; f.Child != "KID-TASK" || f.Turn != 2 {
		t.Fatalf("fault = %+v", f)
	}
	s, stalled := prepareScript(task)
	if stalled[0] != 2 || s.Children[0].Turns[1].StallAfterChunks == nil || len(s.Turns) != 1 {
		t.Fatalf("a child's stream fault stalls its turn 2 in place: stalled %v, parent turns %d", stalled, len(s.Turns))
	}
	if task.Script.Children[0].Turns[1].StallAfterChunks != nil {
		t.Fatal("prepareScript changed the task's own script")
	}
	for _, c := range []struct{ toml, want string }{
		{`prompt = "do the KID-TASK yourself"`, `the child match "KID-TASK" is in the task's own prompt`},
		{"prompt = \"p\"\n[[actions]]\nkind = \"message\"\ntext = \"now KID-TASK\"", `the child match "KID-TASK" is in the task's own prompt or message`},
		{"prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"stream\"\nchild = \"NOPE\"\nturn = 1", `child = "NOPE" is not the match of a child`},
		{"prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"stream\"\nchild = \"KID-TASK\"\nturn = 3", `the child "KID-TASK" has 2 turns`},
		{"prompt = \"p\"\n[[faults]]\nkind = \"sigkill\"\nat = \"tool_call\"\nchild = \"KID-TASK\"", `turn and child go with at = "stream" only`},
		{"prompt = \"p\"\n[expect]\ntrace = [{ assert = \"subagents_parallel\", n = 2 }]", "subagents_parallel n = 2, but turns.json scripts 1 children"},
		{"prompt = \"p\"\n[expect]\ntrace = [{ assert = \"subagents_completed\" }]", "subagents_completed needs n"},
	} {
		_, err := LoadTask(writeChildTask(t, c.toml), "x")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.toml, err, c.want)
		}
	}
}

func reqCtx(ctx context.Context) *http.Request {
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://x/v1/chat/completions", nil)
	return r
}

// The barrier releases the children's first requests only when n are in
// flight; a child's later turns and the parent's requests pass.
func TestBarrier(t *testing.T) {
	b := newBarrier(2)
	b.wait = 20 * time.Second
	done := make(chan struct{})
	go func() {
		b.onTurn(reqCtx(context.Background()), "A", 1)
		close(done)
	}()
	b.onTurn(reqCtx(context.Background()), "", 1) // the parent's: not held
	select {
	case <-done:
		t.Fatal("the first child's request was released before the second arrived")
	case <-time.After(50 * time.Millisecond): // proves a negative: nothing released it yet
	}
	b.onTurn(reqCtx(context.Background()), "B", 1)
	<-done
	if msg := b.result(); msg != "" {
		t.Fatal(msg)
	}
	b.onTurn(reqCtx(context.Background()), "A", 1) // a resumed child's first request again
	b.onTurn(reqCtx(context.Background()), "A", 2)
}

// Children one after the other never meet: the first waits out the bound
// and the assertion says so.
func TestBarrierSequential(t *testing.T) {
	b := newBarrier(2)
	b.wait = 10 * time.Millisecond
	b.onTurn(reqCtx(context.Background()), "A", 1)
	b.onTurn(reqCtx(context.Background()), "B", 1) // arrives after A was let go: too late
	if msg := b.result(); !strings.Contains(msg, "at most 1 of 2 subagents' first requests were in flight at once (each was held up to 10ms for the others; first requests came from: A, B)") {
		t.Fatalf("result = %q", msg)
	}
	// a request whose client went away is not held
	b2 := newBarrier(3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); b2.onTurn(reqCtx(ctx), "A", 1) }()
	wg.Wait()
}
