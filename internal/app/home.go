package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"agent/internal/checkpoint"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/store"
)

// Home is the read and maintenance side of the state directory: runs and
// their journals, checkpoints (paired and counted), grants and the audit
// log. Every frontend reads through it (cmd, the TUI, an editor over ACP),
// so no frontend opens the store or the shadow repositories itself, and a
// query exists once. A Service has one over its own journal (Service.Home);
// OpenHome opens one without a session (listings, reports, maintenance).
type Home struct {
	st  *store.Store
	own bool // Close closes st (OpenHome)

	mu    sync.Mutex
	repos map[string]*checkpoint.Store // by workspace, opened on first use
	// session is the shadow repository of the session's workspace, which
	// the Service owns (not closed here).
	session   *checkpoint.Store
	sessionWS string
}

// OpenHome opens the state directory dir ("" : StateHome) for reading and
// maintenance. A permission problem is a *UsageError naming the fix.
func OpenHome(ctx context.Context, dir string) (*Home, error) {
	return openHome(ctx, dir, OpenStore)
}

// OpenHomeRead opens the state directory for reading only: a read-only
// AGENT_HOME is read as it is, without migrating (runs, trace, export,
// audit, checkpoints, context).
func OpenHomeRead(ctx context.Context, dir string) (*Home, error) {
	return openHome(ctx, dir, OpenStoreRead)
}

func openHome(ctx context.Context, dir string, open func(context.Context, string) (*store.Store, error)) (*Home, error) {
	if dir == "" {
		d, err := StateHome()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	st, err := open(ctx, dir)
	if err != nil {
		return nil, err
	}
	return &Home{st: st, own: true}, nil
}

// Home is the session's Home, over its journal.
func (s *Service) Home() *Home {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.home == nil {
		s.home = &Home{st: s.store, session: s.cps, sessionWS: s.set.Workspace}
	}
	return s.home
}

// Close releases what OpenHome opened (the repositories it opened too).
func (h *Home) Close() {
	h.mu.Lock()
	for _, r := range h.repos {
		r.Close()
	}
	h.repos = nil
	h.mu.Unlock()
	if h.own {
		h.st.Close()
	}
}

// Dir is the state directory.
func (h *Home) Dir() string { return h.st.Home() }

// ErrNotFound is the error of a run or checkpoint that does not exist.
var ErrNotFound = store.ErrNotFound

// IsNotFound reports whether err says a run or checkpoint does not exist.
func IsNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

func runInfo(r store.Run) protocol.RunInfo {
	return protocol.RunInfo{ID: r.ID, Status: r.Status, Workspace: r.Workspace, Model: r.Model, Approval: r.Approval,
		Prompt: r.Prompt, Started: r.Started, Updated: r.Updated, Steps: r.Steps, ToolCalls: r.ToolCalls,
		TokensIn: r.TokensIn, TokensOut: r.TokensOut, LastSeq: r.LastSeq, Answer: r.Answer, Failure: r.Failure}
}

// Run is one run by id or unique prefix.
func (h *Home) Run(ctx context.Context, id string) (protocol.RunInfo, error) {
	r, err := h.st.GetRun(ctx, id)
	if err != nil {
		return protocol.RunInfo{}, err
	}
	return runInfo(r), nil
}

// Runs lists every run, newest first.
func (h *Home) Runs(ctx context.Context) ([]protocol.RunInfo, error) {
	rs, err := h.st.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]protocol.RunInfo, len(rs))
	for i, r := range rs {
		out[i] = runInfo(r)
	}
	return out, nil
}

// Events is a run's journal.
func (h *Home) Events(ctx context.Context, runID string) ([]event.Event, error) {
	return h.st.Events(ctx, runID, 0)
}

// Peeked is a run read without taking it over: what a resume needs to
// choose its settings, or to print a finished run's answer.
type Peeked struct {
	Run    protocol.RunInfo
	Status event.Status // folded from the journal
	Answer string
	// Open are the ids of the calls without a result.
	Open []string
	// Prior is what the run started with (model, approval, provider).
	Prior *Prior
	// Sandbox is the sandbox mode it started with ("" when not journaled).
	Sandbox string
}

// Peek reads a run and folds its journal without taking its lock.
func (h *Home) Peek(ctx context.Context, id string) (Peeked, error) {
	row, st, err := PeekRun(ctx, h.st, id)
	if err != nil {
		return Peeked{}, err
	}
	p := Peeked{Run: runInfo(row), Status: st.Status, Answer: st.Answer, Prior: PriorOf(row, st), Sandbox: RunSandbox(ctx, h.st, row.ID)}
	for _, oc := range st.Open {
		p.Open = append(p.Open, oc.Call.ID)
	}
	return p, nil
}

