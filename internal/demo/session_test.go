package demo

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"agent/internal/tui"
)

// In --interactive the person ends the TUI, however long they take: the
// demo neither cancels it when its quit grace has passed nor presses
// ctrl+c itself. (It closed the TUI by itself after 5 s.)
func TestInteractiveSessionWaitsForThePerson(t *testing.T) {
	for i := 0; i < 50; i++ { // the old code chose at random between the person and the timer
		pr, pw := io.Pipe()
		scr := &screen{keys: pw}
		pressed := make(chan string, 1)
		go func() {
			b := make([]byte, 16)
			n, _ := pr.Read(b)
			pressed <- string(b[:n])
		}()
		done := make(chan tui.Result)
		cancelled := make(chan struct{})
		grace := make(chan time.Time, 1)
		grace <- time.Now() // the grace has long passed
		got := make(chan tui.Result, 1)
		go func() {
			got <- endSession(errInteractive, scr, done, func() { close(cancelled) }, grace)
		}()
		select {
		case done <- tui.Result{RunID: "person-quit"}:
		case <-cancelled:
			t.Fatal("the demo cancelled the TUI the person was driving")
		case k := <-pressed:
			t.Fatalf("the demo pressed %q in the TUI the person was driving", k)
		}
		if r := <-got; r.RunID != "person-quit" {
			t.Fatalf("result %+v", r)
		}
		pw.Close()
	}
}

// When the demo drives, it quits the TUI itself (ctrl+c twice) and cancels
// it if it has not ended by the grace; a drive error cancels at once.
func TestDrivenSessionQuits(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	scr := &screen{keys: pw}
	pressed := make(chan string, 1)
	go func() {
		b := make([]byte, 16)
		n, _ := pr.Read(b)
		pressed <- string(b[:n])
	}()
	done := make(chan tui.Result)
	cancelled := make(chan struct{})
	grace := make(chan time.Time)
	go func() { endSession(nil, scr, done, func() { close(cancelled) }, grace) }()
	if k := <-pressed; k != "\x03\x03" {
		t.Fatalf("pressed %q, want ctrl+c twice", k)
	}
	grace <- time.Now()
	<-cancelled
	done <- tui.Result{}

	cancelled = make(chan struct{})
	go func() {
		endSession(errors.New("drive failed"), scr, done, func() { close(cancelled) }, make(chan time.Time))
	}()
	<-cancelled
	done <- tui.Result{}
}

// --interactive tells what the person did with the edit: a deny is a deny,
// quitting before deciding is not "you did not approve".
func TestPersonsEdit(t *testing.T) {
	if _, _, ok := personsEdit([]event{{Type: "approval", CallID: editCall, Decision: "allow"}}); !ok {
		t.Error("an allowed edit is not allowed")
	}
	edit, cmd, ok := personsEdit([]event{{Type: "approval", CallID: editCall, Decision: "deny"}})
	if ok || !strings.HasPrefix(edit, "you denied the edit") || !strings.Contains(cmd, "denial") {
		t.Errorf("a deny: %q / %q", edit, cmd)
	}
	edit, cmd, ok = personsEdit([]event{{Type: "tool_call", CallID: editCall}})
	if ok || !strings.HasPrefix(edit, "you quit before deciding") || strings.Contains(edit+cmd, "did not approve") || strings.Contains(cmd, "denial") {
		t.Errorf("quit before deciding: %q / %q", edit, cmd)
	}
}
