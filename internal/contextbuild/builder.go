// Package contextbuild owns what the model sees: it builds each model request
// from a run's state in six layers under a token budget, stable first and
// volatile last (tools; L1 instructions; L5a repo map; L6 summary and older
// rounds; L3 the last rounds verbatim; L5b file snippets; L4 task state; L2
// the person's current message), decides when older rounds must be
// compacted and how (masking old tool outputs, dropping superseded reads,
// folding older rounds into a summary, cutting long outputs, and only then
// shrinking the last rounds), and reports per layer and per item what went
// in, what was cut and why.
//
// It implements agent.ContextSource. A request is a pure function of the
// state (compactions and refreshes are folded into it from the journal), so
// a resumed run sends the same bytes; what Build decides it returns as
// events for the loop to journal first. It must not journal, send a model
// request of its own except through the Summarizer it is given, write any
// file, or read outside the workspace but the user's global AGENTS.md.
package contextbuild

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"agent/internal/agent"
	"agent/internal/event"
	"agent/internal/tokens"
	"agent/internal/tools"
)

// Defaults of Options.
const (
	// RecentRounds is how many of the newest rounds L3 keeps verbatim.
	RecentRounds = 6
	// DefaultRefreshEdits is how many edits make the repo map stale.
	DefaultRefreshEdits = 8
	// maxRepoMapTokens caps the repo map of a large window.
	maxRepoMapTokens = 4096
)

// Shares of the shared part of the budget (what L1, L2, L4 and the tools
// leave), in percent; the rest is slack.
const (
	shareRecent  = 45 // L3
	shareFiles   = 25 // L5a + L5b
	shareHistory = 20 // L6
)

// RepoMapper renders the repository map for a query (issue 6's map).
type RepoMapper interface {
	Map(ctx context.Context, q RepoMapQuery) (RepoMap, error)
}

// RepoMapQuery is what the map is centred on.
type RepoMapQuery struct {
	Query  string   // the person's current message
	Files  []string // files in play, most recent first
	Tokens int      // budget
}

// RepoMap is a rendered map.
type RepoMap struct {
	Text   string
	Files  []string // its files, in rank order
	Tokens int
}

// Summarizer asks the model for a summary (one non-streaming answer).
type Summarizer interface {
	Summarize(ctx context.Context, req *agent.Request) (string, error)
}

// Options configure a Builder.
type Options struct {
	Workspace string
	Model     string
	// Window is the model's context window in tokens from the config; 0:
	// the model table's, else WindowLookup's, else agent.DefaultWindow.
	Window int
	// WindowLookup asks the provider for the model's window (nil: never).
	WindowLookup func(ctx context.Context, model string) (int, error)
	// Tools are the tool schemas (sorted by name in every request).
	Tools []agent.ToolSpec
	// Redactor cleans what is read from disk (AGENTS.md, snippets).
	Redactor agent.Redactor
	// Counter counts tokens; nil: one for Model's encoding.
	Counter *tokens.Counter
	// RepoMap renders L5a; nil: no repo map.
	RepoMap RepoMapper
	// Summarizer writes model summaries when masking is not enough; nil:
	// deterministic summaries only.
	Summarizer Summarizer
	// GlobalInstructions is the user's own AGENTS.md
	// ($XDG_CONFIG_HOME/agent/AGENTS.md); "" for none.
	GlobalInstructions string
	// RefreshEdits is how many edits make the repo map stale (0: default).
	RefreshEdits int
}