// repo is the shadow repository of workspace.
func (h *Home) repo(workspace string) (*checkpoint.Store, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.session != nil && workspace == h.sessionWS {
		return h.session, nil
	}
	if r, ok := h.repos[workspace]; ok {
		return r, nil
	}
	r, err := checkpoint.Open(h.st.Home(), workspace)
	if err != nil {
		return nil, err
	}
	if h.repos == nil {
		h.repos = map[string]*checkpoint.Store{}
	}
	h.repos[workspace] = r
	return r, nil
}

// CheckpointOptions say what Checkpoints computes beyond the index.
type CheckpointOptions struct {
	// Counts counts the +/− lines of each paired after-checkpoint's patch.
	Counts bool
}

// Checkpoints lists a run's checkpoints in order, each after-checkpoint
// paired with its call's before-checkpoint (the one pairing there is), the
// tool named from the journal.
func (h *Home) Checkpoints(ctx context.Context, runID string, opt CheckpointOptions) ([]protocol.CheckpointInfo, error) {
	run, err := h.st.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	rows, err := h.st.Checkpoints(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	tools := map[string]string{}
	if evs, err := h.st.Events(ctx, run.ID, 0); err == nil {
		for _, ev := range evs {
			if d, ok := ev.Data.(*event.ToolCallData); ok {
				tools[d.CallID] = d.Name
			}
		}
	}
	var repo *checkpoint.Store
	if opt.Counts {
		if repo, err = h.repo(run.Workspace); err != nil {
			return nil, err
		}
	}
	out := make([]protocol.CheckpointInfo, 0, len(rows))
	before := map[string]string{}
	for _, c := range rows {
		ci := protocol.CheckpointInfo{ID: c.ID, RunID: c.RunID, Seq: c.Seq, Step: c.Step, CallID: c.CallID, Kind: c.Kind,
			Files: c.Files, Workspace: c.Workspace, Created: c.Created, Tool: tools[c.CallID]}
		switch c.Kind {
		case event.CheckpointBefore:
			before[c.CallID] = c.ID
		case event.CheckpointAfter:
			ci.Before = before[c.CallID]
		}
		if repo != nil && ci.Paired() && len(c.Files) > 0 {
			if p, err := repo.Patch(ctx, ci.Before, ci.ID); err == nil {
				ci.Added, ci.Removed = CountPatch(p)
			}
		}
		out = append(out, ci)
	}
	return out, nil
}

// Patch is the unified diff from checkpoint from to checkpoint to of a
// run's workspace (git apply takes it).
func (h *Home) Patch(ctx context.Context, workspace, from, to string) (string, error) {
	repo, err := h.repo(workspace)
	if err != nil {
		return "", err
	}
	return repo.Patch(ctx, from, to)
}

// CountPatch counts a patch's added and removed lines.
func CountPatch(patch string) (added, removed int) {
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// Grants are a run's "allow for this run" grants that have not expired.
func (h *Home) Grants(ctx context.Context, runID string) ([]protocol.GrantInfo, error) {
	gs, err := h.st.Grants(ctx, runID, time.Now())
	if err != nil {
		return nil, err
	}
	out := make([]protocol.GrantInfo, len(gs))
	for i, g := range gs {
		out[i] = protocol.GrantInfo{Rule: g.Rule, Expires: g.Expires}
	}
	return out, nil
}

// Audit is the audit log, of one run or ("") of all.
func (h *Home) Audit(ctx context.Context, runID string) ([]store.AuditEntry, error) {
	return h.st.AuditLog(ctx, runID)
}

// Export writes a run's journal as JSONL (see Export).
func (h *Home) Export(ctx context.Context, runID string, to ExportTarget, opt ExportOptions) (ExportResult, error) {
	return Export(ctx, h.st, runID, to, opt)
}

// ExportOTLP sends a run's trace to an OTLP/HTTP endpoint (see ExportOTLP).
func (h *Home) ExportOTLP(ctx context.Context, runID, endpoint string, opt OTLPOptions) (OTLPResult, error) {
	return ExportOTLP(ctx, h.st, runID, endpoint, opt)
}

// Delete deletes runs everywhere (see DeleteRuns).
func (h *Home) Delete(ctx context.Context, ids []string, opt DeleteOptions) error {
	return DeleteRuns(ctx, h.st, ids, opt)
}

// Prune deletes the runs older than olderThan (see PruneOlder).
func (h *Home) Prune(ctx context.Context, olderThan time.Duration, opt DeleteOptions) (int, error) {
	return PruneOlder(ctx, h.st, olderThan, opt)
}

// Rollback restores a checkpoint (see Rollback).
func (h *Home) Rollback(ctx context.Context, checkpointID string, opt RollbackOptions) (RollbackResult, error) {
	return Rollback(ctx, h.st, checkpointID, opt)
}
