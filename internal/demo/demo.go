// Package demo owns `agent demo`: a scripted, offline session through the
// real agent loop in a temporary repository, for a newcomer without a model
// or a key. It shows, in four steps, an edit that needs approval (with its
// diff), a command, a SIGKILL of its own child `agent run` mid-command and
// the `agent resume` that does not re-run that command, and a rollback and
// its undo. The model is internal/replay's Server on loopback, playing canned
// turns; everything else (loop, tools, journal, checkpoints, approvals) is
// the real binary, run as child processes of the demo (os.Executable) or, on
// a terminal, the real TUI in this process.
//
// It must not write outside its temporary directory (removed at the end
// unless Keep), reach the network beyond its loopback listener, read the
// person's configuration or state, or leave a process behind. It must not
// reach into the loop: it drives the agent from outside, as a person would.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Form is how the demo is shown.
type Form int

const (
	// Plain narrates each step as text (not a terminal, or --plain).
	Plain Form = iota + 1
	// TUI shows the approval and the resume in the terminal UI.
	TUI
)

// Options configure a demo.
type Options struct {
	// Exe is the agent binary the demo runs as its child (os.Executable()).
	Exe string
	// Form is Plain or TUI.
	Form Form
	// Interactive, in the TUI form, waits for the person's keys at the
	// approval instead of answering it after a short pause.
	Interactive bool
	// Keep keeps the temporary directory and prints where it is.
	Keep bool
	// Out receives the narration (and, in the TUI form, must be the terminal).
	Out io.Writer
	// Env is the environment the children start from (default os.Environ());
	// the model, key, state and config variables are replaced.
	Env []string
	// Pause is how long the TUI form lets a person look before it answers
	// or moves on (0: 2s).
	Pause time.Duration
}

// Run plays the demo. It returns nil when every step showed what it should.
func Run(ctx context.Context, opt Options) (err error) {
	if opt.Exe == "" {
		return errors.New("demo: no agent binary to run")
	}
	if opt.Out == nil {
		opt.Out = os.Stdout
	}
	if opt.Env == nil {
		opt.Env = os.Environ()
	}
	if opt.Pause <= 0 {
		opt.Pause = 2 * time.Second
	}
	if opt.Form == 0 {
		opt.Form = Plain
	}
	w, err := newWorld(opt.Exe, opt.Env)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.close(opt.Keep); cerr != nil && err == nil {
			err = cerr
		}
		if opt.Keep {
			n := newNarrator(opt.Out)
			n.line("")
			n.line("kept: %s (the repository is repo/, the journal and checkpoints are state/)", w.root)
			n.line("  look around: AGENT_HOME=%s %s runs", w.state, "agent")
			n.line("  remove it:   rm -rf %s", w.root)
		}
	}()
	d := &demo{opt: opt, w: w, n: newNarrator(opt.Out)}
	return d.play(ctx)
}

// demo is one playing of the script.
type demo struct {
	opt Options
	w   *world
	n   *narrator
	kb  keyboard // the person's keys, in the TUI form

	editRun  string // the run of steps 1 and 2
	crashRun string // the run of step 3
}

func (d *demo) play(ctx context.Context) error {
	d.intro()
	steps := []func(context.Context) error{d.stepsEditAndCommand, d.stepCrash, d.stepRollback}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("demo interrupted: %w", ctx.Err())
			}
			return err
		}
	}
	d.outro()
	return nil
}

func (d *demo) stepsEditAndCommand(ctx context.Context) error {
	if d.opt.Form == TUI {
		return d.tuiEditAndCommand(ctx)
	}
	return d.plainEditAndCommand(ctx)
}

func (d *demo) intro() {
	n := d.n
	n.line("agent demo: a scripted session, offline, in under a minute.")
	n.line("A local stand-in model (127.0.0.1, canned answers) drives the real agent: its loop, tools,")
	n.line("journal, checkpoints and approvals, in a throwaway repository under %s.", d.w.root)
	n.line("No API key, no network; your own state and config are not touched.")
}

func (d *demo) outro() {
	n := d.n
	n.line("")
	n.line("That was the agent's runtime: an approval with its diff, a command journaled before and")
	n.line("after it ran, a crash that resume recovered without running the command again, and a")
	n.line("rollback that was itself undone. The model's answers were canned; the rest was real.")
	n.line("")
	n.line("Point it at a real model:")
	n.line("  export OPENAI_API_KEY=sk-...                 # OpenAI; or any OpenAI-compatible server:")
	n.line("  export OPENAI_BASE_URL=http://localhost:11434/v1 AGENT_MODEL=qwen2.5-coder   # Ollama, no key on loopback")
	n.line("  cd your/repo && agent                        # the TUI; headless: agent run \"fix the failing test\"")
	n.line("Then: agent runs, agent trace RUN_ID, agent checkpoints RUN_ID, agent rollback CHECKPOINT_ID.")
	n.line("The whole test suite: make test.")
}

// narrator writes the demo's own lines.
type narrator struct{ w io.Writer }

func newNarrator(w io.Writer) *narrator { return &narrator{w: w} }

func (n *narrator) line(format string, a ...any) {
	fmt.Fprintf(n.w, format+"\n", a...)
}

// step heads a step: what it shows and why it matters, one line each.
func (n *narrator) step(i int, title, why string) {
	n.line("")
	n.line("── Step %d/4 · %s", i, title)
	n.line("   %s", why)
}

// command shows a command line as a person would type it.
func (n *narrator) command(args ...string) {
	n.line("   $ agent %s", shellJoin(args))
}

// output shows a child's output, indented under its command.
func (n *narrator) output(text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		n.line("   │ %s", l)
	}
}

// fact is a checked result of a step.
func (n *narrator) fact(format string, a ...any) {
	n.line("   ✓ "+format, a...)
}

// shellJoin quotes what a shell would need quoted.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// shortID is the first 12 characters of a checkpoint id, as the CLI prints it.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
