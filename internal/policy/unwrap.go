package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Commands that run another command given as their arguments (env rm x,
// sudo rm x, xargs rm), as a shell string (bash -c, eval, su -c, watch,
// trap) or as find actions (-exec, -delete). The inner command is what an
// allow rule has to cover; deny rules see every level. The wrappers' option
// layouts are in wrappers.go, builtins that change what a name runs in
// builtins.go, what read-looking commands write or run in effects.go.

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true,
	"mksh": true, "yash": true, "posh": true, "rbash": true}

// foreignShells take -c code in a syntax that is not bash's.
var foreignShells = map[string]bool{"fish": true, "csh": true, "tcsh": true, "nu": true, "elvish": true, "xonsh": true}

// neutral builtins change nothing outside the shell: a line mixing them with
// allowed commands is still allowed (deny rules still see them).
var neutral = map[string]bool{"cd": true, "pushd": true, "popd": true, "pwd": true, "true": true,
	"false": true, ":": true, "set": true, "exit": true, "return": true, "wait": true, "test": true, "[": true}

// writers: commands whose file arguments may be written (for write_file /
// edit_file deny rules).
var writers = map[string]bool{"rm": true, "mv": true, "cp": true, "tee": true, "touch": true, "truncate": true,
	"ln": true, "install": true, "rmdir": true, "mkdir": true, "unlink": true, "shred": true, "chmod": true,
	"chown": true, "chgrp": true, "dd": true, "rsync": true, "patch": true}

// maxWrap bounds wrapper nesting (nohup nice env ... cmd).
const maxWrap = 32

func joinWords(ws []string) string { return strings.Join(ws, " ") }

// altCands: besides the command as written, deny rules see a
// path-qualified name reduced to its base name (/bin/rm -> rm), and a name
// with upper case letters in lower case: on a case-insensitive file system
// RM runs rm.
func altCands(ws []string, all string) []string {
	var out []string
	name := ws[0]
	if i := strings.LastIndexByte(name, '/'); i >= 0 && i < len(name)-1 {
		name = name[i+1:]
		out = append(out, name+all[len(ws[0]):])
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'A' && c <= 'Z' {
			out = append(out, strings.ToLower(name)+all[len(ws[0]):])
			break
		}
	}
	return out
}

func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// simple records one simple command, looking through wrappers.
func (a *analyzer) simple(ws []string, c *callCtx) {
	if len(ws) == 0 {
		return
	}
	if hasHole(ws[0]) {
		a.unknown(c.src, "its command name is only known when it runs")
		return
	}
	if c.depth > maxWrap {
		a.unknown(c.src, "too many nested wrappers and shells to read")
		return
	}
	base := baseName(ws[0])
	if spec := wrappers[base]; spec != nil {
		a.wrapper(ws, spec, c)
		return
	}
	switch {
	case shells[base]:
		a.shell(ws, c)
	case foreignShells[base]:
		a.foreignShell(ws, c)
	case base == "xargs":
		a.xargs(ws, c)
	case base == "find":
		a.find(ws, c)
	case base == "fd" || base == "fdfind":
		a.fd(ws, c)
	case base == "eval" || base == "watch" || base == "su":
		a.stringRunner(ws, base, c)
	case base == "source" || base == ".":
		a.source(ws, c)
	case a.special(ws, base, c):
	case nameTakers[base]:
		if w, bad := namesCode(base, ws); bad {
			a.unknown(c.src, base+" evaluates the array subscript in "+printable(w)+", which can run commands")
			return
		}
		a.plain(ws, c)
	default:
		a.plain(ws, c)
	}
}

// nameTakers: builtins that take variable names, whose array subscripts
// bash evaluates as arithmetic.
var nameTakers = map[string]bool{"test": true, "[": true, "printf": true, "read": true, "unset": true,
	"mapfile": true, "readarray": true, "wait": true, "getopts": true, "let": true, "declare": true,
	"typeset": true, "local": true, "export": true, "readonly": true}

// namesCode finds a variable-name operand that bash would evaluate as an
// array subscript holding code: literally ('a[$(cmd)]') or through an
// expansion whose value is not known.
func namesCode(base string, ws []string) (string, bool) {
	risky := func(w string) bool { return subscriptCode(w) || strings.IndexByte(w, dynByte) >= 0 }
	switch base {
	case "test", "[":
		for i, w := range ws[1:] {
			if (w == "-v" || w == "-R") && i+2 < len(ws) && risky(ws[i+2]) {
				return ws[i+2], true
			}
		}
	case "printf":
		for i, w := range ws[1:] {
			if w == "-v" && i+2 < len(ws) && risky(ws[i+2]) {
				return ws[i+2], true
			}
		}
	default: // operands are names
		for _, w := range ws[1:] {
			if !strings.HasPrefix(w, "-") && risky(w) {
				return w, true
			}
		}
	}
	return "", false
}

