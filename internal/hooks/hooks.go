// Package hooks owns the person's lifecycle hooks ([[hooks]] in the user
// config): which hook matches an event and a tool, running it as the
// person's own program (bash -c, outside the sandbox, with the scrubbed
// environment commands get, no terminal, a timeout that kills its whole
// process group, kept by a keeper process that kills the group should the
// agent die first), the JSON it reads on stdin (redacted) and how its answer
// (exit code, optional JSON on stdout) is read. A before_tool_call hook
// that fails, hangs or answers garbage fails closed: the call is denied.
//
// It must not journal, render or decide exit codes: the loop journals the
// decisions its Approver returns (source hook), and app wires the other
// events (session_start, user_prompt, approval_requested, compaction,
// run_finished) to Runner.Notify and Runner.UserPrompt.
package hooks

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// Event is a lifecycle event a hook can be bound to.
type Event string

const (
	SessionStart      Event = "session_start"
	UserPrompt        Event = "user_prompt"
	BeforeToolCall    Event = "before_tool_call"
	AfterToolCall     Event = "after_tool_call"
	ApprovalRequested Event = "approval_requested"
	Compaction        Event = "compaction"
	RunFinished       Event = "run_finished"
)

// Events are the events hooks can be bound to, in lifecycle order.
func Events() []Event {
	return []Event{SessionStart, UserPrompt, BeforeToolCall, AfterToolCall, ApprovalRequested, Compaction, RunFinished}
}

// ParseEvent parses an event name.
func ParseEvent(s string) (Event, error) {
	for _, e := range Events() {
		if string(e) == s {
			return e, nil
		}
	}
	names := make([]string, 0, 7)
	for _, e := range Events() {
		names = append(names, string(e))
	}
	return "", fmt.Errorf("unknown hook event %q (events: %s)", s, strings.Join(names, ", "))
}

// toolEvent reports whether e concerns one tool call (a matcher applies).
func (e Event) toolEvent() bool {
	return e == BeforeToolCall || e == AfterToolCall || e == ApprovalRequested
}

// claudeName is Claude Code's name of the closest event, for scripts that
// read hook_event_name.
func (e Event) claudeName() string {
	switch e {
	case SessionStart:
		return "SessionStart"
	case UserPrompt:
		return "UserPromptSubmit"
	case BeforeToolCall:
		return "PreToolUse"
	case AfterToolCall:
		return "PostToolUse"
	case ApprovalRequested:
		return "Notification"
	case Compaction:
		return "PreCompact"
	case RunFinished:
		return "Stop"
	}
	return ""
}

// DefaultTimeout bounds a hook without its own timeout.
const DefaultTimeout = 10 * time.Second

// Hook is one [[hooks]] table of the user config.
type Hook struct {
	Event Event
	// Matcher is a tool name, a glob of tool names (path.Match syntax), or
	// several of them separated by "|" (as Claude Code's "Edit|Write");
	// empty matches every tool. Only tool events look at it.
	Matcher string
	Command string // run with bash -c
	Timeout time.Duration
}

// CheckMatcher reports a matcher that is not a valid glob.
func CheckMatcher(m string) error {
	for _, alt := range strings.Split(m, "|") {
		if _, err := path.Match(strings.TrimSpace(alt), ""); err != nil {
			return fmt.Errorf("matcher %q: %q is not a glob of tool names (e.g. \"run_command\", \"*_file\", \"edit_file|write_file\")", m, alt)
		}
	}
	return nil
}

// Matches reports whether h applies to ev on tool (tool is ignored by
// events that are not about a call).
func (h Hook) Matches(ev Event, tool string) bool {
	if h.Event != ev {
		return false
	}
	if !ev.toolEvent() || strings.TrimSpace(h.Matcher) == "" {
		return true
	}
	for _, alt := range strings.Split(h.Matcher, "|") {
		alt = strings.TrimSpace(alt)
		if alt == "*" || alt == tool {
			return true
		}
		if ok, _ := path.Match(alt, tool); ok {
			return true
		}
	}
	return false
}

// Name names the hook in the audit log and in messages: its command.
func (h Hook) Name() string { return h.Command }

func (h Hook) timeout() time.Duration {
	if h.Timeout > 0 {
		return h.Timeout
	}
	return DefaultTimeout
}
