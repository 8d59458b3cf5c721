package policy

import "strings"

// awk: system(CMD), CMD | getline, print | CMD and |& run commands; print
// > FILE and >> FILE write; getline < FILE reads. A command or file that is a
// string literal is read; anything computed makes what runs unknown. -f,
// -i and @include read program files the policy cannot read; -l and @load
// load extensions; --sandbox turns it all off.

var awkOpts = newOptTable("F v f e E i l:l o? p? d? D? W", "field-separator assign file source exec include "+
	"load:l pretty-print? profile? dump-variables? debug?", true)

func (a *analyzer) awk(ws []string, c *callCtx, tool string) {
	var progs []string
	fromFile, sandbox, given := false, false, false
	var ops []optArg
	a.scanOpts(ws, awkOpts, func(o optArg) {
		if o.hole {
			a.unknown(c.src, "a word only known when it runs may be an awk option or program, which can run commands")
		}
		a.optEffect(o, c, tool)
		switch o.name {
		case "":
			ops = append(ops, o)
		case "f", "file", "E", "exec", "i", "include":
			given = true
			if stdinFiles[o.val] || o.val == "-" { // the program comes on standard input
				if text, ok := stdinText(c); ok {
					progs = append(progs, text)
					return
				}
				o.val = string(rune(dynByte))
			}
			if hasHole(o.val) {
				progs = append(progs, o.val) // a program only known when it runs
				return
			}
			fromFile = true
			a.an.reads = append(a.an.reads, redir{target: o.val, src: c.src})
		case "e", "source":
			progs, given = append(progs, o.val), true
		case "W":
			if strings.HasPrefix(o.val, "e") { // mawk -W exec FILE
				fromFile, given = true, true
			} else if strings.HasPrefix(o.val, "s") && !strings.HasPrefix(o.val, "sp") {
				sandbox = true // -W sandbox
			}
		case "S", "sandbox":
			sandbox = true
		case "o", "pretty-print", "p", "profile", "d", "dump-variables":
			def := map[bool]string{true: "awkvars.out", false: "awkprof.out"}[o.name[0] == 'd']
			if o.val != "" {
				def = o.val
			}
			a.write(def, c, tool+" "+o.flag()+" writes to the file")
		}
	})
	if !given && len(ops) > 0 {
		progs = append(progs, ops[0].word)
		ops = ops[1:]
	}
	for _, o := range ops {
		if !isAssignment(o.word) {
			a.an.reads = append(a.an.reads, redir{target: o.word, src: c.src})
		}
	}
	if sandbox {
		return
	}
	if fromFile {
		a.an.blockers = append(a.an.blockers, quote(c.src)+" runs an awk program file, which can write files and run commands")
	}
	for _, p := range progs {
		if hasHole(p) {
			a.unknown(c.src, "awk runs a program only known when it runs, which can run commands (system)")
			continue
		}
		a.awkProgram(p, c, tool)
	}
}

type awkTokKind uint8

const (
	akPunct awkTokKind = iota
	akStr
	akRegex
	akIdent
	akNum
	akEnd // newline or ;
)

type awkTok struct {
	kind awkTokKind
	text string // punctuation, identifier, or a string's decoded value
}

// awkLex splits an awk program into tokens.
func awkLex(s string) []awkTok {
	var out []awkTok
	operand := func() bool {
		if len(out) == 0 {
			return false
		}
		t := out[len(out)-1]
		switch t.kind {
		case akStr, akNum, akRegex:
			return true
		case akIdent:
			switch t.text {
			case "print", "printf", "return", "in", "getline", "do", "else":
				return false
			}
			return true
		case akPunct:
			return t.text == ")" || t.text == "]" || t.text == "$" || t.text == "++" || t.text == "--"
		}
		return false
	}
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case ch == '\n' || ch == ';':
			out = append(out, awkTok{kind: akEnd, text: string(ch)})
			i++
		case ch == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case ch == '"':
			var b strings.Builder
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
					switch s[i] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					case '\n':
					default:
						b.WriteByte(s[i])
					}
					i++
					continue
				}
				b.WriteByte(s[i])
				i++
			}
			i++
			out = append(out, awkTok{kind: akStr, text: b.String()})
		case ch == '/' && !operand():
			i++
			for i < len(s) && s[i] != '/' && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				} else if s[i] == '[' { // a bracket expression may hold '/'
					for i++; i < len(s) && s[i] != ']' && s[i] != '\n'; i++ {
					}
				}
				i++
			}
			i++
			out = append(out, awkTok{kind: akRegex})
		case ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '@':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == ':') {
				j++
			}
			out = append(out, awkTok{kind: akIdent, text: s[i:j]})
			i = j
		case ch >= '0' && ch <= '9' || ch == '.':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'x' || s[j] >= 'a' && s[j] <= 'f') {
				j++
			}
			out = append(out, awkTok{kind: akNum})
			i = j
		default:
			op := s[i : i+1]
			if i+1 < len(s) {
				switch two := s[i : i+2]; two {
				case ">>", "|&", "||", "&&", "++", "--", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "^=", "**":
					op = two
				}
			}
			out = append(out, awkTok{kind: akPunct, text: op})
			i += len(op)
		}
	}
	return out
}

