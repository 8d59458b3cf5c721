package composer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestEnterSubmitsAndClears(t *testing.T) {
	d := newDriver(t, Options{})
	d.typ("fix the failing test").press("enter")
	s := d.lastSubmit()
	if s.Text != "fix the failing test" || s.Display != s.Text || s.Command != nil || s.Busy {
		t.Fatalf("submitted %+v", s)
	}
	if !d.m.Empty() || !strings.Contains(d.view(), DefaultPlaceholder) {
		t.Fatalf("the box is not empty after sending:\n%s", d.view())
	}
	// An empty or blank box sends nothing.
	d.press("enter").typ("   ").press("enter")
	if len(d.submits) != 1 {
		t.Fatalf("a blank box sent %d messages", len(d.submits)-1)
	}
}

func TestBusySubmitCarriesTheState(t *testing.T) {
	d := newDriver(t, Options{})
	d.m.SetBusy(true)
	if !strings.Contains(d.view(), DefaultBusyPlaceholder) {
		t.Fatalf("busy box does not say so:\n%s", d.view())
	}
	d.typ("and add a test").press("enter")
	if s := d.lastSubmit(); !s.Busy || s.Text != "and add a test" {
		t.Fatalf("submitted %+v", s)
	}
}

func TestNewlineKeys(t *testing.T) {
	for _, k := range []string{"shift+enter", "ctrl+j", "alt+enter"} {
		t.Run(k, func(t *testing.T) {
			d := newDriver(t, Options{})
			d.typ("first").press(k).typ("second")
			if len(d.submits) != 0 {
				t.Fatalf("%s sent the message", k)
			}
			if got := d.m.Value(); got != "first\nsecond" {
				t.Fatalf("value %q", got)
			}
			if v := d.view(); !strings.Contains(v, "first") || !strings.Contains(v, "second") || d.m.Height() != 4 {
				t.Fatalf("the box does not show two lines (height %d):\n%s", d.m.Height(), v)
			}
			d.press("enter")
			if s := d.lastSubmit(); s.Text != "first\nsecond" {
				t.Fatalf("submitted %q", s.Text)
			}
		})
	}
	t.Run("trailing backslash", func(t *testing.T) {
		d := newDriver(t, Options{})
		d.typ(`first\`).press("enter").typ("second")
		if len(d.submits) != 0 || d.m.Value() != "first\nsecond" {
			t.Fatalf("value %q, %d sent", d.m.Value(), len(d.submits))
		}
		// A backslash inside the line is text.
		d.m.Reset()
		d.typ(`a\b`).press("left", "enter")
		if s := d.lastSubmit(); s.Text != `a\b` {
			t.Fatalf("submitted %q", s.Text)
		}
	})
}

func lines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d: x := %d\n", i, i)
	}
	return b.String()
}

func TestBigPasteFoldsAndSubmitsInFull(t *testing.T) {
	d := newDriver(t, Options{})
	big := lines(500)
	d.typ("explain this: ").paste(big).typ(" thanks")
	v := d.view()
	if !strings.Contains(v, "[Pasted 500 lines #1]") || strings.Contains(v, "line 2:") {
		t.Fatalf("the paste is not folded:\n%s", v)
	}
	if d.m.Height() != 3 {
		t.Fatalf("a folded paste takes %d lines", d.m.Height())
	}
	d.press("enter")
	s := d.lastSubmit()
	if s.Text != "explain this: "+big+" thanks" {
		t.Fatalf("the paste was not sent in full: %d lines", strings.Count(s.Text, "\n"))
	}
	if strings.Count(s.Text, "\n") != 500 {
		t.Fatalf("sent %d newlines", strings.Count(s.Text, "\n"))
	}
	if s.Display != "explain this: [Pasted 500 lines #1] thanks" {
		t.Fatalf("display %q", s.Display)
	}
}

func TestPasteThresholdsAndCleaning(t *testing.T) {
	cases := []struct {
		name, paste, value string
		folded             bool
	}{
		{"ten lines stay inline", lines(10), lines(10), false},
		{"eleven lines fold", lines(11), lines(11), true},
		{"one long line folds", strings.Repeat("k", 2001), strings.Repeat("k", 2001), true},
		{"crlf and cr become newlines", "a\r\nb\rc", "a\nb\nc", false},
		{"escapes and controls are dropped, tabs kept", "\x1b[31mred\x1b[0m\tx\x07\x00", "red\tx", false},
		{"a forged fold mark is replaced", "a\U00100001b", "a\ufffdb", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDriver(t, Options{})
			d.paste(c.paste)
			if got := d.m.Value(); got != c.value {
				t.Fatalf("value %q, want %q", got, c.value)
			}
			if folded := strings.Contains(d.view(), "[Pasted "); folded != c.folded {
				t.Fatalf("folded %v, want %v:\n%s", folded, c.folded, d.view())
			}
			if strings.ContainsAny(d.m.View(), "\x07\x00") {
				t.Fatal("a control character reached the view")
			}
		})
	}
}

func TestBackspaceRemovesAFoldWhole(t *testing.T) {
	d := newDriver(t, Options{})
	d.typ("a ").paste(lines(50)).paste(lines(20))
	if v := d.view(); !strings.Contains(v, "[Pasted 50 lines #1][Pasted 20 lines #2]") {
		t.Fatalf("view:\n%s", v)
	}
	d.press("backspace")
	if v := d.view(); strings.Contains(v, "#2") || !strings.Contains(v, "[Pasted 50 lines #1]") {
		t.Fatalf("backspace did not remove the second fold whole:\n%s", v)
	}
	// The cursor steps over a fold in one move; delete removes it whole.
	d.press("left", "delete")
	if got := d.m.Value(); got != "a " {
		t.Fatalf("value %q", got)
	}
	// Word deletion treats a fold as one word.
	d.paste(lines(30)).press("ctrl+w")
	if got := d.m.Value(); got != "a " {
		t.Fatalf("value after ctrl+w %q", got)
	}
}

func TestCtrlUClears(t *testing.T) {
	d := newDriver(t, Options{})
	d.typ("one").press("shift+enter").paste(lines(40)).press("ctrl+u")
	if !d.m.Empty() || d.m.Value() != "" {
		t.Fatalf("ctrl+u left %q", d.m.Value())
	}
	d.typ("x").press("enter")
	if s := d.lastSubmit(); s.Text != "x" {
		t.Fatalf("submitted %q", s.Text)
	}
}

func TestHistoryRecall(t *testing.T) {
	d := newDriver(t, Options{})
	d.typ("first").press("enter")
	d.typ("second").press("shift+enter").typ("two lines").press("enter")
	d.typ("draft")
	d.press("up")
	if got := d.m.Value(); got != "second\ntwo lines" {
		t.Fatalf("up recalled %q", got)
	}
	// The cursor is at the start of a multi-line entry: up again goes on.
	d.press("up")
	if got := d.m.Value(); got != "first" {
		t.Fatalf("second up recalled %q", got)
	}
	d.press("up") // nothing older
	if got := d.m.Value(); got != "first" {
		t.Fatalf("up past the oldest gave %q", got)
	}
	d.press("down")
	if got := d.m.Value(); got != "second\ntwo lines" {
		t.Fatalf("down gave %q", got)
	}
	d.press("down")
	if got := d.m.Value(); got != "draft" {
		t.Fatalf("down past the newest did not restore the draft: %q", got)
	}
	// In a multi-line text, up and down move between lines first.
	d.m.Reset()
	d.typ("a").press("shift+enter").typ("b").press("up")
	if got := d.m.Value(); got != "a\nb" {
		t.Fatalf("up on the second line recalled history: %q", got)
	}
	d.typ("X")
	if got := d.m.Value(); got != "aX\nb" {
		t.Fatalf("up did not move to the first line: %q", got)
	}
}

func TestHistoryKeepsFoldsInMemory(t *testing.T) {
	d := newDriver(t, Options{})
	big := lines(30)
	d.paste(big).press("enter").press("up")
	if got := d.m.Value(); got != big {
		t.Fatalf("recalled %d bytes, want the paste", len(got))
	}
	if !strings.Contains(d.view(), "[Pasted 30 lines #1]") {
		t.Fatalf("the recalled paste is not folded:\n%s", d.view())
	}
}

func TestHistoryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "history.jsonl")
	secret := "sk-live-" + strings.Repeat("9", 30)
	d := newDriver(t, Options{HistoryPath: path})
	d.typ("hello").press("enter")
	d.paste(secret + "\n" + lines(20)).press("enter")
	d.typ(`with "quotes" and \ backslash`).press("enter")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"text":"hello"}` + "\n" + `{"text":"[Pasted 21 lines #1]"}` + "\n" + `{"text":"with \"quotes\" and \\ backslash"}` + "\n"
	if string(data) != want {
		t.Fatalf("history file:\n%s\nwant\n%s", data, want)
	}
	if strings.Contains(string(data), secret) {
		t.Fatal("a folded paste reached the history file")
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file mode %v, %v", fi.Mode(), err)
	}

	// A new composer recalls what the file holds, newest first.
	d2 := newDriver(t, Options{HistoryPath: path})
	d2.press("up")
	if got := d2.m.Value(); got != `with "quotes" and \ backslash` {
		t.Fatalf("recalled %q", got)
	}
	d2.press("up")
	if got := d2.m.Value(); got != "[Pasted 21 lines #1]" {
		t.Fatalf("recalled %q", got)
	}
}

func TestHistoryFileCapAndRedaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	var b strings.Builder
	for i := range MaxHistory + 5 {
		fmt.Fprintf(&b, "{\"text\":\"old %d\"}\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, Options{HistoryPath: path, HistoryRedact: func(s string) string {
		return strings.ReplaceAll(s, "hunter2", "[REDACTED]")
	}})
	d.typ("password hunter2").press("enter")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(got) != MaxHistory {
		t.Fatalf("history file holds %d entries", len(got))
	}
	if got[0] != `{"text":"old 6"}` || got[len(got)-1] != `{"text":"password [REDACTED]"}` {
		t.Fatalf("first %s, last %s", got[0], got[len(got)-1])
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	// In memory the entry is as typed.
	d.press("up")
	if d.m.Value() != "password hunter2" {
		t.Fatalf("recalled %q", d.m.Value())
	}
}

func TestHistoryFileCorruptIsReportedAndKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	orig := "{\"text\":\"ok\"}\nnot json\n"
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, Options{HistoryPath: path})
	v := d.view()
	if !strings.Contains(v, "history file") || !strings.Contains(v, "line 2") {
		t.Fatalf("the broken file is not reported:\n%s", v)
	}
	d.typ("new").press("enter")
	if data, _ := os.ReadFile(path); string(data) != orig {
		t.Fatalf("a broken history file was overwritten:\n%s", data)
	}
	d.press("up")
	if d.m.Value() != "new" {
		t.Fatalf("in-memory history lost: %q", d.m.Value())
	}
}

