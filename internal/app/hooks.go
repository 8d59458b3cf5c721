package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"agent/internal/agent"
	"agent/internal/event"
	"agent/internal/hooks"
	"agent/internal/protocol"
)

// PromptBlockedError is a person's message a user_prompt hook blocked: it
// was not journaled nor sent; Reason is the hook's, for the person.
type PromptBlockedError struct {
	Hook, Reason string
}

func (e *PromptBlockedError) Error() string {
	return fmt.Sprintf("the user_prompt hook %s blocked the message: %s", e.Hook, e.Reason)
}

// installHooks wires the user's [[hooks]] into the session: the
// before_tool_call hooks in front of the approver, after_tool_call after
// each call, and the notification events (approval_requested, compaction,
// run_finished) on the committed events. Hooks run with env, the scrubbed
// environment commands get.
func (s *Service) installHooks(env []string) {
	s.hooks = hooks.New(hooks.Options{Hooks: s.set.Hooks, Env: env, Redact: s.red.Redact,
		Warn: func(m string) { s.warn("hook: " + m) }})
	if s.hooks == nil {
		return
	}
	ha := &hooks.Approver{Inner: s.runner.Approver, Hooks: s.hooks, Workspace: s.set.Workspace}
	s.runner.Approver, s.runner.AfterCall = ha, ha
	if s.runner.Decider != nil {
		s.runner.Decider = hookedDecider{inner: s.runner.Decider, s: s}
	}
	seen := s.runner.Observer.Event
	s.runner.Observer.Event = func(ev event.Event) {
		if seen != nil {
			seen(ev)
		}
		s.eventHooks(ev)
	}
}

// eventHooks runs the notification hooks of a committed event.
func (s *Service) eventHooks(ev event.Event) {
	var e hooks.Event
	switch ev.Type {
	case event.Compaction:
		e = hooks.Compaction
	case event.RunFinished:
		e = hooks.RunFinished
	default:
		return
	}
	if !s.hooks.Has(e, "") {
		return
	}
	in := hooks.Input{Event: e, RunID: ev.RunID, Workspace: s.set.Workspace}
	if d, ok := ev.Data.(*event.RunFinishedData); ok {
		in.Status = string(d.Status)
	}
	if b, err := json.Marshal(ev); err == nil {
		in.Payload = b
	}
	s.hooks.Notify(context.Background(), in)
}

// approvalHooks runs the approval_requested hooks of a call a person is
// asked about (live, or a headless run's pause).
func (s *Service) approvalHooks(req protocol.ApprovalRequest) {
	if !s.hooks.Has(hooks.ApprovalRequested, req.Tool) {
		return
	}
	args := json.RawMessage(req.Arguments)
	if !json.Valid(args) {
		args, _ = json.Marshal(req.Arguments)
	}
	s.hooks.Notify(context.Background(), hooks.Input{Event: hooks.ApprovalRequested, RunID: req.RunID, Workspace: s.set.Workspace,
		Tool: req.Tool, CallID: req.CallID, Arguments: args, Reason: req.Reason})
}

// promptHooks asks the user_prompt hooks about a person's message before it
// is journaled: a *PromptBlockedError when one blocks it.
func (s *Service) promptHooks(ctx context.Context, runID, text string) error {
	if !s.hooks.Has(hooks.UserPrompt, "") {
		return nil
	}
	blocked, reason, hook := s.hooks.UserPrompt(ctx, hooks.Input{RunID: runID, Workspace: s.set.Workspace, Prompt: s.red.Redact(text)})
	if blocked {
		return &PromptBlockedError{Hook: s.red.Redact(hook), Reason: s.red.Redact(reason)}
	}
	return nil
}

// sessionHooks runs the session_start hooks of a run started ("new") or
// taken over to continue it ("resume").
func (s *Service) sessionHooks(runID, source string) {
	if !s.hooks.Has(hooks.SessionStart, "") {
		return
	}
	s.hooks.Notify(context.Background(), hooks.Input{Event: hooks.SessionStart, RunID: runID, Workspace: s.set.Workspace, Source: source})
}

// hookedDecider runs the approval_requested hooks before a frontend's
// person is asked.
type hookedDecider struct {
	inner agent.Decider
	s     *Service
}

func (d hookedDecider) Await(ctx context.Context, req protocol.ApprovalRequest) (protocol.Decision, bool, error) {
	d.s.approvalHooks(req)
	return d.inner.Await(ctx, req)
}

// hookFiles are the files the hooks' commands name (a script, the file
// given to an interpreter: every word that is an existing file, relative
// to the workspace where hooks run, ~ for the home directory). Hooks run
// outside the sandbox: the sandbox keeps these read-only where commands
// could write them. With missing, a word with a slash that names no file
// yet is listed too (the file tools must not create it either).
func hookFiles(hs []hooks.Hook, ws string, missing bool) []string {
	home, _ := os.UserHomeDir()
	var out []string
	for _, h := range hs {
		for _, w := range strings.Fields(h.Command) {
			w = strings.Trim(w, `"';&|()<>`)
			if rest, ok := strings.CutPrefix(w, "~/"); ok && home != "" {
				w = filepath.Join(home, rest)
			}
			if w == "" || strings.ContainsAny(w, "$`*?[") {
				continue
			}
			path := strings.Contains(w, "/")
			if !filepath.IsAbs(w) {
				w = filepath.Join(ws, w)
			}
			st, err := os.Stat(w)
			if err == nil && st.Mode().IsRegular() || missing && path && errors.Is(err, fs.ErrNotExist) {
				out = append(out, w)
			}
		}
	}
	return out
}

// keptFiles is tools.Env.Kept: the hooks' files that lie in the workspace
// ws (symlink-resolved), by their path relative to it, whether or not they
// exist yet.
func keptFiles(hs []hooks.Hook, ws string) func(rel string) bool {
	kept := map[string]bool{}
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	for _, f := range hookFiles(hs, ws, true) {
		if r, err := filepath.EvalSymlinks(f); err == nil {
			f = r
		}
		if rel, err := filepath.Rel(ws, f); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			kept[filepath.ToSlash(rel)] = true
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return func(rel string) bool { return kept[rel] }
}
