package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
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
}

// How long a server gets to exit after its input is closed, then after
// SIGTERM, before SIGKILL.
const (
	exitGrace = 2 * time.Second
	termGrace = 2 * time.Second
)

// startProcess starts a stdio server in its own process group, in the
// workspace, with the basic environment and its own variables.
func startProcess(cfg ServerConfig, opt *Options) (*process, error) {
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
	p := &process{stdin: inW, stdout: outR, stderr: &tailBuffer{max: 4096}, exited: make(chan struct{})}
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = opt.Dir
	cmd.Env = serverEnv(opt.Environ, cfg.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	cmd.WaitDelay = time.Second // stderr held open by a child does not hold Wait
	configure(cmd)
	p.cmd = cmd
	err = cmd.Start()
	inR.Close() // the child has its copies
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		where := cfg.Origin
		if where == "" {
			where = "[mcp.servers." + cfg.Name + "]"
		}
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("command %q not found in PATH; fix command in %s", cfg.Command, where)
		}
		return nil, fmt.Errorf("cannot start %q: %w; fix command in %s", cfg.Command, err, where)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
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
// gets (besides its own env): what programs need to run, not the agent's
// keys and tokens.
var baseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "TEMP", "TMP", "TZ", "LANG", "LANGUAGE",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "SYSTEMROOT", "COMSPEC", "PATHEXT", "APPDATA", "LOCALAPPDATA", "USERPROFILE"}

// serverEnv is the environment of a stdio server.
func serverEnv(environ []string, own map[string]string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if _, mine := own[name]; mine {
			continue
		}
		if contains(baseEnv, name) || strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "XDG_") {
			out = append(out, kv)
		}
	}
	for k, v := range own {
		out = append(out, k+"="+v)
	}
	return out
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
