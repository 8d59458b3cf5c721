package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/tui/activity"
	"agent/internal/tui/approve"
	"agent/internal/tui/composer"
	"agent/internal/tui/diffview"
	"agent/internal/tui/drawer"
	"agent/internal/tui/help"
	"agent/internal/tui/picker"
	"agent/internal/tui/rewind"
	"agent/internal/tui/theme"
)

// phase is what the session is doing, for the keys and the status bar.
type phase uint8

const (
	phaseIdle phase = iota
	phaseStarting
	phaseRunning
	phaseQuitting
)

// overlay is what covers the transcript, if anything.
type overlay uint8

const (
	overlayNone overlay = iota
	overlayHelp
	overlayContext
	overlayCheckpoints
	overlayPicker
	overlayDiff
	overlayRewind
	overlayChild // a subagent's transcript (childview.go)
)

// model is the root model. It is used through a pointer: the program and
// the commands it starts share it.
type model struct {
	ctx  context.Context
	svc  *app.Service
	opt  Options
	th   *theme.Theme
	dark bool
	// profile is the terminal's colour profile: the diff colours are
	// chosen for it (theme.NewFor)
	profile colorprofile.Profile
	// started is called once the first frame is out (startup.go)
	started func()

	width, height int

	tr      *transcriptState
	run     *app.Run
	phase   phase
	queued  []string // messages typed while a run is driven
	overlay overlay
	picker  *picker.Model // the open picker (overlayPicker)
	pick    pickKind

	input composer.Model
	dv    *diffview.Renderer // draws diffs in cards, the prompt and the checkpoint preview
	// dvSplit draws the prompt's diff side by side (t)
	dvSplit *diffview.Renderer
	diff    *diffview.Model // /diff: the run's changes so far
	// promptDiff: the diff overlay is the approval prompt's (f)
	promptDiff bool

	// approvals waiting for the person: the prompt shows them, asks holds
	// each one's request by prompt id; the answer goes back as the run's
	// Decide
	approve *approve.Model
	asks    map[string]protocol.ApprovalRequest
	askSeq  int
	now     func() time.Time

	ctxDrawer *drawer.ContextDrawer
	cpDrawer  *drawer.CheckpointDrawer
	rw        *rewind.Model // the rewind list (overlayRewind)
	help      *help.Model

	ctrlC   time.Time // the first ctrl+c, for "twice quits"
	prefixX bool      // ctrl+x pressed: the next key picks a drawer
	lastEsc time.Time // Esc Esc opens the rewind list
	mouse   bool
	flash   string
	plan    string // the plan the run waits on (plan mode), while its prompt is open

	life     life      // the sign of life while something runs (life.go)
	subs     subagents // the children of task calls (children.go)
	childIdx int       // the child the subagent view shows
}

// askGuard is how long after an approval prompt opens its keys are ignored,
// so a keystroke meant for the composer cannot approve.
const askGuard = 300 * time.Millisecond

func newModel(ctx context.Context, svc *app.Service, opt Options) *model {
	dark := true
	m := &model{ctx: ctx, svc: svc, opt: opt, dark: dark, th: theme.New(dark, noColor(envOf(opt))), profile: colorprofile.TrueColor,
		now: time.Now, asks: map[string]protocol.ApprovalRequest{}, started: func() {}}
	m.input = m.newComposer()
	m.dv = diffview.NewRenderer(diffview.Options{Theme: m.th})
	m.dvSplit = diffview.NewRenderer(diffview.Options{Theme: m.th, Mode: diffview.Split})
	m.tr = newTranscript(m.th, m.renderDiff)
	m.life.act = activity.New(activity.Options{Theme: m.th, Now: func() time.Time { return m.now() }})
	m.orient()
	m.themed()
	return m
}

