package textutil

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Untrusted text a person must read exactly: nothing in it may drive the
// terminal or read differently from what it holds.
func TestVisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"rm -rf /\x1b[2K\rok", `rm -rf /\x1b[2K\x0dok`},
		{"tab\there", "tab    here"},
		{"a\u202eb", `a\u202eb`},               // right-to-left override
		{"zero\u200bwidth", `zero\u200bwidth`}, // zero-width space
		{"bad \xff byte", `bad \xff byte`},
		{"two\nlines", "two\nlines"},
		{"c1 \u009b31m", `c1 \x9b31m`},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFitAndSpread(t *testing.T) {
	for _, w := range []int{1, 5, 12, 40} {
		if got := ansi.StringWidth(Fit("a long line of text to fit", w)); got != w {
			t.Errorf("Fit to %d gave %d columns", w, got)
		}
		if got := ansi.StringWidth(Spread("left side text", "right", w)); got != w {
			t.Errorf("Spread to %d gave %d columns", w, got)
		}
	}
	if got := Count(-1234567); got != "-1,234,567" {
		t.Errorf("Count = %q", got)
	}
}
