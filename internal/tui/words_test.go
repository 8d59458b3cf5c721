package tui

import (
	"regexp"
	"strings"
	"testing"

	"agent/internal/event"
	"agent/internal/protocol"
)

// A failed request is one error line in plain words: not twice, and
// without the journal's terms (event numbers, seqs, failure classes).
func TestOneErrorLinePerFailure(t *testing.T) {
	bad := turnJSON("")
	bad["http_status"] = 400
	bad["error"] = "the prompt is malformed"
	h := newHarness(t, "ask", nil, bad)
	h.text("hello")
	h.enter()
	h.idle()
	s := h.screen()
	if n := strings.Count(s, "the prompt is malformed"); n != 1 {
		t.Fatalf("the failure shows %d times, want once:\n%s", n, s)
	}
	if regexp.MustCompile(`(?i)at event \d|seq \d|failure at|model error: model error`).MatchString(s) {
		t.Fatalf("internal terms on screen:\n%s", s)
	}
}

func TestErrorWords(t *testing.T) {
	for _, c := range []struct {
		class event.Class
		msg   string
		want  string
	}{
		{event.ClassModel, "model error: HTTP 400", "model error: HTTP 400"},
		{event.ClassModel, "model error: model error: HTTP 400", "model error: HTTP 400"},
		{event.ClassTool, "the command hung", "tool error: the command hung"},
		{"", "plain", "plain"},
	} {
		if got := protocol.ErrorWords(c.class, c.msg); got != c.want {
			t.Errorf("ErrorWords(%q, %q) = %q, want %q", c.class, c.msg, got, c.want)
		}
	}
}
