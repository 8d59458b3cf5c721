// Package tui owns the terminal UI: a Bubble Tea v2 program whose root model
// composes the transcript, the composer, the approval prompt, the drawers,
// the activity line, the status bar and the help overlay (each a package
// under internal/tui), fed by an app.Service's updates and sending it
// requests. A task call's children (protocol.UpdateChild) are live rows
// under its card and each keeps a read-only transcript (children.go,
// childview.go); "fork from here" forks in place through app (fork.go).
// It implements the approval Prompter by handing the request to
// the program with a reply channel; it never reaches into the loop. When
// the session ends it prints the transcript to the normal screen, for the
// terminal's scrollback.
//
// It must not journal, decide approvals by itself (a person does), or show
// anything that did not pass redaction (the service's updates and journal
// have; text typed by the person is theirs).
package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"agent/internal/app"
	"agent/internal/protocol"
)

// Options start a TUI session.
type Options struct {
	Settings *app.Settings
	// ResumeID, when set, reopens that run: its transcript, any pending
	// approval, and what the resume decided about interrupted calls.
	ResumeID string
	// Decisions are a person's decisions on the calls the run paused on,
	// by call id (agent resume --approve/--deny on a terminal).
	Decisions map[string]protocol.Decision
	// Message, when set with ResumeID, is sent as the next user message.
	Message string
	// Compact, with ResumeID, compacts the context before the next model
	// request (agent resume --compact).
	Compact bool
	// In and Out are the terminal (default: stdin and stdout).
	In  io.Reader
	Out io.Writer
	// Env is the environment the program sees (default: os.Environ()).
	Env []string
}

// Result is how a TUI session ended.
type Result struct {
	// RunID is the run shown last ("" if none was started).
	RunID string
	// Err is a failure that ended the session (the terminal is restored).
	Err error
}

// Run runs the TUI until the person quits. The terminal is left clean.
func Run(ctx context.Context, opt Options) Result {
	pr, err := start(ctx, opt)
	if err != nil {
		return Result{Err: err}
	}
	return pr.run(ctx)
}

// program is a TUI session: the service, the root model and the Bubble Tea
// program that drives it.
type program struct {
	svc   *app.Service
	m     *model
	p     *tea.Program
	snd   *sender
	unsub func()
	out   io.Writer // the terminal, which keeps the transcript after the session
}

// start wires a session; extra options are for tests (a window size, no
// renderer, no input).
func start(ctx context.Context, opt Options, extra ...tea.ProgramOption) (*program, error) {
	snd := &sender{}
	started := func() {}
	if opt.ResumeID == "" { // a reopening allocates too much for this
		started = quietStart()
	}
	svc, err := app.Open(ctx, app.Options{Settings: opt.Settings, Decides: true, Live: true, Warn: snd.warn})
	if err != nil {
		started()
		return nil, err
	}
	m := newModel(ctx, svc, opt)
	m.started = started
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opt.In != nil {
		popts = append(popts, tea.WithInput(opt.In))
	}
	if opt.Out != nil {
		popts = append(popts, tea.WithOutput(opt.Out))
	}
	env := opt.Env
	if env == nil {
		env = os.Environ()
	}
	popts = append(popts, tea.WithEnvironment(env))
	if noColor(env) {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	p := tea.NewProgram(m, append(popts, extra...)...)
	snd.attach(p)
	co := newCoalescer(func(u protocol.Update) { p.Send(updateMsg{u}) })
	unsub := svc.Subscribe(co.update)
	out := opt.Out
	if out == nil {
		out = os.Stdout
	}
	return &program{svc: svc, m: m, p: p, snd: snd, unsub: unsub, out: out}, nil
}

func (pr *program) run(ctx context.Context) Result {
	_, err := pr.p.Run()
	pr.m.started() // if the first frame never came
	pr.unsub()
	pr.snd.attach(nil)
	if err == nil {
		pr.m.scrollback(pr.out)
	}
	pr.m.shutdown()
	pr.svc.Close()
	res := Result{RunID: pr.m.runID()}
	if err != nil && ctx.Err() == nil {
		res.Err = fmt.Errorf("terminal UI: %w", err)
	}
	return res
}

// noColor: NO_COLOR set to anything but the empty string.
func noColor(env []string) bool {
	for _, kv := range env {
		if len(kv) > 9 && kv[:9] == "NO_COLOR=" {
			return true
		}
	}
	return false
}

// updateMsg carries an app update into the program.
type updateMsg struct{ u protocol.Update }

// warnMsg is a warning of the service, for the person.
type warnMsg struct{ text string }

// sender hands the service's warnings to the program once it runs (before
// and after, they are dropped).
type sender struct {
	mu sync.Mutex
	p  *tea.Program
}

func (s *sender) attach(p *tea.Program) {
	s.mu.Lock()
	s.p = p
	s.mu.Unlock()
}

func (s *sender) warn(text string) {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p != nil {
		p.Send(warnMsg{text})
	}
}
