package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/tui"
)

func newResumeCmd() *cobra.Command {
	var f runFlags
	var dec decisionFlags
	var message string
	var headless, compact bool
	c := &cobra.Command{
		Use:   "resume RUN_ID",
		Short: "Continue a run that crashed, was interrupted, is awaiting approval or has ended",
		Long: `Continue a run from its journal. Calls that were interrupted are handled so that no
side effect happens twice: read-only calls run again, file edits are redone from
their before-checkpoint, and a command that may have started is never run again:
the model is told its outcome is unknown, with the files changed since it started.

A paused run (exit 3) is decided with --approve CALL_ID or --deny CALL_ID [--note TEXT].
A run paused at its plan (--approval plan) is decided with --approve plan, which
goes on in the mode --approval names (default ask), or --deny plan --note TEXT
(or --message TEXT), which keeps it planning with your note.
A run paused at its budget (exit 4) goes on with a raised --budget-tokens, --budget-usd
or --budget-time (journaled as budget_changed); only the requests not yet sent are sent.
--message adds a new user message to the same conversation. Resuming a finished run
without a message prints its final answer.

--compact compacts the context before the next model request, as /compact does
in the TUI: older rounds are folded into a summary, old tool outputs masked,
reads of files edited since dropped (journaled as a compaction event with
trigger "forced"). On a finished run without --message it compacts at once,
so the next message starts from the smaller context.`,
		Example: `  agent resume 20261129T203216-3f9a1c
  agent resume 20261129T2032 --approve call_7
  agent resume 20261129T2032 --deny call_7 --note "use git mv instead"
  agent resume 20261129T2032 --approve plan --approval auto-edit
  agent resume 20261129T2032 --message "now add a test for it"
  agent resume 20261129T2032 --compact --message "go on"
  agent resume 20261129T2032 --budget-usd 5`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := dec.decisions()
			if err != nil {
				return err
			}
			if !headless && !f.json && onTerminal() {
				return resumeTUI(cmd, &f, args[0], resumeRequest{opt, message, compact})
			}
			return resumeRun(cmd, &f, args[0], resumeRequest{opt, message, compact})
		},
	}
	f.register(c, false)
	fl := c.Flags()
	fl.StringVar(&dec.approve, "approve", "", "allow the pending call CALL_ID once")
	fl.StringVar(&dec.deny, "deny", "", "deny the pending call CALL_ID (with --note, the model is told why and the run goes on)")
	fl.StringVar(&dec.note, "note", "", "a note to the model that goes with --deny")
	fl.StringVar(&dec.scope, "scope", "once", "with --approve: once (this call only) or run (calls like it, for this run, until [approvals] run_grant_ttl)")
	fl.StringVar(&message, "message", "", "add a new user message and continue")
	fl.BoolVar(&compact, "compact", false, "compact the context before the next model request (older rounds summarized, old tool outputs masked)")
	fl.BoolVar(&headless, "headless", false, "never open the TUI (the default when stdout is not a terminal)")
	return c
}

// decisionFlags are --approve, --deny, --note and --scope.
type decisionFlags struct{ approve, deny, note, scope string }

// decisions are the person's decisions the flags give, by call id: the
// same protocol.Decision a TUI or an editor answers with.
func (f decisionFlags) decisions() (map[string]protocol.Decision, error) {
	if f.note != "" && f.deny == "" {
		return nil, usageErr("--note goes with --deny CALL_ID")
	}
	sc := event.Scope(f.scope)
	if sc != "" && sc != event.ScopeOnce && sc != event.ScopeRun {
		return nil, usageErr("--scope is once or run")
	}
	out := map[string]protocol.Decision{}
	if f.approve != "" {
		out[f.approve] = protocol.Decision{Verdict: protocol.Allow, Scope: sc}
	}
	if f.deny != "" {
		if f.deny == f.approve {
			return nil, usageErr("call %s: --approve or --deny, not both", f.deny)
		}
		out[f.deny] = protocol.DenyCall(f.note)
	}
	return out, nil
}

// resumeRequest is what a resume asks for beside the run.
type resumeRequest struct {
	opt     map[string]protocol.Decision // by call id
	message string
	compact bool // compact before the next model request
}

func resumeRun(cmd *cobra.Command, f *runFlags, id string, req resumeRequest) error {
	ctx := cmd.Context()
	opt, message := req.opt, req.message
	h, err := openHome(cmd)
	if err != nil {
		return err
	}
	peek, err := h.Peek(ctx, id)
	h.Close()
	if err != nil {
		return appErr(err)
	}
	row := peek.Run
	f.priorSandbox = peek.Sandbox
	idle := protocol.Finished(peek.Status) && message == "" && len(opt) == 0
	if idle && !req.compact {
		// Nothing to continue: print the final answer, as the contract says.
		fmt.Fprintf(os.Stderr, "run: %s\n", row.ID)
		if !f.json {
			printAnswer(cmd.OutOrStdout(), peek.Answer)
		}
		return nil
	}
	if f.dir == "" {
		f.dir = row.Workspace
	}
	set, err := settingsFor(f, peek.Prior)
	if err != nil {
		return err
	}
	s, err := openSession(ctx, set, f, cmd)
	if err != nil {
		return err
	}
	defer s.close()
	s.started(row.ID)
	run, err := s.svc.OpenRun(ctx, row.ID)
	if err != nil {
		return appErr(err)
	}
	defer run.Close()
	if idle {
		// --compact alone on a finished run: compact now, for the next message.
		c, err := run.Compact(ctx)
		if err != nil {
			return appErr(err)
		}
		if c == nil { // a compaction is in the progress already
			fmt.Fprintln(os.Stderr, "nothing to compact yet")
		}
		if !f.json {
			printAnswer(cmd.OutOrStdout(), peek.Answer)
		}
		return nil
	}
	if open := run.OpenCalls(); message != "" && len(open) > 0 {
		return usageErr("run %s has calls without results (%s); decide them with --approve/--deny before adding a message", row.ID, fmt.Sprint(open))
	}
	if done, err := decidePlan(ctx, run, set, req); done || err != nil {
		if err != nil {
			return appErr(err)
		}
		if d, ok := opt[planID]; !ok || d.Verdict != protocol.Allow {
			message = "" // a rejection's note went to the model with it
		}
		delete(opt, planID)
	}
	for callID, d := range opt {
		if err := run.Decide(ctx, callID, d); err != nil {
			return appErr(err)
		}
	}
	// The resume event marks the run running again (the runs row folds it).
	if err := run.Resume(ctx); err != nil {
		return appErr(err)
	}
	if message != "" {
		if err := run.Message(ctx, message); err != nil {
			return appErr(err)
		}
	}
	if req.compact {
		run.CompactNext()
	}
	return s.finish(cmd, run.Drive(ctx))
}

// resumeTUI reopens a run in the interactive session, in its workspace.
func resumeTUI(cmd *cobra.Command, f *runFlags, id string, req resumeRequest) error {
	h, err := openHome(cmd)
	if err != nil {
		return err
	}
	peek, err := h.PeekRow(cmd.Context(), id) // the row is enough: the TUI folds the journal once
	h.Close()
	if err != nil {
		return appErr(err)
	}
	row := peek.Run
	f.priorSandbox = peek.Sandbox
	if f.dir == "" {
		f.dir = row.Workspace
	}
	set, err := settingsFor(f, peek.Prior)
	if err != nil {
		return err
	}
	return runTUIWith(cmd, set, tui.Options{ResumeID: row.ID, Decisions: req.opt, Message: req.message, Compact: req.compact})
}
