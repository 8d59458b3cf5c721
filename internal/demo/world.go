package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"agent/internal/replay"
)

// world is the demo's temporary directory: the repository, the agent's
// state, a HOME and a TMPDIR for the children, the release gate of the
// blocking command; and the environment the children get.
type world struct {
	exe   string
	root  string // everything below is in here
	repo  string
	state string // AGENT_HOME
	home  string // HOME, XDG_* of the children
	tmp   string // TMPDIR of the children
	gate  string // a FIFO the blocking command reads (nobody ever writes it)
	env   []string

	mu      sync.Mutex
	servers []*modelServer
	gateW   *os.File // held open so that the command blocks, closed at the end
}

// scrubbed are the prefixes of the variables a child must not inherit: the
// person's model, key, state and configuration would change what the demo
// shows or let it touch their files.
func scrubbed() []string {
	return []string{"OPENAI_", "ANTHROPIC_", "AGENT_", "XDG_", "HOME=", "TMPDIR="}
}

func newWorld(exe string, base []string) (*world, error) {
	root, err := os.MkdirTemp("", "agent-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: a temporary directory: %w (set TMPDIR to a writable directory)", err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("demo: %w", err)
	}
	w := &world{exe: exe, root: root, repo: filepath.Join(root, "repo"), state: filepath.Join(root, "state"),
		home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), gate: filepath.Join(root, "gate")}
	if err := w.build(); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	w.env = childEnv(base, w)
	return w, nil
}

func (w *world) build() error {
	for _, d := range []string{w.repo, w.state, w.home, w.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	for _, f := range fixture() {
		if err := os.WriteFile(filepath.Join(w.repo, f.name), []byte(f.body), f.mode); err != nil {
			return fmt.Errorf("demo: the repository: %w", err)
		}
	}
	if err := mkfifo(w.gate); err != nil {
		return fmt.Errorf("demo: the release gate: %w", err)
	}
	return nil
}

// childEnv is base without the scrubbed variables, with the world's
// directories.
func childEnv(base []string, w *world) []string {
	var env []string
next:
	for _, kv := range base {
		for _, p := range scrubbed() {
			if strings.HasPrefix(kv, p) {
				continue next
			}
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+w.home,
		"XDG_CONFIG_HOME="+filepath.Join(w.home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(w.home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(w.home, ".cache"),
		"TMPDIR="+w.tmp,
		"AGENT_HOME="+w.state,
		"AGENT_MODEL="+demoModel,
		"AGENT_PROVIDER=openai",
		gateEnv+"="+w.gate,
	)
}

// envWith is the children's environment pointed at a model server.
func (w *world) envWith(ms *modelServer) []string {
	return append(w.env[:len(w.env):len(w.env)], "OPENAI_BASE_URL="+ms.url)
}

// checked is s validated as a script file would be.
func checked(s *replay.Script) (*replay.Script, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("demo: the script: %w", err)
	}
	out, err := replay.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("demo: the script: %w", err)
	}
	return out, nil
}

// modelServer is a replay.Server on a loopback port.
type modelServer struct {
	srv    *replay.Server
	url    string
	cancel context.CancelFunc
	done   chan error
}

// serve starts a stand-in model playing s; close stops it.
func (w *world) serve(s *replay.Script) (*modelServer, error) {
	s, err := checked(s)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo: the stand-in model needs a loopback port: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ms := &modelServer{srv: replay.NewServer(s), url: "http://" + ln.Addr().String() + "/v1", cancel: cancel, done: make(chan error, 1)}
	go func() { ms.done <- replay.Serve(ctx, ln, ms.srv) }()
	w.mu.Lock()
	w.servers = append(w.servers, ms)
	w.mu.Unlock()
	return ms, nil
}

func (ms *modelServer) close() error {
	if ms.cancel == nil {
		return nil
	}
	ms.cancel()
	ms.cancel = nil
	return <-ms.done
}

// openGate opens the gate for writing: it returns once the blocking
// command has opened it for reading, so the command is running. The file
// is kept open (the command blocks on it until it is killed) and closed at
// the end. If stop is closed first, it gives up.
func (w *world) openGate(stop <-chan struct{}) error {
	type res struct {
		f   *os.File
		err error
	}
	got := make(chan res, 1)
	go func() {
		f, err := os.OpenFile(w.gate, os.O_WRONLY, 0)
		got <- res{f, err}
	}()
	select {
	case r := <-got:
		if r.err != nil {
			return fmt.Errorf("demo: the release gate: %w", r.err)
		}
		w.mu.Lock()
		w.gateW = r.f
		w.mu.Unlock()
		return nil
	case <-stop:
		// Release the opener: a reader of our own lets its open return.
		if rd, err := openReaderNonblock(w.gate); err == nil {
			if r := <-got; r.f != nil {
				r.f.Close()
			}
			rd.Close()
		}
		return errors.New("demo: the command never started")
	}
}

// close stops the model servers, closes the gate and removes the root
// unless keep.
func (w *world) close(keep bool) error {
	w.mu.Lock()
	servers, gate := w.servers, w.gateW
	w.servers, w.gateW = nil, nil
	w.mu.Unlock()
	var errs []error
	for _, ms := range servers {
		if err := ms.close(); err != nil {
			errs = append(errs, err)
		}
	}
	if gate != nil {
		gate.Close()
	}
	if !keep {
		if err := os.RemoveAll(w.root); err != nil {
			errs = append(errs, fmt.Errorf("demo: removing %s: %w", w.root, err))
		}
	}
	return errors.Join(errs...)
}
