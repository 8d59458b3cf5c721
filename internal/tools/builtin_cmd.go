package tools

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// In-process commands. A command made only of the builtins echo, true,
// false and ":" — literal words, no expansion of any kind, joined by ";",
// "&&", "||" and "!", with output redirected at most to files of the
// workspace by ">" or ">>" (or "2>&1"-style duplications) — is run here
// instead of by bash: no spawner, no fork, no exec, which is most of what a
// command costs. It does exactly what bash does with it. Writes go through
// write_file's rules (ResolveWrite: inside the workspace, never a .git
// directory, a kept hook script or a hidden path) and are opened beneath
// the workspace with symlinks refused (openat2 RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS, see builtin_open_linux.go), so nothing a sandboxed
// bash could not write is written, and a symlink swapped in after the
// check fails the write rather than following it. Anything else (a
// variable, a glob, a pipe, another program, a target outside or through
// a symlink) is bash's, in the sandbox, as before.

// builtinPlan is a command the in-process runner accepts.
type builtinPlan struct {
	file    *syntax.File
	targets map[string]string // redirect word → workspace-relative path
}

// maxBuiltinCommand bounds the command text the fast path parses.
const maxBuiltinCommand = 4096

// planBuiltin returns the plan for command, or nil when bash must run it.
// writes says whether the command may write the workspace at all (not
// under a read-only sandbox).
func planBuiltin(env *Env, command string, writes bool) *builtinPlan {
	if len(command) > maxBuiltinCommand || !builtinOpenSupported() || strings.ContainsAny(command, "\\`$*?[{~\x00\r") {
		// (a carriage return is part of a word to bash; the parser drops it)
		return nil
	}
	if bashStartupEnv(env.commandEnv()) {
		return nil
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil || len(f.Stmts) == 0 {
		return nil
	}
	p := &builtinPlan{file: f, targets: map[string]string{}}
	for _, st := range f.Stmts {
		if !p.stmtOK(env, st) {
			return nil
		}
	}
	if len(p.targets) > 0 && !writes {
		return nil // the read-only sandbox refuses the write: bash's, as before
	}
	return p
}

func (p *builtinPlan) stmtOK(env *Env, st *syntax.Stmt) bool {
	if st == nil || st.Background || st.Coprocess || st.Disown {
		return false
	}
	for _, r := range st.Redirs {
		if !p.redirOK(env, r) {
			return false
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return false
		}
		name, ok := literal(c.Args[0])
		if !ok {
			return false
		}
		switch name {
		case "echo", "true", "false", ":":
		default:
			return false
		}
		for _, a := range c.Args[1:] {
			v, ok := literal(a)
			if !ok || (name == "echo" && strings.HasPrefix(v, "-")) {
				return false // echo's options differ between shells: bash's
			}
		}
		return true
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt && c.Op != syntax.OrStmt || len(st.Redirs) > 0 {
			return false
		}
		return p.stmtOK(env, c.X) && p.stmtOK(env, c.Y)
	}
	return false
}

func (p *builtinPlan) redirOK(env *Env, r *syntax.Redirect) bool {
	fd := "1"
	if r.N != nil {
		fd = r.N.Value
	}
	if fd != "1" && fd != "2" || r.Hdoc != nil || r.Word == nil {
		return false
	}
	w, ok := literal(r.Word)
	if !ok || w == "" {
		return false
	}
	switch r.Op {
	case syntax.DplOut: // 2>&1, 1>&2
		return w == "1" || w == "2"
	case syntax.RdrOut, syntax.AppOut:
	default:
		return false
	}
	if strings.HasPrefix(w, "-") || !plainTarget(w) {
		return false
	}
	root, err := workspaceRoot(env.Workspace)
	if err != nil {
		return false
	}
	abs, rel, err := ResolveWrite(env.Workspace, w)
	if err != nil || rel == "." || env.hidden(rel) || (env.Kept != nil && env.Kept(rel)) {
		return false
	}
	// No symlink on the way: the path as written is the path resolved.
	lex := w
	if !filepath.IsAbs(lex) {
		lex = filepath.Join(root, lex)
	}
	if filepath.Clean(lex) != abs {
		return false
	}
	// A FIFO, socket or device under the name: bash, in the sandbox,
	// decides (it would block on or write to it).
	if fi, err := os.Lstat(abs); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return false
	}
	// Whatever the sandbox keeps read-only inside the workspace (the hooks
	// and config of a git directory a .git file points at, kept files, the
	// state directory) is bash's too: the sandbox refuses it there.
	if mw, ok := env.Sandbox.(writeChecker); ok && !mw.MayWrite(abs) {
		return false
	}
	p.targets[w] = rel
	return true
}

