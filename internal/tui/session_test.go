package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"agent/internal/event"
	"agent/internal/tui/diffview"
	"agent/internal/tui/drawer"
)

func keyRune(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

// slashCmd types a command and runs it, as a person would.
func (h *harness) slashCmd(text string) {
	h.text(text)
	h.enter()
}

// selectCheckpoint moves the drawer's selection to the first checkpoint
// that matches, with the keys a person would press.
func (h *harness) selectCheckpoint(what string, match func(drawer.Checkpoint) bool) {
	h.t.Helper()
	// the list is reloaded after a rollback: wait for the one wanted
	h.until("the "+what+" checkpoint listed", func(m *model) bool {
		for _, c := range m.cpDrawer.Checkpoints() {
			if match(c) {
				return true
			}
		}
		return false
	})
	want := -1
	h.probe(func(m *model) {
		for i, c := range m.cpDrawer.Checkpoints() {
			if want < 0 && match(c) {
				want = i
			}
		}
	})
	if want < 0 {
		h.t.Fatalf("no %s checkpoint listed:\n%s", what, h.screen())
	}
	h.key(tea.KeyPressMsg{Code: tea.KeyHome})
	for i := 0; i < want; i++ {
		h.key(tea.KeyPressMsg{Code: tea.KeyDown})
	}
	h.until("the "+what+" checkpoint selected", func(m *model) bool {
		c, ok := m.cpDrawer.Selected()
		return ok && match(c)
	})
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Roll back the files to before an edit from the checkpoint drawer, then
// undo that rollback from the "undo rollback" entry.
func TestRollbackAndUndo(t *testing.T) {
	h := newHarness(t, "full-auto", greet, turnJSON("Changing it.", edit("c1", `"Hello"`, `"Hi"`)), turnJSON("Done."))
	main := filepath.Join(h.ws, "main.go")
	h.text("change the greeting")
	h.enter()
	h.idle()
	if !strings.Contains(readFile(t, main), `"Hi"`) {
		t.Fatal("the edit did not happen")
	}
	h.slashCmd("/checkpoints")
	h.selectCheckpoint("before c1", func(c drawer.Checkpoint) bool { return c.Kind == drawer.KindBefore && c.CallID == "c1" })
	h.key(keyRune('c'))
	h.until("the confirmation", func(m *model) bool { return m.cpDrawer.Confirming() })
	if s := h.screen(); !strings.Contains(s, "y to confirm") {
		t.Errorf("no confirmation on screen:\n%s", s)
	}
	h.key(keyRune('y'))
	h.until("the files rolled back", func(m *model) bool { return strings.Contains(m.flash, "rolled back") })
	if got := readFile(t, main); !strings.Contains(got, `"Hello"`) {
		t.Fatalf("main.go after rollback = %s", got)
	}
	h.selectCheckpoint("undo rollback", func(c drawer.Checkpoint) bool { return c.Kind == drawer.KindRollback })
	if s := h.screen(); !strings.Contains(s, "undo rollback") {
		t.Errorf("the pre-rollback checkpoint is not shown as undo rollback:\n%s", s)
	}
	h.enter() // preview: what undoing brings back
	h.until("the undo preview", func(m *model) bool { return strings.Contains(stripANSI(m.View().Content), `println("Hi")`) })
	h.key(keyRune('c'))
	h.until("the confirmation", func(m *model) bool { return m.cpDrawer.Confirming() })
	h.key(keyRune('y'))
	h.until("the rollback undone", func(m *model) bool {
		// the flash is set once the rollback has returned (journaled)
		return strings.Contains(readFileQuiet(main), `"Hi"`) && strings.Contains(m.flash, "rolled back")
	})
	var rollbacks int
	for _, ev := range h.events() {
		if _, ok := ev.Data.(*event.RollbackData); ok {
			rollbacks++
		}
	}
	if rollbacks != 2 {
		t.Errorf("%d rollback events journaled, want 2", rollbacks)
	}
}

func readFileQuiet(p string) string { b, _ := os.ReadFile(p); return string(b) }

// shift+enter (and ctrl+j) make a newline in the composer; the message the
// model gets has both lines. A 500-line paste folds in the box and reaches
// the model whole.
func TestNewlineKeysAndBigPaste(t *testing.T) {
	h := newHarness(t, "ask", nil, turnJSON("Two lines seen."), turnJSON("Pasted text seen."))
	h.text("first line")
	h.key(tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift})
	h.text("second line")
	h.key(tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl})
	h.text("third line")
	if s := h.screen(); !strings.Contains(s, "first line") || !strings.Contains(s, "third line") {
		t.Fatalf("the lines are not in the box:\n%s", s)
	}
	h.enter()
	h.idle()
	var lines []string
	for i := 0; i < 500; i++ {
		lines = append(lines, fmt.Sprintf("log line %03d: something happened", i))
	}
	h.pr.p.Send(tea.PasteMsg{Content: strings.Join(lines, "\n")})
	h.until("the paste folded", func(m *model) bool { return strings.Contains(stripANSI(m.input.View()), "[Pasted 500 lines") })
	if s := h.screen(); strings.Contains(s, "log line 250") {
		t.Errorf("the paste is not folded:\n%s", s)
	}
	h.text(" explain this")
	h.enter()
	h.until("the second answer", func(m *model) bool {
		return m.phase == phaseIdle && strings.Contains(stripANSI(m.View().Content), "Pasted text seen")
	})
	var users []string
	for _, ev := range h.events() {
		if u, ok := ev.Data.(*event.UserMessageData); ok {
			users = append(users, u.Text)
		}
	}
	if len(users) != 2 {
		t.Fatalf("%d user messages journaled, want 2", len(users))
	}
	if users[0] != "first line\nsecond line\nthird line" {
		t.Errorf("first message = %q", users[0])
	}
	if !strings.Contains(users[1], "log line 000") || !strings.Contains(users[1], "log line 499") || !strings.HasSuffix(users[1], "explain this") {
		t.Errorf("the pasted lines did not reach the model whole: %d bytes", len(users[1]))
	}
}

