package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/charmbracelet/x/term"

	"agent/internal/app"
	"agent/internal/tui"
)

// The TUI form: steps 1 and 2 and the resume of step 3 are the real TUI in
// this process, on the person's terminal. The demo plays the person: it
// types the request on a keyboard of its own, merged with the person's keys,
// and watches what the TUI writes to the terminal for the approval prompt
// and the answers (cues), so that it answers only what is on screen.

// cueTimeout bounds the wait for one cue; past it the demo goes on (the
// trace check afterwards says whether the step happened).
const cueTimeout = 20 * time.Second

// tuiEditAndCommand is steps 1 and 2 in the TUI.
func (d *demo) tuiEditAndCommand(ctx context.Context) error {
	n, w := d.n, d.w
	ms, err := w.serve(editScript())
	if err != nil {
		return err
	}
	d.headEdit()
	if d.opt.Interactive {
		n.line("   The TUI opens and the demo types the request. The approval is yours: 1/y allows once, 3/n denies.")
		n.line("   When you have seen enough, quit with ctrl+c twice: the demo goes on.")
	} else {
		n.line("   The TUI opens, the demo types the request and answers the approval (1: allow once) after a pause.")
	}
	d.pause(ctx)
	set := d.settings(ms, checkRule)
	res, err := d.session(ctx, tui.Options{Settings: set}, func(ctx context.Context, s *screen) error {
		if err := s.wait(ctx, "Ask,or/"); err != nil {
			return err
		}
		asked := s.arm("allowonce")
		if err := s.typeText(ctx, editPrompt); err != nil {
			return err
		}
		s.press("\r")
		if d.opt.Interactive {
			return errInteractive
		}
		s.await(ctx, asked)
		d.pause(ctx)
		done := s.arm(cueEditDone)
		s.press("1")
		s.await(ctx, done)
		d.pause(ctx)
		return nil
	})
	if err != nil {
		return err
	}
	d.editRun = res.RunID
	if d.editRun == "" {
		return errors.New("demo: the TUI session started no run")
	}
	evs, err := d.trace(ctx, d.editRun)
	if err != nil {
		return err
	}
	if d.opt.Interactive {
		if edit, command, allowed := personsEdit(evs); !allowed {
			n.fact("%s", edit)
			d.headCommand()
			n.fact("%s", command)
			return nil
		}
	}
	if err := d.factsEdit(evs); err != nil {
		return err
	}
	d.headCommand()
	if err := d.factsCommand(evs); err != nil {
		return err
	}
	if !d.opt.Interactive {
		return modelErr(ms)
	}
	return nil
}

// personsEdit says what the person did with the edit's approval in
// --interactive: what the demo tells of the edit and of the command step
// when they did not allow it (a deny, or quitting the TUI before deciding).
func personsEdit(evs []event) (edit, command string, allowed bool) {
	ap, ok := find(evs, "approval", editCall)
	switch {
	case ok && ap.Decision == "allow":
		return "", "", true
	case ok:
		return "you denied the edit, so nothing was written: that is the point of ask mode",
			"skipped: a person's denial ends the turn, so the model never got to the check", false
	}
	return "you quit before deciding on the edit, so nothing was written: in ask mode nothing changes until you allow it",
		"skipped: the run stopped at the approval, so the model never got to the check", false
}

// tuiResume is the resume of step 3 in the TUI: `agent resume RUN_ID` on a
// terminal opens the run and says what it decided about the cut-off call.
func (d *demo) tuiResume(ctx context.Context, ms *modelServer) error {
	n := d.n
	n.line("   Now `agent resume %s` on a terminal: the TUI reopens the run and says what it decided.", d.crashRun)
	if d.opt.Interactive {
		n.line("   Quit with ctrl+c twice when you have read it.")
	}
	d.pause(ctx)
	set := d.settings(ms, deployRule)
	_, err := d.session(ctx, tui.Options{Settings: set, ResumeID: d.crashRun}, func(ctx context.Context, s *screen) error {
		done := s.arm(cueRecovered)
		if d.opt.Interactive {
			return errInteractive
		}
		s.await(ctx, done)
		d.pause(ctx)
		return nil
	})
	return err
}

// settings are the TUI's settings: everything in the world, the stand-in
// model, ask mode with one rule.
func (d *demo) settings(ms *modelServer, rule string) *app.Settings {
	return &app.Settings{Workspace: d.w.repo, Home: d.w.state, Model: demoModel, BaseURL: ms.url,
		Approval: "ask", Allow: []string{rule}, MaxSteps: 20, CommandTimeoutSec: 60}
}

