package evals

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"agent/internal/event"
	"agent/internal/replay"
)

func parseFaults(t *Task, raw *rawTask) error {
	for i, f := range raw.Faults {
		at := fmt.Sprintf("faults[%d]", i+1)
		if FaultKind(f.Kind) != FaultSIGKILL {
			return fmt.Errorf(`%s: kind = %q: want "sigkill"`, at, f.Kind)
		}
		fault := Fault{Kind: FaultSIGKILL, At: f.At, N: 1}
		switch {
		case f.At == AtStream:
			if f.N != nil {
				return fmt.Errorf(`%s: n goes with an event type; at = "stream" takes turn = K`, at)
			}
			if f.Turn == nil || *f.Turn < 1 {
				return fmt.Errorf(`%s: at = "stream" needs turn = K (the turn, from 1, during which to kill)`, at)
			}
			if f.Child != "" {
				if err := childFault(t, at, f.Child, *f.Turn); err != nil {
					return err
				}
			} else if t.Script != nil && *f.Turn > len(t.Script.Turns) {
				return fmt.Errorf("%s: turn = %d, but turns.json has %d turns", at, *f.Turn, len(t.Script.Turns))
			}
			fault.Turn, fault.Child = *f.Turn, f.Child
		case f.At == "":
			return fmt.Errorf(`%s: at is required: an event type of the --json stream (e.g. "command_started") or "stream"`, at)
		default:
			if _, err := event.NewPayload(event.Type(f.At)); err != nil {
				return fmt.Errorf(`%s: at = %q is not an event type of the --json stream (e.g. "tool_call", "command_started") nor "stream"`, at, f.At)
			}
			if f.Turn != nil || f.Child != "" {
				return fmt.Errorf(`%s: turn and child go with at = "stream" only`, at)
			}
			if f.N != nil {
				if *f.N < 1 {
					return fmt.Errorf("%s: n = %d: want >= 1", at, *f.N)
				}
				fault.N = *f.N
			}
		}
		t.Faults = append(t.Faults, fault)
	}
	return nil
}

func parseActions(t *Task, raw *rawTask) error {
	for i, a := range raw.Actions {
		at := fmt.Sprintf("actions[%d]", i+1)
		act := Action{Kind: ActionKind(a.Kind)}
		switch act.Kind {
		case ActionRollback:
			if a.Call == "" {
				return fmt.Errorf(`%s: rollback needs call = "call_N" (the call whose checkpoint to restore)`, at)
			}
			act.Call, act.Conversation, act.Checkpoint = a.Call, a.Conversation, event.CheckpointBefore
			switch event.CheckpointKind(a.Checkpoint) {
			case "", event.CheckpointBefore:
			case event.CheckpointAfter:
				act.Checkpoint = event.CheckpointAfter
			default:
				return fmt.Errorf(`%s: checkpoint = %q: want "before" or "after"`, at, a.Checkpoint)
			}
		case ActionUndo, ActionMessage:
			if a.Call != "" || a.Checkpoint != "" || a.Conversation {
				return fmt.Errorf("%s: %s takes no call, checkpoint or conversation", at, act.Kind)
			}
			if act.Kind == ActionMessage {
				if a.Text == nil || strings.TrimSpace(*a.Text) == "" {
					return fmt.Errorf(`%s: message needs text = "..."`, at)
				}
				act.Text = *a.Text
			}
		default:
			return fmt.Errorf(`%s: kind = %q: want "rollback", "undo" or "message"`, at, a.Kind)
		}
		if act.Kind != ActionMessage && a.Text != nil {
			return fmt.Errorf("%s: text goes with kind = \"message\" only", at)
		}
		t.Actions = append(t.Actions, act)
	}
	return nil
}

var statuses = []event.Status{event.StatusCompleted, event.StatusStopped, event.StatusFailed, event.StatusAwaitingApproval, event.StatusInterrupted}

var classes = []event.Class{event.ClassModel, event.ClassTool, event.ClassPermission, event.ClassContext, event.ClassRuntime}

