package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// helperSpec is what the helper applies before it execs the command; it
// travels as one JSON argument.
type helperSpec struct {
	// ReadOnly: nothing but Writable (the run's TMPDIR) and a few devices
	// may be written.
	ReadOnly bool `json:"rdonly,omitempty"`
	// Writable are the directories the command may write beneath.
	Writable []string `json:"w,omitempty"`
	// Loopback: the helper runs in a new network namespace; bring its
	// loopback interface up (a private one: the host's servers are not on it).
	Loopback bool `json:"lo,omitempty"`
	// BlockTCP: no network namespace, so Landlock refuses TCP connect and
	// bind instead.
	BlockTCP bool `json:"tcp,omitempty"`
	// Mounts: the helper runs in its own user and mount namespace and sets
	// up what follows before it confines itself.
	Mounts bool `json:"mnt,omitempty"`
	// Pin are directories bind-mounted onto themselves, writable, so they
	// cannot be renamed or removed (the workspace's git directory: a new
	// .git put in its place would escape ReadOnly).
	Pin []string `json:"pin,omitempty"`
	// Protect are paths (files or directories) made read-only by a
	// read-only bind mount onto themselves: where git finds code to run
	// (hooks, config, info).
	Protect []string `json:"ro,omitempty"`
	// Hide are directories covered by an empty read-only tmpfs: the agent's
	// state directory, the terminals of /dev/pts.
	Hide []string `json:"hide,omitempty"`
	// HideFiles are files covered by an empty read-only file (/dev/null).
	HideFiles []string `json:"hidef,omitempty"`
	// NoUnixSockets: the seccomp filter refuses creating unix sockets and
	// io_uring (commands: the person's local services listen on named
	// sockets that Landlock does not govern).
	NoUnixSockets bool `json:"nounix,omitempty"`
}

func (sp helperSpec) encode() (string, error) {
	b, err := json.Marshal(sp)
	if err != nil {
		return "", fmt.Errorf("sandbox: encode the helper's rules: %w", err)
	}
	return string(b), nil
}

// HelperExit is the exit status of a helper that could not apply the
// sandbox; the command did not run.
const HelperExit = 126

// errUsage: the helper was called wrongly (it is not meant for people).
var errUsage = errors.New("usage: agent sandbox-exec RULES -- PROGRAM [ARGS...] (internal: the agent runs it for each sandboxed command)")

// Exec is the helper's body (`agent sandbox-exec RULES -- PROGRAM ARGS...`):
// it applies the rules to itself and execs PROGRAM, so the command runs in
// the same process (same pid, process group, parent-death signal and
// environment marker) and everything it starts inherits the rules. It
// returns only on failure: the caller prints the error and exits
// HelperExit, and nothing of the command ran.
func Exec(args []string, stderr io.Writer) error {
	if len(args) < 3 || args[1] != "--" {
		return errUsage
	}
	var sp helperSpec
	if err := json.Unmarshal([]byte(args[0]), &sp); err != nil {
		return fmt.Errorf("%w (%v)", errUsage, err)
	}
	return apply(sp, args[2:], os.Environ())
}
