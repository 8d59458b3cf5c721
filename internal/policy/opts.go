package policy

import (
	"sort"
	"strings"
)

// A small getopt: how one command lays out its options, and what an
// option's value is (a file it writes, one it reads, a command it runs...),
// so that the writing and executing forms of read-looking commands can be
// found (effects.go).

// valKind is what an option's value is.
type valKind uint8

const (
	vPlain valKind = iota + 1 // an ordinary value
	vRead                     // a file the command reads
	vWrite                    // a file it writes
	vLoad                     // a script, library or configuration it loads: what that runs cannot be read
	vProg                     // a program it runs, with arguments of its own (sort --compress-program)
	vCode                     // a shell command line it runs
)

// optDef is one option that takes a value.
type optDef struct {
	kind     valKind
	optional bool // the value is optional and only attached (-i.bak, --in-place=.bak)
}

// optTable is one command's options that take values.
type optTable struct {
	short map[byte]optDef
	long  map[string]optDef // without the leading "--"
	longs []string          // the long names, sorted, for abbreviations
	// stopAtArg: options end at the first operand (POSIX order) instead of
	// being read anywhere before "--" (GNU order).
	stopAtArg bool
	runs      string // an option that runs a command ("--compress-program"), "" if none
	writes    string // an option that writes a file ("-o"), "" if none
}

// newOptTable builds a table from two lists of NAME[?][:KIND] tokens,
// short and long option names; KIND is w (writes), r (reads), l (loads), p
// (a program), c (shell code); "?" marks an optional attached value.
func newOptTable(short, long string, stopAtArg bool) *optTable {
	t := &optTable{short: map[byte]optDef{}, long: map[string]optDef{}, stopAtArg: stopAtArg}
	parse := func(tok string) (string, optDef) {
		name, kind, _ := strings.Cut(tok, ":")
		d := optDef{kind: vPlain}
		if strings.HasSuffix(name, "?") {
			name, d.optional = strings.TrimSuffix(name, "?"), true
		}
		switch kind {
		case "w":
			d.kind = vWrite
		case "r":
			d.kind = vRead
		case "l":
			d.kind = vLoad
		case "p":
			d.kind = vProg
		case "c":
			d.kind = vCode
		}
		return name, d
	}
	note := func(flag string, d optDef) {
		switch {
		case d.kind >= vLoad && (t.runs == "" || len(flag) > len(t.runs)):
			t.runs = flag
		case d.kind == vWrite && (t.writes == "" || len(flag) < len(t.writes)):
			t.writes = flag
		}
	}
	for _, tok := range strings.Fields(short) {
		name, d := parse(tok)
		t.short[name[0]] = d
		note("-"+name, d)
	}
	for _, tok := range strings.Fields(long) {
		name, d := parse(tok)
		t.long[name] = d
		t.longs = append(t.longs, name)
		note("--"+name, d)
	}
	sort.Strings(t.longs)
	return t
}

// lookupLong finds a long option, also abbreviated as GNU getopt allows; an
// abbreviation that fits several options is read as the one that does the
// most (fail closed).
func (t *optTable) lookupLong(name string) (string, optDef, bool) {
	if d, ok := t.long[name]; ok {
		return name, d, true
	}
	if name == "" {
		return "", optDef{}, false
	}
	best, bestName := optDef{}, ""
	i := sort.SearchStrings(t.longs, name)
	for ; i < len(t.longs) && strings.HasPrefix(t.longs[i], name); i++ {
		if d := t.long[t.longs[i]]; d.kind > best.kind {
			best, bestName = d, t.longs[i]
		}
	}
	return bestName, best, bestName != ""
}

// optArg is one option or operand.
type optArg struct {
	name        string // the option, without dashes ("o", "output"); "" for an operand
	long        bool
	val         string
	hasVal      bool
	def         optDef // zero for a flag or an option the table does not know
	word        string // an operand
	hole        bool   // an operand only known at run time where an option may be: it may be one
	afterDashes bool   // the operand comes after "--"
	idx         int    // its index in ws
}

