package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compactEvent is what a check reads of the trace's context events.
type compactEvent struct {
	Type         string `json:"type"`
	Seq          int64  `json:"seq"`
	Step         int    `json:"step"`
	Text         string `json:"text"`
	Trigger      string `json:"trigger"`
	Reason       string `json:"reason"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
	Context      struct {
		Compacted int64 `json:"compacted"`
	} `json:"context"`
}

// `agent resume ID --compact --message TEXT` journals a compaction with
// trigger "forced" (and the refresh after it) before the next model
// request, which reports it was the first after it; the trace and the
// context report say so in words.
func TestResumeCompact(t *testing.T) {
	var turns []map[string]any
	for i := 1; i <= 8; i++ {
		turns = append(turns, turn("", call(fmt.Sprintf("c%d", i), "read_file", map[string]any{"path": fmt.Sprintf("f%d.txt", i)})))
	}
	turns = append(turns, turn("read them"), turn("went on"))
	e := newEnv(t, script(turns...))
	for i := 1; i <= 8; i++ {
		var b strings.Builder
		for n := 1; n <= 100; n++ {
			fmt.Fprintf(&b, "file %d line %d\n", i, n)
		}
		if err := os.WriteFile(filepath.Join(e.ws, fmt.Sprintf("f%d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := e.run("run", "--approval", "read-only", "read the files")
	id := runID(t, r.stderr)
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	var before []compactEvent
	e.mustJSON(&before, "trace", id, "--json")
	for _, ev := range before {
		if ev.Type == "compaction" {
			t.Fatalf("the run compacted by itself in a 128,000-token window: %+v", ev)
		}
	}

	r = e.run("resume", id, "--compact", "--message", "go on")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "went on" {
		t.Fatalf("resume --compact: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "context compacted (forced):") {
		t.Errorf("the progress does not say the context was compacted:\n%s", r.stderr)
	}
	var evs []compactEvent
	e.mustJSON(&evs, "trace", id, "--json")
	var msg, comp, refresh, req int
	var compSeq int64
	for i, ev := range evs[len(before):] {
		switch {
		case ev.Type == "user_message" && ev.Text == "go on":
			msg = i + 1
		case ev.Type == "compaction" && comp == 0:
			comp, compSeq = i+1, ev.Seq
			if ev.Trigger != "forced" || ev.TokensAfter >= ev.TokensBefore {
				t.Errorf("compaction %+v, want trigger forced and fewer tokens after", ev)
			}
		case ev.Type == "context_refresh" && refresh == 0:
			refresh = i + 1
			if ev.Reason != "compaction" {
				t.Errorf("refresh reason %q, want compaction", ev.Reason)
			}
		case ev.Type == "model_request" && req == 0:
			req = i + 1
			if ev.Context.Compacted != compSeq || compSeq == 0 {
				t.Errorf("the request reports compacted %d, want %d", ev.Context.Compacted, compSeq)
			}
		}
	}
	if msg == 0 || comp == 0 || refresh == 0 || req == 0 || !(msg < comp && comp < refresh && refresh < req) {
		t.Fatalf("order after the resume: message %d, compaction %d, refresh %d, request %d", msg, comp, refresh, req)
	}

	tr := e.run("trace", id)
	if !strings.Contains(tr.stdout, "context compacted (forced):") || !strings.Contains(tr.stdout, "context refreshed (compaction): repo map") {
		t.Errorf("the trace does not show the compaction and the refresh:\n%s", tr.stdout)
	}
	ctx := e.run("context", id)
	for _, w := range []string{fmt.Sprintf("compacted before this request (seq %d: forced,", compSeq), "not sent verbatim:", "L6     summary and older rounds"} {
		if !strings.Contains(ctx.stdout, w) {
			t.Errorf("agent context lacks %q:\n%s", w, ctx.stdout)
		}
	}

	// --compact alone on a finished run compacts now and prints the answer.
	r = e.run("resume", id, "--compact")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "went on" || !strings.Contains(r.stderr, "context compacted (forced):") {
		t.Fatalf("resume --compact on a finished run: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	var after []compactEvent
	e.mustJSON(&after, "trace", id, "--json")
	if last := after[len(after)-2]; last.Type != "compaction" || last.Trigger != "forced" {
		t.Errorf("the run's last events: %+v %+v, want a forced compaction and its refresh", last, after[len(after)-1])
	}
}
