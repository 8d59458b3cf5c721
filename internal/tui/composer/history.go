package composer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	tea "charm.land/bubbletea/v2"

	"agent/internal/atomicfile"
)

// MaxHistory caps the history, in memory and in the history file.
const MaxHistory = 1000

// maxHistoryFile is the most of a history file that is read.
const maxHistoryFile = 32 << 20

// entry is one submitted draft: the buffer's text (fold runes in place),
// its folds and the paths chosen for it, so that recalling it in the same
// session restores them.
type entry struct {
	text     []rune
	folds    map[int]fold
	accepted []string
}

// history is the in-memory history and where browsing is: pos indexes
// entries (oldest first); pos == len(entries) is the draft being written,
// kept in draft while an older entry is shown.
type history struct {
	entries []entry
	pos     int
	draft   entry
}

func (h *history) browsing() bool { return h.pos < len(h.entries) }

func (h *history) add(e entry) {
	if n := len(h.entries); n > 0 && slices.Equal(h.entries[n-1].text, e.text) {
		h.pos = len(h.entries)
		return
	}
	h.entries = append(h.entries, e)
	if len(h.entries) > MaxHistory {
		h.entries = slices.Clone(h.entries[len(h.entries)-MaxHistory:])
	}
	h.pos = len(h.entries)
}

// persistText is what the history file keeps of an entry: its text with
// each fold as its label (a folded paste's content is never written: it may
// hold secrets), through the redactor when there is one.
func persistText(e entry, redact func(string) string) string {
	var b bytes.Buffer
	for _, r := range e.text {
		if isFold(r) {
			f := e.folds[foldID(r)]
			b.WriteString(foldLabel(f.lines, foldID(r)))
			continue
		}
		b.WriteRune(r)
	}
	s := b.String()
	if redact != nil {
		s = redact(s)
	}
	return s
}

// historyFile persists the history: one JSON object a line ({"text": ...}),
// oldest first, at most MaxHistory lines, mode 0600, replaced atomically on
// every submission. Saves run in tea.Cmds; seq orders them so that an older
// snapshot never overwrites a newer one.
type historyFile struct {
	path   string
	redact func(string) string

	mu      sync.Mutex
	next    uint64 // the sequence number of the next save (UI goroutine)
	written uint64
	loaded  bool // the file was read (or found missing): saves may replace it
	broken  bool // the file could not be read: never overwrite it
}

type historyLine struct {
	Text string `json:"text"`
}

// historyLoadedMsg carries the file's entries to Update.
type historyLoadedMsg struct {
	inst    *instance
	entries []string
	err     error
}

// historySavedMsg reports a failed save to Update.
type historySavedMsg struct {
	inst *instance
	err  error
}

func (hf *historyFile) loadCmd(ctx context.Context, inst *instance) tea.Cmd {
	return func() tea.Msg {
		entries, err := hf.load(ctx)
		return historyLoadedMsg{inst: inst, entries: entries, err: err}
	}
}

// load reads the history file; a missing file is an empty history.
func (hf *historyFile) load(ctx context.Context) ([]string, error) {
	fail := func(err error) ([]string, error) {
		hf.mu.Lock()
		hf.broken = true
		hf.mu.Unlock()
		return nil, fmt.Errorf("history file %s: %w (fix or remove it; until then history is kept in memory only)", hf.path, err)
	}
	f, err := os.Open(hf.path)
	if errors.Is(err, fs.ErrNotExist) {
		hf.markLoaded()
		return nil, nil
	}
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxHistoryFile+1))
	if err != nil {
		return fail(err)
	}
	if len(data) > maxHistoryFile {
		return fail(fmt.Errorf("larger than %d MiB", maxHistoryFile>>20))
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxHistoryFile+1)
	for n := 1; sc.Scan(); n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var hl historyLine
		if err := json.Unmarshal(line, &hl); err != nil {
			return fail(fmt.Errorf("line %d is not a JSON object with a \"text\" string: %w", n, err))
		}
		if hl.Text = sanitize(hl.Text, true); hl.Text != "" {
			out = append(out, hl.Text)
		}
	}
	if err := sc.Err(); err != nil {
		return fail(err)
	}
	if len(out) > MaxHistory {
		out = out[len(out)-MaxHistory:]
	}
	hf.markLoaded()
	return out, nil
}

