package agent

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"agent/internal/protocol"
)

// However much a command prints, what is published is bounded, starts at a
// line (or a rune) and is the end of the output.
func TestOutputTailBounded(t *testing.T) {
	var mu sync.Mutex
	var got []string
	r := &Runner{Observer: Observer{Output: func(o protocol.CommandOutput) {
		mu.Lock()
		got = append(got, o.Tail)
		mu.Unlock()
	}}}
	tl := r.liveOutput("c1")
	line := strings.Repeat("é", 50) + "\n"
	for i := 0; i < 2000; i++ {
		tl.Write([]byte(line))
	}
	tl.Write([]byte("the end\n"))
	tl.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || len(got) > 50 {
		t.Fatalf("%d publishes for a burst of output: want a few, at most one per interval", len(got))
	}
	for _, s := range got {
		if len(s) > protocol.OutputTailBytes || !utf8.ValidString(s) {
			t.Fatalf("a tail of %d bytes (valid UTF-8: %v)", len(s), utf8.ValidString(s))
		}
		if len(s) > len(line) && !strings.HasPrefix(s, "é") {
			t.Fatalf("a cut tail does not start at a line: %q", s[:20])
		}
	}
	n := len(got)
	tl.Write([]byte("after close\n"))
	if len(got) != n {
		t.Fatal("published after Close")
	}
}

func TestTailText(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		cut  bool
		want string
	}{
		{"a\nb\n", 10, false, "a\nb\n"},
		{"a\nb\n", 10, true, "b\n"},
		{"aaaa\nbb\ncc", 6, false, "bb\ncc"},
		{"ééé", 3, false, "é"},
	} {
		if got := tailText([]byte(c.in), c.n, c.cut); got != c.want {
			t.Errorf("tailText(%q, %d, %v) = %q, want %q", c.in, c.n, c.cut, got, c.want)
		}
	}
}
