package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/spf13/cobra"

	"agent/internal/agent"
	"agent/internal/agent/openai"
	"agent/internal/checkpoint"
	"agent/internal/event"
	"agent/internal/replay"
	"agent/internal/store"
	"agent/internal/tools"
)

// session is one process's wiring of store, provider, tools and renderers.
type session struct {
	set    *settings
	store  *store.Store
	cps    *checkpoint.Store
	runner *agent.Runner
	json   *jsonLines
	prog   *progress
	flock  *flock.Flock
	stderr io.Writer
	runID  string
}

func openSession(ctx context.Context, set *settings, f *runFlags, cmd *cobra.Command) (*session, error) {
	prov, err := newProvider(set, f.replay)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, set.Home)
	if err != nil {
		return nil, stateErr(err)
	}
	red, err := newRedactor(set)
	if err != nil {
		st.Close()
		return nil, err
	}
	cps, err := checkpoint.Open(set.Home, set.Workspace)
	if err != nil {
		st.Close()
		return nil, withCode(ExitFailed, fmt.Errorf("open the checkpoint repository: %w", err))
	}
	s := &session{set: set, store: st, cps: cps, stderr: os.Stderr}
	s.prog = &progress{w: os.Stderr, verbose: f.verbose}
	obs := agent.Observer{Delta: s.prog.delta}
	if f.json {
		s.json = newJSONLines(cmd.OutOrStdout())
		obs.Event = func(ev event.Event) { s.json.event(ev); s.prog.event(ev) }
	} else {
		obs.Event = s.prog.event
	}
	s.runner = &agent.Runner{
		Provider:     prov,
		Tools:        tools.Default(),
		Journal:      st,
		Redactor:     red,
		Checkpointer: checkpoint.Checkpointer{Store: cps},
		Observer:     obs,
		Context:      &agent.ContextBuilder{Workspace: set.Workspace, Model: set.Model, Window: set.Window, Redactor: red},
		Processes:    agent.OSProcesses{},
		MaxSteps:     f.maxSteps,
		ToolEnv:      &tools.Env{Workspace: set.Workspace, DefaultTimeoutSec: f.timeoutSec},
	}
	return s, nil
}

func stateErr(err error) error {
	var pe *store.PermError
	if errors.As(err, &pe) {
		return usageErr("%v", err)
	}
	return withCode(ExitFailed, fmt.Errorf("open the journal: %w", err))
}

func newProvider(set *settings, replayFile string) (agent.Provider, error) {
	if replayFile != "" {
		sc, err := replay.Load(replayFile)
		if err != nil {
			return nil, usageErr("--replay: %v", err)
		}
		p := replay.NewScripted(sc)
		p.FollowConversation = true // so that `agent resume --replay FILE` carries on
		return p, nil
	}
	p, err := openai.New(openai.Config{BaseURL: set.BaseURL, APIKey: set.APIKey, Model: set.Model})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return p, nil
}

func (s *session) redact(text string) string {
	if s.runner.Redactor == nil {
		return text
	}
	return s.runner.Redactor.Redact(text)
}

// lock takes the run's lock for this session.
func (s *session) lock(runID string) error {
	s.runID = runID
	fl, err := lockRunOrExplain(s.set.Home, runID)
	if err != nil {
		return err
	}
	s.flock = fl
	showStateNotice(s.store, s.stderr)
	return nil
}

// lockRunOrExplain is tryLockRun with the contract's exit codes: 2 when a
// live process holds the run.
func lockRunOrExplain(home, runID string) (*flock.Flock, error) {
	fl, err := tryLockRun(home, runID)
	if errors.Is(err, errRunInUse) {
		return nil, usageErr("run %s is in use by another agent process; wait for it to finish or stop it first", runID)
	}
	if err != nil {
		return nil, withCode(ExitFailed, err)
	}
	return fl, nil
}

// errRunInUse: another live process holds the run's lock.
var errRunInUse = errors.New("run is in use by a live agent process")

// tryLockRun takes the run's lock file without waiting: a run is driven,
// rolled back or deleted by one process at a time. The kernel drops the lock
// when its process dies, so a crashed run can be taken over at once.
func tryLockRun(home, runID string) (*flock.Flock, error) {
	dir := filepath.Join(home, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock directory: %w", err)
	}
	l := flock.New(filepath.Join(dir, runID+".lock"), flock.SetPermissions(0o600))
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock run %s: %w", runID, err)
	}
	if !ok {
		return nil, fmt.Errorf("run %s: %w", runID, errRunInUse)
	}
	return l, nil
}

func (s *session) close() {
	if s.flock != nil {
		s.flock.Unlock()
	}
	s.cps.Close()
	s.store.Close()
}

// finish prints the outcome of a run and returns its exit code as an error.
func (s *session) finish(cmd *cobra.Command, out agent.Outcome) error {
	if s.json != nil && s.json.err != nil {
		return withCode(ExitFailed, fmt.Errorf("write event stream: %w", s.json.err))
	}
	switch out.Status {
	case event.StatusCompleted:
		if s.json == nil {
			fmt.Fprintln(cmd.OutOrStdout(), out.Answer)
		}
	case event.StatusAwaitingApproval:
		if p := out.Pending; p != nil {
			fmt.Fprintf(s.stderr, "paused: %s %s needs approval (call %s)\n  arguments: %s\n", p.Tool, p.Risk, p.CallID, p.Arguments)
			if p.Reason != "" {
				fmt.Fprintf(s.stderr, "  why: %s\n", s.redact(p.Reason))
			}
			if p.Diff != "" {
				fmt.Fprintln(s.stderr, p.Diff)
			}
			fmt.Fprintf(s.stderr, "decide with: agent resume %s --approve %s   (or --deny %s --note TEXT)\n", s.runID, p.CallID, p.CallID)
		}
	case event.StatusInterrupted:
		fmt.Fprintf(s.stderr, "interrupted; continue with: agent resume %s\n", s.runID)
	}
	code := exitFor(out)
	if code == ExitOK {
		return nil
	}
	if out.Status == event.StatusFailed && out.Err != nil {
		return withCode(code, out.Err)
	}
	return withCode(code, nil)
}

// runIsLive reports whether a process holds the run's lock now.
func runIsLive(home, runID string) bool {
	fl, err := tryLockRun(home, runID)
	if err != nil {
		return errors.Is(err, errRunInUse)
	}
	fl.Unlock()
	return false
}
