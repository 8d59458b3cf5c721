package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Rewind by prompt in a real terminal: two messages each edit main.go and
// add a file; esc esc lists both messages with the files changed since;
// choosing the first rewinds files and conversation to just before it
// (main.go as it was, the added files gone, the message back in the
// composer), and the next request no longer carries the rewound messages.
func TestTUIRewindToFirstMessage(t *testing.T) {
	tm := newTmux(t)
	e := newEnv(t, script(
		turn("Changing it.", call("c1", "edit_file", map[string]any{"path": "main.go", "old_string": `"Hello"`, "new_string": `"Hello, one"`}),
			call("c2", "write_file", map[string]any{"path": "one.txt", "content": "one\n"})),
		turn("Done with REWONE-ANSWER."),
		turn("Again.", call("c3", "edit_file", map[string]any{"path": "main.go", "old_string": `"Hello, one"`, "new_string": `"Hello, two"`})),
		turn("Done with REWTWO-ANSWER."),
		turn("Fresh start REWTHREE-ANSWER."),
	))
	mainGo := filepath.Join(e.ws, "main.go")
	orig := readFile(t, mainGo)
	env := append(e.environ(), "AGENT_APPROVAL=full-auto", "AGENT_MODEL=test-model")
	tm.start(120, 40, env, e.ws, agentBin+"; echo AGENT-EXITED-$?; sleep 60")
	tm.wait(`Ask, or /`, 15*time.Second)
	tm.typeText("REWFIRST change the greeting")
	tm.keys("Enter")
	tm.wait(`REWONE-ANSWER`, 15*time.Second)
	tm.typeText("REWSECOND once more")
	tm.keys("Enter")
	tm.wait(`REWTWO-ANSWER`, 15*time.Second)
	waitFile(t, mainGo, func(s string) bool { return strings.Contains(s, `"Hello, two"`) }, 10*time.Second)

	time.Sleep(600 * time.Millisecond) // apart from any earlier Esc
	tm.keys("Escape")
	time.Sleep(150 * time.Millisecond) // two presses, not one alt+esc sequence
	tm.keys("Escape")
	tm.wait(`Rewind to one of your messages`, 5*time.Second)
	tm.wait(`REWSECOND once more`, 10*time.Second) // once loaded
	s := tm.wait(`files changed since`, 5*time.Second)
	for _, want := range []string{"REWFIRST change the greeting", "REWSECOND once more", "2 files changed since: main.go, one.txt"} {
		if !strings.Contains(s, want) {
			t.Errorf("the rewind list lacks %q:\n%s", want, s)
		}
	}
	tm.keys("Up")
	tm.wait(`› 1 REWFIRST`, 5*time.Second)
	tm.keys("Enter")
	tm.wait(`y to confirm`, 5*time.Second)
	tm.keys("y")
	waitFile(t, mainGo, func(s string) bool { return s == orig }, 15*time.Second)
	if _, err := os.Stat(filepath.Join(e.ws, "one.txt")); !os.IsNotExist(err) {
		t.Errorf("one.txt, written after the first message, is still there (%v)", err)
	}
	tm.wait(`rewound the files and the conversation`, 5*time.Second)
	tm.wait(`› REWFIRST change the greeting`, 5*time.Second) // back in the composer
	// send it again: the model no longer sees the rewound exchange
	tm.keys("C-u")
	tm.typeText("REWTHIRD start over")
	tm.keys("Enter")
	tm.wait(`REWTHREE-ANSWER`, 15*time.Second)
	reqs := e.srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "REWTHIRD") || strings.Contains(last, "REWSECOND") || strings.Contains(last, "REWFIRST") {
		t.Errorf("the request after the rewind still carries the rewound messages:\n%.2000s", last)
	}
	tm.keys("C-c")
	tm.keys("C-c")
	tm.wait(`AGENT-EXITED-0`, 10*time.Second)
}