// /approvals lists the run's grants; d revokes one (journaled), and the
// next call it covered asks again.
func TestRevokeGrant(t *testing.T) {
	cmd := func(id string) call {
		return call{id, "run_command", args(map[string]any{"command": "echo x >> log.txt"})}
	}
	h := newHarness(t, "ask", nil, turnJSON("", cmd("c1")), turnJSON("Logged."), turnJSON("", cmd("c2")), turnJSON("Logged again."))
	h.text("log once")
	h.enter()
	h.ask()
	h.key(keyRune('2'))
	h.idle()
	h.slashCmd("/approvals")
	h.until("the grant listed", func(m *model) bool { return m.picker != nil && len(m.picker.Items()) == 1 })
	s := h.screen()
	if !strings.Contains(s, "run_command(echo x >> log.txt)") || !strings.Contains(s, "d revoke") {
		t.Fatalf("the grant is not shown:\n%s", s)
	}
	h.key(keyRune('d'))
	h.until("the grant revoked", func(m *model) bool {
		return m.picker != nil && len(m.picker.Items()) == 0 && strings.HasPrefix(m.flash, "revoked")
	})
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.until("the picker closed", func(m *model) bool { return m.overlay == overlayNone })
	var revoked bool
	for _, ev := range h.events() {
		if g, ok := ev.Data.(*event.GrantRevokedData); ok && g.Rule == "run_command(echo x >> log.txt)" && g.Source == event.SourceUser {
			revoked = true
		}
	}
	if !revoked {
		t.Fatal("no grant_revoked event journaled")
	}
	h.text("log again")
	h.enter()
	h.ask() // the same command asks again
	h.key(keyRune('1'))
	h.idle()
	if got := strings.Join(decisions(h.events()), " "); got != "c1:allow:run:user c2:allow:once:user" {
		t.Errorf("decisions %s", got)
	}
}

// /resume lists the workspace's runs; choosing one reopens it with its
// transcript. /export writes its redacted trace to a private file.
func TestResumePickerAndExport(t *testing.T) {
	h := newHarness(t, "ask", nil, turnJSON("First answer."), turnJSON("Second answer."))
	h.text("first question")
	h.enter()
	h.idle()
	var first string
	h.probe(func(m *model) { first = m.runID() })
	h.slashCmd("/new")
	h.text("second question")
	h.enter()
	h.until("the second run", func(m *model) bool { return m.phase == phaseIdle && m.run != nil && m.run.ID() != first })
	h.slashCmd("/resume")
	h.until("both runs listed", func(m *model) bool { return m.picker != nil && len(m.picker.Items()) == 2 })
	h.probe(func(m *model) {
		if m.picker.Items()[1].ID != first {
			t.Errorf("the runs are not newest first: %+v", m.picker.Items())
		}
	})
	h.key(tea.KeyPressMsg{Code: tea.KeyDown})
	h.enter()
	h.until("the first run reopened", func(m *model) bool { return m.phase == phaseIdle && m.run != nil && m.run.ID() == first })
	s := h.screen()
	if !strings.Contains(s, "first question") || !strings.Contains(s, "First answer") || strings.Contains(s, "second question") {
		t.Fatalf("the reopened run's transcript is not what it said:\n%s", s)
	}
	out := filepath.Join(t.TempDir(), "trace.jsonl")
	h.slashCmd("/export " + out)
	h.until("the export notice", func(m *model) bool { return strings.Contains(stripANSI(m.View().Content), "exported") })
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the trace is mode %v, want 0600", fi.Mode().Perm())
	}
	if b := readFile(t, out); !strings.Contains(b, `"run_started"`) || !strings.Contains(b, first) {
		t.Errorf("the trace is not the run's:\n%.300s", b)
	}
}