// stdinFiles name standard input.
var stdinFiles = map[string]bool{"/dev/stdin": true, "/dev/fd/0": true, "/proc/self/fd/0": true}

// source FILE runs FILE in this shell: a file computed at run time or
// standard input makes what runs unknown.
func (a *analyzer) source(ws []string, c *callCtx) {
	if len(ws) > 1 {
		switch {
		case hasHole(ws[1]):
			a.unknown(c.src, "it runs a file only known when it runs")
			return
		case stdinFiles[ws[1]]:
			a.level(ws, c, 0)
			a.stdinScript(ws, c)
			return
		}
	}
	a.plain(ws, c)
}

// plain records a command that runs no other command the policy knows of:
// what it does with its arguments is its own business, except for the
// options of read-looking commands that write files or run commands
// (effects.go), and, for a command not known to leave its arguments
// unexecuted, any later word that may be a command (failclosed.go).
func (a *analyzer) plain(ws []string, c *callCtx) {
	all := joinWords(ws)
	e := entry{src: c.src, text: all, alt: altCands(ws, all), words: ws, via: c.via,
		needAllow: !c.denyOnly && !neutral[ws[0]]}
	base := baseName(ws[0])
	if writers[base] {
		e.writes = ws[1:]
	} else if base == "sed" || base == "perl" {
		for _, w := range ws[1:] {
			if strings.HasPrefix(w, "-i") || strings.HasPrefix(w, "--in-place") {
				e.writes = ws[1:]
				break
			}
		}
	}
	mayRun := !a.loose && !leavesArgs[base]
	if mayRun {
		e.scanEnd = len(ws)
	}
	idx := len(a.an.entries)
	a.an.entries = append(a.an.entries, e)
	if mayRun {
		a.argsAsCode(ws, c)
		a.heredocAsCode(base, c)
	}
	a.effects(base, ws, c, idx)
}

// level records a wrapper itself, for deny rules only (`nohup *`); deny
// rules also read its words before the inner command, at cmdAt, as where a
// command may start (a value the wrapper takes that the policy misreads).
func (a *analyzer) level(ws []string, c *callCtx, cmdAt int) {
	all := joinWords(ws)
	a.an.entries = append(a.an.entries, entry{src: c.src, text: all, alt: altCands(ws, all),
		words: ws, scanEnd: cmdAt, via: c.via})
}

// code reads a string the command will run as shell code.
func (a *analyzer) code(s string, c *callCtx) {
	a.codeVia(s, c, c.via)
}

// progVia reads s as a command line run with more arguments appended (git
// runs core.pager as `sh -c 'PAGER "$@"'`): its last command gets a word
// only known at run time.
func (a *analyzer) progVia(s string, c *callCtx, via string) {
	start := len(a.an.entries)
	a.codeVia(s+` "$@"`, c, via)
	for i := start; i < len(a.an.entries); i++ {
		a.an.entries[i].src = strings.TrimSuffix(a.an.entries[i].src, ` "$@"`)
	}
}

// codeVia is code with a reason for what runs it ("sed's e command").
func (a *analyzer) codeVia(s string, c *callCtx, via string) {
	if hasHole(s) {
		why := "it runs shell code that is only known when it runs"
		if via != "" {
			why = via + " runs shell code that is only known when it runs"
		}
		a.unknown(c.src, why)
		return
	}
	a.parse(s, &callCtx{depth: c.depth + 1, denyOnly: c.denyOnly, via: via})
}

func (a *analyzer) inner(ws []string, c *callCtx, denyOnly bool) {
	a.simple(ws, &callCtx{st: c.st, src: c.src, depth: c.depth + 1, denyOnly: c.denyOnly || denyOnly, via: c.via})
}

