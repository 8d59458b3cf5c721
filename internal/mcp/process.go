package mcp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// process is a stdio server's program: its pipes, its end, the tail of
// what it wrote on stderr.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end: the server's standard input
	stdout *os.File // our end: the server's standard output
	stderr *tailBuffer
	exited chan struct{} // closed once it has exited and been waited for
	err    error         // Wait's error, set before exited closes
	once   sync.Once
	// tooLarge is set when it wrote a message over the limit (limit
	// bytes): the connection is broken and it is stopped.
	tooLarge atomic.Bool
	limit    int
}

// tooLargeError is an answer over the message limit: the server ran the
// request, but what it answered could not be read.
type tooLargeError struct{ limit int }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("answer too large: the server sent a message of more than %s, the limit", sizeText(e.limit))
}

func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// answerTooLarge is the error of a server whose connection broke on a
// message over the limit, nil otherwise.
func (p *process) answerTooLarge() error {
	if p == nil || !p.tooLarge.Load() {
		return nil
	}
	return &tooLargeError{limit: p.limit}
}

// reader is the server's standard output as the client reads it: a line
// (one message) longer than the limit ends it with a tooLargeError, marks
// the process and stops it, so that its session ends and says why.
func (p *process) reader() io.ReadCloser { return &frameReader{p: p} }

type frameReader struct {
	p    *process
	line int // bytes of the current line so far
}

func (r *frameReader) Read(b []byte) (int, error) {
	if r.p.tooLarge.Load() {
		return 0, &tooLargeError{limit: r.p.limit}
	}
	n, err := r.p.stdout.Read(b)
	for i, c := range b[:n] {
		if c == '\n' {
			r.line = 0
			continue
		}
		if r.line++; r.line > r.p.limit {
			r.p.tooLarge.Store(true)
			go r.p.stop()
			return i, &tooLargeError{limit: r.p.limit}
		}
	}
	return n, err
}

func (r *frameReader) Close() error { return r.p.stdout.Close() }

// How long a server gets to exit after its input is closed, then after
// SIGTERM, before SIGKILL.
const (
	exitGrace = 2 * time.Second
	termGrace = 2 * time.Second
)