func (o optArg) flag() string {
	if o.long {
		return "--" + o.name
	}
	return "-" + o.name
}

func (o optArg) longName() string { return o.name }

// scanOpts walks a command's arguments (ws[0] is the command) and calls f for
// each option and operand.
func (a *analyzer) scanOpts(ws []string, t *optTable, f func(optArg)) {
	dashes := false
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if dashes || w == "-" || len(w) < 2 || w[0] != '-' {
			f(optArg{word: w, idx: i, afterDashes: dashes, hole: !dashes && w != "" && w[0] == dynByte})
			if t.stopAtArg {
				dashes = true
			}
			continue
		}
		if w == "--" {
			dashes = true
			continue
		}
		if w[1] == '-' {
			name, val, hasVal := strings.Cut(w[2:], "=")
			full, d, ok := t.lookupLong(name)
			if !ok {
				f(optArg{name: name, long: true, val: val, hasVal: hasVal, idx: i})
				continue
			}
			if !hasVal && !d.optional && i+1 < len(ws) {
				val, hasVal = ws[i+1], true
				i++
			}
			f(optArg{name: full, long: true, val: val, hasVal: hasVal, def: d, idx: i})
			continue
		}
		for k := 1; k < len(w); k++ {
			o := w[k]
			d, ok := t.short[o]
			if !ok {
				f(optArg{name: w[k : k+1], idx: i})
				continue
			}
			val := w[k+1:]
			hasVal := val != ""
			if !hasVal && !d.optional && i+1 < len(ws) {
				val, hasVal = ws[i+1], true
				i++
			}
			f(optArg{name: w[k : k+1], val: val, hasVal: hasVal, def: d, idx: i})
			break
		}
	}
}

// optEffect acts on what an option's value is: a write, a read, code to
// read, or something that cannot be read.
func (a *analyzer) optEffect(o optArg, c *callCtx, tool string) {
	if !o.hasVal || o.def.kind <= vPlain {
		return
	}
	what := tool + " " + o.flag()
	switch o.def.kind {
	case vWrite:
		a.write(o.val, c, what+" writes to the file")
	case vRead:
		a.an.reads = append(a.an.reads, redir{target: o.val, src: c.src})
	case vCode:
		a.codeVia(o.val, c, what)
	case vProg:
		a.progVia(o.val, c, what)
	case vLoad:
		a.unknown(c.src, what+" loads "+printable(o.val)+", which can run anything")
	}
}

// holeOpt: a word only known at run time stands where an option may be.
func (a *analyzer) holeOpt(c *callCtx, t *optTable, tool string) {
	switch {
	case t.runs != "":
		a.unknown(c.src, "a word only known when it runs may be an option of "+tool+" that runs a command ("+t.runs+")")
	case t.writes != "":
		a.an.blockers = append(a.an.blockers, quote(c.src)+": a word only known when it runs may be an option of "+
			tool+" that writes a file ("+t.writes+")")
	}
}

// stdOpts applies a table: every value's effect, holes, and f (if not nil)
// for each argument with the operand's number (counting from 0).
func (a *analyzer) stdOpts(ws []string, c *callCtx, t *optTable, tool string, f func(o optArg, n int)) {
	n := 0
	a.scanOpts(ws, t, func(o optArg) {
		if o.hole {
			a.holeOpt(c, t, tool)
		}
		a.optEffect(o, c, tool)
		if f != nil {
			f(o, n)
		}
		if o.name == "" {
			n++
		}
	})
}

// write records a file a command writes (a redirection, or an option).
func (a *analyzer) write(target string, c *callCtx, why string) {
	if devNull[target] || target == "-" { // "-": standard output, for the tools that take it
		return
	}
	a.an.writes = append(a.an.writes, redir{target: target, src: c.src, why: why})
}
