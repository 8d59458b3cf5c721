package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"agent/internal/agent"
	"agent/internal/capture"
	"agent/internal/checkpoint"
	"agent/internal/config"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/repomap"
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
	return openHome(ctx, dir, openJournal)
}

// OpenHomeRead opens the state directory for reading only: a read-only
// AGENT_HOME is read as it is, without migrating (runs, trace, export,
// audit, checkpoints, context).
func OpenHomeRead(ctx context.Context, dir string) (*Home, error) {
	return openHome(ctx, dir, openJournalRead)
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
	return runInfos(rs), err
}

func runInfos(rs []store.Run) []protocol.RunInfo {
	if rs == nil {
		return nil
	}
	out := make([]protocol.RunInfo, len(rs))
	for i, r := range rs {
		out[i] = runInfo(r)
	}
	return out
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
	row, err := h.st.GetRun(ctx, id)
	if err != nil {
		return Peeked{}, err
	}
	evs, err := h.st.Events(ctx, row.ID, 0)
	if err != nil {
		return Peeked{}, err
	}
	st := agent.Fold(row.ID, evs)
	p := Peeked{Run: runInfo(row), Status: st.Status, Answer: st.Answer, Prior: priorOf(row, st), Sandbox: sandboxOf(evs)}
	for _, oc := range st.Open {
		p.Open = append(p.Open, oc.Call.ID)
	}
	return p, nil
}