// awkProgram finds what a program runs, writes and reads.
func (a *analyzer) awkProgram(prog string, c *callCtx, tool string) {
	toks := awkLex(prog)
	at := func(i int) awkTok {
		if i < 0 || i >= len(toks) {
			return awkTok{kind: akEnd}
		}
		return toks[i]
	}
	isP := func(i int, p string) bool { t := at(i); return t.kind == akPunct && t.text == p }
	// lone: token i is a string literal standing alone as an operand
	// (not concatenated with what is before or after).
	ends := func(i int) bool {
		t := at(i)
		return t.kind == akEnd || t.kind == akPunct && (t.text == "}" || t.text == ")" || t.text == "|" ||
			t.text == "|&" || t.text == ",")
	}
	starts := func(i int) bool {
		t := at(i)
		return t.kind == akEnd || t.kind == akPunct && (t.text == "{" || t.text == "(" || t.text == "}" ||
			t.text == "&&" || t.text == "||" || t.text == "!" || t.text == ",") ||
			t.kind == akIdent && (t.text == "print" || t.text == "printf")
	}
	runs := func(i int, what string) {
		if t := at(i); t.kind == akStr && ends(i+1) {
			a.codeVia(t.text, c, tool+"'s "+what)
			return
		}
		a.unknown(c.src, tool+"'s "+what+" runs a command only known when it runs")
	}
	inPrint, depth := false, 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.kind {
		case akEnd:
			inPrint = false
			continue
		case akIdent:
			switch {
			case t.text == "print" || t.text == "printf":
				inPrint, depth = true, 0
			case t.text == "system" && isP(i+1, "("):
				runs(i+2, "system()")
			case t.text == "@load":
				a.unknown(c.src, tool+" @load loads an extension, which can run anything")
			case t.text == "@include":
				a.an.blockers = append(a.an.blockers, quote(c.src)+" includes an awk program file, which can write files and run commands")
			case strings.HasPrefix(t.text, "@") && t.text != "@namespace":
				a.unknown(c.src, tool+" "+t.text+" calls a function by a name only known when it runs (it may be system)")
			case t.text == "getline": // getline [var] < FILE
				j := i + 1
				if at(j).kind == akIdent {
					j++
				}
				if s := at(j + 1); isP(j, "<") && s.kind == akStr {
					a.an.reads = append(a.an.reads, redir{target: s.text, src: c.src})
				}
			}
			continue
		case akPunct:
		default:
			continue
		}
		switch t.text {
		case "(", "[":
			depth++
		case ")", "]":
			depth--
		case "{", "}":
			inPrint = false
		case "|", "|&":
			if at(i+1).kind == akIdent && at(i+1).text == "getline" {
				if p := at(i - 1); p.kind == akStr && starts(i-2) {
					a.codeVia(p.text, c, tool+"'s \"cmd\" | getline")
				} else {
					a.unknown(c.src, tool+"'s cmd | getline runs a command only known when it runs")
				}
			} else if inPrint && depth <= 0 {
				runs(i+1, "print | cmd")
			} else if t.text == "|&" {
				a.unknown(c.src, tool+"'s |& runs a coprocess the policy cannot read")
			}
		case ">", ">>":
			if inPrint && depth <= 0 {
				target := string(rune(dynByte))
				if s := at(i + 1); s.kind == akStr && (ends(i+2) || at(i+2).kind == akPunct && at(i+2).text == "}") {
					target = s.text
				}
				switch target {
				case "/dev/stdout", "/dev/stderr", "-", "/dev/fd/1", "/dev/fd/2":
				default:
					a.write(target, c, tool+"'s print "+t.text+" writes to the file")
				}
			}
		}
	}
}
