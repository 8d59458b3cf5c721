package policy

import "strings"

// Builtins and variables that change what a name runs, or that bash runs as
// code later: hash -p, enable -f, trap, alias, mapfile -C, complete/compgen
// -C, bind -x, fc; prompt strings, PROMPT_COMMAND, functions exported
// through the environment (BASH_FUNC_f%%=() {...}), and the variables other
// programs run as commands (GIT_SSH_COMMAND, PAGER, LESSOPEN...).

// builtin reports whether it handled ws.
func (a *analyzer) builtin(ws []string, base string, c *callCtx) bool {
	switch base {
	case "hash":
		a.hash(ws, c)
	case "enable":
		for i, w := range ws[1:] {
			if strings.HasPrefix(w, "-") && strings.IndexByte(w, 'f') > 0 {
				lib := "a shared object"
				if i+2 < len(ws) {
					lib = printable(ws[i+2])
				}
				a.unknown(c.src, "enable -f loads a builtin from "+lib+", which can run anything")
				return true
			}
		}
		a.plain(ws, c)
	case "mapfile", "readarray":
		if w, bad := namesCode(base, ws); bad {
			a.unknown(c.src, base+" evaluates the array subscript in "+printable(w)+", which can run commands")
			return true
		}
		a.plain(ws, c)
		if cb, ok := optValue(ws, "C"); ok {
			a.progVia(cb, c, base+" -C (a callback run for each line)")
		}
	case "complete", "compgen":
		a.plain(ws, c)
		if cmd, ok := optValue(ws, "C"); ok {
			a.progVia(cmd, c, base+" -C")
		}
		if wl, ok := optValue(ws, "W"); ok { // the word list is expanded: $(...) in it runs
			a.codeVia(": "+dquote(wl), c, base+" -W (a word list bash expands)")
		}
	case "bind":
		a.plain(ws, c)
		if kx, ok := optValue(ws, "x"); ok {
			seq := kx
			if strings.HasPrefix(seq, `"`) {
				if k := strings.IndexByte(seq[1:], '"'); k >= 0 {
					seq = seq[k+2:]
				}
			}
			if _, cmd, ok := strings.Cut(seq, ":"); ok {
				cmd = strings.TrimSpace(cmd)
				if len(cmd) > 1 && (cmd[0] == '"' || cmd[0] == '\'') && cmd[len(cmd)-1] == cmd[0] {
					cmd = cmd[1 : len(cmd)-1]
				}
				a.codeVia(cmd, c, "bind -x")
			} else {
				a.unknown(c.src, "bind -x binds a key to a command the policy cannot read")
			}
		}
	case "fc":
		for _, w := range ws[1:] {
			if strings.HasPrefix(w, "-") && strings.IndexByte(w, 'l') > 0 {
				a.plain(ws, c)
				return true
			}
		}
		a.unknown(c.src, "fc runs commands from the shell history, which the policy cannot read")
	case "trap":
		a.plain(ws, c)
		i := 1
		if i < len(ws) && ws[i] == "--" {
			i++
		}
		if i < len(ws) && (ws[i] == "-" || ws[i] != "" && ws[i][0] == '-' && i == 1) {
			return true // trap -l, trap -p, trap - SIG
		}
		if i < len(ws) {
			a.codeVia(ws[i], c, "trap")
		}
	case "alias":
		a.plain(ws, c)
		for _, w := range ws[1:] {
			if _, body, ok := strings.Cut(w, "="); ok {
				a.codeVia(body, c, "alias")
			}
		}
	default:
		return false
	}
	return true
}

