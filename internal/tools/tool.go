// Package tools owns the tools the model sees (read_file, list_dir, glob,
// grep, write_file, edit_file, run_command, update_plan; and the
// declarations of task and apply_task_changes, which the loop runs through
// agent.Subagents), their schemas, the
// validation of model-supplied arguments against those schemas, and workspace
// confinement of every path, and the Registry the loop validates calls with,
// which also holds the tools of MCP servers (internal/mcp adapts them;
// ArgChecker, Remote). Resolve names where a path leads (for the error
// message and the canonical path), and every file operation then runs
// beneath the workspace opened as an *os.Root, so a directory swapped for a
// symlink in between cannot redirect it (confine.go). Which paths grep, glob
// and list_dir leave out is internal/gitignore's decision, shared with the
// repo map and checkpoints.
//
// It must not touch the journal, the approval policy or the model: the loop in
// internal/agent decides whether and when a tool runs; a tool only runs.
package tools

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"agent/internal/event"
	"agent/internal/proc"
)

// Tool is one capability offered to the model. Each tool lives in its own file
// with its schema and description beside its code.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON schema of the arguments object (a subset: object,
	// string, integer, boolean, array, enum, minimum/maximum; required; no
	// additional properties).
	Schema() *Schema
	Risk() event.Risk
	// Run executes a call whose arguments already passed Validate.
	Run(ctx context.Context, env *Env, args json.RawMessage) (Result, error)
}

// Env is what a tool may use while it runs.
type Env struct {
	// Workspace is the absolute, symlink-resolved workspace root.
	Workspace string
	// DefaultTimeoutSec for run_command when the call gives none (120 when 0).
	DefaultTimeoutSec int
	// Plan receives update_plan's plan (may be nil).
	Plan func([]PlanStep)
	// Hidden, when set, names workspace paths that searches (grep, glob) must
	// skip: the approval policy's read-deny rules, e.g. read_file(.env).
	Hidden func(rel string) bool
	// Kept, when set, names workspace paths (canonical, as ResolveWrite
	// returns them) the file tools must not write: the scripts the
	// person's hooks run outside the sandbox.
	Kept func(rel string) bool
	// Marker, per call, marks a command's processes (proc.MarkerEnv).
	Marker string
	// Started, per call, is called once run_command's process exists and
	// before it runs anything; the command runs only if it returns nil.
	Started func(proc.Identity) error
	// Sandbox confines run_command (nil: commands run with the agent's rights).
	Sandbox Sandboxer
	// CommandEnv is the environment commands get, already scrubbed of
	// credentials (nil: the agent's own environment).
	CommandEnv []string
	// Escalation: a person can approve a re-run outside the sandbox (the
	// sandbox is on and the approval mode lets commands run), so a blocked
	// command's note says how.
	Escalation bool
	// OutsideSandbox, per call: a person approved running this call
	// outside the sandbox (an approval of scope escalate).
	OutsideSandbox bool
	// Output, per call, also receives run_command's output (stdout and
	// stderr, raw, as it arrives) for a live view; nil: none. It must not
	// block for long: the command's pipe waits on it.
	Output io.Writer

	// root is the workspace opened once as an *os.Root, beneath which every
	// file tool resolves and opens (see confine.go); zero until first use.
	root rootCache
	// shared is the Env a ForCall copy was made from: it owns the root.
	shared *Env
}

// ForCall returns an Env for one call: e's settings with the call's command
// marker and start hook. It shares e's open workspace root.
func (e *Env) ForCall(marker string, started func(proc.Identity) error) *Env {
	owner := e
	if e.shared != nil {
		owner = e.shared
	}
	return &Env{Workspace: e.Workspace, DefaultTimeoutSec: e.DefaultTimeoutSec, Plan: e.Plan, Hidden: e.Hidden, Kept: e.Kept,
		Marker: marker, Started: started, Sandbox: e.Sandbox, CommandEnv: e.CommandEnv, Escalation: e.Escalation, shared: owner}
}

func (e *Env) hidden(rel string) bool { return e != nil && e.Hidden != nil && e.Hidden(rel) }

// PlanStep is one entry of update_plan.
type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

// Result is what a tool returns to the model. Output is already truncated to
// the model's limit. A tool-level failure (file absent, no match, non-zero
// exit is NOT a failure) is reported with IsError; Go errors returned from Run
// are reserved for the same and are turned into tool errors by the loop.
type Result struct {
	Output  string
	IsError bool
	// Changed lists workspace-relative paths the call wrote (write tools).
	Changed []string
	// ExitCode of run_command (nil for other tools).
	ExitCode *int
	// Background lists processes run_command left running.
	Background []proc.Info
	// Sandbox is what run_command ran under and what the sandbox blocked.
	Sandbox *event.SandboxInfo
}

// Schema is a small JSON-schema subset, serialised as JSON schema. A tool
// from outside (an MCP server's) carries its own schema in Raw instead, and
// checks its arguments itself (ArgChecker).
type Schema struct {
	Type                 string             `json:"type"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	AdditionalProperties *bool              `json:"additionalProperties,omitempty"`
	// Minimum and Maximum bound an integer (inclusive).
	Minimum *int `json:"minimum,omitempty"`
	Maximum *int `json:"maximum,omitempty"`
	// Raw, when set, is the whole schema as JSON, sent as it is; the other
	// fields are then ignored.
	Raw json.RawMessage `json:"-"`
}

// MarshalJSON writes Raw when it is set, else the subset's fields.
func (s Schema) MarshalJSON() ([]byte, error) {
	if len(s.Raw) > 0 {
		return s.Raw, nil
	}
	type plain Schema // without this method
	return json.Marshal(plain(s))
}

// ArgChecker is implemented by a tool whose schema is not the subset above
// (an MCP server's): the registry still refuses broken JSON and anything but
// one JSON object, then asks the tool to check the object against its own
// schema. The error's message names the problem; the registry adds the schema.
type ArgChecker interface {
	CheckArgs(args json.RawMessage) error
}

// RemotePrefix starts the name of every tool that runs in another process
// the agent only talks to (an MCP server's tool: mcp__SERVER__TOOL).
const RemotePrefix = "mcp__"

// Remote reports whether the tool called name runs in another process (an
// MCP server): the agent cannot checkpoint what it does outside the
// workspace nor stop it, so the loop makes its intent durable before it is
// sent, and a resumed run never sends it again by itself.
func Remote(name string) bool { return strings.HasPrefix(name, RemotePrefix) }
