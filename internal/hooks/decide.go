package hooks

import (
	"context"
	"fmt"
	"strings"
)

// Verdict is what the before_tool_call hooks say of a call.
type Verdict string

const (
	NoObjection Verdict = ""      // every hook exited 0 without a decision
	Allow       Verdict = "allow" // a hook allows it (a person need not be asked)
	Ask         Verdict = "ask"   // a hook wants a person to decide
	Deny        Verdict = "deny"  // a hook denied it, or failed (fail closed)
)

// Decision is the before_tool_call hooks' verdict on one call.
type Decision struct {
	Verdict Verdict
	// Reason is why, for the model (a denial) or the person (ask); redacted.
	Reason string
	// Hooks names the hooks that ran (their commands, ", "-joined); the one
	// that decided comes last.
	Hooks string
}

// BeforeToolCall runs the before_tool_call hooks bound to in.Tool, in
// config order, and combines their answers: the first denial (exit 2,
// "deny", or a hook that failed, timed out or answered garbage: fail
// closed) settles it; else any "ask" asks; else any "allow" allows.
func (r *Runner) BeforeToolCall(ctx context.Context, in Input) Decision {
	in.Event = BeforeToolCall
	var d Decision
	var names []string
	for _, a := range r.run(ctx, in, func(a Answer) bool { return before(a).Verdict == Deny }) {
		names = append(names, a.Hook.Name())
		v := before(a)
		switch {
		case v.Verdict == Deny:
			d = v
		case v.Verdict == Ask && d.Verdict != Ask:
			d = v
		case v.Verdict == Allow && d.Verdict == NoObjection:
			d = v
		}
	}
	d.Hooks = strings.Join(names, ", ")
	if r != nil {
		d.Reason = r.redact(d.Reason)
	}
	return d
}

// before reads one hook's answer to before_tool_call.
func before(a Answer) Decision {
	name := a.Hook.Name()
	switch {
	case a.Err != nil:
		return Decision{Verdict: Deny, Reason: fmt.Sprintf("the before_tool_call hook %s %v, so the call is denied (a hook that fails denies)", name, a.Err)}
	case a.Blocked():
		return Decision{Verdict: Deny, Reason: orDefault(a.Stderr, "the before_tool_call hook "+name+" exited 2 (block) without a reason")}
	case a.Reply == nil:
		return Decision{}
	}
	rep := a.Reply
	dec, reason := strings.ToLower(strings.TrimSpace(rep.Decision)), rep.Reason
	if p := strings.ToLower(strings.TrimSpace(rep.Specific.PermissionDecision)); p != "" {
		dec, reason = p, orDefault(rep.Specific.PermissionDecisionReason, reason)
	}
	switch dec {
	case "":
		return Decision{}
	case "allow", "approve":
		return Decision{Verdict: Allow, Reason: reason}
	case "ask":
		return Decision{Verdict: Ask, Reason: orDefault(reason, "the before_tool_call hook "+name+" asks a person to decide")}
	case "deny", "block":
		return Decision{Verdict: Deny, Reason: orDefault(reason, "denied by the before_tool_call hook "+name)}
	}
	return Decision{Verdict: Deny, Reason: fmt.Sprintf("the before_tool_call hook %s answered decision %q (want allow, deny or ask), so the call is denied", name, rep.Decision)}
}

// UserPrompt runs the user_prompt hooks on in.Prompt: blocked is true when
// one blocks it (exit 2, or {"block": true} / "decision": "block"), with
// the reason to show the person. A hook that fails is a warning.
func (r *Runner) UserPrompt(ctx context.Context, in Input) (blocked bool, reason, hook string) {
	in.Event = UserPrompt
	for _, a := range r.run(ctx, in, nil) {
		switch {
		case a.Err != nil:
			r.warn(fmt.Sprintf("the user_prompt hook %s %v", a.Hook.Name(), a.Err))
		case a.Blocked():
			return true, orDefault(a.Stderr, "blocked by the user_prompt hook (exit 2)"), a.Hook.Name()
		case a.Reply != nil && (a.Reply.Block || strings.EqualFold(a.Reply.Decision, "block")):
			return true, orDefault(r.redact(a.Reply.Reason), "blocked by the user_prompt hook"), a.Hook.Name()
		}
	}
	return false, "", ""
}

// AfterToolCall runs the after_tool_call hooks bound to in.Tool and returns
// their notes for the model ({"note"}, Claude Code's additionalContext, or
// the stderr of a hook that exits 2), one a line. A hook that fails is a
// warning.
func (r *Runner) AfterToolCall(ctx context.Context, in Input) string {
	in.Event = AfterToolCall
	var notes []string
	for _, a := range r.run(ctx, in, nil) {
		switch {
		case a.Err != nil:
			r.warn(fmt.Sprintf("the after_tool_call hook %s %v", a.Hook.Name(), a.Err))
		case a.Blocked() && a.Stderr != "":
			notes = append(notes, a.Stderr)
		case a.Reply != nil:
			for _, n := range []string{a.Reply.Note, a.Reply.Specific.AdditionalContext, a.Reply.Reason} {
				if n = strings.TrimSpace(n); n != "" {
					notes = append(notes, r.redact(n))
					break
				}
			}
		}
	}
	return strings.Join(notes, "\n")
}

// Notify runs the hooks of a notification event (session_start,
// approval_requested, compaction, run_finished): their answers decide
// nothing; a hook that fails is a warning.
func (r *Runner) Notify(ctx context.Context, in Input) {
	for _, a := range r.run(ctx, in, nil) {
		if a.Err != nil || a.Exit != 0 {
			r.warn(fmt.Sprintf("the %s hook %s %v", in.Event, a.Hook.Name(), orErr(a)))
		}
	}
}

func orErr(a Answer) any {
	if a.Err != nil {
		return a.Err
	}
	return fmt.Sprintf("exited %d%s", a.Exit, colon(a.Stderr))
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
