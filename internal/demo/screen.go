package demo

import (
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// screen is what the demo sees of a TUI session and how it types into it:
// the text written to the terminal, stripped of escape sequences and of
// white space (the renderer moves the cursor instead of writing spaces, and
// wraps lines), and a keyboard (the session's input).
type screen struct {
	keys io.Writer

	mu   sync.Mutex
	seen strings.Builder // squashed text written so far
	cues []*cue
}

// cue is a text the demo waits to see.
type cue struct {
	text string
	from int // where in seen to look from
	hit  chan struct{}
	done bool
}

// squash drops escape sequences and white space.
func squash(s string) string {
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// feed takes what was written to the terminal.
func (s *screen) feed(p []byte) {
	sq := squash(string(p))
	if sq == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen.WriteString(sq)
	s.check()
}

func (s *screen) check() {
	all := s.seen.String()
	for _, c := range s.cues {
		if !c.done && strings.Contains(all[c.from:], c.text) {
			c.done = true
			close(c.hit)
		}
	}
}

// arm starts watching for text written from now on.
func (s *screen) arm(text string) *cue {
	return s.watch(text, false)
}

func (s *screen) watch(text string, fromStart bool) *cue {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &cue{text: squash(text), hit: make(chan struct{})}
	if !fromStart {
		c.from = s.seen.Len()
	}
	s.cues = append(s.cues, c)
	s.check()
	return c
}

// await waits for the cue, at most cueTimeout; it reports whether it was seen.
func (s *screen) await(ctx context.Context, c *cue) bool {
	t := time.NewTimer(cueTimeout)
	defer t.Stop()
	select {
	case <-c.hit:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}

// wait waits for text written at any time in the session.
func (s *screen) wait(ctx context.Context, text string) error {
	s.await(ctx, s.watch(text, true))
	return ctx.Err()
}

// press types keys (raw terminal bytes: "\r" is enter, "\x03" ctrl+c).
func (s *screen) press(keys string) {
	_, _ = io.WriteString(s.keys, keys)
}

// typeText types text a key at a time, as a person would, so it shows.
func (s *screen) typeText(ctx context.Context, text string) error {
	for _, r := range text {
		s.press(string(r))
		t := time.NewTimer(12 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// keyboard forwards the person's keys (the terminal, in raw mode while a
// session runs) to the session's input. Its reader goroutine lives until
// the process ends: a read of a terminal cannot be cancelled portably, and
// keys typed between sessions are dropped.
type keyboard struct {
	mu      sync.Mutex
	w       io.Writer
	started bool
}

func (k *keyboard) attach(w io.Writer) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.w = w
	if !k.started {
		k.started = true
		go k.pump(os.Stdin)
	}
}

func (k *keyboard) detach() {
	k.mu.Lock()
	k.w = nil
	k.mu.Unlock()
}

func (k *keyboard) pump(in io.Reader) {
	buf := make([]byte, 256)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			k.mu.Lock()
			w := k.w
			k.mu.Unlock()
			if w != nil {
				_, _ = w.Write(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}