// Builder builds requests. Between the builds of a run it keeps what makes
// the next one cheaper — token counts, the history it read from the state,
// the units it rendered, the older rounds' hash state — each used only
// while what it came from is unchanged, so a request stays a pure function
// of the state. It is safe for use by one loop at a time and for
// concurrent reports.
type Builder struct {
	opt     Options
	mu      sync.Mutex
	counter *tokens.Counter
	tools   []agent.ToolSpec
	toolTk  int
	toolsTk []int // each tool's share of toolTk, in b.tools' order
	toolsJS string
	// prepare loads counter (if nil) and counts toolTk, once.
	prepare func() error
	// window and its source, settled at the first Build.
	window       int
	windowSource string
	// errLines memoises the error lines of failed outputs of runID.
	errLines map[lineKey]string
	// args memoises callArgs by call id for runID (analyze reads every
	// call of the conversation at every build).
	args  map[string]parsedArgs
	runID string
	// counted memoises msgTokens of the state's messages by index
	// (stateMsgTokens); texts the counts of the layers' own texts.
	counted []countedMsg
	texts   [numSlots]countedText
	// hist is the previous build's history (Builder.history).
	hist histCache
	// l6Hash is the hash state of the previous build's older rounds.
	l6Hash hashPrefix
}

// New returns a Builder.
func New(opt Options) (*Builder, error) {
	if opt.Window < 0 {
		opt.Window = 0
	}
	if opt.RefreshEdits <= 0 {
		opt.RefreshEdits = DefaultRefreshEdits
	}
	b := &Builder{opt: opt, counter: opt.Counter}
	b.tools = slices.Clone(opt.Tools)
	slices.SortFunc(b.tools, func(x, y agent.ToolSpec) int { return strings.Compare(x.Name, y.Name) })
	var js strings.Builder
	for _, t := range b.tools {
		js.WriteString(t.Name + "\x00" + t.Description + "\x00" + string(t.Parameters) + "\x00")
	}
	b.toolsJS = js.String()
	// The tokenizer's vocabulary (tens of milliseconds to load) is loaded
	// by the first Build, not here: New is on the path to an interactive
	// session's first frame (issue 21: first frame ≤ 50 ms).
	b.prepare = sync.OnceValue(b.loadCounter)
	return b, nil
}

// loadCounter makes the token counter when none was given and counts the
// tools' specs; once, by the first Build.
func (b *Builder) loadCounter() error {
	if b.counter == nil {
		c, err := tokens.New(tokens.ForModel(b.opt.Model))
		if err != nil {
			return fmt.Errorf("contextbuild: tokenizer: %w", err)
		}
		b.counter = c
	}
	for _, t := range b.tools {
		tk := b.count(t.Name) + b.count(t.Description) + b.count(string(t.Parameters)) + 8
		b.toolsTk = append(b.toolsTk, tk)
		b.toolTk += tk
	}
	return nil
}

// Warm loads the tokenizer now (what the first Build would), for a caller
// that has time to spare before the first request.
func (b *Builder) Warm() error { return b.prepare() }

// Window returns the window the builder budgets for and where it came
// from ("" before the first Build when the config sets none).
func (b *Builder) Window() (int, string) { return b.window, b.windowSource }

func (b *Builder) count(s string) int { return b.counter.Count(s) }

// msgTokens is what one message costs: its text, its calls and the
// provider's framing (about four tokens a message).
func (b *Builder) msgTokens(m agent.Message) int {
	n := b.count(m.Content) + 4
	for _, c := range m.ToolCalls {
		n += b.count(c.Name) + b.count(c.Arguments) + 4
	}
	return n
}

// countedMsg is what msgTokens counted of a message: its text and calls
// (a copy of the slice; the strings are the message's own) and the count.
type countedMsg struct {
	content string
	calls   []agent.ToolCall
	n       int
}

// stateMsgTokens is msgTokens of st.Messages[i], counted again only when
// the message's text or calls differ from what was counted at index i
// (the strings of a message the state still holds compare by pointer).
func (b *Builder) stateMsgTokens(st *agent.State, i int) int {
	m := &st.Messages[i]
	if i < len(b.counted) {
		if c := &b.counted[i]; c.n > 0 && c.content == m.Content && sameCalls(c.calls, m.ToolCalls) {
			return c.n
		}
	}
	n := b.msgTokens(*m)
	if len(b.counted) < len(st.Messages) {
		b.counted = append(b.counted, make([]countedMsg, len(st.Messages)-len(b.counted))...)
	}
	b.counted[i] = countedMsg{content: m.Content, calls: slices.Clone(m.ToolCalls), n: n}
	return n
}

func sameCalls(a, b []agent.ToolCall) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Arguments != b[i].Arguments {
			return false
		}
	}
	return true
}

