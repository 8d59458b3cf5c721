package protocol

import (
	"fmt"
	"time"
)

// CommandOutput is the output of a command that is still running, for a
// live view: the last part of it (at most OutputTailBytes, starting at a
// line), redacted. Each one replaces the one before; the call's
// tool_result, once journaled, has the whole (truncated) output.
type CommandOutput struct {
	CallID string
	Tail   string
}

// OutputTailBytes bounds CommandOutput.Tail.
const OutputTailBytes = 4 << 10

// RetryNotice says that a model request failed in a way that may pass and
// will be tried again after Wait.
type RetryNotice struct {
	// Attempt is the attempt about to be made (2 for the first retry) of
	// Attempts in all.
	Attempt, Attempts int
	Wait              time.Duration
	// Reason is why the last attempt failed, in a few plain words ("rate
	// limited", "connection refused").
	Reason string
	// At is when the wait began.
	At time.Time
}

// Line is the notice as a person reads it, with the wait left at now:
// "retrying in 4s (2/5): rate limited".
func (r RetryNotice) Line(now time.Time) string {
	left := r.Wait - now.Sub(r.At)
	when := "now"
	if left > 0 {
		when = "in " + fmt.Sprintf("%ds", int((left+time.Second-1)/time.Second))
	}
	s := fmt.Sprintf("retrying %s (%d/%d)", when, r.Attempt, r.Attempts)
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

// SessionInfo is what a frontend shows to orient a person: where the
// session works, on what, and where it is recorded.
type SessionInfo struct {
	// Workspace is the workspace's path, Name its last element.
	Workspace, Name string
	// Git: the workspace is in a git repository; Branch is its branch
	// ("detached at 1a2b3c4" for a detached HEAD, "" when unknown).
	Git    bool
	Branch string
	// Provider is the model adapter (openai, anthropic; "replay" for a
	// script), Endpoint the host it talks to.
	Provider, Endpoint string
	Model              string
	Approval           string
	// Sandbox is the OS sandbox of commands as enforced (off when the
	// requested one cannot be), SandboxNote why it differs, if it does.
	Sandbox, SandboxNote string
	// Journal is the path of the journal database.
	Journal string
}