// innerVia is inner with a reason for what runs it.
func (a *analyzer) innerVia(ws []string, c *callCtx, via string) {
	a.simple(ws, &callCtx{st: c.st, src: c.src, depth: c.depth + 1, denyOnly: c.denyOnly, via: via})
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shell: `bash -c STRING`, `bash script.sh`, or a shell reading commands
// from standard input (`... | sh`, `bash <<EOF`).
func (a *analyzer) shell(ws []string, c *callCtx) {
	i, cflag := 1, false
	for i < len(ws) {
		w := ws[i]
		if hasHole(w) {
			a.unknown(c.src, "a value only known when it runs decides what the shell runs")
			return
		}
		if w == "--" || w == "-" {
			i++
			break
		}
		if strings.HasPrefix(w, "--") {
			i++
			if w == "--rcfile" || w == "--init-file" {
				i++
			}
			continue
		}
		if len(w) > 1 && (w[0] == '-' || w[0] == '+') {
			if w[0] == '-' && strings.IndexByte(w, 'c') > 0 {
				cflag = true
			}
			i++
			if strings.ContainsAny(w[1:], "oO") {
				i++
			}
			continue
		}
		break
	}
	switch {
	case cflag && i < len(ws):
		a.level(ws, c, 0)
		a.code(ws[i], c)
	case i < len(ws) && stdinFiles[ws[i]]:
		a.level(ws, c, 0)
		a.stdinScript(ws, c)
	case i < len(ws) || cflag:
		a.plain(ws, c) // runs a script file
	default:
		a.level(ws, c, 0)
		a.stdinScript(ws, c)
	}
}

// foreignShell: fish, csh... -c CODE. Their syntax is not bash's: deny
// rules read the code as far as it reads as bash; no allow rule covers it.
func (a *analyzer) foreignShell(ws []string, c *callCtx) {
	a.level(ws, c, len(ws))
	a.an.blockers = append(a.an.blockers, quote(c.src)+" runs "+baseName(ws[0])+" code, which the policy cannot read")
	for i, w := range ws[1:] {
		if w == "-c" || w == "--command" {
			if i+2 < len(ws) {
				a.looseCode(ws[i+2], c, baseName(ws[0])+" "+w)
			}
			return
		}
	}
	if len(ws) == 1 || strings.HasPrefix(ws[1], "-") {
		a.stdinScript(ws, c)
	}
}

// stdinScript: the shell runs what it reads on standard input.
func (a *analyzer) stdinScript(ws []string, c *callCtx) {
	if c.st != nil {
		for _, r := range c.st.Redirs {
			switch r.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				if r.Hdoc == nil {
					a.code("", c)
					return
				}
				a.code(wordTextRaw(r.Hdoc), c)
				return
			case syntax.WordHdoc:
				a.code(wordText(r.Word), c)
				return
			case syntax.RdrIn:
				a.plain(append(append([]string(nil), ws...), wordText(r.Word)), c)
				return
			}
		}
	}
	a.unknown(c.src, "the shell runs whatever it reads on standard input")
}

// wordTextRaw renders a here-document body: literal text, no quote removal.
func wordTextRaw(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(l.Value)
		} else {
			b.WriteByte(dynByte)
		}
	}
	return b.String()
}

var xargsSpec = &wrapSpec{argOpts: "ILnPsdEai", longArg: []string{"--arg-file", "--delimiter", "--max-lines",
	"--max-args", "--max-procs", "--max-chars", "--process-slot-var", "--replace", "--eof"}, flags: "0rtpxo",
	longFlags: []string{"--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit", "--open-tty", "--show-limits"}}

// xargs CMD ARGS runs CMD ARGS with more arguments read from standard input;
// with -I R (or -i, --replace) R in the command is replaced by input.
func (a *analyzer) xargs(ws []string, c *callCtx) {
	i := 1
	var repl []string
	for i < len(ws) {
		w := ws[i]
		if hasHole(w) {
			a.unknown(c.src, "a value only known when it runs decides which command xargs starts")
			return
		}
		if w == "--" {
			i++
			break
		}
		if strings.HasPrefix(w, "--") {
			name, val, hasVal := strings.Cut(w, "=")
			i++
			if name == "--replace" {
				if !hasVal {
					val = "{}"
				}
				repl = append(repl, val)
				continue
			}
			if !hasVal && contains(xargsSpec.longArg, name) {
				i++
			}
			continue
		}
		if len(w) > 1 && w[0] == '-' {
			i++
			for k := 1; k < len(w); k++ {
				o := w[k]
				if o == 'i' { // -i[R]: optional, attached
					r := w[k+1:]
					if r == "" {
						r = "{}"
					}
					repl = append(repl, r)
					break
				}
				if strings.IndexByte(xargsSpec.argOpts, o) < 0 {
					continue
				}
				val := w[k+1:]
				if val == "" && i < len(ws) {
					val = ws[i]
					i++
				}
				if o == 'I' {
					repl = append(repl, val)
				}
				break
			}
			continue
		}
		break
	}
	a.level(ws, c, xargsSpec.scanEnd(ws, i))
	inner := []string{"echo"}
	if i < len(ws) {
		inner = append([]string(nil), ws[i:]...)
	}
	for k, w := range inner {
		for _, r := range repl {
			if r != "" && strings.Contains(w, r) {
				inner[k] = strings.ReplaceAll(w, r, string(rune(dynByte)))
				w = inner[k]
			}
		}
	}
	inner = append(inner, string(rune(dynByte)))
	a.inner(inner, c, false)
}