func TestSlashCompletion(t *testing.T) {
	d := newDriver(t, Options{})
	d.typ("/ch")
	if !d.m.PopupOpen() || !strings.Contains(d.view(), "/checkpoints") {
		t.Fatalf("no popup for /ch:\n%s", d.view())
	}
	// enter on a command without arguments runs it at once
	d.press("enter")
	s := d.lastSubmit()
	if len(d.submits) != 1 || s.Command == nil || s.Command.Name != CmdCheckpoints || s.Command.Args != "" || d.m.PopupOpen() {
		t.Fatalf("enter did not run /checkpoints: submitted %+v, sent %d", s.Command, len(d.submits))
	}
	// on one whose arguments are optional ("[PATH]") it runs too
	d.typ("/exp").press("enter")
	if s := d.lastSubmit(); len(d.submits) != 2 || s.Command == nil || s.Command.Name != CmdExport || s.Command.Args != "" || !d.m.Empty() {
		t.Fatalf("enter on /export: value %q, submitted %+v, sent %d", d.m.Value(), s.Command, len(d.submits))
	}

	// tab accepts too; an alias resolves; args are kept.
	d.typ("/exi").press("tab").typ("3").press("enter")
	if s := d.lastSubmit(); s.Command == nil || s.Command.Name != CmdQuit || s.Command.Typed != "exit" || s.Command.Args != "3" {
		t.Fatalf("submitted %+v", s.Command)
	}

	// Navigate: "/" lists every command; down selects the second.
	d.typ("/")
	if got := len(d.m.pop.items); got != len(DefaultCommands()) {
		t.Fatalf("/ lists %d items", got)
	}
	d.press("down", "tab")
	if d.m.Value() != "/context " {
		t.Fatalf("down+tab gave %q", d.m.Value())
	}
	d.m.Reset()

	// Fuzzy: "/ckp" finds checkpoints.
	d.typ("/ckp")
	if len(d.m.pop.items) == 0 || d.m.pop.items[0].label != "/checkpoints" {
		t.Fatalf("fuzzy items %+v", d.m.pop.items)
	}
	d.m.Reset()

	// An unknown command is not sent, and says why.
	d.typ("/frobnicate").press("esc", "enter")
	if len(d.submits) != 3 || !strings.Contains(d.view(), "unknown command /frobnicate") || d.m.Value() != "/frobnicate" {
		t.Fatalf("unknown command: sent %d, view\n%s", len(d.submits), d.view())
	}
	// A path is a message, not a command.
	d.m.Reset()
	d.typ("/etc/hosts is wrong").press("enter")
	if s := d.lastSubmit(); s.Command != nil || s.Text != "/etc/hosts is wrong" {
		t.Fatalf("submitted %+v", s)
	}
}