// newComposer makes the composer for the current theme.
func (m *model) newComposer() composer.Model {
	set := m.svc.Settings()
	c := composer.New(m.ctx, composer.Options{Theme: m.th, Files: composer.WorkspaceFiles(set.Workspace),
		HistoryPath: filepath.Join(set.Home, "history.jsonl"), HistoryRedact: m.svc.Redact, Inline: true})
	c.Focus()
	return c
}

// themed builds the components for the current theme (at start, and when
// the terminal reports its background).
func (m *model) themed() {
	now := func() time.Time { return m.now() }
	var queued []approve.Request
	if m.approve != nil {
		for m.approve.Active() {
			r, _ := m.approve.Head()
			queued = append(queued, r)
			m.approve.Drop(r.ID)
		}
	}
	m.dv.SetTheme(m.th)
	m.dvSplit.SetTheme(m.th)
	m.approve = approve.New(approve.Options{Theme: m.th, Now: now, Guard: askGuard, RenderDiff: m.dv.Render, RenderSplit: m.dvSplit.Render})
	for _, r := range queued {
		m.approve.Push(r)
	}
	m.ctxDrawer = drawer.NewContext(drawer.Options{Theme: m.th})
	m.cpDrawer = drawer.NewCheckpoints(drawer.Options{Theme: m.th, RenderDiff: m.dv.Render})
	var cmds []help.Command
	for _, c := range composer.DefaultCommands() {
		name := "/" + string(c.Name)
		for _, a := range c.Aliases {
			name += " /" + a
		}
		cmds = append(cmds, help.Command{Name: name, Args: c.Args, Summary: c.Help})
	}
	m.help = help.New(help.Options{Theme: m.th, Commands: cmds})
	m.input.SetTheme(m.th)
	m.life.act.SetTheme(m.th)
	if m.tr != nil {
		m.tr.view.SetTheme(m.th, nil)
	}
	m.layout()
}

// layout gives the components their sizes.
func (m *model) layout() {
	if m.width == 0 {
		return
	}
	// the prompt takes the screen but three transcript rows and the status
	// line: at 80x24 the changed lines of a small edit show unscrolled
	m.approve.SetSize(m.width, max(8, m.height-4))
	m.ctxDrawer.SetSize(m.width, m.height-2)
	m.cpDrawer.SetSize(m.width, m.height-2)
	if m.rw != nil {
		m.rw.SetSize(m.width, m.height-2)
	}
	m.help.SetSize(m.width, m.height-2)
	if m.picker != nil {
		m.picker.SetSize(m.width, min(m.height-2, 20))
	}
	if m.diff != nil {
		m.diff.SetSize(m.width, max(3, m.height-1))
	}
	m.input.SetSize(m.width, max(3, m.height/3))
}

func envOf(opt Options) []string {
	if opt.Env != nil {
		return opt.Env
	}
	return nil
}

func (m *model) runID() string {
	if m.run != nil {
		return m.run.ID()
	}
	return ""
}

// shutdown releases the run after the program ended.
func (m *model) shutdown() {
	if m.run != nil {
		m.run.Close()
	}
}

// Init asks the terminal's background colour and, when resuming, opens the run.
func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.input.Init()}
	if m.opt.ResumeID != "" {
		m.phase = phaseStarting
		cmds = append(cmds, m.openRun(m.opt.ResumeID, m.opt.Decisions, m.opt.Message, m.opt.Compact))
	}
	return tea.Batch(cmds...)
}

// Messages of the run lifecycle.
type (
	// runOpenedMsg: a run was created or taken over.
	runOpenedMsg struct {
		run     *app.Run
		history []event.Event // the journal so far, when reopened
		resume  map[string]protocol.Decision
		message string
		compact bool // compact before the next model request
		err     error
	}
	// driveDoneMsg: a stretch of the run ended.
	driveDoneMsg struct{ out protocol.Outcome }
	// rollbackDoneMsg: a rollback ended.
	rollbackDoneMsg struct {
		res app.RollbackResult
		err error
	}
)