// Rolling back the conversation alone leaves the files and draws what the
// model no longer sees faint; the request before it stays as it was.
func TestConversationRollbackDimsRewound(t *testing.T) {
	h := newHarness(t, "full-auto", greet, turnJSON("Changing it.", edit("c1", `"Hello"`, `"Hi"`)), turnJSON("Done."))
	main := filepath.Join(h.ws, "main.go")
	h.text("change the greeting")
	h.enter()
	h.idle()
	h.slashCmd("/checkpoints")
	h.selectCheckpoint("before c1", func(c drawer.Checkpoint) bool { return c.Kind == drawer.KindBefore && c.CallID == "c1" })
	h.key(keyRune('v'))
	h.until("the confirmation", func(m *model) bool { return m.cpDrawer.Confirming() })
	h.key(keyRune('y'))
	h.until("the conversation rolled back", func(m *model) bool { return strings.Contains(m.flash, "rolled back") })
	if !strings.Contains(readFile(t, main), `"Hi"`) {
		t.Error("a conversation rollback changed the files")
	}
	h.probe(func(m *model) {
		for i, e := range m.tr.entries {
			dim := m.tr.view.Dimmed(i)
			switch {
			case e.kind == itemUser && dim:
				t.Errorf("the request %q is dimmed", e.text)
			case e.kind == itemAssistant && e.text == "Done." && !dim:
				t.Error("the answer the rollback took away is not dimmed")
			case e.kind == itemCard && e.callID == "c1" && !dim:
				t.Error("the rewound edit card is not dimmed")
			}
		}
	})
}

// /diff shows the run's changes so far in the diff view; a 2,000-line
// change scrolls to its end, splits with t, and esc closes it.
func TestDiffOfTheRun(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&b, "line %04d of the generated file\n", i)
	}
	h := newHarness(t, "full-auto", greet,
		turnJSON("Writing it.", call{"c1", "write_file", args(map[string]any{"path": "big.txt", "content": b.String()})}),
		turnJSON("Done."))
	h.text("write the big file")
	h.enter()
	h.idle()
	h.slashCmd("/diff")
	h.until("the diff view", func(m *model) bool { return m.overlay == overlayDiff && m.diff != nil })
	s := h.screen()
	if !strings.Contains(s, "big.txt") || !strings.Contains(s, "line 0001 of the generated file") {
		t.Fatalf("/diff does not show the change:\n%s", s)
	}
	h.key(tea.KeyPressMsg{Code: tea.KeyEnd})
	h.until("the end of the diff", func(m *model) bool { return m.diff.AtBottom() })
	s = h.screen()
	if !strings.Contains(s, "line 2000 of the generated file") || strings.Contains(s, "line 0001 of") {
		t.Fatalf("End did not scroll to the end:\n%s", s)
	}
	lines := strings.Split(s, "\n")
	if len(lines) != 40 {
		t.Errorf("the screen is %d lines, want 40", len(lines))
	}
	h.key(keyRune('t'))
	h.until("split", func(m *model) bool { return m.diff.Mode() == diffview.Split })
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.until("the diff closed", func(m *model) bool { return m.overlay == overlayNone })
}

// A terminal too small for the prompt still draws (no panic), never more
// lines than it has; the prompt keeps working when it grows again.
func TestTinyTerminalWithPrompt(t *testing.T) {
	h := newHarness(t, "ask", greet, turnJSON("Changing it.", edit("c1", `"Hello"`, `"Hi"`)), turnJSON("Done."))
	h.text("change it")
	h.enter()
	h.ask()
	for _, sz := range [][2]int{{40, 12}, {20, 8}, {7, 3}, {120, 40}} {
		h.pr.p.Send(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		h.until("the new size", func(m *model) bool { return m.width == sz[0] && m.height == sz[1] })
		if n := len(strings.Split(h.screen(), "\n")); n > sz[1] {
			t.Errorf("%dx%d: %d lines drawn", sz[0], sz[1], n)
		}
	}
	h.key(keyRune('1'))
	h.idle()
	if !strings.Contains(readFile(t, filepath.Join(h.ws, "main.go")), `"Hi"`) {
		t.Error("the prompt stopped working after the resizes")
	}
}

// @ attaches text files; a binary file is refused, not sent.
func TestAttachRefusesBinary(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "blob.bin"), []byte("\x00\x01\x1b[2J\xff\xfe binary"), 0o644)
	got := withAttachments(ws, "look", []string{"notes.txt", "blob.bin"})
	if !strings.Contains(got, "remember the milk") {
		t.Errorf("the text file is not attached: %q", got)
	}
	if strings.Contains(got, "\x1b") || strings.Contains(got, "\x00") || !strings.Contains(got, "blob.bin: a binary file, not attached") {
		t.Errorf("the binary file was attached: %q", got)
	}
}

