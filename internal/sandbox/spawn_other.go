//go:build !linux

package sandbox

import (
	"errors"
	"io"
	"runtime"
	"time"

	"agent/internal/proc"
)

var errNoSpawner = errors.New("sandbox: not available on " + runtime.GOOS)

// Serve: there is no spawner outside Linux.
func Serve([]string) error { return errNoSpawner }

type spawner struct{}

func startSpawner([]string, helperSpec, bool, []string) (*spawner, error) { return nil, errNoSpawner }
func (*spawner) close()                                                   {}
func (*spawner) alive() bool                                              { return false }
func (*spawner) start(CommandSpec) (*Command, error)                      { return nil, errNoSpawner }

// CommandSpec is one command for the spawner.
type CommandSpec struct {
	Argv      []string
	Dir       string
	Env       []string
	Marker    string
	Output    io.Writer
	WaitDelay time.Duration
	Gated     bool
}

// Command is a command the spawner started (never, here).
type Command struct{}

func (*Command) Identity() proc.Identity { return proc.Identity{} }
func (*Command) Release() error          { return errNoSpawner }
func (*Command) Abort()                  {}
func (*Command) Exited() <-chan struct{} { c := make(chan struct{}); close(c); return c }
func (*Command) Err() error              { return errNoSpawner }
func (*Command) ExitCode() (int, bool)   { return 0, false }
func (*Command) KillGroup()              {}
func (*Command) Background() []proc.Info { return nil }
