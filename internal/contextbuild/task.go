package contextbuild

import (
	"fmt"
	"strings"
)

// Caps of L4, which is reserved at its size.
const (
	maxPlanSteps   = 40
	maxEditedFiles = 40
	maxOpenErrors  = 5
	maxFixedErrors = 3
)

// taskState is L4: the plan, the files the run changed, the person's
// decisions they overrode, the errors still open. Empty when there is
// nothing to say. It depends on the history alone, so it changes only
// when the task does.
func (b *Builder) taskState(h *history) string {
	st := h.st
	var sb strings.Builder
	if plan := parsePlan(st.Context.Plan()); len(plan) > 0 {
		sb.WriteString("Plan (your newest update_plan):\n")
		if len(plan) > maxPlanSteps {
			plan = plan[:maxPlanSteps]
		}
		writePlan(&sb, plan)
	}
	ff := h.files(st.LastSeq)
	changed := sortedKeys(ff.edited)
	for _, p := range sortedKeys(ff.created) {
		changed = append(changed, p+" (created)")
	}
	if len(changed) > 0 {
		if len(changed) > maxEditedFiles {
			changed = append(changed[:maxEditedFiles], fmt.Sprintf("and %d more", len(changed)-maxEditedFiles))
		}
		sb.WriteString("Files this run changed: " + strings.Join(changed, ", ") + "\n")
	}
	for _, o := range h.overrides() {
		fmt.Fprintf(&sb, "Superseded decision: the person's earlier %s was overridden by their later %s.\n", quoteData(clip(o.sentence, 200)), quoteData(clip(o.with, 200)))
	}
	var open, fixed []string
	for _, f := range h.failures(st.LastSeq) {
		if f.fixedStep == 0 {
			open = append(open, "- "+f.String())
		} else {
			fixed = append(fixed, fmt.Sprintf("- %s — fixed at step %d", f, f.fixedStep))
		}
	}
	if len(fixed) > maxFixedErrors {
		fixed = fixed[len(fixed)-maxFixedErrors:]
	}
	if len(fixed) > 0 {
		sb.WriteString("Errors fixed since (the same call later passed):\n" + strings.Join(fixed, "\n") + "\n")
	}
	if len(open) > maxOpenErrors {
		open = open[len(open)-maxOpenErrors:]
	}
	if len(open) > 0 {
		sb.WriteString("Open errors (not fixed yet):\n" + strings.Join(open, "\n") + "\n")
	}
	if sb.Len() == 0 {
		return ""
	}
	head := "[agent] Task state, kept by the agent from the journal"
	if h.newestAfterCurrent() {
		head += "; the person's current message follows, then your newest call and its result"
	}
	return head + ":\n" + strings.TrimRight(sb.String(), "\n")
}