// PeekRow is Peek without the fold, for a frontend that folds the journal
// itself when it opens the run (the TUI): the status and answer are the
// row's, Open is empty and the prior provider follows from the model's
// name.
func (h *Home) PeekRow(ctx context.Context, id string) (Peeked, error) {
	row, err := h.st.GetRun(ctx, id)
	if err != nil {
		return Peeked{}, err
	}
	return Peeked{Run: runInfo(row), Status: row.Status, Answer: row.Answer, Prior: priorOf(row, nil),
		Sandbox: runSandbox(ctx, h.st, row.ID)}, nil
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
	undoes := map[string]string{} // a rollback's own checkpoint: the checkpoint it restored
	if evs, err := h.st.Events(ctx, run.ID, 0); err == nil {
		for _, ev := range evs {
			switch d := ev.Data.(type) {
			case *event.ToolCallData:
				tools[d.CallID] = d.Name
			case *event.RollbackData:
				if d.Before != "" {
					undoes[d.Before] = d.CheckpointID
				}
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
		switch {
		case repo != nil && ci.Paired() && len(c.Files) > 0:
			if p, err := repo.Patch(ctx, ci.Before, ci.ID); err == nil {
				ci.Added, ci.Removed = CountPatch(p)
			}
		case repo != nil && c.Kind == event.CheckpointRollback && undoes[c.ID] != "":
			// what undoing the rollback brings back
			if p, err := repo.Patch(ctx, undoes[c.ID], c.ID); err == nil {
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

// Audit is the audit log, of one run (an id or a unique prefix; a deleted
// run keeps its rows, so its exact id works too) or ("") of all.
func (h *Home) Audit(ctx context.Context, runID string) ([]protocol.AuditEntry, error) {
	if runID != "" {
		if run, err := h.st.GetRun(ctx, runID); err == nil {
			runID = run.ID
		}
	}
	rows, err := h.st.AuditLog(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := make([]protocol.AuditEntry, len(rows))
	for i, r := range rows {
		out[i] = protocol.AuditEntry(r)
	}
	return out, nil
}

// Export writes a run's journal as JSONL, redacted, and audits it: to a
// file (0600, written atomically) or a writer. A path problem is an
// *ExportPathError.
func (h *Home) Export(ctx context.Context, runID string, to ExportTarget, opt ExportOptions) (ExportResult, error) {
	return exportRun(ctx, h.st, runID, to, opt)
}

// ExportOTLP sends a run's trace to the OTLP/HTTP receiver at endpoint,
// and audits it.
func (h *Home) ExportOTLP(ctx context.Context, runID, endpoint string, opt OTLPOptions) (OTLPResult, error) {
	return exportOTLP(ctx, h.st, runID, endpoint, opt)
}

// Delete deletes runs everywhere: journal rows, snapshots, lock files. Every
// id (or unique prefix) is resolved and every run's lock taken first: an
// unknown id or a run in use is a *UsageError, and nothing is deleted.
func (h *Home) Delete(ctx context.Context, ids []string, opt DeleteOptions) error {
	return deleteRuns(ctx, h.st, ids, opt)
}

// Prune deletes the runs whose last activity is older than olderThan,
// skipping the runs a live process holds; it returns how many it deleted.
func (h *Home) Prune(ctx context.Context, olderThan time.Duration, opt DeleteOptions) (int, error) {
	return pruneOlder(ctx, h.st, olderThan, opt)
}

// PruneCandidates are the runs Prune(olderThan) would consider, oldest
// first (a dry run); a run a live process holds is among them.
func (h *Home) PruneCandidates(ctx context.Context, olderThan time.Duration) ([]protocol.RunInfo, error) {
	rs, err := pruneCandidates(ctx, h.st, olderThan)
	return runInfos(rs), err
}

// Rollback restores a checkpoint of a run no process drives (a run this
// session drives rolls back with Service.Rollback).
func (h *Home) Rollback(ctx context.Context, checkpointID string, opt RollbackOptions) (RollbackResult, error) {
	var open *checkpoint.Store
	if opt.Files {
		if cp, err := h.st.GetCheckpoint(ctx, checkpointID); err == nil {
			open, _ = h.repo(cp.Workspace) // nil: rollback opens it and says why not
		}
	}
	return rollback(ctx, h.st, open, checkpointID, opt, nil)
}

// Request is one model request of a run with what its report needs: step
// 0 is the last. A run with no request yet, or without that step, is a
// *UsageError.
func (h *Home) Request(ctx context.Context, runID string, step int) (protocol.ModelRequest, error) {
	run, err := h.st.GetRun(ctx, runID)
	if err != nil {
		return protocol.ModelRequest{}, err
	}
	evs, err := h.st.Events(ctx, run.ID, 0)
	if err != nil {
		return protocol.ModelRequest{}, err
	}
	var found *event.ModelRequestData
	comps := map[int64]*event.CompactionData{}
	last := 0
	for _, ev := range evs {
		switch d := ev.Data.(type) {
		case *event.ModelRequestData:
			last = d.Step
			if step == 0 || d.Step == step {
				found = d
			}
		case *event.CompactionData:
			comps[ev.Seq] = d
		}
	}
	if found == nil {
		if last == 0 {
			return protocol.ModelRequest{}, usage("run %s made no model request yet", run.ID)
		}
		return protocol.ModelRequest{}, usage("run %s has no step %d (steps 1..%d)", run.ID, step, last)
	}
	return protocol.ModelRequest{RunID: run.ID, Request: found, Compaction: comps[found.Context.Compacted]}, nil
}

// Head is the id of a run's newest checkpoint ("" when it has none).
func (h *Home) Head(ctx context.Context, runID string) (string, error) {
	run, err := h.st.GetRun(ctx, runID)
	if err != nil {
		return "", err
	}
	repo, err := h.repo(run.Workspace)
	if err != nil {
		return "", err
	}
	head, err := repo.Head(run.ID)
	if err != nil {
		return "", err
	}
	return head.ID, nil
}

// Changes is a run's patch so far: from the state before its first
// checkpoint to its newest one. changed is false when the run has no
// checkpoint yet.
func (h *Home) Changes(ctx context.Context, runID string) (patch string, changed bool, err error) {
	run, err := h.st.GetRun(ctx, runID)
	if err != nil {
		return "", false, err
	}
	cps, err := h.st.Checkpoints(ctx, run.ID)
	if err != nil || len(cps) == 0 {
		return "", false, err
	}
	repo, err := h.repo(run.Workspace)
	if err != nil {
		return "", true, err
	}
	head, err := repo.Head(run.ID)
	if err != nil {
		return "", true, err
	}
	p, err := repo.Patch(ctx, cps[0].ID, head.ID)
	return p, true, err
}

// Preview is what rolling back to a checkpoint would change.
type Preview struct {
	// Patch is what the rollback would change: the diff from the run's
	// newest checkpoint (the files now) back to the checkpoint ("" : no
	// file differs).
	Patch string
	// Newest: the checkpoint is the run's newest, so nothing changed since.
	// When UndoesRollback is set too, it is the checkpoint a rollback took
	// of the files before it, and Patch is what undoing that rollback
	// brings back.
	Newest, UndoesRollback bool
}

// Preview computes what rolling a run back to checkpoint id would change.
func (h *Home) Preview(ctx context.Context, runID, id string) (Preview, error) {
	run, err := h.st.GetRun(ctx, runID)
	if err != nil {
		return Preview{}, err
	}
	repo, err := h.repo(run.Workspace)
	if err != nil {
		return Preview{}, err
	}
	head, err := repo.Head(run.ID)
	if err != nil {
		return Preview{}, err
	}
	if head.ID != id {
		// what the rollback does: from the files now back to the checkpoint's
		p, err := repo.Patch(ctx, head.ID, id)
		return Preview{Patch: p}, err
	}
	// The newest checkpoint may be the one a rollback took of the files
	// before it: the files now are those of the rollback's target.
	if target := h.rolledBackTo(ctx, run.ID, id); target != "" {
		p, err := repo.Patch(ctx, target, id)
		return Preview{Patch: p, Newest: true, UndoesRollback: true}, err
	}
	return Preview{Newest: true}, nil
}

// rolledBackTo is the checkpoint a rollback restored when id is the
// checkpoint it took first, or "".
func (h *Home) rolledBackTo(ctx context.Context, runID, id string) string {
	evs, err := h.st.Events(ctx, runID, 0)
	if err != nil {
		return ""
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if d, ok := evs[i].Data.(*event.RollbackData); ok && d.Before == id {
			return d.CheckpointID
		}
	}
	return ""
}

// CaptureOptions say where Capture writes the task.
type CaptureOptions struct {
	// Dir is the directory the task is created in; Name its name (default:
	// "run-" and the run id).
	Dir, Name string
}

// Capture turns a run into an eval task (internal/capture): the fixture is
// the workspace at the run's first checkpoint (a run that changed nothing:
// its git HEAD), redacted as the run's own output is. An existing task
// directory is capture.ErrExists.
func (h *Home) Capture(ctx context.Context, runID string, opt CaptureOptions) (*capture.Task, error) {
	run, err := h.st.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	evs, err := h.st.Events(ctx, run.ID, 0)
	if err != nil {
		return nil, err
	}
	co := capture.Options{RunID: run.ID, Events: evs, Dir: opt.Dir, Name: opt.Name}
	if cp := capture.FirstCheckpoint(evs); cp != "" {
		repo, err := h.repo(run.Workspace)
		if err != nil {
			return nil, fmt.Errorf("the checkpoints of run %s: %w (the fixture comes from the workspace's shadow repository; its workspace must still exist)", run.ID, err)
		}
		co.Fixture = capture.Checkpoint{Store: repo, ID: cp}
		if head, err := repo.Head(run.ID); err == nil && head.ID != "" {
			if d, err := repo.Diff(ctx, cp, head.ID); err == nil {
				co.Changed = []string{}
				for _, ch := range d {
					co.Changed = append(co.Changed, ch.Path)
				}
			}
		}
	} else {
		co.Fixture = capture.GitHead{Workspace: run.Workspace}
	}
	set := &Settings{Home: h.Dir(), Workspace: run.Workspace}
	if cfg, _, err := config.Load(run.Workspace, config.Sources{}); err == nil {
		set.RedactPII, set.InternalDomains = cfg.RedactPII, cfg.InternalDomains
	}
	red, err := newRedactor(set)
	if err != nil {
		return nil, err
	}
	co.Redactor = red
	return capture.Capture(ctx, co)
}

// RepoMapCache is the journal's tag cache of the workspace root for a
// repomap build outside a run (agent repomap): what it persists is redacted
// as a run's output is, and a failed write is a warning.
func (h *Home) RepoMapCache(ctx context.Context, root string, warn func(string)) (repomap.Cache, error) {
	red, err := newRedactor(&Settings{Home: h.Dir(), Workspace: root})
	if err != nil {
		return nil, err
	}
	return openRepoMapCache(ctx, h.st, root, red, warn)
}