// workspace makes a git repository in a temp dir with files and a
// .gitignore.
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	files := map[string]string{
		".git/HEAD":                   "ref: refs/heads/main\n",
		".gitignore":                  "build/\n*.log\n",
		"main.go":                     "package main\n",
		"go.mod":                      "module x\n",
		"README.md":                   "# x\n",
		"internal/migrate/migrate.go": "package migrate\n",
		"internal/tui/view.go":        "package tui\n",
		"build/main.go":               "ignored\n",
		"debug.log":                   "ignored\n",
	}
	for name, body := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(ws, "passwd")); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestAtCompletionAttachesAFile(t *testing.T) {
	ws := workspace(t)
	d := newDriver(t, Options{Files: WorkspaceFiles(ws)})
	d.typ("look at @mg")
	if !d.m.PopupOpen() || len(d.m.pop.items) == 0 {
		t.Fatalf("no @ popup:\n%s", d.view())
	}
	var labels []string
	for _, it := range d.m.pop.items {
		labels = append(labels, it.label)
	}
	if labels[0] != "main.go" || slices.Contains(labels, "build/main.go") {
		t.Fatalf("@mg offers %v", labels)
	}
	d.press("enter")
	if d.m.Value() != "look at @main.go " {
		t.Fatalf("accepted %q", d.m.Value())
	}
	if !strings.Contains(d.view(), "attached: @main.go") {
		t.Fatalf("the attachment is not shown:\n%s", d.view())
	}
	d.typ("please").press("enter")
	s := d.lastSubmit()
	if !slices.Equal(s.Attachments, []string{"main.go"}) || s.Text != "look at @main.go please" {
		t.Fatalf("submitted %+v", s)
	}

	// Typing a listed path attaches it too; a path not in the list does not.
	d.typ("compare @internal/tui/view.go, @go.mod and @../../etc/passwd @passwd").press("enter")
	if s := d.lastSubmit(); !slices.Equal(s.Attachments, []string{"internal/tui/view.go", "go.mod"}) {
		t.Fatalf("attachments %v", s.Attachments)
	}
	// Deleting the @path drops the attachment.
	d.typ("@mai").press("tab", "ctrl+w", "ctrl+w").typ("nothing").press("enter")
	if s := d.lastSubmit(); len(s.Attachments) != 0 {
		t.Fatalf("attachments %v after the path was deleted (%q)", s.Attachments, s.Text)
	}
	// An @ inside a word (an e-mail address) opens nothing.
	d.typ("mail me@mg")
	if d.m.PopupOpen() {
		t.Fatal("an @ inside a word opened the popup")
	}
}