// probeMsg runs a function on the model on the program's goroutine: tests
// look at (and set) the model's state this way without a data race.
type probeMsg func(*model)

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	m.input.SetBusy(m.phase == phaseRunning || m.phase == phaseStarting)
	if live := m.alive(msg); live != nil {
		cmd = tea.Batch(cmd, live)
	}
	if c := m.tickChildren(msg); c != nil {
		cmd = tea.Batch(cmd, c)
	}
	return m, cmd
}

func (m *model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ok := m.rewindUpdate(msg); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case probeMsg:
		msg(m)
		return m, nil
	case quitExpiredMsg:
		// only the notice of this ctrl+c, if nothing has replaced it
		if m.ctrlC.Equal(msg.at) {
			m.ctrlC = time.Time{}
			if m.flash == quitNotice {
				m.flash = ""
			}
		}
		return m, nil
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		m.th = theme.NewFor(m.dark, m.th.NoColor, m.profile)
		m.themed()
		return m, nil
	case tea.ColorProfileMsg:
		// the program downsamples every colour to the profile; the diff's
		// backgrounds are chosen for it so that they stay apart
		m.profile = msg.Profile
		m.th = theme.NewFor(m.dark, m.th.NoColor || msg.Profile <= colorprofile.ASCII, m.profile)
		m.themed()
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		// the first frame is drawn now; the repo map's cold parse and the
		// tokenizer, which the first request would wait for, start once
		// that frame is out (warmDelay, so as not to compete with it)
		svc, started := m.svc, m.started
		return m, tea.Tick(warmDelay, func(time.Time) tea.Msg { started(); svc.WarmRepoMap(); return nil })
	case approve.DecisionMsg:
		m.decided(msg)
		return m, nil
	case approve.FullscreenMsg:
		return m, m.openPromptDiff(msg)
	case drawer.CloseMsg:
		m.overlay = overlayNone
		return m, nil
	case help.CloseMsg, picker.ClosedMsg:
		m.overlay = overlayNone
		return m, nil
	case picker.ChosenMsg:
		return m, m.onPicked(msg)
	case diffMsg:
		return m, m.onDiff(msg)
	case diffview.HighlightMsg:
		if m.diff != nil && (msg.ID == diffID || msg.ID == promptDiffID) {
			var cmd tea.Cmd
			m.diff, cmd = m.diff.Update(msg)
			return m, cmd
		}
		return m, nil
	case diffview.FullscreenMsg:
		return m, nil // /diff already takes the screen
	case runsMsg, grantsMsg, revokedMsg, exportedMsg:
		return m, m.onPickerData(msg)
	case modelsMsg:
		m.onModels(msg)
		return m, nil
	case modelCheckedMsg:
		return m, m.onModelChecked(msg)
	case switchFailedMsg:
		m.tr.add(&entry{kind: itemError, text: "a mode or model switch was not journaled: " + msg.err.Error()})
		return m, nil
	case drawer.PreviewMsg:
		return m, m.preview(msg.ID)
	case previewMsg:
		m.cpDrawer.SetPreview(msg.id, msg.diff)
		return m, nil
	case drawer.RollbackMsg:
		return m, m.rollback(msg)
	case updateMsg:
		m.onUpdate(msg.u)
		return m, nil
	case childLoadedMsg:
		m.childLoaded(msg)
		return m, nil
	case warnMsg:
		m.tr.notice("warning: %s", msg.text)
		return m, nil
	case runOpenedMsg:
		cmd := m.onRunOpened(msg)
		return m, tea.Batch(cmd, releaseReopened(msg.history))
	case driveDoneMsg:
		return m, m.onDriveDone(msg)
	case compactDoneMsg:
		return m, m.onCompactDone(msg)
	case checkpointsMsg:
		m.cpDrawer.SetCheckpoints(msg.list)
		if msg.err != nil {
			m.flash = "checkpoints: " + msg.err.Error()
		}
		return m, nil
	case rollbackDoneMsg:
		switch {
		case msg.err != nil:
			m.tr.add(&entry{kind: itemError, text: "rollback failed: " + msg.err.Error()})
		case msg.res.Incomplete():
			m.tr.add(&entry{kind: itemError, text: fmt.Sprintf("rollback incomplete: rolled back %d files, but %d paths are not as they were at the checkpoint (move them out of the way and roll back again):\n%s",
				len(msg.res.Files), len(msg.res.NotRestored), strings.TrimRight(msg.res.NotRestoredText(), "\n"))})
			m.flash = fmt.Sprintf("rollback incomplete: %d paths not restored; %s undo rollback is in /checkpoints", len(msg.res.NotRestored), theme.GlyphUndo)
		default:
			m.flash = fmt.Sprintf("rolled back %d files; %s undo rollback is in /checkpoints", len(msg.res.Files), theme.GlyphUndo)
		}
		m.overlay = overlayNone
		return m, m.openCheckpoints()
	case tea.PasteMsg:
		if m.approve.Active() {
			var cmd tea.Cmd
			m.approve, cmd = m.approve.Update(msg)
			return m, cmd
		}
		return m.passToInput(msg)
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case composer.SubmitMsg:
		return m, m.submitted(msg)
	case tea.MouseWheelMsg:
		m.tr.view.Update(msg)
		return m, nil
	}
	return m.passToInput(msg)
}