// pause lets a person look.
func (d *demo) pause(ctx context.Context) {
	t := time.NewTimer(d.opt.Pause)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// errInteractive: the drive is done, the person ends the session.
var errInteractive = errors.New("the person drives")

// session runs one TUI session on the terminal while drive plays its part;
// when drive returns nil the demo quits the TUI (ctrl+c twice), when it
// returns errInteractive the person does.
func (d *demo) session(ctx context.Context, o tui.Options, drive func(context.Context, *screen) error) (tui.Result, error) {
	out, ok := d.opt.Out.(*os.File)
	if !ok || !term.IsTerminal(out.Fd()) || !term.IsTerminal(os.Stdin.Fd()) {
		return tui.Result{}, errors.New("demo: the TUI form needs a terminal (use --plain)")
	}
	restoreEnv := d.w.isolate()
	defer restoreEnv()
	restoreTerm, err := rawInput(os.Stdin)
	if err != nil {
		return tui.Result{}, fmt.Errorf("demo: the terminal: %w", err)
	}
	defer restoreTerm()

	pr, pw := io.Pipe()
	scr := &screen{keys: pw}
	d.kb.attach(pw)
	defer d.kb.detach()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	o.In, o.Out, o.Env = pr, ttyTee{File: out, scr: scr}, d.opt.Env
	done := make(chan tui.Result, 1)
	go func() {
		res := tui.Run(sctx, o)
		pr.Close()
		done <- res
	}()
	driven := make(chan error, 1)
	go func() { driven <- drive(sctx, scr) }()

	var res tui.Result
	select {
	case res = <-done:
		if !d.opt.Interactive && res.Err == nil && ctx.Err() == nil {
			return res, errors.New("demo: the TUI was closed before the demo was done with it; run agent demo again (--interactive lets you drive, --plain narrates as text)")
		}
	case err := <-driven:
		quit := time.NewTimer(quitGrace)
		res = endSession(err, scr, done, cancel, quit.C)
		quit.Stop()
	}
	cancel()
	pw.Close()
	if res.Err != nil {
		return res, fmt.Errorf("demo: %w", res.Err)
	}
	return res, ctx.Err()
}

// quitGrace is how long the demo waits for the TUI to quit after it
// pressed ctrl+c twice, before it cancels the session.
const quitGrace = 5 * time.Second

// endSession waits for the TUI once drive has returned err: nil, the demo
// quits it (ctrl+c twice, cancelled if it has not ended by grace);
// errInteractive, the person does, however long they take (the demo's
// context still ends it); another error cancels it.
func endSession(err error, scr *screen, done <-chan tui.Result, cancel func(), grace <-chan time.Time) tui.Result {
	switch {
	case errors.Is(err, errInteractive):
		return <-done
	case err == nil:
		scr.press("\x03\x03") // ctrl+c twice: the TUI's own quit
	default:
		cancel()
	}
	select {
	case res := <-done:
		return res
	case <-grace:
		cancel()
		return <-done
	}
}

// isolate points this process's HOME, config and temporary directory into
// the world while the TUI runs here (its commands and the user-level
// AGENTS.md lookup read them), and returns how to put them back.
func (w *world) isolate() func() {
	set := map[string]string{"HOME": w.home, "XDG_CONFIG_HOME": filepath.Join(w.home, ".config"), "TMPDIR": w.tmp,
		"XDG_STATE_HOME": filepath.Join(w.home, ".local", "state"), "XDG_CACHE_HOME": filepath.Join(w.home, ".cache")}
	type saved struct {
		v  string
		ok bool
	}
	prev := map[string]saved{}
	for k, v := range set {
		old, ok := os.LookupEnv(k)
		prev[k] = saved{old, ok}
		os.Setenv(k, v)
	}
	return func() {
		for k, s := range prev {
			if s.ok {
				os.Setenv(k, s.v)
			} else {
				os.Unsetenv(k)
			}
		}
	}
}

// ttyTee is the terminal with the demo watching what is written to it. It
// is still the terminal's *os.File for Bubble Tea (size, resize, colour).
type ttyTee struct {
	*os.File
	scr *screen
}

func (t ttyTee) Write(p []byte) (int, error) {
	t.scr.feed(p)
	return t.File.Write(p)
}

func (t ttyTee) WriteString(s string) (int, error) { return t.Write([]byte(s)) }