func TestListFilesRespectsGitignore(t *testing.T) {
	ws := workspace(t)
	l, err := ListFiles(t.Context(), ws, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "README.md", "go.mod", "internal/migrate/migrate.go", "internal/tui/view.go", "main.go"}
	if !slices.Equal(l.Paths, want) || l.Truncated {
		t.Fatalf("listed %v (truncated %v), want %v", l.Paths, l.Truncated, want)
	}
	l, err = ListFiles(t.Context(), ws, 2)
	if err != nil || len(l.Paths) != 2 || !l.Truncated {
		t.Fatalf("capped list %v %v %v", l.Paths, l.Truncated, err)
	}
	if _, err := ListFiles(t.Context(), filepath.Join(ws, "nope"), 0); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("missing workspace: %v", err)
	}
}

func TestEscClosesThePopupAndReportsIt(t *testing.T) {
	d := newDriver(t, Options{})
	d.typ("/he")
	if !d.m.PopupOpen() {
		t.Fatal("no popup")
	}
	d.press("esc")
	if d.m.PopupOpen() || !d.m.Consumed() {
		t.Fatalf("esc: open %v, consumed %v", d.m.PopupOpen(), d.m.Consumed())
	}
	// It stays closed while the same word is typed on.
	d.typ("l")
	if d.m.PopupOpen() {
		t.Fatal("the dismissed popup came back")
	}
	// Without a popup, esc is the root's (interrupt).
	d.press("esc")
	if d.m.Consumed() {
		t.Fatal("esc without a popup was consumed")
	}
	// A new word opens it again.
	d.press("ctrl+u").typ("/")
	if !d.m.PopupOpen() {
		t.Fatal("popup did not reopen for a new word")
	}
}

