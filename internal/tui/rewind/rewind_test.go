package rewind

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

func sample() []Prompt {
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	return []Prompt{
		{Seq: 3, Text: "fix the tokenizer in shellwords.go so quoted spaces survive", Time: at, Files: []string{"shellwords.go", "shellwords_test.go"}},
		{Seq: 40, Text: "now add a test for\nan empty string", Time: at.Add(2 * time.Minute), Files: []string{"shellwords_test.go"}},
		{Seq: 77, Text: "explain the change", Time: at.Add(5 * time.Minute)},
	}
}

func stripped(v string) string {
	lines := strings.Split(ansi.Strip(v), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// The list at 40, 80, 120 and 200 columns, dark and light, stripped and as
// terminals of 16 million, 256 and 16 colours receive it.
func TestGolden(t *testing.T) {
	for _, w := range []int{40, 80, 120, 200} {
		for _, dark := range []bool{true, false} {
			shade := map[bool]string{true: "dark", false: "light"}[dark]
			m := New(theme.New(dark, false))
			m.SetPrompts(sample())
			m.SetSize(w, 0)
			v := m.View()
			for i, l := range strings.Split(v, "\n") {
				if ansi.StringWidth(l) != w {
					t.Errorf("%d %s: line %d is %d columns, want %d", w, shade, i, ansi.StringWidth(l), w)
				}
			}
			name := fmt.Sprintf("list_%d_%s", w, shade)
			tuitest.Golden(t, name, stripped(v))
			tuitest.GoldenPalettes(t, name, v)
		}
	}
}

func keys(m *Model, ks ...string) []tea.Msg {
	var out []tea.Msg
	for _, k := range ks {
		var cmd tea.Cmd
		m, cmd = m.Update(tuitest.Key(k))
		out = append(out, tuitest.Msgs(cmd)...)
	}
	return out
}

// The newest message is selected first; enter asks, y rewinds both; c and
// v ask for the code and the conversation; any other key cancels; k asks
// for the per-call checkpoints; esc closes.
func TestKeys(t *testing.T) {
	m := New(nil)
	m.SetPrompts(sample())
	if p, _ := m.Selected(); p.Seq != 77 {
		t.Fatalf("selected %d first, want the newest (77)", p.Seq)
	}
	if msgs := keys(m, "up", "up", "enter"); len(msgs) != 0 || !m.Confirming() {
		t.Fatalf("enter: %v, confirming %v; want a question, nothing sent", msgs, m.Confirming())
	}
	if !strings.Contains(stripped(m.View()), `rewind the files and the conversation to just before "fix the tokenizer`) {
		t.Errorf("the question is not on screen:\n%s", stripped(m.View()))
	}
	msgs := keys(m, "y")
	if len(msgs) != 1 || msgs[0] != (RewindMsg{Seq: 3, Text: sample()[0].Text, Target: Both}) {
		t.Fatalf("y sent %v, want a rewind of both to seq 3", msgs)
	}
	if msgs := keys(m, "c", "x"); len(msgs) != 0 || m.Confirming() {
		t.Errorf("c then x sent %v (confirming %v); want it cancelled", msgs, m.Confirming())
	}
	if msgs := keys(m, "v", "y"); len(msgs) != 1 || msgs[0].(RewindMsg).Target != Conversation {
		t.Errorf("v y sent %v, want a conversation rewind", msgs)
	}
	if msgs := keys(m, "c", "y"); len(msgs) != 1 || msgs[0].(RewindMsg).Target != Code {
		t.Errorf("c y sent %v, want a code rewind", msgs)
	}
	if msgs := keys(m, "k"); len(msgs) != 1 || msgs[0] != (CheckpointsMsg{}) {
		t.Errorf("k sent %v, want the checkpoints", msgs)
	}
	if msgs := keys(m, "esc"); len(msgs) != 1 || msgs[0] != (CloseMsg{}) {
		t.Errorf("esc sent %v, want close", msgs)
	}
}

// A long list scrolls to keep the selection shown in a small box, and an
// empty one says so; untrusted text shows its control characters.
func TestScrollEmptyAndControl(t *testing.T) {
	var ps []Prompt
	for i := 0; i < 30; i++ {
		ps = append(ps, Prompt{Seq: int64(i + 1), Text: fmt.Sprintf("message %02d", i)})
	}
	ps[5].Text = "evil \x1b[31mred\x1b[0m"
	m := New(nil)
	m.SetPrompts(ps)
	m.SetSize(80, 12)
	v := stripped(m.View())
	if got := strings.Count(v, "\n"); got > 12 {
		t.Errorf("the list takes %d rows in a box of 12:\n%s", got, v)
	}
	if !strings.Contains(v, "message 29") {
		t.Errorf("the newest, selected, is not shown:\n%s", v)
	}
	keys(m, "home")
	if v := stripped(m.View()); !strings.Contains(v, "message 00") || strings.Contains(v, "message 29") {
		t.Errorf("home did not scroll to the oldest:\n%s", v)
	}
	for i := 0; i < 5; i++ {
		keys(m, "down")
	}
	if strings.Contains(m.View(), "\x1b[31mred") {
		t.Error("an escape in a message reached the terminal")
	}
	e := New(nil)
	e.SetPrompts(nil)
	if v := stripped(e.View()); !strings.Contains(v, "no messages of yours yet") {
		t.Errorf("empty list:\n%s", v)
	}
}