func (hf *historyFile) markLoaded() {
	hf.mu.Lock()
	hf.loaded = true
	hf.mu.Unlock()
}

// saveCmd writes the history's last MaxHistory entries.
func (hf *historyFile) saveCmd(inst *instance, entries []entry) tea.Cmd {
	hf.next++
	seq := hf.next
	lines := make([]string, 0, len(entries))
	for _, e := range entries {
		lines = append(lines, persistText(e, hf.redact))
	}
	return func() tea.Msg {
		return historySavedMsg{inst: inst, err: hf.save(seq, lines)}
	}
}

func (hf *historyFile) save(seq uint64, lines []string) error {
	hf.mu.Lock()
	defer hf.mu.Unlock()
	// Before the file is read a save would lose it; Update saves again
	// once it has merged what was read.
	if hf.broken || !hf.loaded || seq <= hf.written {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, l := range lines[max(0, len(lines)-MaxHistory):] {
		if err := enc.Encode(historyLine{Text: l}); err != nil {
			return fmt.Errorf("history file %s: %w", hf.path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(hf.path), 0o700); err != nil {
		return fmt.Errorf("history file %s: %w", hf.path, err)
	}
	if err := atomicfile.Write(hf.path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("history file %s: %w", hf.path, err)
	}
	hf.written = seq
	return nil
}

// recall shows the previous (dir -1) or next (dir +1) history entry;
// false when there is none.
func (m *Model) recall(dir int) bool {
	h := &m.hist
	switch {
	case dir < 0 && h.pos == 0, dir > 0 && !h.browsing():
		return false
	}
	if !h.browsing() {
		h.draft = m.snapshot()
	}
	h.pos += dir
	e := h.draft
	if h.browsing() {
		e = h.entries[h.pos]
	}
	m.restore(e)
	if dir < 0 && m.ed.visualRows() > 1 {
		m.ed.begin()
	}
	return true
}

func (m *Model) snapshot() entry {
	return entry{text: m.ed.text(), folds: maps.Clone(m.ed.folds), accepted: slices.Clone(m.accepted)}
}

func (m *Model) restore(e entry) {
	m.ed.folds = maps.Clone(e.folds)
	m.nextFold = 1
	for k := range e.folds {
		m.nextFold = max(m.nextFold, k+1)
	}
	m.accepted = slices.Clone(e.accepted)
	m.ed.setText(e.text)
	m.pop = popup{}
}

// historyLoaded puts the file's entries before those of this session, and
// saves when this session already added some.
func (m *Model) historyLoaded(msg historyLoadedMsg) tea.Cmd {
	if msg.err != nil {
		m.notice = msg.err.Error()
		return nil
	}
	old := make([]entry, 0, len(msg.entries)+len(m.hist.entries))
	for _, t := range msg.entries {
		old = append(old, entry{text: []rune(t)})
	}
	browsing := m.hist.browsing()
	added := len(m.hist.entries)
	m.hist.entries = append(old, m.hist.entries...)
	if len(m.hist.entries) > MaxHistory {
		m.hist.entries = m.hist.entries[len(m.hist.entries)-MaxHistory:]
	}
	if browsing {
		m.hist.pos = min(m.hist.pos+len(old), len(m.hist.entries)-1)
	} else {
		m.hist.pos = len(m.hist.entries)
	}
	if added > 0 {
		return m.inst.hist.saveCmd(m.inst, m.hist.entries)
	}
	return nil
}