var findActions = []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}

// find: the find itself (an allow rule on `find *` covers it), each -exec
// command, and -delete as the pseudo command `rm {}`.
func (a *analyzer) find(ws []string, c *callCtx) {
	for _, w := range ws[1:] {
		if strings.IndexByte(w, dynByte) >= 0 {
			a.unknown(c.src, "a value only known when it runs can add find actions such as -exec or -delete")
			return
		}
		if strings.IndexByte(w, globByte) >= 0 {
			for _, act := range findActions {
				if toks, _ := compileSeg(act); segMatch(toks, w) {
					a.unknown(c.src, "an unquoted glob can expand to a find action such as -delete")
					return
				}
			}
		}
	}
	a.plain(ws, c)
	for i := 1; i < len(ws); i++ {
		switch ws[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(ws) && ws[j] != ";" && ws[j] != "+" {
				j++
			}
			inner := make([]string, 0, j-i-1)
			for _, w := range ws[i+1 : j] {
				inner = append(inner, strings.ReplaceAll(w, "{}", string(rune(dynByte))))
			}
			a.inner(inner, c, false)
			i = j
		case "-delete":
			rm := []string{"rm", string(rune(dynByte))}
			a.an.entries = append(a.an.entries, entry{src: c.src, text: joinWords(rm),
				needAllow: !c.denyOnly, writes: ws[1:]})
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(ws) {
				a.write(ws[i+1], c, "find "+ws[i]+" writes its output to the file")
				i++
			}
		}
	}
}

// fd -x/--exec CMD... [;] and -X/--exec-batch: like find -exec.
func (a *analyzer) fd(ws []string, c *callCtx) {
	a.plain(ws, c)
	for i := 1; i < len(ws); i++ {
		switch ws[i] {
		case "-x", "--exec", "-X", "--exec-batch":
			j := i + 1
			for j < len(ws) && ws[j] != ";" {
				j++
			}
			inner := make([]string, 0, j-i)
			for _, w := range ws[i+1 : j] {
				if strings.HasPrefix(w, "{") && strings.HasSuffix(w, "}") {
					w = string(rune(dynByte))
				}
				inner = append(inner, w)
			}
			inner = append(inner, string(rune(dynByte)))
			a.inner(inner, c, false)
			i = j
		}
	}
}

// stringRunner: eval ARGS, watch [opts] ARGS (run through sh -c), su -c CMD.
func (a *analyzer) stringRunner(ws []string, base string, c *callCtx) {
	switch base {
	case "eval":
		a.level(ws, c, 0)
		a.code(joinWords(ws[1:]), c)
	case "watch":
		i := 1
		for i < len(ws) && strings.HasPrefix(ws[i], "-") && !hasHole(ws[i]) {
			if ws[i] == "-n" || ws[i] == "--interval" || ws[i] == "-q" || ws[i] == "--equexit" {
				i++
			}
			i++
		}
		a.level(ws, c, i)
		if i < len(ws) {
			a.code(joinWords(ws[i:]), c)
		}
	case "su":
		for i := 1; i < len(ws); i++ {
			if ws[i] == "-c" || ws[i] == "--command" || ws[i] == "--session-command" {
				if i+1 < len(ws) {
					all := joinWords(ws)
					a.an.entries = append(a.an.entries, entry{src: c.src, text: all, alt: altCands(ws, all),
						needAllow: !c.denyOnly, words: ws, scanEnd: i})
					a.code(ws[i+1], &callCtx{st: c.st, src: c.src, depth: c.depth, denyOnly: true, via: c.via})
					return
				}
			}
		}
		a.plain(ws, c) // a shell reading standard input
		a.stdinScript(ws, &callCtx{st: c.st, src: c.src, depth: c.depth + 1, denyOnly: true, via: c.via})
	}
}