func (m *model) passToInput(msg tea.Msg) (tea.Model, tea.Cmd) {
	return m, m.updateInput(msg)
}

// updateInput gives msg to the composer and acts on what it submitted.
func (m *model) updateInput(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if s, ok := m.input.TakeSubmit(); ok {
		return tea.Batch(cmd, m.submitted(s))
	}
	return cmd
}

func (m *model) onUpdate(u protocol.Update) {
	switch u.Kind {
	case protocol.UpdateEvent:
		if m.run != nil && u.Event.RunID != m.run.ID() {
			return
		}
		m.tr.apply(u.Event)
		m.parentEvent(u.Event)
		m.watchBudget()
	case protocol.UpdateText:
		m.tr.delta(u.Text)
	case protocol.UpdateCall:
		m.tr.callDelta(u.Call)
	case protocol.UpdateOutput, protocol.UpdateRetry:
		m.onLive(u)
	case protocol.UpdateChild:
		if m.run == nil || u.RunID == m.run.ID() {
			m.onChild(u.Event)
		}
	case protocol.UpdateApproval:
		if m.run != nil && u.RunID == m.run.ID() && u.Approval != nil {
			m.onAsk(*u.Approval)
		}
	}
}

// asking reports whether an approval waits for the person.
func (m *model) asking() bool { return m.approve.Active() }

// submitted handles what the composer sends: a slash command, or text
// with the files attached with @.
func (m *model) submitted(msg composer.SubmitMsg) tea.Cmd {
	if msg.Command != nil {
		return m.slash(string(msg.Command.Name), msg.Command.Args)
	}
	text := withAttachments(m.svc.Settings().Workspace, msg.Text, msg.Attachments)
	if strings.TrimSpace(text) != "" {
		m.tr.expect(msg.Display) // a folded paste shows as its label
	}
	return m.submit(text)
}

// submit sends text: a new run's prompt, or a follow-up message of the run.
func (m *model) submit(text string) tea.Cmd {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if m.phase == phaseRunning || m.phase == phaseStarting {
		m.queued = append(m.queued, text)
		m.flash = fmt.Sprintf("queued: sent when the model is done (%d waiting)", len(m.queued))
		return nil
	}
	m.tr.view.GotoBottom()
	if m.run == nil {
		m.phase = phaseStarting
		return m.newRun(text)
	}
	m.phase = phaseRunning
	return m.message(text)
}

func (m *model) newRun(prompt string) tea.Cmd {
	svc, ctx := m.svc, m.ctx
	return func() tea.Msg {
		r, err := svc.NewRun(ctx, prompt, nil)
		return runOpenedMsg{run: r, err: err}
	}
}

