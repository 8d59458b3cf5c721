package contextbuild_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"agent/internal/agent"
	"agent/internal/contextbuild"
	"agent/internal/contextbuild/histgen"
	"agent/internal/event"
	"agent/internal/tokens"
	"agent/internal/tools"
)

// built is one request as the loop would send it: the builder's events
// journaled (folded into the state), then the request built from it.
type built struct {
	st     *agent.State
	req    *agent.Request
	rep    event.ContextReport
	events []event.Payload
}

// buildLikeTheLoop builds the next request of st the way the loop does.
func buildLikeTheLoop(t testing.TB, b agent.ContextSource, st *agent.State) built {
	t.Helper()
	ctx := context.Background()
	out, err := b.Build(ctx, st, agent.BuildOptions{Decide: true})
	if err != nil {
		t.Fatal(err)
	}
	evs := out.Events
	for _, p := range evs {
		ev := event.New(st.RunID, p)
		ev.Seq = st.LastSeq + 1
		st.Apply(ev)
	}
	if len(evs) > 0 {
		if out, err = b.Build(ctx, st, agent.BuildOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return built{st: st, req: out.Request, rep: out.Report, events: evs}
}

func generate(t testing.TB, seed int64, n int) *histgen.History {
	t.Helper()
	h, err := histgen.Generate(histgen.Options{Seed: seed, Tokens: n})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func requestJSON(r *agent.Request) string {
	b, _ := json.Marshal(r)
	return string(b)
}

// The seed's exercise: a 200,000-token history built into 32K and 64K.
func TestBuildLongHistory(t *testing.T) {
	ctr, _ := tokens.New(tokens.O200kBase)
	for _, seed := range []int64{1, 2, 3} {
		h := generate(t, seed, 200_000)
		kept := map[int]map[string]bool{}
		for _, window := range []int{32_000, 64_000} {
			t.Run(fmt.Sprintf("seed%d/%dK", seed, window/1000), func(t *testing.T) {
				ws := t.TempDir()
				b := contextbuild.MustNew(ws, "gpt-4.1", window, tools.Default())
				st := agent.Fold(h.RunID, h.Events)
				orig := agent.Fold(h.RunID, h.Events)
				got := buildLikeTheLoop(t, b, st)
				req, rep := got.req, got.rep
				all := requestJSON(req)
				text := joinContents(req)

				// within budget, and using it
				counted := 0
				for _, m := range req.Messages {
					counted += ctr.Count(m.Content) + 4
					for _, c := range m.ToolCalls {
						counted += ctr.Count(c.Name) + ctr.Count(c.Arguments) + 4
					}
				}
				if rep.TotalTokens > rep.Budget {
					t.Errorf("%d tokens over a budget of %d", rep.TotalTokens, rep.Budget)
				}
				if rep.TotalTokens < rep.Budget*70/100 {
					t.Errorf("%d tokens use under 70%% of a budget of %d", rep.TotalTokens, rep.Budget)
				}
				if tools := rep.Layers[0].Tokens; counted+tools != rep.TotalTokens {
					t.Errorf("the report says %d tokens, the messages count %d and the tools %d", rep.TotalTokens, counted, tools)
				}
				if len(got.events) == 0 || got.events[0].EventType() != event.Compaction {
					t.Fatalf("a 200K history in a %d window built without a compaction (events %v)", window, got.events)
				}

				// L1 byte-identical to the instructions of a fresh run
				fresh := agent.Fold(h.RunID, h.Events[:3])
				fb := buildLikeTheLoop(t, contextbuild.MustNew(ws, "gpt-4.1", window, tools.Default()), fresh)
				if req.Messages[0].Content != fb.req.Messages[0].Content || req.Messages[0].Role != agent.RoleSystem {
					t.Error("L1 differs from what a fresh run sends")
				}
				// L2 verbatim and last
				last := req.Messages[len(req.Messages)-1]
				if last.Role != agent.RoleUser || last.Content != h.LastMessage {
					t.Errorf("the last message is %s %q, want the person's %q", last.Role, clipS(last.Content), h.LastMessage)
				}
				// the last 6 rounds verbatim
				for _, m := range lastRounds(orig, contextbuild.RecentRounds) {
					if !hasMessage(req, m) {
						t.Errorf("a message of the last rounds is not there verbatim: %s %q", m.Role, clipS(m.Content))
					}
				}
				// every canary survives
				for _, c := range h.Canaries {
					if !strings.Contains(text, c) {
						t.Errorf("canary %q is lost", c)
					}
				}
				// the overridden decision is marked superseded
				if !lineWith(text, "uperseded", clipQ(h.Overridden)) {
					t.Errorf("the overridden decision %q is not marked superseded", h.Overridden)
				}
				// plan statuses right
				for _, p := range h.Plan {
					if !strings.Contains(text, "- ["+p.Status+"] "+p.Step) {
						t.Errorf("plan step %s is not shown as %s", p.ID, p.Status)
					}
				}
				// edited paths listed, their stale reads gone
				task := layerText(req, "[agent] Task state")
				for _, p := range h.EditedPaths {
					if !strings.Contains(task, p) {
						t.Errorf("edited file %s is not in the task state", p)
					}
					for _, stale := range staleReads(orig, p) {
						if strings.Contains(text, stale) {
							t.Errorf("a stale read of %s is still in the request", p)
						}
					}
				}
				// the open error present, the fixed one marked fixed
				if !strings.Contains(text, clipQ(h.OpenError)) {
					t.Errorf("the open error %q is missing", h.OpenError)
				}
				if !lineWith(text, "fixed at step", clipQ(h.FixedError)) {
					t.Errorf("the fixed error %q is not marked fixed", h.FixedError)
				}
				if i := strings.Index(task, "Open errors"); i >= 0 && strings.Contains(task[i:], clipQ(h.FixedError)) { // open ones come last
					t.Error("the fixed error is listed among the open ones")
				}
				// no orphan tool call or result
				if err := pairing(req); err != nil {
					t.Error(err)
				}
				// every cut has a marker
				outputs := map[string]string{}
				for _, m := range orig.Messages {
					if m.Role == agent.RoleTool {
						outputs[m.ToolCallID] = m.Content
					}
				}
				for _, m := range req.Messages {
					if m.Role == agent.RoleTool && m.Content != outputs[m.ToolCallID] && !strings.Contains(m.Content, "[agent]") {
						t.Errorf("the output of %s was changed without a marker", m.ToolCallID)
					}
				}
				// the injection text only inside quoted tool output
				for _, m := range req.Messages {
					if m.Role != agent.RoleTool && strings.Contains(quoted.ReplaceAllString(m.Content, `""`), h.Injection[:40]) {
						t.Errorf("the injection text is in a %s message outside a quotation", m.Role)
					}
				}
				// every input item accounted for
				if rep.InputItems < len(orig.Messages) {
					t.Errorf("the report accounts for %d items, the state has %d messages", rep.InputItems, len(orig.Messages))
				}
				// deterministic, and building again changes nothing
				again := buildLikeTheLoop(t, contextbuild.MustNew(ws, "gpt-4.1", window, tools.Default()), agent.Fold(h.RunID, h.Events))
				if requestJSON(again.req) != all {
					t.Error("two builds of the same history differ")
				}
				second := buildLikeTheLoop(t, b, st)
				if len(second.events) > 0 || requestJSON(second.req) != all {
					t.Errorf("building again compacted again (%d events) or changed the request", len(second.events))
				}
				// what 32K keeps, 64K keeps
				k := map[string]bool{}
				for _, m := range req.Messages {
					k[string(m.Role)+"\x00"+m.ToolCallID+"\x00"+m.Content] = true
				}
				kept[window] = k
				if window == 64_000 {
					for key := range kept[32_000] {
						if !k[key] && !strings.Contains(key, "[agent]") {
							t.Errorf("kept at 32K but not at 64K: %q", clipS(key))
						}
					}
				}
			})
		}
	}
}

var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

func joinContents(r *agent.Request) string {
	var sb strings.Builder
	for _, m := range r.Messages {
		sb.WriteString(m.Content + "\n")
		for _, c := range m.ToolCalls {
			sb.WriteString(c.Arguments + "\n")
		}
	}
	return sb.String()
}

func layerText(r *agent.Request, prefix string) string {
	for _, m := range r.Messages {
		if strings.HasPrefix(m.Content, prefix) {
			return m.Content
		}
	}
	return ""
}

// lastRounds returns the messages of the last n rounds before the
// person's last message.
func lastRounds(st *agent.State, n int) []agent.Message {
	var out []agent.Message
	rounds := 0
	for i := len(st.Messages) - 1; i >= 0 && rounds < n; i-- {
		switch st.Meta[i].Kind {
		case agent.KindAssistant:
			rounds++
			out = append(out, st.Messages[i])
		case agent.KindTool:
			out = append(out, st.Messages[i])
		}
	}
	return out
}

func hasMessage(r *agent.Request, m agent.Message) bool {
	for _, x := range r.Messages {
		if x.Role == m.Role && x.Content == m.Content && x.ToolCallID == m.ToolCallID && len(x.ToolCalls) == len(m.ToolCalls) {
			same := true
			for i := range x.ToolCalls {
				same = same && x.ToolCalls[i] == m.ToolCalls[i]
			}
			if same {
				return true
			}
		}
	}
	return false
}

// staleReads are the outputs of reads of path made before its last edit.
func staleReads(st *agent.State, path string) []string {
	calls := map[string]string{}
	lastEdit := int64(0)
	for i, m := range st.Messages {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c.Name + " " + c.Arguments
		}
		if m.Role == agent.RoleTool && st.Meta[i].Risk == event.RiskWrite && st.Meta[i].Status == event.ResultOK && strings.Contains(calls[m.ToolCallID], `"`+path+`"`) {
			lastEdit = st.Meta[i].Seq
		}
	}
	var out []string
	for i, m := range st.Messages {
		if m.Role == agent.RoleTool && st.Meta[i].Seq < lastEdit && strings.HasPrefix(calls[m.ToolCallID], "read_file ") &&
			strings.Contains(calls[m.ToolCallID], `"`+path+`"`) && len(m.Content) > 200 {
			out = append(out, m.Content)
		}
	}
	return out
}

func lineWith(text string, subs ...string) bool {
	for _, ln := range strings.Split(text, "\n") {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(ln, s)
		}
		if ok {
			return true
		}
	}
	return false
}

// pairing checks that every call is answered right after its message and
// every result answers a call.
func pairing(r *agent.Request) error {
	for i := 0; i < len(r.Messages); i++ {
		m := r.Messages[i]
		if m.Role == agent.RoleTool {
			return fmt.Errorf("message %d: a tool result (%s) without its call", i, m.ToolCallID)
		}
		if m.Role != agent.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]bool{}
		for _, c := range m.ToolCalls {
			want[c.ID] = true
		}
		for len(want) > 0 {
			i++
			if i >= len(r.Messages) || r.Messages[i].Role != agent.RoleTool || !want[r.Messages[i].ToolCallID] {
				return fmt.Errorf("message %d: a call without its result", i)
			}
			delete(want, r.Messages[i].ToolCallID)
		}
	}
	return nil
}

// clipQ is how the summary quotes the start of a long text: the first 150
// bytes, escaped as %q escapes them, without the quotes.
func clipQ(s string) string {
	if len(s) > 150 {
		s = s[:150]
	}
	q := fmt.Sprintf("%q", s)
	return q[1 : len(q)-1]
}

func clipS(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
