package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Failing closed for deny rules. A deny rule names a command; a command the
// policy does not know may run another one given in its arguments (an exec
// wrapper it has no spec for: `frobnicate --x rm f`). So, for a command not
// known to leave its arguments unexecuted, deny rules also read every later
// word that equals (or, as a path, ends in) the rule's command name as where
// that command may start, and every argument that reads as a shell command
// line ('rm -rf x', 'a; b') as one. Well-known commands that only read,
// print or compare their arguments are exempt (leavesArgs); those with
// options that run commands have them modelled (effects.go, git.go...).

// leavesArgs: commands known not to run their arguments as commands.
var leavesArgs = wordSet(`echo printf cat tac nl head tail wc cut paste join tr fold fmt column expand unexpand
	rev comm cmp diff sdiff diff3 grep egrep fgrep zgrep rg ag ls dir vdir tree du df stat file locate which whereis
	type basename dirname realpath readlink pwd date cal id whoami groups uname hostname printenv true false test
	[ : sort uniq shuf md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum base64 base32 basenc
	od hexdump xxd strings nm objdump readelf size jq yq less more man info whatis apropos help sed gsed awk gawk
	mawk nawk git tar gtar bsdtar unzip gzip gunzip zcat bzip2 bunzip2 bzcat xz unxz xzcat zstd unzstd zstdcat
	mkdir touch rm rmdir unlink chmod chown chgrp truncate shred tee dd seq yes sleep nproc uptime free ps kill
	cd pushd popd set export unset shift local declare typeset readonly read getopts wait exit return umask ulimit
	shopt times caller dirs history iconv split csplit numfmt tsort pr expr factor curl wget bat wc fd fdfind
	let lsof pgrep pkill env command tput clear stty find trap alias mapfile readarray complete compgen bind hash enable fc
	jobs scp sftp nc ncat netcat rsync zip socat openssl gpg gpg2 vi vim nvim view ex vimdiff gvim rvim rview
	nview ag go gofmt goimports golint staticcheck golangci-lint revive prettier eslint tsc black isort ruff mypy pylint
	flake8 clang-format rustfmt shellcheck shfmt gh`)

// wordSet builds a set from white-space-separated words.
func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// argsAsCode: the arguments of a command not known to leave them
// unexecuted that read as shell command lines are read as such for deny
// rules (ssh host 'rm x', tmux new 'rm x', entr -s 'rm x').
func (a *analyzer) argsAsCode(ws []string, c *callCtx) {
	for _, w := range ws[1:] {
		if hasHole(w) || !strings.ContainsAny(w, " \t\n;&|`(") {
			continue
		}
		if w[0] == '-' { // --pager='less -R': the value
			if k := strings.IndexByte(w, '='); k > 0 {
				w = w[k+1:]
			}
		}
		// "!cmd" is the shell escape of many tools (gdb, ftp, mysql...)
		a.looseCode(strings.TrimLeft(w, "!"), c, "an argument of "+baseName(ws[0])+" that reads as a command line")
	}
}

// heredocAsCode: a here-document or here-string given to a command not
// known to leave its input unexecuted may be a script it runs (ssh host
// <<EOF, docker exec -i c sh <<EOF): deny rules read it.
func (a *analyzer) heredocAsCode(base string, c *callCtx) {
	if c.st == nil {
		return
	}
	for _, r := range c.st.Redirs {
		switch {
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			a.looseCode(wordTextRaw(r.Hdoc), c, "the here-document "+base+" reads")
		case r.Op == syntax.WordHdoc && r.Word != nil:
			a.looseCode(wordText(r.Word), c, "the here-string "+base+" reads")
		}
	}
}

// stdinText is what a here-document or here-string gives the command on
// standard input; ok is false if it reads something else (a pipe, a file).
func stdinText(c *callCtx) (string, bool) {
	if c.st == nil {
		return "", false
	}
	for _, r := range c.st.Redirs {
		switch {
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			return wordTextRaw(r.Hdoc), true
		case r.Op == syntax.WordHdoc && r.Word != nil:
			return wordText(r.Word), true
		}
	}
	return "", false
}

// looseCode reads s as shell code that may run: what it finds is seen by
// deny rules only, and a text that does not read as code is left alone.
func (a *analyzer) looseCode(s string, c *callCtx, via string) {
	if c.depth >= maxDepth || hasHole(s) {
		return
	}
	sub := &analyzer{an: &analysis{}, loose: true}
	sub.parse(s, &callCtx{depth: c.depth + 1, denyOnly: true, via: via})
	for _, e := range sub.an.entries {
		if e.unknown != "" || e.text == "" {
			continue
		}
		e.needAllow, e.scanEnd = false, 0
		a.an.entries = append(a.an.entries, e)
	}
}

// firstWord: the literal first word of a command pattern, "" if it holds a
// star (then every later word is a possible start).
func firstWord(p string) string {
	w := p
	if i := strings.IndexByte(p, ' '); i >= 0 {
		w = p[:i]
	}
	if strings.IndexByte(w, starByte) >= 0 {
		return ""
	}
	return w
}

// wordMayName: can the word (holes included) run the command name? A path
// runs its base name; upper case runs lower case on a case-insensitive file
// system.
func wordMayName(w, name string) bool {
	if n := len(w); !hasHole(w) && (n < len(name) || w[n-1]|0x20 != name[len(name)-1]|0x20) {
		return false // a quick no: too short, or another last letter
	}
	if i := strings.LastIndexByte(w, '/'); i >= 0 {
		w = w[i+1:]
	}
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 'A' && c <= 'Z' {
			w = strings.ToLower(w)
			break
		}
	}
	if !hasHole(w) {
		return w == name
	}
	return starMatchAny(name, w)
}

// maxScanTries bounds the candidates one entry is matched as: past it, a
// deny rule fails closed (only a line built to be slow gets there).
const maxScanTries = 64

// scanMatch: reading ws[1:end] as places where a command may start, does
// the pattern match what would run? text is joinWords(ws). It returns that
// command line.
func (cp cmdPattern) scanMatch(ws []string, text string, end int) (string, bool) {
	if end > len(ws) {
		end = len(ws)
	}
	tries := 0
	off := len(ws[0]) + 1
	for k := 1; k < end && off+len(ws[k]) <= len(text); k++ {
		w := ws[k]
		rest := text[off+len(w):] // " the words after" or ""
		whole := text[off:]
		off += len(w) + 1
		if len(w) > 1 && w[0] == '-' { // --exec=rm: the value may be the program
			i := strings.IndexByte(w, '=')
			if i < 0 {
				continue
			}
			w = w[i+1:]
			whole = w + rest
		}
		var cand string
		switch {
		case cp.name == "":
			// the rule starts with a star: matching the whole entry covered
			// every start, except one whose path or case reduces
			b := strings.ToLower(baseName(w))
			if b == w {
				continue
			}
			cand = b + rest
		case w == cp.name:
			cand = whole
		case wordMayName(w, cp.name):
			cand = cp.name + rest
			if strings.IndexByte(w, dynByte) >= 0 {
				cand = cp.name + " " + string(rune(dynByte)) + rest
			}
		default:
			continue
		}
		if cp.matchAny(cand) {
			return cand, true
		}
		if tries++; tries >= maxScanTries {
			return cand, true
		}
	}
	return "", false
}