func TestKeysLeftToTheRoot(t *testing.T) {
	d := newDriver(t, Options{})
	for _, k := range []string{"pgup", "pgdown", "ctrl+c", "ctrl+o", "tab", "ctrl+x"} {
		d.press(k)
		if d.m.Consumed() {
			t.Errorf("%s was consumed", k)
		}
	}
	d.typ("a")
	if !d.m.Consumed() {
		t.Error("typing was not consumed")
	}
	d.m.Blur()
	d.typ("b").paste("c")
	if d.m.Consumed() || d.m.Value() != "a" {
		t.Fatalf("a blurred composer took input: %q", d.m.Value())
	}
}

func TestGrowsThenScrolls(t *testing.T) {
	d := newDriver(t, Options{})
	d.m.SetSize(40, 8)
	for i := range 20 {
		if i > 0 {
			d.press("shift+enter")
		}
		d.typ(fmt.Sprintf("row %d", i))
	}
	if h := d.m.Height(); h != 8 {
		t.Fatalf("height %d, want the cap 8", h)
	}
	v := d.view()
	if !strings.Contains(v, "row 19") || strings.Contains(v, "row 0 ") || !strings.Contains(v, "↑") {
		t.Fatalf("the cursor's end is not in view:\n%s", v)
	}
	d.press("ctrl+home")
	if v := d.view(); !strings.Contains(v, "row 0") || !strings.Contains(v, "↓") {
		t.Fatalf("after ctrl+home:\n%s", v)
	}
	// Soft wrap: a long line takes several rows, every row within the width.
	d.m.Reset()
	d.typ(strings.Repeat("word ", 30))
	for _, l := range strings.Split(d.view(), "\n") {
		if w := len([]rune(l)); w != 40 {
			t.Fatalf("line %q is %d wide", l, w)
		}
	}
	if d.m.Height() < 5 {
		t.Fatalf("a 150-character line in 34 columns takes %d lines", d.m.Height())
	}
}

func TestCursorMoves(t *testing.T) {
	cases := []struct {
		keys []string
		want string
	}{
		{[]string{"home", "X"}, "Xhello world"},
		{[]string{"ctrl+a", "ctrl+k", "X"}, "X"},
		{[]string{"alt+b", "X"}, "hello Xworld"},
		{[]string{"alt+b", "alt+b", "alt+f", "X"}, "helloX world"},
		{[]string{"left", "left", "backspace"}, "hello wold"},
		{[]string{"home", "delete"}, "ello world"},
		{[]string{"ctrl+w"}, "hello "},
		{[]string{"home", "alt+d"}, " world"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.keys, " "), func(t *testing.T) {
			d := newDriver(t, Options{})
			d.typ("hello world")
			for _, k := range c.keys {
				if len(k) == 1 {
					d.typ(k)
				} else {
					d.press(k)
				}
			}
			if got := d.m.Value(); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestMessagesOfAnotherComposerAreIgnored(t *testing.T) {
	a := newDriver(t, Options{Files: func(ctx context.Context) (FileList, error) { return FileList{Paths: []string{"a.go"}}, nil }})
	b := newDriver(t, Options{})
	msgs := run(a.m.loadFiles())
	b.send(msgs...)
	if b.m.files.have {
		t.Fatal("a composer took another's file list")
	}
}

// Inline: the submission waits in the model, once, and no message is sent.
func TestInlineSubmit(t *testing.T) {
	d := newDriver(t, Options{Inline: true})
	d.typ("hello").press("enter")
	if len(d.submits) != 0 {
		t.Fatalf("an inline composer sent %d messages", len(d.submits))
	}
	s, ok := d.m.TakeSubmit()
	if !ok || s.Text != "hello" {
		t.Fatalf("TakeSubmit = %+v, %v", s, ok)
	}
	if _, again := d.m.TakeSubmit(); again {
		t.Error("the submission was taken twice")
	}
}

// Enter on a command that needs arguments completes its name and waits for
// them.
func TestSlashCompletionWaitsForArgs(t *testing.T) {
	d := newDriver(t, Options{Commands: []Command{{Name: "open", Args: "PATH", Help: "open a file"}}})
	d.typ("/op").press("enter")
	if len(d.submits) != 0 || d.m.Value() != "/open " {
		t.Fatalf("enter on /open: value %q, sent %d", d.m.Value(), len(d.submits))
	}
	d.typ("a.go").press("enter")
	if s := d.lastSubmit(); s.Command == nil || s.Command.Name != "open" || s.Command.Args != "a.go" {
		t.Fatalf("submitted %+v", s.Command)
	}
}
