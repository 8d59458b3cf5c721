package tools

import (
	"encoding/json"
	"os"
	"strings"

	"agent/internal/event"
	"agent/internal/sandbox"
)

// Sandboxer confines commands; *sandbox.Sandbox implements it.
type Sandboxer interface {
	// Active reports whether commands are confined here.
	Active() bool
	// Info describes the sandbox for the journal.
	Info() *event.SandboxInfo
	// Start starts a confined command of the run runID.
	Start(runID string, c sandbox.CommandSpec) (*sandbox.Command, error)
	// Blocked reads a command's output for what the sandbox stopped.
	Blocked(output, cwd, command string, exitCode int) []event.SandboxBlock
}

// RunSandbox is the sandbox of the run's commands, for run_started (nil
// without a sandbox configured).
func (e *Env) RunSandbox() *event.SandboxInfo {
	if e == nil || e.Sandbox == nil {
		return nil
	}
	return e.Sandbox.Info()
}

// CallSandbox is the sandbox a call of tool with args will run under, for
// its tool_call event; nil for tools that run no command.
func (e *Env) CallSandbox(tool, args string) *event.SandboxInfo {
	if tool != (RunCommand{}).Name() || e == nil {
		return nil
	}
	if e.Sandbox == nil {
		return &event.SandboxInfo{Mode: sandbox.NameOff, Network: true}
	}
	in := e.Sandbox.Info()
	var a runCommandArgs
	if json.Unmarshal([]byte(args), &a) == nil && a.OutsideSandbox && e.Sandbox.Active() {
		return &event.SandboxInfo{Mode: sandbox.NameOff, Requested: in.Mode, Source: "escalation", Network: true,
			Note: "the model asked to run this call outside the sandbox; it runs only if a person approves (scope escalate)"}
	}
	return in
}

// OutsideSandboxRequested reports whether a call asks to leave an active
// sandbox (the approver then needs a person).
func (e *Env) OutsideSandboxRequested(tool string, args json.RawMessage) bool {
	if tool != (RunCommand{}).Name() || e == nil || e.Sandbox == nil || !e.Sandbox.Active() {
		return false
	}
	var a runCommandArgs
	return json.Unmarshal(args, &a) == nil && a.OutsideSandbox
}

// commandEnv is the environment of a command.
func (e *Env) commandEnv() []string {
	base := e.CommandEnv
	if base == nil {
		base = os.Environ()
	}
	return append(base[:len(base):len(base)], "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
}

// runIDOf is the run id in a command marker "RUN/CALL".
func runIDOf(marker string) string {
	if i := strings.LastIndexByte(marker, '/'); i >= 0 {
		return marker[:i]
	}
	if marker == "" {
		return "session"
	}
	return marker
}
