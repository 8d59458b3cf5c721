package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Commands that run another command given as their arguments (env rm x,
// sudo rm x, xargs rm), as a shell string (bash -c, eval, su -c, watch,
// trap) or as find actions (-exec, -delete). The inner command is what an
// allow rule has to cover; deny rules see every level.

// wrapSpec describes how a wrapper's options are laid out.
type wrapSpec struct {
	argOpts    string   // short options that take a value ("n" for nice -n 5)
	longArg    []string // long options that take a separate value
	positional int      // operands before the command (timeout DURATION)
	assigns    bool     // NAME=VALUE words before the command (env, sudo)
	noCmdOpts  string   // short options after which nothing runs (command -v)
	writeOpts  string   // short options whose value is a file written (time -o)
	splitOpts  string   // short options whose value is a command line (env -S)
	privileged bool     // runs the command with other rights: an allow rule must name the wrapper
}

var wrappers = map[string]*wrapSpec{
	"env":     {argOpts: "uCS", longArg: []string{"--unset", "--chdir", "--split-string"}, assigns: true, splitOpts: "S"},
	"nohup":   {},
	"time":    {argOpts: "fo", longArg: []string{"--format", "--output"}, writeOpts: "o"},
	"nice":    {argOpts: "n", longArg: []string{"--adjustment"}},
	"ionice":  {argOpts: "cnpPu", longArg: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
	"timeout": {argOpts: "sk", longArg: []string{"--signal", "--kill-after"}, positional: 1},
	"stdbuf":  {argOpts: "ioe", longArg: []string{"--input", "--output", "--error"}},
	"setsid":  {},
	"command": {noCmdOpts: "vV"},
	"builtin": {},
	"exec":    {argOpts: "a"},
	"sudo": {argOpts: "ugCDhprtUT", longArg: []string{"--user", "--group", "--chdir", "--host", "--prompt",
		"--role", "--type", "--other-user", "--close-from", "--command-timeout"},
		assigns: true, noCmdOpts: "lveVK", privileged: true},
	"doas":   {argOpts: "uC", noCmdOpts: "L", privileged: true},
	"chroot": {longArg: []string{"--userspec", "--groups"}, positional: 1, privileged: true},
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true, "mksh": true}

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
	switch {
	case wrappers[base] != nil:
		a.wrapper(ws, wrappers[base], c)
	case shells[base]:
		a.shell(ws, c)
	case base == "xargs":
		a.xargs(ws, c)
	case base == "find":
		a.find(ws, c)
	case base == "eval" || base == "watch" || base == "su":
		a.stringRunner(ws, base, c)
	case base == "source" || base == ".":
		a.source(ws, c)
	case nameTakers[base]:
		if w, bad := namesCode(base, ws); bad {
			a.unknown(c.src, base+" evaluates the array subscript in "+printable(w)+", which can run commands")
			return
		}
		a.plain(ws, c)
	case base == "trap" || base == "alias":
		a.plain(ws, c)
		for i, w := range ws[1:] {
			code := w
			if base == "alias" {
				_, code, _ = strings.Cut(w, "=")
			} else if i > 0 || strings.HasPrefix(w, "-") {
				break
			}
			a.code(code, c)
		}
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
			a.level(ws, c)
			a.stdinScript(ws, c)
			return
		}
	}
	a.plain(ws, c)
}