// The texts of the layers a build makes itself, each counted again only
// when it changed since the previous build (textTokens).
const (
	slotL1 = iota
	slotMap
	slotTask
	slotSummary
	numSlots
)

type countedText struct {
	s  string
	n  int
	ok bool
}

// textTokens is count(s), kept for the next build in its slot: the
// instructions and the repo map are the same strings build after build,
// the task state the same text.
func (b *Builder) textTokens(slot int, s string) int {
	if c := &b.texts[slot]; c.ok && c.s == s {
		return c.n
	}
	n := b.count(s)
	b.texts[slot] = countedText{s: s, n: n, ok: true}
	return n
}

// budget is B = window - answer reserve - margin, divided by the
// provider's correction when it counts more than the encoder.
type budget struct {
	window, reserve, margin, b int
	source                     string
	ratio                      float64
	samples                    int
}

func (b *Builder) budgetFor(st *agent.State) budget {
	w := b.window
	bg := budget{window: w, source: b.windowSource, reserve: min(max(w/4, 256), 8192), margin: w / 50}
	raw := w - bg.reserve - bg.margin
	c := st.Context.Correction
	bg.samples = c.Samples
	if c.Corrected() {
		bg.ratio = c.Ratio
	}
	f := 1.0
	if bg.ratio > 1 {
		f = bg.ratio // never budget past the window on a provider that counts less
	}
	bg.b = int(float64(raw) / f)
	return bg
}

// Build implements agent.ContextSource.
func (b *Builder) Build(ctx context.Context, st *agent.State, opt agent.BuildOptions) (*agent.Built, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := b.prepare(); err != nil {
		return nil, err
	}
	b.resolveWindow(ctx)
	if b.runID != st.RunID || b.errLines == nil {
		b.runID, b.errLines, b.args, b.counted, b.hist, b.l6Hash = st.RunID, map[lineKey]string{}, map[string]parsedArgs{}, nil, histCache{}, hashPrefix{}
	}
	h := b.history(st)
	v := currentView(st)
	var m *measure
	if opt.Decide {
		evs, dm, err := b.decide(ctx, h)
		if err != nil {
			return nil, err
		}
		if len(evs) > 0 {
			return &agent.Built{Events: evs}, nil
		}
		m = dm
	}
	req, rep, err := b.render(h, v, m)
	if err != nil {
		return nil, err
	}
	return &agent.Built{Request: req, Report: rep}, nil
}

// view is the compaction and refresh a request is rendered under.
type view struct {
	comp    event.CompactionData
	refresh *event.ContextRefreshData
	l1      string
}

func currentView(st *agent.State) *view {
	v := &view{}
	if c := st.Context.Compaction(); c != nil {
		v.comp = *c
	}
	if r := st.Context.Refresh(); r != nil {
		v.refresh = &r.Data
		v.l1 = instructionsText(st)
	}
	return v
}

// instructionsText returns L1 as the newest refresh recorded it (a refresh
// whose L1 did not change records only its hash).
func instructionsText(st *agent.State) string {
	rs := st.Context.Refreshes
	if len(rs) == 0 {
		return ""
	}
	want := rs[len(rs)-1].Data.InstructionsHash
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].Data.InstructionsHash == want && rs[i].Data.InstructionsText != "" {
			return rs[i].Data.InstructionsText
		}
	}
	return ""
}