func (m *model) openRun(id string, opt map[string]protocol.Decision, message string, compact bool) tea.Cmd {
	svc, ctx := m.svc, m.ctx
	return func() tea.Msg {
		r, hist, err := svc.OpenRunHistory(ctx, id)
		if err != nil {
			return runOpenedMsg{err: err}
		}
		return runOpenedMsg{run: r, history: hist, resume: opt, message: message, compact: compact}
	}
}

func (m *model) onRunOpened(msg runOpenedMsg) tea.Cmd {
	if msg.err != nil {
		m.phase = phaseIdle
		m.tr.add(&entry{kind: itemError, text: msg.err.Error()})
		return nil
	}
	m.run = msg.run
	if msg.history != nil {
		// A reopened run: its transcript from the journal, then what the
		// resume decides, then it goes on.
		for _, ev := range msg.history {
			m.tr.apply(ev)
			m.pastChild(ev)
		}
		if cmd, ok := m.reopenedPlan(msg); ok {
			return cmd
		}
		m.phase = phaseRunning
		r, opt, message := m.run, msg.resume, msg.message
		ctx := m.ctx
		if r.Finished() && message == "" && len(opt) == 0 {
			m.phase = phaseIdle
			if msg.compact {
				return m.compact() // nothing to continue: compact now, for the next message
			}
			return nil
		}
		if msg.compact {
			r.CompactNext()
		}
		return func() tea.Msg {
			for callID, d := range opt {
				if err := r.Decide(ctx, callID, d); err != nil {
					return driveDoneMsg{out: protocol.Outcome{Status: event.StatusFailed, Err: err}}
				}
			}
			if err := r.Resume(ctx); err != nil {
				return driveDoneMsg{out: protocol.Outcome{Status: event.StatusFailed, Err: err}}
			}
			if message != "" {
				if err := r.Message(ctx, message); err != nil {
					return driveDoneMsg{out: protocol.Outcome{Status: event.StatusFailed, Err: err}}
				}
			}
			return driveDoneMsg{out: r.Drive(ctx)}
		}
	}
	m.phase = phaseRunning
	return m.drive()
}

func (m *model) drive() tea.Cmd {
	r, ctx := m.run, m.ctx
	return func() tea.Msg { return driveDoneMsg{out: r.Drive(ctx)} }
}

func (m *model) message(text string) tea.Cmd {
	r, ctx := m.run, m.ctx
	return func() tea.Msg {
		if err := r.Message(ctx, text); err != nil {
			return driveDoneMsg{out: protocol.Outcome{Status: event.StatusFailed, Err: err}}
		}
		return driveDoneMsg{out: r.Drive(ctx)}
	}
}

func (m *model) onDriveDone(msg driveDoneMsg) tea.Cmd {
	quitting := m.quitting()
	m.phase = phaseIdle
	m.flash = "" // "interrupting…", "queued: …" are over
	out := msg.out
	if out.Err != nil && out.Status == event.StatusFailed && m.tr.status != event.StatusFailed {
		m.tr.add(&entry{kind: itemError, text: out.Err.Error()})
	}
	if out.Status == event.StatusStopped && !m.tr.stopShown {
		m.tr.notice("stopped: you denied a call; " + stoppedHint)
	}
	if out.Status == event.StatusInterrupted {
		m.tr.notice("interrupted; type to continue, or quit and run: agent resume %s", m.runID())
	}
	if out.Status == event.StatusBudgetExhausted {
		m.budgetReached(out)
	}
	if quitting {
		m.phase = phaseQuitting
		return tea.Quit
	}
	if out.Plan != "" && m.run != nil && m.run.AwaitingPlan() {
		return m.askPlan(out.Plan)
	}
	if len(m.queued) > 0 && m.run != nil {
		text := m.queued[0]
		m.queued = m.queued[1:]
		m.phase = phaseRunning
		return m.message(text)
	}
	return nil
}

func (m *model) quitting() bool { return m.phase == phaseQuitting }