func parseExpect(t *Task, raw *rawTask) error {
	e := raw.Expect
	t.Expect = Expect{Status: event.StatusCompleted, Check: e.Check}
	if e.Status != "" {
		if !slices.Contains(statuses, event.Status(e.Status)) {
			return fmt.Errorf("expect.status = %q: want one of completed, stopped, failed, awaiting_approval, interrupted", e.Status)
		}
		t.Expect.Status = event.Status(e.Status)
	}
	if e.Class != "" {
		if !slices.Contains(classes, event.Class(e.Class)) {
			return fmt.Errorf("expect.class = %q: want one of model, tool, permission, context, runtime", e.Class)
		}
		if t.Expect.Status != event.StatusFailed && t.Expect.Status != event.StatusStopped {
			return fmt.Errorf(`expect.class goes with expect.status = "failed" or "stopped" (a completed run has no failure class)`)
		}
		t.Expect.Class = event.Class(e.Class)
	}
	for i, f := range e.Files {
		at := fmt.Sprintf("expect.files[%d]", i+1)
		p, err := cleanRel(f.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		n := 0
		for _, set := range []bool{f.Contains != nil, f.Exact != nil, f.Absent != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%s (%s): give exactly one of contains, exact, absent = true", at, f.Path)
		}
		if f.Absent != nil && !*f.Absent {
			return fmt.Errorf("%s (%s): absent = false says nothing; use contains or exact", at, f.Path)
		}
		t.Expect.Files = append(t.Expect.Files, FileExpect{Path: p, Contains: f.Contains, Exact: f.Exact, Absent: f.Absent != nil})
	}
	for i, a := range e.Trace {
		as, err := parseAssertion(a)
		if err != nil {
			return fmt.Errorf("expect.trace[%d]: %w", i+1, err)
		}
		t.Expect.Trace = append(t.Expect.Trace, as)
	}
	return nil
}

func parseAssertion(a rawAssertion) (Assertion, error) {
	kind := AssertKind(a.Assert)
	params, ok := assertParams[kind]
	if !ok {
		names := make([]string, 0, len(assertParams))
		for k := range assertParams {
			names = append(names, string(k))
		}
		slices.Sort(names)
		return Assertion{}, fmt.Errorf("assert = %q: want one of %s", a.Assert, strings.Join(names, ", "))
	}
	given := map[string]bool{"call": a.Call != nil, "secrets": a.Secrets != nil, "n": a.N != nil, "paths": a.Paths != nil}
	for p, set := range given {
		want := slices.Contains(params, p)
		switch {
		case want && !set:
			return Assertion{}, fmt.Errorf("%s needs %s", kind, p)
		case set && !want:
			return Assertion{}, fmt.Errorf("%s takes no %s", kind, p)
		}
	}
	as := Assertion{Assert: kind, Secrets: a.Secrets, Paths: a.Paths}
	if a.Call != nil {
		if *a.Call == "" {
			return Assertion{}, fmt.Errorf("%s: call is empty", kind)
		}
		as.Call = *a.Call
	}
	if a.N != nil {
		if *a.N < 1 {
			return Assertion{}, fmt.Errorf("%s: n = %d: want >= 1", kind, *a.N)
		}
		as.N = *a.N
	}
	if a.Secrets != nil && (len(a.Secrets) == 0 || slices.Contains(a.Secrets, "")) {
		return Assertion{}, fmt.Errorf("%s: secrets must list non-empty strings", kind)
	}
	for _, p := range a.Paths {
		if p == "" {
			return Assertion{}, fmt.Errorf("%s: paths must list non-empty paths", kind)
		}
	}
	if a.Paths != nil && len(a.Paths) == 0 {
		return Assertion{}, fmt.Errorf("%s: paths is empty", kind)
	}
	return as, nil
}

// cleanRel checks that p is a relative path inside the workspace.
func cleanRel(p string) (string, error) {
	if p == "" {
		return "", errors.New("path is required")
	}
	c := path.Clean(filepath.ToSlash(p))
	if path.IsAbs(c) || filepath.IsAbs(p) || c == ".." || strings.HasPrefix(c, "../") || c == "." || c == ".git" || strings.HasPrefix(c, ".git/") {
		return "", fmt.Errorf("path %q must be a file inside the workspace, relative to it (e.g. \"greet.go\")", p)
	}
	return c, nil
}

// checkLayout refuses the old task layout (workspace/, script.json, a
// top-level check) with the fix.
func checkLayout(dir string) error {
	fixture := filepath.Join(dir, "fixture")
	if _, err := os.Stat(fixture); err == nil {
		return nil
	}
	for _, old := range []string{"workspace", "script.json"} {
		if _, err := os.Stat(filepath.Join(dir, old)); err == nil {
			return &TaskError{File: dir, Msg: "uses the old task layout: rename workspace/ to fixture/ and script.json to turns.json, " +
				"and move check under [expect] (see evals/README.md)"}
		}
	}
	return nil
}

// loadFolder checks fixture/ and parses turns.json.
func loadFolder(t *Task) error {
	fixture := filepath.Join(t.Dir, "fixture")
	if st, err := os.Stat(fixture); err != nil || !st.IsDir() {
		return &TaskError{File: fixture, Msg: "missing: a task needs a fixture/ directory with the files the workspace starts from (it may be empty)"}
	}
	turns := filepath.Join(t.Dir, "turns.json")
	if _, err := os.Stat(turns); errors.Is(err, os.ErrNotExist) {
		return &TaskError{File: turns, Msg: `missing: a task needs the model turns it replays ({"turns": [...]}, the internal/replay format)`}
	}
	s, err := replay.Load(turns)
	if err != nil {
		return &TaskError{File: turns, Msg: err.Error() + " (fix the script)", Err: err}
	}
	t.Script = s
	return nil
}
