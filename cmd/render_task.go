package cmd

import (
	"fmt"

	"agent/internal/event"
)

// taskStartedLine is the progress and trace line of a task call's child.
func taskStartedLine(d *event.TaskStartedData) string {
	line := fmt.Sprintf("  subagent %q (%s) is run %s", d.Description, d.Kind, d.ChildRun)
	if d.Worktree != "" {
		line += fmt.Sprintf(" in worktree %s (branch %s)", d.Worktree, d.Branch)
	}
	return line + "; agent trace " + d.ChildRun + " shows its steps"
}
