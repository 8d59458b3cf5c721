package demo

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Step 1 and 2 in plain text: `agent run` pauses at the edit with its diff
// (exit 3); `agent resume --approve` approves it, and the check runs under
// a rule.
func (d *demo) plainEditAndCommand(ctx context.Context) error {
	n, w := d.n, d.w
	ms, err := w.serve(editScript())
	if err != nil {
		return err
	}
	env := w.envWith(ms)
	d.headEdit()
	runArgs := []string{"run", "--approval", "ask", "--allow", checkRule, editPrompt}
	n.command(runArgs...)
	r, err := w.agent(ctx, env, runArgs...)
	if err != nil {
		return err
	}
	n.output(r.stderr)
	if err := r.want(ExitPaused, "agent run"); err != nil {
		return err
	}
	d.editRun = r.runID()
	if got := w.read("main.go"); strings.Contains(got, "Hello, world") {
		return fmt.Errorf("demo: main.go changed before the edit was approved:\n%s", got)
	}
	n.fact("paused, awaiting approval (exit 3): the run waits on disk, and main.go is untouched")
	n.line("   You approve the edit once (in the TUI: the key 1 or y):")
	resumeArgs := []string{"resume", d.editRun, "--approve", editCall}
	n.command(resumeArgs...)
	r, err = w.agent(ctx, env, resumeArgs...)
	if err != nil {
		return err
	}
	first, rest := splitAtStep(r.stderr, 2)
	n.output(first)
	if err := r.want(0, "agent resume --approve"); err != nil {
		return err
	}
	evs, err := d.trace(ctx, d.editRun)
	if err != nil {
		return err
	}
	if err := d.factsEdit(evs); err != nil {
		return err
	}
	d.headCommand()
	n.output(rest)
	n.output(r.stdout)
	if err := d.factsCommand(evs); err != nil {
		return err
	}
	return modelErr(ms)
}

// ExitPaused is the contract's exit code of a run awaiting approval.
const ExitPaused = 3

func (d *demo) headEdit() {
	d.n.step(1, "An edit that needs your approval",
		"In ask mode nothing is written until a person says yes: the run pauses with the exact diff, and the decision is audited.")
}

func (d *demo) headCommand() {
	d.n.step(2, "A command",
		"A rule ("+checkRule+") lets this command run without asking; it is journaled before it starts and after it ends.")
}

// factsEdit checks and says what step 1 did.
func (d *demo) factsEdit(evs []event) error {
	ap, ok := find(evs, "approval", editCall)
	if !ok || ap.Decision != "allow" || ap.Source != "user" {
		return fmt.Errorf("demo: the edit was not approved by a person (approval %+v)", ap)
	}
	cp, _ := checkpointOf(evs, editCall, "before")
	if got := d.w.read("main.go"); !strings.Contains(got, `"Hello, world"`) {
		return fmt.Errorf("demo: main.go was not edited after the approval:\n%s", got)
	}
	d.n.fact("approved by you, once (an audit row before the edit ran); checkpoint %s taken before it; main.go now says \"Hello, world\"", shortID(cp))
	return nil
}

// factsCommand checks and says what step 2 did.
func (d *demo) factsCommand(evs []event) error {
	ap, ok := find(evs, "approval", checkCall)
	if !ok || ap.Decision != "allow" || ap.Source != "rule" {
		return fmt.Errorf("demo: the check was not allowed by its rule (approval %+v)", ap)
	}
	res, ok := find(evs, "tool_result", checkCall)
	if !ok || res.Status != "ok" {
		return fmt.Errorf("demo: the check did not pass (result %+v)", res)
	}
	out, _, _ := strings.Cut(res.Output, "\n")
	d.n.fact("sh check.sh ran without a prompt (allowed by the rule), exit 0: %q", out)
	return nil
}

// stepCrash is step 3, in both forms: a child `agent run` SIGKILLed while
// its command runs, then `agent resume` (plain, or in the TUI).
func (d *demo) stepCrash(ctx context.Context) error {
	n, w := d.n, d.w
	ms, err := w.serve(crashScript())
	if err != nil {
		return err
	}
	env := w.envWith(ms)
	n.step(3, "A crash mid-command, and a resume that does not re-run it",
		"The demo kills its own child `agent run` with SIGKILL while `sh deploy.sh` runs: no cleanup, like a power cut.")
	n.line("   A command may have had effects, so agent resume never runs it again by itself: the model is told its outcome is unknown.")
	runArgs := []string{"run", "--approval", "ask", "--allow", deployRule, crashPrompt}
	n.command(runArgs...)
	c, err := w.runAndKill(ctx, env, runArgs...)
	n.output(c.res.stderr)
	if err != nil {
		return err
	}
	d.crashRun = c.res.runID()
	if d.crashRun == "" {
		return fmt.Errorf("demo: agent run printed no run id:\n%s", c.res.stderr)
	}
	n.line("   ✗ SIGKILL → agent run (pid %d) while sh deploy.sh was running; the run is left mid-command in the journal", c.pid)
	if d.opt.Form == TUI {
		if err := d.tuiResume(ctx, ms); err != nil {
			return err
		}
	} else {
		resumeArgs := []string{"resume", d.crashRun, "--headless"}
		n.command(resumeArgs...)
		r, err := w.agent(ctx, env, resumeArgs...)
		if err != nil {
			return err
		}
		n.output(r.stderr)
		n.output(r.stdout)
		if err := r.want(0, "agent resume"); err != nil {
			return err
		}
	}
	evs, err := d.trace(ctx, d.crashRun)
	if err != nil {
		return err
	}
	rs, _ := find(evs, "resume", "")
	action := ""
	for _, ic := range rs.Interrupted {
		if ic.CallID == deployCall {
			action = ic.Action
		}
	}
	if action != "not_rerun" {
		return fmt.Errorf("demo: the resume decided %q for the deploy, want not_rerun", action)
	}
	lines := strings.Count(w.read("deploy.log"), "deployed")
	if lines != 1 {
		return fmt.Errorf("demo: deploy.log records %d deploys, want 1", lines)
	}
	n.fact("the deploy was not re-run: the resume journaled not_rerun, ended the command's leftover process, and deploy.log records 1 deploy")
	return modelErr(ms)
}

