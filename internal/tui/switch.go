package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/termtext"
	"agent/internal/tui/picker"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Switching in a session: shift+tab and /mode switch the approval mode,
// /model the model, and a run under plan mode that ends its turn with a
// plan asks the person to approve it (the mode to go on in) or to keep
// planning. Each switch goes through the run (app.Run), which journals it
// (mode_changed, model_changed) and the next call or request obeys it.

// Picker kinds of this file.
const (
	pickModes  pickKind = iota + 20 // /mode: the approval modes
	pickModels                      // /model: the provider's models
	pickPlan                        // the plan waits for approval
)

// planReject is the plan picker's row that keeps planning.
const planReject = "reject"

type (
	// modelsMsg carries the provider's models into the /model picker.
	modelsMsg struct {
		models []string
		err    error
	}
	// modelCheckedMsg: /model NAME was checked against the provider's list.
	modelCheckedMsg struct {
		name, note string
		err        error
	}
)

// modeWords say what each mode lets run, for the picker and the flash.
var modeWords = map[event.ApprovalMode]string{
	event.ApprovalReadOnly: "reads only; edits and commands are refused",
	event.ApprovalPlan:     "reads and update_plan until you approve the model's plan",
	event.ApprovalAsk:      "reads run; edits and commands ask",
	event.ApprovalAutoEdit: "reads and edits in the workspace run; commands ask",
	event.ApprovalFullAuto: "everything runs but what a deny rule names",
}

// cycleMode is shift+tab: the next approval mode.
func (m *model) cycleMode() tea.Cmd {
	return m.switchMode(app.NextMode(m.svc.Mode()))
}

// switchMode switches the approval mode: the run's (journaled; the next
// call obeys it), or with no run the next run's.
func (m *model) switchMode(mode event.ApprovalMode) tea.Cmd {
	var err error
	if m.run == nil {
		err = m.svc.SetMode(mode)
	} else {
		// queued at once (the status bar shows it); journaled by the loop
		// at its next step, or by flushSwitches when no stretch runs
		err = m.run.PostMode(mode, event.SourceUser)
	}
	if err != nil {
		m.tr.add(&entry{kind: itemError, text: "approval mode: " + err.Error()})
		return nil
	}
	m.flash = fmt.Sprintf("approval mode %s: %s", mode, modeWords[mode])
	return m.flushSwitches()
}

// switchFailedMsg: a switch could not be journaled.
type switchFailedMsg struct{ err error }

// flushSwitches journals the run's queued switches, off the program's
// goroutine (the journal publishes to it).
func (m *model) flushSwitches() tea.Cmd {
	r, ctx := m.run, m.ctx
	if r == nil {
		return nil
	}
	return func() tea.Msg {
		if err := r.FlushSwitches(ctx); err != nil {
			return switchFailedMsg{err}
		}
		return nil
	}
}

// modeCommand is /mode [NAME].
func (m *model) modeCommand(args string) tea.Cmd {
	args = strings.TrimSpace(args)
	if args == "" {
		m.overlay, m.pick = overlayPicker, pickModes
		m.picker = picker.New(picker.Options{Theme: m.th, Title: "Approval mode · now " + string(m.svc.Mode()), Choose: "switch",
			Note: "shift+tab cycles them; the next call obeys the new mode, and the switch is journaled"})
		var items []picker.Item
		for _, md := range app.ModeNames() {
			items = append(items, picker.Item{ID: string(md), Title: string(md), Detail: modeWords[md]})
		}
		m.picker.SetItems(items)
		m.layout()
		return nil
	}
	mode, err := app.ParseMode(args)
	if err != nil {
		m.tr.add(&entry{kind: itemError, text: err.Error()})
		return nil
	}
	return m.switchMode(mode)
}

// modelCommand is /model [NAME]: alone it lists the provider's models;
// with a name it switches to it once the provider's list has it.
func (m *model) modelCommand(args string) tea.Cmd {
	args = strings.TrimSpace(args)
	svc, ctx := m.svc, m.ctx
	if args == "" {
		m.overlay, m.pick = overlayPicker, pickModels
		m.picker = picker.New(picker.Options{Theme: m.th, Title: "Model · now " + svc.Model(), Choose: "switch",
			Empty: "asking the provider for its models…", Note: "the next request asks for the model you choose; /model NAME switches by name"})
		m.layout()
		return func() tea.Msg {
			ms, err := svc.Models(ctx)
			return modelsMsg{models: ms, err: err}
		}
	}
	return func() tea.Msg {
		note, err := svc.CheckModel(ctx, args)
		return modelCheckedMsg{name: args, note: note, err: err}
	}
}

// onModels fills the /model picker.
func (m *model) onModels(msg modelsMsg) {
	if m.pick != pickModels || m.picker == nil {
		return
	}
	if msg.err != nil {
		m.picker = picker.New(picker.Options{Theme: m.th, Title: "Model · now " + m.svc.Model(),
			Empty: "no model list: " + msg.err.Error(), Note: "/model NAME switches by name all the same"})
		m.layout()
		return
	}
	cur := m.svc.Model()
	items := make([]picker.Item, len(msg.models))
	for i, name := range msg.models {
		items[i] = picker.Item{ID: name, Title: name}
		if name == cur {
			items[i].Detail = "in use"
		}
	}
	m.picker.SetItems(items)
}

