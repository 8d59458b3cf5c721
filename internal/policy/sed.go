package policy

import "strings"

// sed: -i rewrites its files; a script's w/W commands and s///w write files,
// r/R read them, the e command runs a command and s///e runs the result of
// the substitution. The script is read as GNU sed reads it; --sandbox turns
// all of that off.

var sedOpts = newOptTable("e f l i?", "expression file line-length in-place?", false)

func (a *analyzer) sed(ws []string, c *callCtx) {
	var scripts, files []string
	inPlace, sandbox, fromFile, given, hole := false, false, false, false, false
	a.scanOpts(ws, sedOpts, func(o optArg) {
		switch o.name {
		case "":
			hole = hole || o.hole
			files = append(files, o.word)
		case "e", "expression":
			scripts, given = append(scripts, o.val), true
		case "f", "file":
			given = true
			if stdinFiles[o.val] || o.val == "-" { // the script comes on standard input
				if text, ok := stdinText(c); ok {
					scripts = append(scripts, text)
					return
				}
				o.val = string(rune(dynByte))
			}
			if hasHole(o.val) {
				scripts = append(scripts, o.val) // a script only known when it runs
				return
			}
			fromFile = true
			a.an.reads = append(a.an.reads, redir{target: o.val, src: c.src})
		case "i", "in-place":
			inPlace = true
		case "sandbox":
			sandbox = true
		}
	})
	if !given {
		if len(files) == 0 {
			return
		}
		scripts, files = files[:1], files[1:]
	}
	if inPlace {
		for _, f := range files {
			a.write(f, c, "sed -i rewrites the file in place")
		}
	}
	if sandbox {
		return
	}
	if hole {
		a.unknown(c.src, "a word only known when it runs may be a sed option or script, which can run commands (e)")
		return
	}
	if fromFile {
		a.an.blockers = append(a.an.blockers, quote(c.src)+" runs a sed script file, which can write files and run commands")
	}
	script := strings.Join(scripts, "\n") // as sed joins its -e scripts
	if hasHole(script) {
		a.unknown(c.src, "sed runs a script only known when it runs, which can run commands (e)")
		return
	}
	a.sedScript(script, c)
}

// sedScript reads one script for the commands that write, read or run.
func (a *analyzer) sedScript(s string, c *callCtx) {
	p, n := 0, len(s)
	fail := func(why string) {
		a.unknown(c.src, "the sed script cannot be read ("+why+"); sed scripts can run commands (e)")
	}
	skipWS := func() {
		for p < n && (s[p] == ' ' || s[p] == '\t') {
			p++
		}
	}
	digits := func() {
		for p < n && s[p] >= '0' && s[p] <= '9' {
			p++
		}
	}
	toEOL := func() string {
		start := p
		for p < n && s[p] != '\n' {
			p++
		}
		return s[start:p]
	}
	// delimited skips to just past the next unescaped delim.
	delimited := func(d byte) bool {
		for p < n {
			switch s[p] {
			case '\\':
				p += 2
				continue
			case d:
				p++
				return true
			case '\n':
				if d != '\n' {
					return false
				}
			}
			p++
		}
		return false
	}
	addr := func() bool {
		switch {
		case p < n && s[p] >= '0' && s[p] <= '9':
			digits()
			if p < n && s[p] == '~' {
				p++
				digits()
			}
			return true
		case p < n && s[p] == '$':
			p++
			return true
		case p < n && (s[p] == '/' || s[p] == '\\'):
			d := byte('/')
			if s[p] == '\\' {
				if p+1 >= n {
					return false
				}
				p++
				d = s[p]
			}
			p++
			if !delimited(d) {
				return false
			}
			for p < n && (s[p] == 'I' || s[p] == 'M') {
				p++
			}
			return true
		}
		return false
	}
	label := func() {
		skipWS()
		for p < n && s[p] != '\n' && s[p] != ';' {
			p++
		}
	}
	for p < n {
		for p < n && strings.IndexByte(" \t\n;", s[p]) >= 0 {
			p++
		}
		if p >= n {
			break
		}
		if s[p] == '#' {
			toEOL()
			continue
		}
		if s[p] != '/' && s[p] != '\\' && (s[p] < '0' || s[p] > '9') && s[p] != '$' {
			// no address
		} else if !addr() {
			fail("an address does not end")
			return
		} else {
			skipWS()
			if p < n && s[p] == ',' {
				p++
				skipWS()
				if p < n && (s[p] == '+' || s[p] == '~') {
					p++
					digits()
				} else if !addr() {
					fail("a range does not end")
					return
				}
			}
		}
		skipWS()
		for p < n && s[p] == '!' {
			p++
			skipWS()
		}
		if p >= n {
			fail("an address without a command")
			return
		}
		cmd := s[p]
		p++
		switch cmd {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			skipWS()
			digits()
		case ':', 'b', 't', 'T', 'v':
			label()
		case 'a', 'i', 'c':
			skipWS()
			if p < n && s[p] == '\\' {
				p++
				if p < n && s[p] == '\n' {
					p++
				}
			}
			for {
				line := toEOL()
				if strings.HasSuffix(line, `\`) && !strings.HasSuffix(line, `\\`) && p < n {
					p++
					continue
				}
				break
			}
		case 'r', 'R':
			skipWS()
			a.an.reads = append(a.an.reads, redir{target: toEOL(), src: c.src})
		case 'w', 'W':
			skipWS()
			a.write(toEOL(), c, "sed's "+string(cmd)+" command writes to the file")
		case 'e':
			skipWS()
			if cmd := toEOL(); strings.TrimSpace(cmd) != "" {
				a.codeVia(cmd, c, "sed's e command")
			} else {
				a.unknown(c.src, "sed's e command runs the pattern space as a command")
			}
		case 's', 'y':
			if p >= n || s[p] == '\n' || s[p] == '\\' {
				fail("a bad delimiter")
				return
			}
			d := s[p]
			p++
			for part := 0; part < 2; part++ { // the regex (or source) and the replacement
				if !delimited(d) {
					fail("an unterminated " + string(cmd) + " command")
					return
				}
			}
			if cmd == 'y' {
				continue
			}
			for p < n {
				f := s[p]
				if f == 'e' {
					a.unknown(c.src, "sed's s///e runs the result of the substitution as a command")
				} else if f == 'w' {
					p++
					skipWS()
					a.write(toEOL(), c, "sed's s///w writes to the file")
					break
				} else if strings.IndexByte("gpiImM0123456789", f) < 0 {
					break
				}
				p++
			}
		default:
			fail("unknown command " + quote(string(cmd)))
			return
		}
	}
}
