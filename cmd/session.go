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

// lock takes the run's lock file; a live process holding it means the run is
// being driven elsewhere.
func (s *session) lock(runID string) error {
	dir := filepath.Join(s.set.Home, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return withCode(ExitFailed, fmt.Errorf("lock directory: %w", err))
	}
	s.runID = runID
	fl := flock.New(filepath.Join(dir, runID+".lock"))
	ok, err := fl.TryLock()
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("lock run %s: %w", runID, err))
	}
	if !ok {
		return usageErr("run %s is in use by another agent process; wait for it to finish or stop it first", runID)
	}
	s.flock = fl
	return nil
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
	fl := flock.New(filepath.Join(home, "locks", runID+".lock"))
	ok, err := fl.TryLock()
	if err != nil {
		return false
	}
	if ok {
		fl.Unlock()
		return false
	}
	return true
}
