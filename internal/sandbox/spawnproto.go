package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// The spawner's protocol. The agent and its per-run spawner (`agent
// sandbox-spawner`, confined once, forking every sandboxed command of the
// run) talk over one SOCK_SEQPACKET socket: one JSON object a message, at
// most maxFrame bytes, file descriptors beside a start request only. The
// spawner is a privilege boundary in both directions (it holds what the
// commands may do; it must not do more on a malformed frame), so every
// frame is checked before anything is started, and a frame that fails the
// check starts nothing: the spawner answers an error and waits for the next.
//
//	agent -> spawner  {"v":1,"op":"start","id":N,"argv":[...],"env":[...],"dir":"/abs","gate":true}
//	                  with fds [output, gate read end] (gate only when "gate")
//	spawner -> agent  {"v":1,"op":"ready"}                    once, after it confined itself
//	                  {"v":1,"op":"fail","error":"..."}        instead of ready; then it exits
//	                  {"v":1,"op":"started","id":N,"pid":P}    or with "error": nothing started
//	                  {"v":1,"op":"exited","id":N,"status":W}  W is the raw wait status
//	                  {"v":1,"op":"error","error":"..."}       a frame it refused
const (
	protoVersion = 1
	// maxFrame bounds a message (a command's environment travels in it).
	maxFrame = 192 << 10
	// maxArgs and maxEnv bound a start request's lists.
	maxArgs = 4096
	maxEnv  = 4096
)

// Frame ops.
const (
	opStart   = "start"
	opReady   = "ready"
	opFail    = "fail"
	opStarted = "started"
	opExited  = "exited"
	opError   = "error"
)

// frame is one message of the protocol.
type frame struct {
	V      int      `json:"v"`
	Op     string   `json:"op"`
	ID     uint64   `json:"id,omitempty"`
	Argv   []string `json:"argv,omitempty"`
	Env    []string `json:"env,omitempty"`
	Dir    string   `json:"dir,omitempty"`
	Gate   bool     `json:"gate,omitempty"`
	PID    int      `json:"pid,omitempty"`
	Status int      `json:"status,omitempty"`
	Error  string   `json:"error,omitempty"`
}

func (f frame) encode() ([]byte, error) {
	f.V = protoVersion
	b, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode a spawner frame: %w", err)
	}
	if len(b) > maxFrame {
		return nil, fmt.Errorf("sandbox: the command's request is %d bytes, over the spawner's limit of %d "+
			"(a very large environment? trim it, or add fewer names to [sandbox] env_allow)", len(b), maxFrame)
	}
	return b, nil
}

// errFrame marks a frame the peer must not act on.
var errFrame = errors.New("sandbox: bad spawner frame")

// decodeFrame parses one message; truncated reports that the message did
// not fit the buffer (it was longer than maxFrame).
func decodeFrame(msg []byte, truncated bool) (frame, error) {
	var f frame
	if truncated || len(msg) > maxFrame {
		return f, fmt.Errorf("%w: over %d bytes", errFrame, maxFrame)
	}
	if len(msg) == 0 {
		return f, fmt.Errorf("%w: empty", errFrame)
	}
	if err := json.Unmarshal(msg, &f); err != nil {
		return f, fmt.Errorf("%w: %v", errFrame, err)
	}
	if f.V != protoVersion {
		return f, fmt.Errorf("%w: protocol version %d, this spawner speaks %d", errFrame, f.V, protoVersion)
	}
	return f, nil
}

// checkStart validates a start request and the number of descriptors that
// came with it.
func checkStart(f frame, nfds int) error {
	if f.Op != opStart {
		return fmt.Errorf("%w: unknown op %q", errFrame, f.Op)
	}
	if f.ID == 0 {
		return fmt.Errorf("%w: no id", errFrame)
	}
	if len(f.Argv) == 0 || len(f.Argv) > maxArgs || f.Argv[0] == "" {
		return fmt.Errorf("%w: argv must hold 1 to %d arguments, the first a program", errFrame, maxArgs)
	}
	if len(f.Env) > maxEnv {
		return fmt.Errorf("%w: over %d environment entries", errFrame, maxEnv)
	}
	for _, a := range f.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("%w: NUL in an argument", errFrame)
		}
	}
	for _, kv := range f.Env {
		if i := strings.IndexByte(kv, '='); i <= 0 || strings.IndexByte(kv, 0) >= 0 {
			return fmt.Errorf("%w: environment entry without NAME=", errFrame)
		}
	}
	if !filepath.IsAbs(f.Dir) || strings.IndexByte(f.Dir, 0) >= 0 {
		return fmt.Errorf("%w: the directory must be absolute", errFrame)
	}
	want := 1
	if f.Gate {
		want = 2
	}
	if nfds != want {
		return fmt.Errorf("%w: %d descriptors, want %d", errFrame, nfds, want)
	}
	return nil
}
