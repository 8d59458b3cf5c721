package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"agent/internal/event"
)

// UpdatePlan is the update_plan tool: the model's task list. It has no side
// effect beyond handing the plan to Env.Plan.
type UpdatePlan struct{}

// Plan step statuses.
const (
	StepPending    = "pending"
	StepInProgress = "in_progress"
	StepDone       = "done"
)

type updatePlanArgs struct {
	Plan []PlanStep `json:"plan"`
}

func (UpdatePlan) Name() string     { return "update_plan" }
func (UpdatePlan) Risk() event.Risk { return event.RiskRead }
func (UpdatePlan) Description() string {
	return "Record or update your plan for the task: the full list of steps, each pending, in_progress or done. " +
		"Send the whole plan every time (it replaces the previous one); keep one step in_progress at a time."
}

func (UpdatePlan) Schema() *Schema {
	step := objectOf(map[string]*Schema{
		"step":   strField("What the step does, in a few words."),
		"status": enumField("The step's status.", StepPending, StepInProgress, StepDone),
	}, "step", "status")
	return objectOf(map[string]*Schema{
		"plan": {Type: "array", Description: "The steps, in order.", Items: step},
	}, "plan")
}

func (t UpdatePlan) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a updatePlanArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return Result{}, err
	}
	for i, s := range a.Plan {
		if strings.TrimSpace(s.Step) == "" {
			return Result{}, &ArgError{Tool: t.Name(), Field: fmt.Sprintf("plan[%d].step", i),
				Problem: fmt.Sprintf("field \"plan[%d].step\" must not be empty", i)}
		}
		switch s.Status {
		case StepPending, StepInProgress, StepDone:
		default:
			return Result{}, &ArgError{Tool: t.Name(), Field: fmt.Sprintf("plan[%d].status", i),
				Problem: fmt.Sprintf("field \"plan[%d].status\" must be one of %s, got %q", i,
					quoteList([]string{StepPending, StepInProgress, StepDone}), s.Status)}
		}
	}
	if env != nil && env.Plan != nil {
		env.Plan(append([]PlanStep(nil), a.Plan...))
	}
	return Result{Output: RenderPlan(a.Plan)}, nil
}

// RenderPlan renders a plan as a short checklist:
//
//	plan (1/3 done):
//	[x] read the code
//	[>] fix the bug
//	[ ] run the tests
func RenderPlan(plan []PlanStep) string {
	if len(plan) == 0 {
		return "plan cleared"
	}
	done := 0
	var b strings.Builder
	for _, s := range plan {
		mark := "[ ]"
		switch s.Status {
		case StepDone:
			mark = "[x]"
			done++
		case StepInProgress:
			mark = "[>]"
		}
		fmt.Fprintf(&b, "%s %s\n", mark, s.Step)
	}
	return fmt.Sprintf("plan (%d/%d done):\n", done, len(plan)) + b.String()
}