// decide returns the events the next request needs first: a refresh of the
// slow layers, a compaction. When it returns none and measured the request
// under the current view (currentView), it returns that measure too, for
// render (nil: render measures).
func (b *Builder) decide(ctx context.Context, h *history) ([]event.Payload, *measure, error) {
	st := h.st
	v := currentView(st)
	step := st.Step + 1
	var evs []event.Payload
	prev := v.refresh
	switch {
	case prev == nil:
		r := b.refresh(ctx, h, event.RefreshStart, step, st)
		evs = append(evs, r)
		v.refresh, v.l1 = r, r.InstructionsText
	case st.Context.Edits-prev.Edits >= b.opt.RefreshEdits:
		r := b.refresh(ctx, h, event.RefreshEdits, step, st)
		evs = append(evs, r)
		v.refresh = r
		if r.InstructionsText != "" {
			v.l1 = r.InstructionsText
		}
	}
	bg := b.budgetFor(st)
	m := b.newMeasure(h, v)
	if err := m.fixedFits(bg); err != nil {
		return nil, nil, err
	}
	if m.total() <= bg.b && !st.Context.Force {
		if len(evs) == 0 {
			return nil, m, nil // v is currentView(st): nothing above changed it
		}
		return evs, nil, nil
	}
	trigger := event.TriggerBudget
	if st.Context.Force {
		trigger = event.TriggerForced
	}
	// The slow layers are read afresh with the compaction (L1 from disk,
	// the repo map for the request as it stands).
	r := b.refresh(ctx, h, event.RefreshCompaction, step, st)
	v.refresh = r
	if r.InstructionsText != "" {
		v.l1 = r.InstructionsText
	}
	m = b.newMeasure(h, v)
	if err := m.fixedFits(bg); err != nil {
		return nil, nil, err
	}
	c, err := b.compact(ctx, m, bg, trigger, step)
	if err != nil {
		return nil, nil, err
	}
	if c == nil {
		// nothing could be compacted (a forced compaction of a short run)
		return evs, nil, nil
	}
	return []event.Payload{c, r}, nil, nil
}

// refresh reads the slow layers afresh.
func (b *Builder) refresh(ctx context.Context, h *history, reason event.RefreshReason, step int, st *agent.State) *event.ContextRefreshData {
	text, paths := b.readInstructions(h)
	r := &event.ContextRefreshData{Step: step, Reason: reason, Instructions: paths, InstructionsHash: shortHash(text), Edits: st.Context.Edits}
	if old := st.Context.Refresh(); old == nil || old.Data.InstructionsHash != r.InstructionsHash || instructionsText(st) == "" {
		r.InstructionsText = text
	}
	if b.opt.RepoMap != nil {
		q := RepoMapQuery{Files: h.filesInPlay(20), Tokens: b.repoMapTokens(h, st, text)}
		if h.current >= 0 {
			q.Query = st.Messages[h.current].Content
		}
		mp, err := b.opt.RepoMap.Map(ctx, q)
		if err != nil {
			r.Error = err.Error()
		} else {
			text := mp.Text
			if b.opt.Redactor != nil {
				// the map quotes signatures and comments of the files
				text = b.opt.Redactor.Redact(text)
			}
			r.RepoMap, r.RepoMapFiles, r.RepoMapTokens = text, mp.Files, b.count(text)
		}
	}
	return r
}

// repoMapTokens is L5a's budget: half the files' share, at most 4,096.
func (b *Builder) repoMapTokens(h *history, st *agent.State, l1 string) int {
	bg := b.budgetFor(st)
	fixed := b.toolTk + b.count(l1)
	if h.current >= 0 {
		fixed += b.msgTokens(st.Messages[h.current])
	}
	shared := max(bg.b-fixed, 0)
	return min(max(shared*shareFiles/100/2, 128), maxRepoMapTokens)
}

func marshalArgs(v any) string {
	out, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(out)
}

// Specs returns the registry's tools as the model sees them.
func Specs(reg *tools.Registry) ([]agent.ToolSpec, error) {
	var out []agent.ToolSpec
	for _, t := range reg.Tools() {
		raw, err := json.Marshal(t.Schema())
		if err != nil {
			return nil, fmt.Errorf("tool %s: schema: %w", t.Name(), err)
		}
		out = append(out, agent.ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: raw})
	}
	return out, nil
}

// MustNew is New for tests and benchmarks: the registry's tools, the
// model's tokenizer, no repo map; it panics on an error.
func MustNew(ws, model string, window int, reg *tools.Registry) *Builder {
	specs, err := Specs(reg)
	if err != nil {
		panic(err)
	}
	b, err := New(Options{Workspace: ws, Model: model, Window: window, Tools: specs})
	if err != nil {
		panic(err)
	}
	return b
}
