package tools

import (
	"context"
	"encoding/json"
	"errors"

	"agent/internal/event"
)

// ApplyTaskChangesName is the name of the apply_task_changes tool.
const ApplyTaskChangesName = "apply_task_changes"

// ApplyTaskChanges is the apply_task_changes tool: it brings a worker's
// changes (the diff of a finished task call of kind worker) into the
// workspace. Its risk is write: approved like an edit (the prompt shows
// the diff) and checkpointed. The loop applies them (agent.Subagents),
// file by file: a file changed in the workspace since the task started is
// a conflict, reported and left alone.
type ApplyTaskChanges struct{}

// ApplyTaskArgs are apply_task_changes' arguments.
type ApplyTaskArgs struct {
	CallID string `json:"call_id"`
}

func (ApplyTaskChanges) Name() string     { return ApplyTaskChangesName }
func (ApplyTaskChanges) Risk() event.Risk { return event.RiskWrite }
func (ApplyTaskChanges) Description() string {
	return "Apply the changes of a finished worker subagent (a task call of kind worker) to this workspace, file by file. " +
		"A file that changed here since the task started is reported as a conflict and left as it is."
}

func (ApplyTaskChanges) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"call_id": strField("The id of the task call whose worker's changes to apply."),
	}, "call_id")
}

// DecodeApplyTaskArgs decodes validated apply_task_changes arguments.
func DecodeApplyTaskArgs(raw json.RawMessage) (ApplyTaskArgs, error) {
	var a ApplyTaskArgs
	err := decodeArgs(ApplyTaskChangesName, raw, &a)
	return a, err
}

// Run is never called by the loop (it applies the changes itself).
func (ApplyTaskChanges) Run(context.Context, *Env, json.RawMessage) (Result, error) {
	return Result{}, errors.New("apply_task_changes: subagents are not available in this session")
}