// hash -p PATH NAME makes NAME run PATH: deny rules see PATH run with any
// arguments, and no allow rule covers the line.
func (a *analyzer) hash(ws []string, c *callCtx) {
	a.plain(ws, c)
	p, ok := optValue(ws, "p")
	if !ok {
		return
	}
	if hasHole(p) {
		a.unknown(c.src, "hash -p makes a name run a program only known when it runs")
		return
	}
	name := "a name"
	if n := len(ws); n > 0 && ws[n-1] != p {
		name = printable(ws[n-1])
	}
	a.an.blockers = append(a.an.blockers, quote(c.src)+" makes "+name+" run "+printable(p))
	a.simple([]string{p, string(rune(dynByte))}, &callCtx{src: printable(p) + " …", depth: c.depth + 1,
		denyOnly: c.denyOnly, via: "hash -p, as " + name})
}

// optValue finds the value of a short option -X (attached, bundled last, or
// the next word) in a builtin's arguments.
func optValue(ws []string, opt string) (string, bool) {
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if w == "--" {
			break
		}
		if len(w) < 2 || w[0] != '-' {
			continue
		}
		if k := strings.Index(w[1:], opt); k >= 0 {
			if rest := w[k+2:]; rest != "" {
				return rest, true
			}
			if i+1 < len(ws) {
				return ws[i+1], true
			}
		}
	}
	return "", false
}

// dquote renders s as a double-quoted shell word.
func dquote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// promptVars: bash expands them (with $(...) and backticks) when it prints
// a prompt or an xtrace line (PS4 under set -x).
var promptVars = map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true}

// cmdVars: variables whose value a program runs as a command line, and
// which program.
var cmdVars = map[string]string{"PROMPT_COMMAND": "bash", "GIT_SSH_COMMAND": "git", "GIT_SSH": "git",
	"GIT_PAGER": "git", "GIT_EDITOR": "git", "GIT_SEQUENCE_EDITOR": "git", "GIT_EXTERNAL_DIFF": "git",
	"GIT_ASKPASS": "git", "GIT_PROXY_COMMAND": "git", "SSH_ASKPASS": "ssh", "SUDO_ASKPASS": "sudo",
	"PAGER": "pagers", "MANPAGER": "man", "SYSTEMD_PAGER": "systemd tools", "EDITOR": "editors", "VISUAL": "editors",
	"FCEDIT": "fc", "BROWSER": "browsers", "LESSOPEN": "less", "LESSCLOSE": "less", "RSYNC_RSH": "rsync",
	"RSYNC_CONNECT_PROG": "rsync", "CVS_RSH": "cvs", "CC": "build tools", "CXX": "build tools", "BAT_PAGER": "bat",
	"DELTA_PAGER": "delta", "GH_EDITOR": "gh", "GH_PAGER": "gh", "GH_BROWSER": "gh"}

// optVars: variables that hold another command's options.
var optVars = map[string]string{"LESS": "less", "MANOPT": "man", "TAR_OPTIONS": "tar", "GOFLAGS": "go build"}

// assignment: NAME=VALUE before a command, in export/declare, or given to
// env or sudo. Values bash or other programs run as code are read as code.
func (a *analyzer) assignment(name, val string, c *callCtx) {
	in := &callCtx{src: c.src, depth: c.depth, denyOnly: c.denyOnly, via: c.via}
	switch {
	case strings.HasPrefix(strings.TrimLeft(val, " \t"), "()"):
		// BASH_FUNC_f%%=() { ...; }: bash imports it as the function f
		a.codeVia("_f"+strings.TrimLeft(val, " \t"), in, "the function "+name+" exported through the environment")
	case promptVars[name]:
		a.codeVia(": "+dquote(val), in, name+" (which bash expands)")
	case cmdVars[name] != "":
		v := strings.TrimLeft(val, "|-")
		a.codeVia(v, in, name+" (which "+cmdVars[name]+" run)")
	case optVars[name] != "":
		a.codeVia(optVars[name]+" "+val, &callCtx{src: c.src, depth: c.depth, denyOnly: true, via: c.via},
			name+" (options for "+optVars[name]+")")
	case name == "GIT_CONFIG_PARAMETERS" || strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		a.looseCode(val, in, name+" (git configuration)")
	}
}
