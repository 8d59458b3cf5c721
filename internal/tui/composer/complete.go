package composer

import (
	"slices"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// Popup sizes: rows shown, and matches kept to scroll through.
const (
	PopupRows  = 8
	maxMatches = 50
)

type popKind int

const (
	popNone popKind = iota
	popSlash
	popFiles
)

// popItem is one line of the popup: the label (with the byte offsets of
// its matched characters), a dim argument hint and help, and the text that
// accepting it puts in place of the token.
type popItem struct {
	label  string
	pos    []int
	args   string
	help   string
	insert string
	path   string // the file an @ item attaches
}

// token is the word being completed: runes [from, to) of line row, and the
// query (what is typed of it before the cursor, without its '/' or '@').
type token struct {
	kind          popKind
	row, from, to int
	query         string
}

// popup is the completion popup's state.
type popup struct {
	kind      popKind
	tok       token
	items     []popItem
	sel, top  int
	dismissed token // esc closed the popup of this token (kind, row, from)
}

func (p *popup) move(d int) {
	if len(p.items) == 0 {
		return
	}
	p.sel = (p.sel + d + len(p.items)) % len(p.items)
	if p.sel < p.top {
		p.top = p.sel
	}
	if p.sel >= p.top+PopupRows {
		p.top = p.sel - PopupRows + 1
	}
}

func (p *popup) dismiss() {
	p.dismissed = p.tok
	p.kind = popNone
	p.items = nil
}

func sameToken(a, b token) bool { return a.kind == b.kind && a.row == b.row && a.from == b.from }

// fileState is the file list @ completes from, and its loading.
type fileState struct {
	list    FileList
	index   map[string]struct{}
	err     error
	have    bool // a list arrived (from the lister or SetFiles)
	loading bool
	gen     int
}

// filesLoadedMsg carries a listing to Update.
type filesLoadedMsg struct {
	inst *instance
	gen  int
	list FileList
	err  error
}

func (f *fileState) count() int { return len(f.list.Paths) }

func (f *fileState) has(p string) bool {
	_, ok := f.index[p]
	return ok
}

// set keeps the paths that can be shown and inserted (no control
// characters: a file name may hold a newline).
func (f *fileState) set(l FileList) {
	paths := make([]string, 0, len(l.Paths))
	f.index = make(map[string]struct{}, len(l.Paths))
	for _, p := range l.Paths {
		if p == "" || strings.ContainsFunc(p, unicode.IsControl) {
			continue
		}
		paths = append(paths, p)
		f.index[p] = struct{}{}
	}
	f.list = FileList{Paths: paths, Truncated: l.Truncated}
	f.have, f.err = true, nil
}

func (f *fileState) loaded(msg filesLoadedMsg) {
	if msg.gen != f.gen {
		return // a newer listing is on its way
	}
	f.loading = false
	if msg.err != nil {
		f.err = msg.err
		return
	}
	f.set(msg.list)
}

// loadFiles starts a listing, unless one is running.
func (m *Model) loadFiles() tea.Cmd {
	if m.lister == nil || m.files.loading {
		return nil
	}
	m.files.loading = true
	m.files.gen++
	gen, inst, ctx, lister := m.files.gen, m.inst, m.ctx, m.lister
	return func() tea.Msg {
		l, err := lister(ctx)
		return filesLoadedMsg{inst: inst, gen: gen, list: l, err: err}
	}
}

// tokenAt finds the word being completed at the cursor: a command word at
// the very start of the text, or an @word at a line start or after
// whitespace.
func (m *Model) tokenAt() token {
	e := &m.ed
	line, col := e.lines[e.row], e.col
	stop := func(r rune) bool { return unicode.IsSpace(r) || isFold(r) }
	wordEnd := func() int {
		to := col
		for to < len(line) && !stop(line[to]) {
			to++
		}
		return to
	}
	if e.row == 0 && len(line) > 0 && line[0] == '/' && col >= 1 {
		ok := true
		for _, r := range line[1:col] {
			if stop(r) {
				ok = false
				break
			}
		}
		if ok && wordEnd() == col {
			return token{kind: popSlash, row: 0, from: 0, to: col, query: string(line[1:col])}
		}
	}
	i := col - 1
	for i >= 0 && line[i] != '@' && !stop(line[i]) {
		i--
	}
	if i >= 0 && line[i] == '@' && (i == 0 || unicode.IsSpace(line[i-1])) {
		return token{kind: popFiles, row: e.row, from: i, to: wordEnd(), query: string(line[i+1 : col])}
	}
	return token{}
}

// refreshPopup opens, updates or closes the popup for the cursor's token.
func (m *Model) refreshPopup() tea.Cmd {
	tok := m.tokenAt()
	p := &m.pop
	// a recalled entry opens no popup: ↑/↓ go on through the history
	// (typing makes it the draft again, and the popup comes back)
	if tok.kind == popNone || m.hist.browsing() {
		p.kind, p.items, p.dismissed = popNone, nil, token{}
		return nil
	}
	if sameToken(tok, p.dismissed) {
		return nil
	}
	p.dismissed = token{}
	fresh := p.kind == popNone || !sameToken(tok, p.tok)
	changed := fresh || tok.query != p.tok.query
	p.kind, p.tok = tok.kind, tok
	var cmd tea.Cmd
	if tok.kind == popFiles && fresh {
		cmd = m.loadFiles()
	}
	if changed {
		m.refreshItems()
	}
	return cmd
}

// refreshItems recomputes the popup's items for its query.
func (m *Model) refreshItems() {
	p := &m.pop
	p.items, p.sel, p.top = nil, 0, 0
	switch p.kind {
	case popSlash:
		for _, it := range matchCommands(m.cmds, p.tok.query) {
			help := it.cmd.Help
			if it.name != string(it.cmd.Name) {
				help += " (/" + string(it.cmd.Name) + ")"
			}
			label := "/" + it.name
			p.items = append(p.items, popItem{
				label: label, pos: shift(matchPositions(p.tok.query, it.name), 1),
				args: it.cmd.Args, help: help, insert: label,
			})
		}
	case popFiles:
		for _, sc := range topMatches(p.tok.query, m.files.list.Paths, maxMatches) {
			p.items = append(p.items, popItem{
				label: sc.s, pos: matchPositions(p.tok.query, sc.s),
				insert: "@" + sc.s, path: sc.s,
			})
		}
	}
}

func shift(pos []int, d int) []int {
	for i := range pos {
		pos[i] += d
	}
	return pos
}

// accept puts the selected item in place of the token.
func (m *Model) accept() tea.Cmd {
	p := &m.pop
	if len(p.items) == 0 {
		p.dismiss()
		return nil
	}
	it := p.items[p.sel]
	e := &m.ed
	e.row, e.col = p.tok.row, p.tok.to
	e.deleteRange(p.tok.from, p.tok.to)
	ins := it.insert
	line := e.lines[e.row]
	if e.col < len(line) && line[e.col] == ' ' {
		e.insert([]rune(ins))
		e.col++
	} else {
		e.insert([]rune(ins + " "))
	}
	if it.path != "" && !slices.Contains(m.accepted, it.path) {
		m.accepted = append(m.accepted, it.path)
	}
	p.kind, p.items = popNone, nil
	return m.afterEdit(true)
}
