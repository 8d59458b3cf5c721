package composer

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
)

var keyCodes = map[string]rune{
	"enter": tea.KeyEnter, "tab": tea.KeyTab, "esc": tea.KeyEscape, "backspace": tea.KeyBackspace,
	"delete": tea.KeyDelete, "up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft,
	"right": tea.KeyRight, "home": tea.KeyHome, "end": tea.KeyEnd, "space": tea.KeySpace,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
}

// key builds the key press a terminal reports for a keystroke such as
// "enter", "shift+enter", "ctrl+j", "alt+enter" or "a".
func key(s string) tea.KeyPressMsg {
	var k tea.KeyPressMsg
	parts := strings.Split(s, "+")
	if s == "+" {
		parts = []string{"+"}
	}
	for _, mod := range parts[:len(parts)-1] {
		switch mod {
		case "ctrl":
			k.Mod |= tea.ModCtrl
		case "alt":
			k.Mod |= tea.ModAlt
		case "shift":
			k.Mod |= tea.ModShift
		}
	}
	name := parts[len(parts)-1]
	if c, ok := keyCodes[name]; ok {
		k.Code = c
		if c == tea.KeySpace && k.Mod == 0 {
			k.Text = " "
		}
		return k
	}
	r, _ := utf8.DecodeRuneInString(name)
	k.Code = r
	if k.Mod&(tea.ModCtrl|tea.ModAlt) == 0 {
		k.Text = name
	}
	return k
}

// typed is one key press per character of s.
func typed(s string) []tea.Msg {
	var out []tea.Msg
	for _, r := range s {
		if r == ' ' {
			out = append(out, key("space"))
			continue
		}
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

func keys(names ...string) []tea.Msg {
	var out []tea.Msg
	for _, n := range names {
		out = append(out, key(n))
	}
	return out
}

// run executes cmd as the Bubble Tea runtime would and returns the
// messages it produces (batches flattened).
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, run(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// driver feeds messages to a composer the way a root model does: every
// message goes through Update, the commands run, and what they answer goes
// back in, except what is meant for the root (SubmitMsg), which is kept.
type driver struct {
	t       *testing.T
	m       Model
	submits []SubmitMsg
}

func newDriver(t *testing.T, opts Options) *driver {
	t.Helper()
	if opts.Theme == nil {
		opts.Theme = theme.New(true, false)
	}
	d := &driver{t: t, m: New(context.Background(), opts)}
	d.feedCmd(d.m.Init())
	return d
}

func (d *driver) send(msgs ...tea.Msg) *driver {
	for _, msg := range msgs {
		var cmd tea.Cmd
		d.m, cmd = d.m.Update(msg)
		d.feedCmd(cmd)
	}
	return d
}

func (d *driver) feedCmd(cmd tea.Cmd) {
	consumed := d.m.consumed
	for _, msg := range run(cmd) {
		if s, ok := msg.(SubmitMsg); ok {
			d.submits = append(d.submits, s)
			continue
		}
		d.send(msg)
	}
	d.m.consumed = consumed
}

func (d *driver) typ(s string) *driver       { return d.send(typed(s)...) }
func (d *driver) press(ks ...string) *driver { return d.send(keys(ks...)...) }
func (d *driver) paste(s string) *driver     { return d.send(tea.PasteMsg{Content: s}) }

// view is the composer's view without ANSI sequences.
func (d *driver) view() string { return ansi.Strip(d.m.View()) }

func (d *driver) lastSubmit() SubmitMsg {
	d.t.Helper()
	if len(d.submits) == 0 {
		d.t.Fatalf("nothing was submitted; the view is\n%s", d.view())
	}
	return d.submits[len(d.submits)-1]
}
