package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/termtext"
)

// session is a headless frontend of one app.Service: the progress renderer
// on stderr and, with --json, the event stream on stdout, both subscribers.
type session struct {
	svc    *app.Service
	json   *jsonLines
	prog   *progress
	stderr io.Writer
	runID  string
}

// settingsFor resolves the settings of a command that drives a run.
func settingsFor(f *runFlags, prior *app.Prior) (*app.Settings, error) {
	af := f.appFlags()
	b, err := f.budget.limits()
	if err != nil {
		return nil, err
	}
	af.Budget = b
	set, warnings, err := app.LoadSettings(af, prior)
	for _, w := range warnings {
		warn(os.Stderr, w)
	}
	if err != nil {
		return nil, appErr(err)
	}
	return set, nil
}

func openSession(ctx context.Context, set *app.Settings, f *runFlags, cmd *cobra.Command) (*session, error) {
	svc, err := app.Open(ctx, app.Options{Settings: set, Warn: func(w string) { warn(os.Stderr, w) }})
	if err != nil {
		return nil, appErr(err)
	}
	s := &session{svc: svc, stderr: os.Stderr, prog: &progress{w: os.Stderr, verbose: f.verbose}}
	if f.json {
		s.json = newJSONLines(cmd.OutOrStdout())
	}
	svc.Subscribe(func(u protocol.Update) {
		switch u.Kind {
		case protocol.UpdateEvent:
			if s.json != nil {
				s.json.event(u.Event)
			}
			s.prog.event(u.Event)
		case protocol.UpdateText:
			s.prog.delta(u.Text)
		}
	})
	return s, nil
}

// started prints the first stderr line of a run, "run: ID", and the state
// directory's one-time notice.
func (s *session) started(runID string) {
	s.runID = runID
	fmt.Fprintf(s.stderr, "run: %s\n", runID)
	if n := s.svc.Notice(); n != "" {
		fmt.Fprintf(s.stderr, "warning: %s\n", n)
	}
}

func (s *session) close() { s.svc.Close() }

// appErr maps the app's typed errors to the contract's exit codes.
func appErr(err error) error {
	var ue *app.UsageError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return withCode(ExitUsage, err)
	case errors.Is(err, app.ErrRunInUse):
		return usageErr("%v; wait for it to finish or stop it first", err)
	case app.IsNotFound(err):
		return notFound(err)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return withCode(ExitFailed, err)
}

// finish prints the outcome of a run and returns its exit code as an error.
func (s *session) finish(cmd *cobra.Command, out protocol.Outcome) error {
	if s.json != nil && s.json.err != nil {
		return withCode(ExitFailed, fmt.Errorf("write event stream: %w", s.json.err))
	}
	switch out.Status {
	case event.StatusCompleted:
		if s.json == nil {
			printAnswer(cmd.OutOrStdout(), out.Answer)
		}
	case event.StatusAwaitingApproval:
		if p := out.Pending; p != nil {
			// Every piece is the model's or the workspace's: a diff must not
			// clear the screen and draw a different pause over this one.
			call := termtext.Field(p.CallID)
			fmt.Fprintf(s.stderr, "paused: %s %s needs approval (call %s)\n  arguments: %s\n", termtext.Field(p.Tool), termtext.Field(string(p.Risk)), call, termtext.Line(p.Arguments))
			if p.Subagent != "" {
				fmt.Fprintf(s.stderr, "  asked by subagent %q (run %s)\n", termtext.Line(p.Subagent), termtext.Field(p.ChildRun))
			}
			if p.Reason != "" {
				fmt.Fprintf(s.stderr, "  why: %s\n", termtext.Line(s.svc.Redact(p.Reason)))
			}
			if p.Diff != "" {
				fmt.Fprint(s.stderr, gutter(termtext.Visible(p.Diff)))
			}
			fmt.Fprintf(s.stderr, "decide with: agent resume %s --approve %s   (or --deny %s --note TEXT)\n", s.runID, call, call)
		} else if out.Plan != "" {
			printPlanPause(s.stderr, s.runID, out.Plan)
		}
	case event.StatusInterrupted:
		fmt.Fprintf(s.stderr, "interrupted; continue with: agent resume %s\n", s.runID)
	case event.StatusBudgetExhausted:
		s.budgetPause(out)
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

// gutter sets each line of a pause's diff behind "  │ ", so no line of a
// file's content can pass for a line of the agent's own (a fake pause).
func gutter(diff string) string {
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	return "  │ " + strings.Join(lines, "\n  │ ") + "\n"
}

// printAnswer prints a run's final answer on w: made visible when w is a
// terminal, byte-exact when it is a file or a pipe.
func printAnswer(w io.Writer, answer string) {
	fmt.Fprintln(w, termtext.ForTerminal(w, answer))
}