// writeChecker is the part of the sandbox that tells whether a confined
// command could write a path (sandbox.Sandbox.MayWrite).
type writeChecker interface {
	MayWrite(abs string) bool
}

// literal is a word's value when it has no expansion: plain text, single
// quotes, or double quotes around plain text.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false
			}
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// builtinRun runs a plan; out gets what bash's stdout and stderr would.
type builtinRun struct {
	plan *builtinPlan
	open func(rel string, appendTo bool) (io.WriteCloser, error)
	out  io.Writer
}

// run runs every statement and returns the last one's status.
func (b *builtinRun) run() int {
	status := 0
	for _, st := range b.plan.file.Stmts {
		status = b.stmt(st)
	}
	return status
}

func (b *builtinRun) stmt(st *syntax.Stmt) int {
	status := b.stmtBody(st)
	if st.Negated {
		if status == 0 {
			return 1
		}
		return 0
	}
	return status
}

func (b *builtinRun) stmtBody(st *syntax.Stmt) int {
	if c, ok := st.Cmd.(*syntax.BinaryCmd); ok {
		// a && b, a || b: redirections of the whole apply to both
		x := b.stmt(c.X)
		if (c.Op == syntax.AndStmt) != (x == 0) {
			return x
		}
		return b.stmt(c.Y)
	}
	fds := [3]io.Writer{nil, b.out, b.out}
	var opened []io.WriteCloser
	defer func() {
		for _, f := range opened {
			f.Close()
		}
	}()
	for _, r := range st.Redirs {
		fd := 1
		if r.N != nil && r.N.Value == "2" {
			fd = 2
		}
		w, _ := literal(r.Word)
		if r.Op == syntax.DplOut {
			if w == "1" {
				fds[fd] = fds[1]
			} else {
				fds[fd] = fds[2]
			}
			continue
		}
		f, err := b.open(b.plan.targets[w], r.Op == syntax.AppOut)
		if err != nil {
			// to the stderr of the moment, as bash reports it
			fmt.Fprintf(fds[2], "bash: line %d: %s: %s\n", r.Pos().Line(), w, errText(err))
			return 1
		}
		opened = append(opened, f)
		fds[fd] = f
	}
	c := st.Cmd.(*syntax.CallExpr)
	name, _ := literal(c.Args[0])
	switch name {
	case "true", ":":
		return 0
	case "false":
		return 1
	}
	var line bytes.Buffer
	for i, a := range c.Args[1:] {
		if i > 0 {
			line.WriteByte(' ')
		}
		v, _ := literal(a)
		line.WriteString(v)
	}
	line.WriteByte('\n')
	if _, err := fds[1].Write(line.Bytes()); err != nil {
		fmt.Fprintf(fds[2], "bash: echo: write error: %s\n", errText(err))
		return 1
	}
	return 0
}

// errText is an error as bash words it ("Permission denied").
func errText(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// plainTarget reports whether the kernel resolves the redirect target w
// as its lexical clean does: no trailing slash (a directory to bash, so
// "f/" writes nothing) and no "." or ".." after a name (which the kernel
// resolves only through an existing directory: "new/.", "file/../g" and
// "missing/../g" fail in bash). A leading "./" is fine.
func plainTarget(w string) bool {
	if strings.HasSuffix(w, "/") {
		return false
	}
	rest := w
	for strings.HasPrefix(rest, "./") {
		rest = strings.TrimLeft(rest[2:], "/")
	}
	for _, c := range strings.Split(rest, "/") {
		if c == "." || c == ".." {
			return false
		}
	}
	return true
}

// bashStartupEnv reports whether the commands' environment changes what
// bash -c does before the command: BASH_ENV names a file it runs first
// (a "set -C" there makes "echo x > existing" fail), SHELLOPTS and
// BASHOPTS set options (and draw a complaint). bash runs such commands.
func bashStartupEnv(environ []string) bool {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case "BASH_ENV", "SHELLOPTS", "BASHOPTS":
			if value != "" {
				return true
			}
		}
	}
	return false
}
