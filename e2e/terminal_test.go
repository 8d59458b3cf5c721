package e2e

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// pane is a tmux pane running one shell script that waits for Enter: the
// test sets the pane's title and options and starts recording every byte
// the script's programs write (pipe-pane) before anything is written.
type pane struct {
	*tmuxTerm
	raw string // what the pane's programs wrote, byte for byte
}

const paneTitle = "title-before"

func startPane(t *testing.T, env []string, dir, script string) *pane {
	t.Helper()
	tm := newTmux(t)
	tmp := t.TempDir()
	sh := filepath.Join(tmp, "script.sh")
	if err := os.WriteFile(sh, []byte("read _ || exit 9\n"+script+"\necho PANE-DONE\nsleep 600\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &pane{tmuxTerm: tm, raw: filepath.Join(tmp, "raw")}
	tm.start(200, 60, env, dir, "exec sh "+sh)
	tm.tmux("set-option", "-g", "set-clipboard", "on") // an OSC 52 reaching the pane becomes a paste buffer
	tm.tmux("set-option", "-w", "-t", "t", "allow-rename", "on")
	tm.tmux("select-pane", "-t", "t", "-T", paneTitle)
	tm.tmux("pipe-pane", "-t", "t", "cat >> "+p.raw)
	tm.keys("Enter")
	return p
}

// done waits until the script has finished and its bytes are recorded.
func (p *pane) done(d time.Duration) string {
	p.t.Helper()
	return waitFile(p.t, p.raw, func(s string) bool { return strings.Contains(s, "PANE-DONE") }, d)
}

// all is the pane's screen and its scrollback, lines joined.
func (p *pane) all() string {
	return p.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t")
}

// noRawEscapes fails when what was written to the pane sent the terminal
// an OSC, a screen or scrollback erase, or when the pane's title changed
// or a paste buffer appeared (what a raw OSC 2 or OSC 52 does).
func (p *pane) noRawEscapes(what string) {
	p.t.Helper()
	raw := readFile(p.t, p.raw)
	for _, seq := range []string{"\x1b]", "\x1b[2J", "\x1b[3J", "\x1b[H", "\u009d", "\u009b"} {
		if i := strings.Index(raw, seq); i >= 0 {
			p.t.Errorf("%s wrote %q raw to the terminal: …%q…", what, seq, raw[max(0, i-40):min(len(raw), i+60)])
		}
	}
	if got := strings.TrimSpace(p.tmux("display-message", "-p", "-t", "t", "#{pane_title}")); got != paneTitle {
		p.t.Errorf("%s changed the pane's title to %q", what, got)
	}
	if bufs := strings.TrimSpace(p.tmux("list-buffers")); bufs != "" {
		p.t.Errorf("%s set the clipboard (OSC 52): tmux buffers %q", what, bufs)
	}
}

// A headless pause whose diff carries ESC[2J ESC[3J ESC[H and a fake pause
// line: the screen is not cleared, the escapes are shown as text, and the
// fake line stays inside the diff's gutter, under the real pause.
func TestPauseDiffCannotClearTheScreen(t *testing.T) {
	content := "hello\n\x1b[2J\x1b[3J\x1b[HFAKE-PAUSE: read_file notes.txt needs approval; nothing else will run\n"
	e := newEnv(t, script(
		turn("", call("c1", "write_file", map[string]any{"path": "notes.txt", "content": content})),
		turn("done"),
	))
	env := append(e.environ(), "AGENT_MODEL=test-model")
	p := startPane(t, env, e.ws, fmt.Sprintf("printf 'EARLIER-LINE\\n'\n%q run --approval ask 'update the notes'\necho AGENT-EXIT-$?", agentBin))
	p.done(60 * time.Second)
	screen := p.screen() // the visible screen only: what a clear would wipe
	if !strings.Contains(screen, "AGENT-EXIT-3") {
		t.Fatalf("the run did not pause (exit 3):\n%s", screen)
	}
	if !strings.Contains(screen, "EARLIER-LINE") || !regexp.MustCompile(`(?m)^run: `).MatchString(screen) {
		t.Errorf("the pause's diff cleared the screen:\n%s", screen)
	}
	if !strings.Contains(screen, `\x1b[2J\x1b[3J\x1b[H`) {
		t.Errorf("the escapes are not shown as text in the pause:\n%s", screen)
	}
	if m := regexp.MustCompile(`(?m)^.*FAKE-PAUSE.*$`).FindAllString(screen, -1); len(m) != 3 || !strings.HasPrefix(m[2], "  │ "+`\x1b[2J`) {
		t.Errorf("the fake pause line is not shown inside the diff (want it third, after the call and its arguments): %q", m)
	}
	if !regexp.MustCompile(`(?m)^paused: write_file`).MatchString(screen) {
		t.Errorf("no real pause line:\n%s", screen)
	}
	p.noRawEscapes("a paused agent run")
	if _, err := os.Stat(filepath.Join(e.ws, "notes.txt")); err == nil {
		t.Error("the paused edit was applied")
	}
}

// OSC 52 (clipboard) and OSC 2 (title) in a command's output, in the
// model's final answer, in a provider's error message and in a prompt reach
// the pane raw neither from `agent run` nor from `agent trace` or `agent
// runs`: they are shown as \x1b]… text. Piped, the answer and --json stay
// byte-exact.
func TestOSCFromUntrustedTextIsShownNotSent(t *testing.T) {
	clip := base64.StdEncoding.EncodeToString([]byte("CLIP-PAYLOAD"))
	osc52 := "\x1b]52;c;" + clip + "\x07"
	answer := "\x1b]2;MODEL-TITLE\x07All done." + osc52
	e := newEnv(t, script(
		turn("Checking.", call("c1", "run_command", map[string]any{
			"command": `printf '\033]52;c;` + clip + `\007\033]2;CMD-TITLE\033\\'; echo listed`})),
		turn(answer),
	))
	url1 := e.url
	e.serve(`{"turns": [{"http_status": 400, "error": "bad request \u001b]2;ERR-TITLE\u0007\u001b]52;c;` + clip + `\u0007 end"}]}`)
	url2 := e.url
	env := append(e.environ(), "AGENT_MODEL=test-model")

	p := startPane(t, env, e.ws, fmt.Sprintf(`OPENAI_BASE_URL=%[2]q %[1]q run --approval full-auto 'list things'
echo RUN-1-EXIT-$?
OPENAI_BASE_URL=%[3]q %[1]q run --approval full-auto "$(printf 'call the api \033]2;PROMPT-TITLE\007 now')"
echo RUN-2-EXIT-$?`, agentBin, url1, url2))
	p.done(90 * time.Second)
	s := p.all()
	if !strings.Contains(s, "RUN-1-EXIT-0") || !strings.Contains(s, "RUN-2-EXIT-1") {
		t.Fatalf("the runs did not end as scripted (0, then 1 on the provider error):\n%s", s)
	}
	p.noRawEscapes("agent run")
	for _, want := range []string{
		`\x1b]52;c;` + clip + `\x07\x1b]2;CMD-TITLE\x1b\listed`, // the command's output, in the progress line
		`\x1b]2;MODEL-TITLE\x07All done.\x1b]52;c;`,             // the final answer on stdout
		`bad request \x1b]2;ERR-TITLE\x07\x1b]52;c;`,            // the provider's error
		`call the api \x1b]2;PROMPT-TITLE\x07 now`,              // the prompt, in the progress
	} {
		if !strings.Contains(s, want) {
			t.Errorf("agent run does not show %q as text:\n%s", want, s)
		}
	}

	// The journal holds the raw bytes (what the test is about); piped, the
	// answer is byte-exact.
	var runs []struct {
		RunID  string `json:"run_id"`
		Prompt string `json:"prompt"`
	}
	e.mustJSON(&runs, "runs", "--json")
	if len(runs) != 2 {
		t.Fatalf("runs: %+v", runs)
	}
	ids := map[string]string{}
	for _, r := range runs {
		ids[strings.Fields(r.Prompt)[0]] = r.RunID
	}
	raw := e.run("trace", ids["list"], "--json").stdout + e.run("trace", ids["call"], "--json").stdout
	for _, want := range []string{osc52, "\x1b]2;MODEL-TITLE", "\x1b]2;ERR-TITLE", "\x1b]2;PROMPT-TITLE"} {
		// --json keeps every byte: the escapes are there, JSON-escaped
		if j := strings.ReplaceAll(strings.ReplaceAll(want, "\x1b", `\u001b`), "\x07", `\u0007`); !strings.Contains(raw, j) {
			t.Errorf("harness: the journal (trace --json) does not hold %q raw", want)
		}
	}
	if r := e.run("resume", ids["list"]); r.code != 0 || r.stdout != answer+"\n" {
		t.Errorf("piped, the final answer is not byte-exact: exit %d, %q, want %q", r.code, r.stdout, answer+"\n")
	}

	// agent trace and agent runs, on a terminal.
	p2 := startPane(t, env, e.ws, fmt.Sprintf("%[1]q trace %[2]s\n%[1]q trace %[3]s\n%[1]q runs\n%[1]q checkpoints %[2]s\n%[1]q checkpoints --patch %[2]s\n%[1]q audit\n%[1]q context %[2]s", agentBin, ids["list"], ids["call"]))
	p2.done(60 * time.Second)
	p2.noRawEscapes("agent trace, runs, checkpoints, audit and context")
	s = p2.all()
	for _, want := range []string{
		`\x1b]52;c;` + clip + `\x07\x1b]2;CMD-TITLE\x1b\listed`,
		`assistant: \x1b]2;MODEL-TITLE\x07All done.\x1b]52;c;`,
		`\x1b]2;ERR-TITLE\x07`,
		`call the api \x1b]2;PROMPT-TITLE\x07 now`, // in runs and in the trace's header
	} {
		if !strings.Contains(s, want) {
			t.Errorf("agent trace/runs do not show %q as text:\n%s", want, s)
		}
	}
}
