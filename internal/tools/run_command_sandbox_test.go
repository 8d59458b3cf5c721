package tools

import (
	"strings"
	"testing"

	"agent/internal/sandbox"
)

// On a machine without Landlock (an injected capability check), a command
// still runs, and its result records the sandbox as off with the mode that
// was asked for and why: nothing claims a protection it does not have.
func TestRunCommandSandboxUnavailable(t *testing.T) {
	env, ws := newWorkspace(t)
	sb, warns := sandbox.New(sandbox.Options{Mode: sandbox.ModeWorkspaceWrite, Workspace: ws,
		Probe: func() sandbox.Capabilities { return sandbox.Capabilities{Reason: "no Landlock in this test"} }})
	defer sb.Close()
	env.Sandbox = sb
	if len(warns) != 1 || !strings.Contains(warns[0], "not sandboxed here") {
		t.Errorf("warnings %q", warns)
	}
	res, err := call(t, env, "run_command", map[string]any{"command": "echo hi"})
	if err != nil || !strings.Contains(res.Output, "hi") {
		t.Fatalf("%v %q", err, res.Output)
	}
	if in := res.Sandbox; in == nil || in.Mode != "off" || in.Requested != "workspace-write" || !strings.Contains(in.Note, "no Landlock in this test") {
		t.Errorf("result sandbox %+v", in)
	}
	if in := env.CallSandbox("run_command", `{"command":"x"}`); in.Mode != "off" || in.Requested != "workspace-write" {
		t.Errorf("tool_call sandbox %+v", in)
	}
	if env.OutsideSandboxRequested("run_command", []byte(`{"command":"x","outside_sandbox":true}`)) {
		t.Error("an inactive sandbox asks a person to leave it")
	}
}

// A call asking to leave an active sandbox without a person's approval is
// refused and runs nothing.
func TestRunCommandOutsideSandboxNeedsApproval(t *testing.T) {
	env, ws := newWorkspace(t)
	sb, _ := sandbox.New(sandbox.Options{Mode: sandbox.ModeWorkspaceWrite, Workspace: ws,
		Probe: func() sandbox.Capabilities { return sandbox.Capabilities{LandlockABI: 7, UserNS: true} }})
	defer sb.Close()
	env.Sandbox = sb
	if !env.OutsideSandboxRequested("run_command", []byte(`{"command":"x","outside_sandbox":true}`)) {
		t.Fatal("the request to leave the sandbox is not seen")
	}
	_, err := call(t, env, "run_command", map[string]any{"command": "touch ran", "outside_sandbox": true})
	if err == nil || !strings.Contains(err.Error(), "a person's approval") {
		t.Fatalf("error %v", err)
	}
	if _, err := call(t, env, "read_file", map[string]any{"path": "ran"}); err == nil {
		t.Error("the refused command ran")
	}
}