// startProcess starts a stdio server: in a new session (no controlling
// terminal), in its own directory under the state directory (never the
// workspace), its command resolved on a PATH without the workspace's
// directories, with the command environment and its own variables, and
// through opt.Wrap when set (the OS sandbox).
func startProcess(cfg ServerConfig, opt *Options) (*process, error) {
	where := cfg.Origin
	if where == "" {
		where = "[mcp.servers." + cfg.Name + "]"
	}
	ws := realPath(opt.Workspace)
	env := serverEnv(opt.Environ, cfg.Env, ws)
	path, err := resolveCommand(cfg.Command, lookupEnv(env, "PATH"), ws)
	if err != nil {
		return nil, fmt.Errorf("%w; fix command in %s", err, where)
	}
	dir, err := serverDir(opt.StateDir, cfg.Name)
	if err != nil {
		return nil, err
	}
	env = setEnv(env, "PWD", dir)
	argv := append([]string{path}, cfg.Args...)
	start := Start{Path: path, Args: argv, Env: env}
	if opt.Wrap != nil {
		if start, err = opt.Wrap(cfg, dir, argv, env); err != nil {
			return nil, fmt.Errorf("cannot confine MCP server %q: %w", cfg.Name, err)
		}
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{stdin: inW, stdout: outR, stderr: &tailBuffer{max: 4096}, exited: make(chan struct{}), limit: opt.MaxMessage}
	if p.limit <= 0 {
		p.limit = DefaultMaxMessage
	}
	cmd := &exec.Cmd{Path: start.Path, Args: start.Args, Dir: dir, Env: start.Env}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	cmd.WaitDelay = time.Second // stderr held open by a child does not hold Wait
	if err := configure(cmd, start); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("cannot start MCP server %q: %w", cfg.Name, err)
	}
	p.cmd = cmd
	err = cmd.Start()
	inR.Close() // the child has its copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("cannot start %q: %w; fix command in %s", cfg.Command, err, where)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// serverDir makes (or tightens) the server's own working directory,
// STATE/NAME, 0700: nothing of the workspace is in it, so `python3 -m mod`
// or `npx pkg` cannot pick up the repository's look-alikes from there.
func serverDir(state, name string) (string, error) {
	if state == "" {
		return "", fmt.Errorf("MCP server %q: no state directory to start it in (Options.StateDir)", name)
	}
	dir := filepath.Join(state, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("MCP server %q: make its directory: %w", name, err)
	}
	for _, d := range []string{state, dir} {
		if err := os.Chmod(d, 0o700); err != nil {
			return "", fmt.Errorf("MCP server %q: make its directory private: %w", name, err)
		}
	}
	return dir, nil
}

// resolveCommand finds command on pathList without the directories that
// could hold the workspace's files: every relative entry ("", ".", "bin",
// "node_modules/.bin") and every entry inside ws. A program found there
// whose real path is inside ws (a symlink into it) is passed over too. A
// relative path with a slash ("./srv", "bin/srv") would be the workspace's
// file: an error that names the fix.
func resolveCommand(command, pathList, ws string) (string, error) {
	if strings.ContainsRune(command, '/') {
		if !filepath.IsAbs(command) {
			return "", fmt.Errorf("command %q is a relative path, which MCP servers do not take (they do not start in the workspace): "+
				"give its absolute path, or the name of a program on PATH", command)
		}
		if err := executable(command); err != nil {
			return "", fmt.Errorf("command %q: %w", command, err)
		}
		return command, nil
	}
	for _, d := range SafePath(pathList, ws) {
		p := filepath.Join(d, command)
		if executable(p) != nil || inside(realPath(p), ws) {
			continue
		}
		return p, nil
	}
	return "", fmt.Errorf("command %q not found in PATH (its relative entries and those inside the workspace are not searched)", command)
}

// SafePath is the entries of pathList an MCP server's command is looked up
// in: absolute ones, outside ws (whose symlinks are resolved).
func SafePath(pathList, ws string) []string {
	var out []string
	for _, d := range filepath.SplitList(pathList) {
		if d == "" || !filepath.IsAbs(d) || inside(realPath(d), ws) {
			continue
		}
		out = append(out, filepath.Clean(d))
	}
	return out
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

// realPath is p with its symlinks resolved, or cleaned where it cannot be.
func realPath(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// inside reports whether p is ws or beneath it ("" is inside nothing).
func inside(p, ws string) bool {
	if ws == "" || p == "" {
		return false
	}
	rel, err := filepath.Rel(ws, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

func (p *process) hasExited() bool {
	if p == nil {
		return false
	}
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitText says how it exited; only once it has.
func (p *process) exitText() string {
	if !p.hasExited() {
		return "still running"
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ProcessState.String()
	}
	if p.err != nil {
		return p.err.Error()
	}
	return "exit status 0"
}

// stderrNote is the last line the server wrote on stderr, if any.
func (p *process) stderrNote() string {
	if p == nil {
		return ""
	}
	if last := p.stderr.lastLines(3); last != "" {
		return "; it wrote on stderr: " + last
	}
	return ""
}

// stop closes its input, then ends its process group: SIGTERM after
// exitGrace, SIGKILL after termGrace; it returns once the process has
// exited, and kills what its group still holds.
func (p *process) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(exitGrace):
			signalGroup(p.cmd, false)
			select {
			case <-p.exited:
			case <-time.After(termGrace):
				signalGroup(p.cmd, true)
				<-p.exited
			}
		}
		signalGroup(p.cmd, true) // what it left behind in its group
		p.stdout.Close()
	})
}

// baseEnv are the variables of the agent's environment a stdio server
// gets when the caller gives no command environment (Options.Environ nil):
// what programs need to run, not the agent's keys and tokens.
var baseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TEMP", "TMP", "TZ", "LANG", "LANGUAGE",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "SYSTEMROOT", "COMSPEC", "PATHEXT", "APPDATA", "LOCALAPPDATA", "USERPROFILE"}

// dropEnv are never passed on from the agent's environment: its state
// directory, and where the shell was (the server has its own directory).
var dropEnv = []string{"AGENT_HOME", "OLDPWD"}

// searchEnv are the variables that make interpreters and loaders look for
// code in more places: from the agent's environment, their entries inside
// the workspace or relative (resolved in the workspace before) are
// dropped, so a server's imports come from where the person installed
// them. The server's own env sets them as configured.
var searchEnv = []string{"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "NODE_PATH", "RUBYLIB", "GEM_PATH", "GEM_HOME",
	"PERL5LIB", "PERLLIB", "CLASSPATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "DYLD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES",
	"BASH_ENV", "ENV", "NODE_OPTIONS", "RUBYOPT", "PERL5OPT", "JAVA_TOOL_OPTIONS"}

// serverEnv is the environment of a stdio server: environ (the command
// environment, already scrubbed of credentials; nil: the basic variables
// of the agent's own) without AGENT_HOME and with PATH and the search
// variables kept out of the workspace ws, then its own variables.
func serverEnv(environ []string, own map[string]string, ws string) []string {
	basic := environ == nil
	if basic {
		environ = os.Environ()
	}
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || contains(dropEnv, name) {
			continue
		}
		if _, mine := own[name]; mine {
			continue
		}
		if basic && !contains(baseEnv, name) && !strings.HasPrefix(name, "LC_") && !strings.HasPrefix(name, "XDG_") {
			continue
		}
		switch {
		case name == "PATH":
			kv = name + "=" + strings.Join(SafePath(value, ws), string(filepath.ListSeparator))
		case contains(searchEnv, name):
			v, keep := outsideWorkspace(value, ws)
			if !keep {
				continue
			}
			kv = name + "=" + v
		}
		out = append(out, kv)
	}
	for k, v := range own {
		out = append(out, k+"="+v)
	}
	return out
}

// outsideWorkspace keeps the entries of a search variable's value (a list
// of paths, or options naming files) that are absolute and outside ws; a
// value whose every entry goes is dropped (false). An entry that is not a
// path (an option such as --max-old-space-size=4096) is kept.
func outsideWorkspace(value, ws string) (string, bool) {
	sep := string(filepath.ListSeparator)
	if strings.ContainsAny(value, " \t") { // NODE_OPTIONS and the like: options, some naming files
		sep = " "
	}
	var keep []string
	for _, e := range strings.Split(value, sep) {
		if e == "" {
			continue
		}
		path := e
		if i := strings.LastIndexByte(e, '='); i >= 0 && strings.HasPrefix(e, "-") {
			path = e[i+1:] // --require=./x.js
		}
		pathLike := strings.ContainsRune(path, '/') || path == "." || path == ".."
		if pathLike && (!filepath.IsAbs(path) || inside(realPath(path), ws)) {
			if n := len(keep); sep == " " && n > 0 && strings.HasPrefix(keep[n-1], "-") && !strings.Contains(keep[n-1], "=") {
				keep = keep[:n-1] // --require ./x.js: the option goes with its file
			}
			continue
		}
		keep = append(keep, e)
	}
	if len(keep) == 0 {
		return "", false
	}
	return strings.Join(keep, sep), true
}

// lookupEnv is the value of name in env ("" when unset).
func lookupEnv(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// setEnv sets name in env.
func setEnv(env []string, name, value string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// lastLines returns up to n of the last non-empty lines, joined by " | ".
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	var keep []string
	for i := len(lines) - 1; i >= 0 && len(keep) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			keep = append([]string{l}, keep...)
		}
	}
	s := strings.Join(keep, " | ")
	if len(s) > 500 {
		s = s[len(s)-500:]
	}
	return s
}
