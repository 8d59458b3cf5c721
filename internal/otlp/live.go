package otlp

// The live exporter: the spans of a session's runs, as their events are
// committed, batched and posted by one background goroutine. Observe never
// blocks on the network; a receiver that is down or slow costs the run
// nothing but one warning, and at most CloseTimeout at the end of the
// process.

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"agent/internal/event"
)

// Defaults of LiveOptions.
const (
	DefaultInterval     = 2 * time.Second
	DefaultBatchSize    = 256
	DefaultMaxQueue     = 4096
	DefaultPostTimeout  = 5 * time.Second
	DefaultCloseTimeout = 3 * time.Second
)

// LiveOptions configure a Live exporter.
type LiveOptions struct {
	Endpoint Endpoint
	Resource Resource
	Scope    Scope
	// Model and Provider name the model (see TraceOptions).
	Model, Provider string
	// Content reports whether a run's spans carry prompt and output text
	// (nil: never).
	Content func(runID string) bool
	// Redact is applied to every string sent (nil: none).
	Redact func(string) string
	// Warn receives the one warning of a session whose receiver fails
	// (nil: dropped). It is called from the background goroutine.
	Warn func(string)
	// Audit records an export of a run: before its first spans are sent,
	// and when the session ends with what was sent (nil: none). It is
	// called from the background goroutine and from Close.
	Audit func(runID, detail string) error
	// Lineage names the parent run and task call of a child run (ok false
	// for a run that is not a child; nil: none known but from the events):
	// a child resumed in a later process, whose events do not say, stays
	// in its parent's trace.
	Lineage func(runID string) (parentRun, parentCall string, ok bool)
	// HTTP is the client (nil: http.DefaultClient); UserAgent names the agent.
	HTTP      *http.Client
	UserAgent string
	// Interval between sends, spans per request, spans kept waiting at most
	// (the oldest are dropped beyond), the bound of one post, and how long
	// Close waits for the last ones. Zero: the defaults.
	Interval     time.Duration
	BatchSize    int
	MaxQueue     int
	PostTimeout  time.Duration
	CloseTimeout time.Duration
}

// Live exports spans as a session's runs go. Its methods are safe for
// concurrent use.
type Live struct {
	opt    LiveOptions
	client Client
	base   context.Context
	cancel context.CancelFunc
	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}

	mu       sync.Mutex
	closed   bool
	builders map[string]*Builder
	pending  []Span
	runOf    map[TraceID]string // run id of a trace
	// parents: the span a child run nests under (its task call's), by the
	// child's run id, from the parent's task_started
	parents map[string]SpanContext
	stats   map[string]*runStats
	order   []string // runs in the order first seen
	warned  bool
}

type runStats struct {
	content   bool
	audited   bool // the "export started" row is written
	sent      int
	failed    int
	lastError string
}

// NewLive starts a live exporter; Close ends it.
func NewLive(opt LiveOptions) *Live {
	if opt.Interval <= 0 {
		opt.Interval = DefaultInterval
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = DefaultBatchSize
	}
	if opt.MaxQueue <= 0 {
		opt.MaxQueue = DefaultMaxQueue
	}
	if opt.PostTimeout <= 0 {
		opt.PostTimeout = DefaultPostTimeout
	}
	if opt.CloseTimeout <= 0 {
		opt.CloseTimeout = DefaultCloseTimeout
	}
	base, cancel := context.WithCancel(context.Background())
	l := &Live{opt: opt, client: Client{Endpoint: opt.Endpoint, HTTP: opt.HTTP, UserAgent: opt.UserAgent},
		base: base, cancel: cancel, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		builders: map[string]*Builder{}, runOf: map[TraceID]string{}, stats: map[string]*runStats{},
		parents: map[string]SpanContext{}}
	go l.loop()
	return l
}

// Observe maps a committed event; it never waits for the network.
func (l *Live) Observe(ev event.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || ev.RunID == "" {
		return
	}
	b, ok := l.builders[ev.RunID]
	if !ok {
		st := l.stats[ev.RunID]
		if st == nil {
			st = &runStats{content: l.opt.Content != nil && l.opt.Content(ev.RunID)}
			l.stats[ev.RunID] = st
			l.order = append(l.order, ev.RunID)
			l.runOf[TraceIDOf(ev.RunID)] = ev.RunID
		}
		opt := TraceOptions{RunID: ev.RunID, Model: l.opt.Model, Provider: l.opt.Provider, Content: st.content}
		if p, ok := l.parentOf(ev); ok {
			opt.Parent = &p
		}
		b = NewBuilder(opt)
		l.builders[ev.RunID] = b
	}
	spans := b.Add(ev)
	for i := range spans {
		spans[i].run = ev.RunID
	}
	if d, ok := ev.Data.(*event.TaskStartedData); ok {
		if sc, ok := b.ToolSpan(d.CallID); ok {
			l.parents[d.ChildRun] = sc
		}
	}
	l.queue(spans)
	if ev.Type == event.RunFinished {
		delete(l.builders, ev.RunID)
		l.signal()
	}
}

// parentOf is the span a child run's spans nest under: its parent's task
// call (named by the parent's task_started, or by the child's run_started
// while that call is open); l.mu is held.
func (l *Live) parentOf(ev event.Event) (SpanContext, bool) {
	if p, ok := l.parents[ev.RunID]; ok {
		return p, true
	}
	pr, pc := "", ""
	if d, ok := ev.Data.(*event.RunStartedData); ok {
		pr, pc = d.ParentRun, d.ParentCall
	} else if l.opt.Lineage != nil {
		pr, pc, _ = l.opt.Lineage(ev.RunID) // a stretch of a child after a restart: once per run and process
	}
	pb := l.builders[pr]
	if pr == "" || pb == nil {
		return SpanContext{}, false
	}
	if sc, ok := pb.ToolSpan(pc); ok {
		return sc, true
	}
	// a later stretch nests under the child's own first span: only the
	// trace is needed
	return SpanContext{Trace: pb.TraceID()}, ev.Type != event.RunStarted
}

