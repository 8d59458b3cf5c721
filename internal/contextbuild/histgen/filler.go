package histgen

import (
	"fmt"
	"regexp"
	"strings"
)

// Filler rounds: the ordinary work between the planted rounds, drawn from
// the turn's files. They never fail a command (the open error must stay
// the last failing command) and edit only files they have read.

// fill adds filler rounds until the turn's share of the target is reached.
func (g *gen) fill(turn byte) { g.fillTo(turn, g.upTo(turn)) }

func (g *gen) fillTo(turn byte, limit int) {
	for g.total < limit {
		g.filler(turn, limit-g.total)
	}
}

var identRe = regexp.MustCompile(`\b[a-z]+[A-Z][A-Za-z]{3,}\b`)

// inserted are statements a filler edit adds after a function's first line.
var inserted = [][]string{
	{"\ts.log.Debug(\"%s\", \"pending\", len(s.pending))"},
	{"\tstart := time.Now()", "\tdefer func() { s.metrics.observe(\"%s\", time.Since(start)) }()"},
	{"\t// The batch is flushed by the caller; %s only queues."},
	{"\tif s.closed {", "\t\treturn errClosed", "\t}"},
}

// filler adds one round of ordinary work; room is what is left of the
// turn's share.
func (g *gen) filler(turn byte, room int) {
	g.fillers++
	big := float64(room) > 2500*g.scale
	focus := g.focusFiles(turn)
	text := func(table []string, s string) string {
		if g.r.IntN(4) == 0 {
			return ""
		}
		return pick(g, table, s)
	}
	k := g.r.IntN(100)
	switch {
	case k < 30 && big:
		if f := g.firstUnread(focus); f != nil {
			g.round(text(sayRead, f.path), g.read(f.path, 0, 0))
			return
		}
		if f := g.firstUnread(g.files); f != nil && g.r.IntN(2) == 0 {
			g.round(text(sayRead, f.path), g.read(f.path, 0, 0))
			return
		}
		g.reread(focus, text)
	case k < 36 && big:
		g.reread(focus, text)
	case k < 42 && big:
		a, b := g.firstUnread(focus), g.firstUnread(g.files)
		if a == nil || b == nil || a == b {
			g.reread(focus, text)
			return
		}
		g.round(text([]string{"Reading %s and the code it calls."}, a.path), g.read(a.path, 0, 0), g.read(b.path, 0, 0))
	case k < 48:
		f := focus[g.r.IntN(len(focus))]
		n := len(f.lines)
		off := 1 + g.r.IntN(max(1, n-20))
		g.round(text(sayRead, fmt.Sprintf("%s from line %d", f.path, off)), g.read(f.path, off, 20+g.r.IntN(60)))
	case k < 62:
		if !g.grepRound(focus, text) {
			g.quick(text)
		}
	case k < 68:
		f := focus[g.r.IntN(len(focus))]
		dir := f.path[:max(0, strings.LastIndexByte(f.path, '/'))]
		if dir == "" || g.r.IntN(2) == 0 {
			if dir == "" {
				dir = "."
			}
			g.round(text(sayList, dir), g.list(dir))
			return
		}
		g.round("", g.glob(dir, ".go"))
	case k < 86:
		g.editRound(focus, text)
	case k < 93:
		g.quick(text)
	case k < 98:
		pkgs := []string{"retry", "metrics", "auth", "config", "gen"}
		p := pkgs[g.r.IntN(len(pkgs))]
		g.round(text([]string{"Running the %s tests."}, p), g.command("go test -count=1 ./internal/"+p+"/...",
			fmt.Sprintf("ok  \t%s/internal/%s\t0.%03ds\n", module, p, g.r.IntN(1000)), 0, g.ms(900, 7000)))
	default:
		if g.fillers%37 == 0 {
			g.round("", g.readMissing("internal/ledger/flusher.go"))
			return
		}
		g.quick(text)
	}
}

func (g *gen) quick(text func([]string, string) string) {
	q := quickCommands[g.r.IntN(len(quickCommands))]
	g.round(text(sayCheck, ""), g.command(q[0], q[1], 0, g.ms(800, 12000)))
}

// reread reads a file of the turn already read (or any file).
func (g *gen) reread(focus []*file, text func([]string, string) string) {
	var read []*file
	for _, f := range focus {
		if f.read {
			read = append(read, f)
		}
	}
	if len(read) == 0 {
		read = focus
	}
	f := read[g.r.IntN(len(read))]
	table := sayRead
	if f.read {
		table = sayReread
	}
	g.round(text(table, f.path), g.read(f.path, 0, 0))
}

// grepRound greps for an identifier of one of the turn's files; false
// when none gives a useful number of matches.
func (g *gen) grepRound(focus []*file, text func([]string, string) string) bool {
	for range 4 {
		f := focus[g.r.IntN(len(focus))]
		l := f.lines[g.r.IntN(len(f.lines))]
		ids := identRe.FindAllString(l, -1)
		if len(ids) == 0 {
			continue
		}
		id := ids[g.r.IntN(len(ids))]
		dir := ""
		if g.r.IntN(2) == 0 && strings.HasPrefix(f.path, "internal/") {
			dir = f.path[:strings.LastIndexByte(f.path, '/')]
		}
		c, n := g.grep(`\b`+id+`\b`, dir)
		if n == 0 || n > 150 {
			continue
		}
		g.round(text(sayGrep, id), c)
		return true
	}
	return false
}

// editRound edits a file of the turn that may be edited, reading it first
// when it has not been read.
func (g *gen) editRound(focus []*file, text func([]string, string) string) {
	var read, unread []*file
	for _, f := range focus {
		switch {
		case !f.edit || f.edits >= 3:
		case f.read:
			read = append(read, f)
		default:
			unread = append(unread, f)
		}
	}
	if len(read) == 0 {
		if len(unread) == 0 {
			g.quick(text)
			return
		}
		f := unread[g.r.IntN(len(unread))]
		g.round(text(sayRead, f.path), g.read(f.path, 0, 0))
		return
	}
	f := read[g.r.IntN(len(read))]
	ins := inserted[g.r.IntN(len(inserted))]
	name := verbs[g.r.IntN(len(verbs))] + title(nouns[g.r.IntN(len(nouns))])
	stmts := make([]string, len(ins))
	for i, s := range ins {
		stmts[i] = strings.ReplaceAll(s, "%s", name)
	}
	g.round(text(sayEdit, f.path), g.insertAfterFunc(f.path, stmts))
}

// focusFiles are the files the turn's filler works on.
func (g *gen) focusFiles(turn byte) []*file {
	var out []*file
	for _, f := range g.files {
		if f.focus == string(turn) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return g.files
	}
	return out
}

func (g *gen) firstUnread(files []*file) *file {
	var unread []*file
	for _, f := range files {
		if !f.read && f.focus != "" {
			unread = append(unread, f)
		}
	}
	if len(unread) == 0 {
		return nil
	}
	return unread[g.r.IntN(len(unread))]
}