// A heading in the model's answer is shown as its text: no literal "## ".
func TestMarkdownHeadingHasNoHashes(t *testing.T) {
	h := newHarness(t, "ask", nil, turnJSON("## The fix\n\nIt works now.\n\n### Why\n\nBecause."))
	h.text("explain")
	h.enter()
	h.idle()
	h.until("the answer", func(m *model) bool { return strings.Contains(stripANSI(m.View().Content), "It works now.") })
	s := h.screen()
	if !strings.Contains(s, "The fix") || !strings.Contains(s, "Why") {
		t.Fatalf("the headings are missing:\n%s", s)
	}
	if strings.Contains(s, "## ") {
		t.Fatalf("a heading keeps its literal hashes:\n%s", s)
	}
}

// A grep card shows the pattern it searched for (and where), not only the
// path; a glob card shows its pattern.
func TestGrepCardShowsPattern(t *testing.T) {
	h := newHarness(t, "ask", map[string]string{"pkg/a.go": "package pkg // needleXYZ\n"},
		turnJSON("", call{"c1", "grep", args(map[string]any{"pattern": "needleXYZ", "path": "pkg"})},
			call{"c2", "glob", args(map[string]any{"pattern": "**/*.go"})}),
		turnJSON("Found it."))
	h.text("find it")
	h.enter()
	h.idle()
	s := h.screen()
	var grepRow, globRow string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, " grep ") {
			grepRow = l
		}
		if strings.Contains(l, " glob ") {
			globRow = l
		}
	}
	if !strings.Contains(grepRow, "needleXYZ in pkg") {
		t.Errorf("the grep card's header %q does not show the pattern and where:\n%s", grepRow, s)
	}
	if !strings.Contains(globRow, "**/*.go") {
		t.Errorf("the glob card's header %q does not show the pattern:\n%s", globRow, s)
	}
}

// ↑ goes back through the history past a slash command: a recalled
// "/status" opens no completion list that would take the next ↑.
func TestHistoryPastSlashCommand(t *testing.T) {
	h := newHarness(t, "ask", nil, turnJSON("Hi."))
	h.text("hello there")
	h.enter()
	h.idle()
	h.slashCmd("/status")
	h.until("the box empty", func(m *model) bool { return m.input.Empty() })
	up := tea.KeyPressMsg{Code: tea.KeyUp}
	h.key(up)
	h.until("/status recalled", func(m *model) bool { return m.input.Value() == "/status" })
	h.key(up)
	h.until("the message before it recalled", func(m *model) bool { return m.input.Value() == "hello there" })
	down := tea.KeyPressMsg{Code: tea.KeyDown}
	h.key(down)
	h.until("/status again", func(m *model) bool { return m.input.Value() == "/status" })
	h.key(down)
	h.until("the empty draft", func(m *model) bool { return m.input.Empty() })
	// typing a slash command still opens the list, and ↑ moves in it
	h.text("/")
	h.until("the completion list", func(m *model) bool { return m.input.PopupOpen() })
	h.key(up)
	h.probe(func(m *model) {
		if m.input.Value() != "/" {
			t.Errorf("↑ with the list open recalled %q", m.input.Value())
		}
	})
}

// /export runs on the first Enter: its path is optional.
func TestExportOnOneEnter(t *testing.T) {
	h := newHarness(t, "ask", nil, turnJSON("Hi."))
	h.text("hello")
	h.enter()
	h.idle()
	h.text("/export")
	h.until("the completion list", func(m *model) bool { return m.input.PopupOpen() })
	h.enter()
	h.until("the export notice", func(m *model) bool { return strings.Contains(stripANSI(m.View().Content), "exported") })
	h.probe(func(m *model) {
		if !m.input.Empty() {
			t.Errorf("the box still holds %q", m.input.Value())
		}
	})
}