func (a *analyzer) plain(ws []string, c *callCtx) {
	all := joinWords(ws)
	e := entry{src: c.src, text: all, alt: altCands(ws, all), reads: ws[1:],
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
	a.an.entries = append(a.an.entries, e)
}

// level records a wrapper itself, for deny rules only (`nohup *`).
func (a *analyzer) level(ws []string, c *callCtx) {
	a.an.entries = append(a.an.entries, entry{src: c.src, text: joinWords(ws), alt: altCands(ws, joinWords(ws)), reads: ws[1:]})
}

// code reads a string the command will run as shell code.
func (a *analyzer) code(s string, c *callCtx) {
	if hasHole(s) {
		a.unknown(c.src, "it runs shell code that is only known when it runs")
		return
	}
	a.parse(s, c.depth+1, c.denyOnly)
}

func (a *analyzer) inner(ws []string, c *callCtx, denyOnly bool) {
	a.simple(ws, &callCtx{st: c.st, src: c.src, depth: c.depth + 1, denyOnly: c.denyOnly || denyOnly})
}

func (a *analyzer) wrapper(ws []string, spec *wrapSpec, c *callCtx) {
	i := 1
	hidden := func() {
		a.unknown(c.src, "a value only known when it runs decides which command "+baseName(ws[0])+" starts")
	}
	for i < len(ws) {
		w := ws[i]
		if hasHole(w) {
			hidden()
			return
		}
		if w == "--" {
			i++
			break
		}
		if strings.HasPrefix(w, "--") {
			name, val, hasVal := strings.Cut(w, "=")
			if name == "--split-string" && spec.splitOpts != "" {
				if !hasVal && i+1 < len(ws) {
					val = ws[i+1]
					i++
				}
				a.level(ws, c)
				a.code(val+" "+joinWords(ws[i+1:]), c)
				return
			}
			i++
			if !hasVal && contains(spec.longArg, name) {
				i++
			}
			continue
		}
		if len(w) > 1 && w[0] == '-' {
			i++
			for k := 1; k < len(w); k++ {
				o := w[k]
				if strings.IndexByte(spec.noCmdOpts, o) >= 0 {
					a.plain(ws, c)
					return
				}
				if strings.IndexByte(spec.argOpts, o) < 0 {
					continue
				}
				val := w[k+1:]
				if val == "" && i < len(ws) {
					val = ws[i]
					if hasHole(val) {
						hidden()
						return
					}
					i++
				}
				if strings.IndexByte(spec.splitOpts, o) >= 0 {
					a.level(ws, c)
					a.code(val+" "+joinWords(ws[i:]), c)
					return
				}
				if strings.IndexByte(spec.writeOpts, o) >= 0 {
					a.an.writes = append(a.an.writes, redir{target: val, src: c.src})
				}
				break
			}
			continue
		}
		if spec.assigns && isAssignment(w) {
			if name, _, _ := strings.Cut(w, "="); dangerousVar(name) {
				a.an.blockers = append(a.an.blockers, "it sets "+name+", which changes what the command runs")
			}
			i++
			continue
		}
		break
	}
	for n := 0; n < spec.positional && i < len(ws); n++ {
		if hasHole(ws[i]) {
			hidden()
			return
		}
		i++
	}
	if i >= len(ws) {
		a.plain(ws, c)
		return
	}
	if spec.privileged {
		a.an.entries = append(a.an.entries, entry{src: c.src, text: joinWords(ws), alt: altCands(ws, joinWords(ws)),
			reads: ws[1:], needAllow: !c.denyOnly})
		a.inner(ws[i:], c, true)
		return
	}
	a.level(ws, c)
	a.inner(ws[i:], c, false)
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
		a.level(ws, c)
		a.code(ws[i], c)
	case i < len(ws) && stdinFiles[ws[i]]:
		a.level(ws, c)
		a.stdinScript(ws, c)
	case i < len(ws) || cflag:
		a.plain(ws, c) // runs a script file
	default:
		a.level(ws, c)
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

var xargsSpec = &wrapSpec{argOpts: "ILnPsdEa", longArg: []string{"--arg-file", "--delimiter", "--max-lines",
	"--max-args", "--max-procs", "--max-chars", "--process-slot-var"}}

// xargs CMD ARGS runs CMD ARGS with more arguments read from standard input.
func (a *analyzer) xargs(ws []string, c *callCtx) {
	i := 1
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
			name, _, hasVal := strings.Cut(w, "=")
			i++
			if !hasVal && contains(xargsSpec.longArg, name) {
				i++
			}
			continue
		}
		if len(w) > 1 && w[0] == '-' {
			i++
			if k := strings.IndexAny(w[1:], xargsSpec.argOpts); k >= 0 && k+2 == len(w) {
				i++
			}
			continue
		}
		break
	}
	a.level(ws, c)
	inner := []string{"echo"}
	if i < len(ws) {
		inner = ws[i:]
	}
	inner = append(append([]string(nil), inner...), string(rune(dynByte)))
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
				a.an.writes = append(a.an.writes, redir{target: ws[i+1], src: c.src})
				i++
			}
		}
	}
}

// stringRunner: eval ARGS, watch [opts] ARGS (run through sh -c), su -c CMD.
func (a *analyzer) stringRunner(ws []string, base string, c *callCtx) {
	switch base {
	case "eval":
		a.level(ws, c)
		a.code(joinWords(ws[1:]), c)
	case "watch":
		i := 1
		for i < len(ws) && strings.HasPrefix(ws[i], "-") && !hasHole(ws[i]) {
			if ws[i] == "-n" || ws[i] == "--interval" || ws[i] == "-q" || ws[i] == "--equexit" {
				i++
			}
			i++
		}
		a.level(ws, c)
		if i < len(ws) {
			a.code(joinWords(ws[i:]), c)
		}
	case "su":
		for i := 1; i < len(ws); i++ {
			if ws[i] == "-c" || ws[i] == "--command" {
				if i+1 < len(ws) {
					a.an.entries = append(a.an.entries, entry{src: c.src, text: joinWords(ws), alt: altCands(ws, joinWords(ws)),
						needAllow: !c.denyOnly})
					a.code(ws[i+1], &callCtx{st: c.st, src: c.src, depth: c.depth, denyOnly: true})
					return
				}
			}
		}
		a.plain(ws, c)
	}
}