// onModelChecked switches to a model /model NAME named, or says why not.
func (m *model) onModelChecked(msg modelCheckedMsg) tea.Cmd {
	if msg.err != nil {
		m.tr.add(&entry{kind: itemError, text: "model not switched: " + msg.err.Error()})
		return nil
	}
	return m.switchModel(msg.name, msg.note)
}

// switchModel switches the model of the run (journaled; the next request
// asks for it), or with no run the next run's.
func (m *model) switchModel(name, note string) tea.Cmd {
	var err error
	if m.run == nil {
		err = m.svc.SetModel(name)
	} else {
		err = m.run.PostModel(name)
	}
	if err != nil {
		m.tr.add(&entry{kind: itemError, text: "model not switched: " + err.Error()})
		return nil
	}
	if m.run == nil {
		m.tr.notice("model %s: the next run asks for it", name)
	}
	if note != "" {
		m.tr.notice("note: %s", note)
	}
	m.flash = "model " + name
	return m.flushSwitches()
}

// askPlan opens the plan prompt: approve (in the mode the person picks) or
// keep planning with a note.
func (m *model) askPlan(plan string) tea.Cmd {
	m.plan = plan
	m.overlay, m.pick = overlayPicker, pickPlan
	m.picker = planPicker(m.th)
	m.layout()
	return nil
}

// planPicker is the plan prompt's picker: approve in one of the modes, or
// keep planning.
func planPicker(th *theme.Theme) *picker.Model {
	p := picker.New(picker.Options{Theme: th, Title: "Approve the plan?", Choose: "choose",
		Note: "plan mode: nothing was written or run; approving goes on in the mode you pick (journaled)"})
	var items []picker.Item
	for _, md := range []event.ApprovalMode{event.ApprovalAsk, event.ApprovalAutoEdit, event.ApprovalFullAuto} {
		items = append(items, picker.Item{ID: string(md), Title: "approve, go on in " + string(md), Detail: modeWords[md]})
	}
	items = append(items, picker.Item{ID: planReject, Title: "keep planning", Detail: "type what to change; the model plans again"})
	p.SetItems(items)
	return p
}

// onPlanPicked acts on the plan prompt.
func (m *model) onPlanPicked(c picker.ChosenMsg) tea.Cmd {
	m.overlay = overlayNone
	r, ctx := m.run, m.ctx
	if r == nil || !r.AwaitingPlan() {
		return nil
	}
	if c.Item.ID == planReject {
		m.flash = "type what to change in the plan and press enter: the model keeps planning"
		return nil
	}
	m.plan = ""
	m.phase = phaseRunning
	return approvePlan(ctx, r, event.ApprovalMode(c.Item.ID))
}

// approvePlan approves the run's plan in mode and drives it on.
func approvePlan(ctx context.Context, r *app.Run, mode event.ApprovalMode) tea.Cmd {
	return func() tea.Msg {
		if err := r.ApprovePlan(ctx, mode); err != nil {
			return driveDoneMsg{out: protocol.Outcome{Status: event.StatusFailed, Err: fmt.Errorf("plan not approved: %w", err)}}
		}
		return driveDoneMsg{out: r.Drive(ctx)}
	}
}

// onSwitchPicked acts on the rows of this file's pickers; ok: it was one.
func (m *model) onSwitchPicked(c picker.ChosenMsg) (tea.Cmd, bool) {
	switch m.pick {
	case pickModes:
		m.overlay = overlayNone
		return m.switchMode(event.ApprovalMode(c.Item.ID)), true
	case pickModels:
		m.overlay = overlayNone
		return m.switchModel(c.Item.ID, ""), true
	case pickPlan:
		return m.onPlanPicked(c), true
	}
	return nil, false
}

// pickerView is the open picker; the plan prompt shows the plan above it.
func (m *model) pickerView(h int) string {
	if m.pick != pickPlan || m.plan == "" {
		return m.picker.View()
	}
	box := m.picker.View()
	room := h - len(strings.Split(box, "\n")) - 1
	var lines []string
	for _, l := range strings.Split(termtext.Visible(m.plan), "\n") {
		lines = append(lines, textutil.Wrap(l, max(10, m.width-2))...)
	}
	if room < 1 {
		return box
	}
	if len(lines) > room {
		lines = append(lines[:room-1], m.th.Faint.Render("… (the whole plan is in the transcript)"))
	}
	return m.th.Title.Render("The plan") + "\n" + strings.Join(lines, "\n") + "\n" + box
}

// reopenedPlan: a reopened run paused at its plan asks for the plan's
// approval instead of going on (an --approve plan given on the command
// line approves it in the session's mode).
func (m *model) reopenedPlan(msg runOpenedMsg) (tea.Cmd, bool) {
	r := m.run
	if r == nil || !r.AwaitingPlan() || msg.message != "" {
		return nil, false
	}
	m.phase = phaseIdle
	ctx := m.ctx
	if d, ok := msg.resume["plan"]; ok && d.Verdict == protocol.Deny {
		m.phase = phaseRunning
		return func() tea.Msg {
			if err := r.RejectPlan(ctx, d.Note); err != nil {
				return driveDoneMsg{out: protocol.Outcome{Status: event.StatusFailed, Err: err}}
			}
			return driveDoneMsg{out: r.Drive(ctx)}
		}, true
	}
	if d, ok := msg.resume["plan"]; ok && d.Verdict == protocol.Allow {
		mode := m.svc.Settings().Approval
		if mode == event.ApprovalPlan {
			mode = event.ApprovalAsk
		}
		m.phase = phaseRunning
		return approvePlan(ctx, r, mode), true
	}
	return m.askPlan(r.Plan()), true
}