// stepRollback is step 4: roll the edit back, then undo the rollback.
func (d *demo) stepRollback(ctx context.Context) error {
	n, w := d.n, d.w
	n.step(4, "A rollback, and its undo",
		"agent rollback puts the files back as they were at a checkpoint; it checkpoints the present first, so a rollback can be undone.")
	cp, err := d.rollbackTarget(ctx)
	if err != nil {
		return err
	}
	before := w.snapshot()
	args := []string{"rollback", cp}
	n.command(args...)
	r, err := w.agent(ctx, w.env, args...)
	if err != nil {
		return err
	}
	n.output(r.stderr)
	if err := r.want(0, "agent rollback"); err != nil {
		return err
	}
	undo := strings.TrimSpace(r.stdout)
	rolled := w.snapshot()
	if maps.Equal(before, rolled) || undo == "" {
		return fmt.Errorf("demo: the rollback changed nothing (undo id %q)", undo)
	}
	n.fact("rolled back: %s", describe(before, rolled))
	n.line("   Undo the rollback with the checkpoint it printed:")
	args = []string{"rollback", undo}
	n.command(args...)
	r, err = w.agent(ctx, w.env, args...)
	if err != nil {
		return err
	}
	n.output(r.stderr)
	if err := r.want(0, "agent rollback (the undo)"); err != nil {
		return err
	}
	after := w.snapshot()
	if !maps.Equal(before, after) {
		return fmt.Errorf("demo: the undo did not bring the files back: %s", describe(before, after))
	}
	n.fact("undo: every file is back as it was before the rollback (%s)", describe(rolled, after))
	return nil
}

// rollbackTarget is the checkpoint before the edit (or, when a person
// denied the edit in --interactive, the one before the deploy).
func (d *demo) rollbackTarget(ctx context.Context) (string, error) {
	for _, t := range []struct{ run, call string }{{d.editRun, editCall}, {d.crashRun, deployCall}} {
		if t.run == "" {
			continue
		}
		evs, err := d.trace(ctx, t.run)
		if err != nil {
			return "", err
		}
		if cp, ok := checkpointOf(evs, t.call, "before"); ok {
			return cp, nil
		}
	}
	return "", fmt.Errorf("demo: no checkpoint to roll back to")
}

// trace is `agent trace RUN --json`.
func (d *demo) trace(ctx context.Context, run string) ([]event, error) {
	r, err := d.w.agent(ctx, d.w.env, "trace", run, "--json")
	if err != nil {
		return nil, err
	}
	if err := r.want(0, "agent trace"); err != nil {
		return nil, err
	}
	return events(r.stdout)
}

func checkpointOf(evs []event, call, kind string) (string, bool) {
	for _, ev := range evs {
		if ev.Type == "checkpoint" && ev.CallID == call && ev.Kind == kind {
			return ev.ID, true
		}
	}
	return "", false
}

// modelErr is what the stand-in model saw go differently than scripted.
func modelErr(ms *modelServer) error {
	if err := ms.srv.Err(); err != nil {
		return fmt.Errorf("demo: the stand-in model saw the conversation go off script: %w", err)
	}
	return nil
}

// splitAtStep cuts a run's progress before its "step N:" line.
func splitAtStep(s string, step int) (string, string) {
	marker := fmt.Sprintf("\nstep %d:", step)
	if i := strings.Index(s, marker); i >= 0 {
		return s[:i+1], s[i+1:]
	}
	return s, ""
}

// read is a repository file ("" when absent).
func (w *world) read(name string) string {
	b, _ := os.ReadFile(filepath.Join(w.repo, name))
	return string(b)
}

// snapshot is the repository's regular files and their contents.
func (w *world) snapshot() map[string]string {
	files := map[string]string{}
	entries, _ := os.ReadDir(w.repo)
	for _, e := range entries {
		if e.Type().IsRegular() {
			files[e.Name()] = w.read(e.Name())
		}
	}
	return files
}

// describe says how the files in b differ from a.
func describe(a, b map[string]string) string {
	var parts []string
	for _, name := range sortedKeys(a, b) {
		av, inA := a[name]
		bv, inB := b[name]
		switch {
		case inA && !inB:
			parts = append(parts, name+" is gone (created after the checkpoint)")
		case !inA && inB:
			parts = append(parts, name+" is back")
		case av != bv && name == "main.go":
			parts = append(parts, "main.go says "+greeting(bv)+" again")
		case av != bv:
			parts = append(parts, name+" changed")
		}
	}
	if len(parts) == 0 {
		return "no file changed"
	}
	return strings.Join(parts, ", ")
}

// greeting is what main.go prints.
func greeting(src string) string {
	_, after, ok := strings.Cut(src, "fmt.Println(")
	if !ok {
		return "something else"
	}
	g, _, _ := strings.Cut(after, ")")
	return g
}

func sortedKeys(ms ...map[string]string) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}
