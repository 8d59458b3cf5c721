package tools

import (
	"context"
	"encoding/json"
	"errors"

	"agent/internal/event"
)

// TaskName is the name of the task tool.
const TaskName = "task"

// Task is the task tool: it delegates to a child run (a subagent) with its
// own context. The loop runs the children (agent.Subagents), several calls
// of one turn in parallel; this type only declares the tool. Its risk is
// read: nothing in the parent's workspace changes (a worker works in its
// own git worktree and its changes come in with apply_task_changes).
type Task struct{}

// TaskArgs are the task tool's arguments.
type TaskArgs struct {
	Description string         `json:"description"`
	Prompt      string         `json:"prompt"`
	Kind        event.TaskKind `json:"kind"`
}

func (Task) Name() string     { return TaskName }
func (Task) Risk() event.Risk { return event.RiskRead }
func (Task) Description() string {
	return "Delegate a self-contained task to a subagent with its own context, which returns only its conclusion. " +
		"kind \"explore\": read-only tools in this workspace (questions about the code: where is X, how does Y work). " +
		"kind \"worker\": every tool, in its own git worktree on a new branch made from the current files; it returns its answer and " +
		"its diff, which you bring into this workspace with apply_task_changes. Several task calls in one message run in parallel. " +
		"The prompt must say everything the subagent needs: it does not see this conversation."
}

func (Task) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"description": strField("A short label for the task (3-6 words), shown to the user."),
		"prompt":      strField("The full task for the subagent: what to find out or do, and what to report back."),
		"kind":        enumField("explore: read-only in this workspace; worker: all tools in its own git worktree.", string(event.TaskExplore), string(event.TaskWorker)),
	}, "description", "prompt", "kind")
}

// Precheck refuses an empty prompt before anything starts.
func (t Task) Precheck(raw json.RawMessage) error {
	a, err := DecodeTaskArgs(raw)
	if err != nil {
		return err
	}
	if a.Prompt == "" {
		return &ArgError{Tool: t.Name(), Field: "prompt", Problem: "field \"prompt\" must not be empty: say what the subagent should do"}
	}
	return nil
}

// DecodeTaskArgs decodes validated task arguments.
func DecodeTaskArgs(raw json.RawMessage) (TaskArgs, error) {
	var a TaskArgs
	if err := decodeArgs(TaskName, raw, &a); err != nil {
		return a, err
	}
	return a, nil
}

// Run is never called by the loop (it runs children itself); a registry
// used without a loop gets an error.
func (Task) Run(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{}, errors.New("task: subagents are not available in this session")
}