// queue adds spans, dropping the oldest beyond MaxQueue; l.mu is held.
func (l *Live) queue(spans []Span) {
	l.pending = append(l.pending, spans...)
	if over := len(l.pending) - l.opt.MaxQueue; over > 0 {
		for _, s := range l.pending[:over] {
			id := s.run
			if id == "" {
				id = l.runOf[s.Trace]
			}
			if st := l.stats[id]; st != nil {
				st.failed++
				st.lastError = "the queue was full (the receiver is slower than the run)"
			}
		}
		l.pending = l.pending[over:] // the next append that grows it copies what is left
	}
	if len(l.pending) >= l.opt.BatchSize {
		l.signal()
	}
}

func (l *Live) signal() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

func (l *Live) loop() {
	defer close(l.done)
	t := time.NewTicker(l.opt.Interval)
	defer t.Stop()
	for {
		select {
		case <-l.kick:
		case <-t.C:
		case <-l.stop:
			l.send()
			return
		}
		l.send()
	}
}

// send posts what is pending, a batch at a time.
func (l *Live) send() {
	for {
		l.mu.Lock()
		n := min(len(l.pending), l.opt.BatchSize)
		batch := append([]Span(nil), l.pending[:n]...)
		l.pending = l.pending[n:]
		l.mu.Unlock()
		if n == 0 {
			return
		}
		l.post(batch)
	}
}

func (l *Live) post(batch []Span) {
	runs := map[string]int{}
	for _, s := range batch {
		id := s.run
		if id == "" {
			id = l.runID(s.Trace)
		}
		runs[id]++
	}
	for id := range runs {
		l.auditStart(id)
	}
	var err error
	if l.base.Err() != nil {
		err = fmt.Errorf("not sent: the session ended before the receiver answered")
	} else {
		ctx, cancel := context.WithTimeout(l.base, l.opt.PostTimeout)
		err = l.client.Post(ctx, Encode(l.opt.Resource, l.opt.Scope, batch, l.opt.Redact))
		cancel()
	}
	l.mu.Lock()
	for id, n := range runs {
		if st := l.stats[id]; st != nil {
			if err == nil {
				st.sent += n
			} else {
				st.failed += n
				st.lastError = err.Error()
			}
		}
	}
	warn := err != nil && !l.warned
	l.warned = l.warned || err != nil
	l.mu.Unlock()
	if warn && l.opt.Warn != nil {
		l.opt.Warn(fmt.Sprintf("the run's trace could not be sent over OTLP (%v); the run goes on without it, "+
			"and this is the only warning of this session (agent audit shows what was sent; agent export RUN --otlp URL sends it later)", err))
	}
}

func (l *Live) runID(t TraceID) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runOf[t]
}

// auditStart writes a run's "export started" row before its first spans
// leave.
func (l *Live) auditStart(runID string) {
	l.mu.Lock()
	st := l.stats[runID]
	if st == nil || st.audited {
		l.mu.Unlock()
		return
	}
	st.audited = true
	content := st.content
	l.mu.Unlock()
	if l.opt.Audit != nil {
		l.audit(runID, fmt.Sprintf("to OTLP %s: live, as the run goes; %s", l.opt.Endpoint, contentNote(content)))
	}
}

func (l *Live) audit(runID, detail string) {
	if err := l.opt.Audit(runID, detail); err != nil && l.opt.Warn != nil {
		l.opt.Warn(fmt.Sprintf("the OTLP export of run %s could not be recorded in the audit log: %v", runID, err))
	}
}

func contentNote(content bool) string {
	if content {
		return "with prompt and output text ([otel] content = true), redacted"
	}
	return "metadata only, no prompt or output text"
}

// Close ends what the runs left open (a process ending mid-run), sends
// what is pending, waiting CloseTimeout at most, and records in the audit
// log what each run's export sent.
func (l *Live) Close() {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return
	}
	l.closed = true
	now := time.Now()
	for id, b := range l.builders {
		spans := b.Finish(now)
		for i := range spans {
			spans[i].run = id
		}
		l.queue(spans)
		delete(l.builders, id)
	}
	l.mu.Unlock()
	close(l.stop)
	select {
	case <-l.done:
	case <-time.After(l.opt.CloseTimeout):
		l.cancel() // the post in flight fails, the rest is counted as not sent
		<-l.done
	}
	l.cancel()
	if l.opt.Audit == nil {
		return
	}
	l.mu.Lock()
	type row struct{ id, detail string }
	var rows []row
	for _, id := range l.order {
		st := l.stats[id]
		if !st.audited {
			continue // nothing of it was sent or tried
		}
		d := fmt.Sprintf("to OTLP %s: live export done: %d spans sent", l.opt.Endpoint, st.sent)
		if st.failed > 0 {
			d += fmt.Sprintf(", %d not delivered (%s)", st.failed, st.lastError)
		}
		rows = append(rows, row{id, d + "; " + contentNote(st.content)})
	}
	l.mu.Unlock()
	for _, r := range rows {
		l.audit(r.id, r.detail)
	}
}

// Stats reports, for tests and summaries, the spans sent and not
// delivered for a run.
func (l *Live) Stats(runID string) (sent, failed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.stats[runID]; st != nil {
		return st.sent, st.failed
	}
	return 0, 0
}
