package event

// TaskStarted is an extension: a parent run names the child run of one of
// its task calls, journaled (and fsynced) before the child starts, so that
// a resume continues that child and never starts a second one.
const TaskStarted Type = "task_started"

// TaskKind is what a task call's child may do.
type TaskKind string

const (
	// TaskExplore: read-only tools in the parent's workspace.
	TaskExplore TaskKind = "explore"
	// TaskWorker: every tool, in its own git worktree.
	TaskWorker TaskKind = "worker"
)

// TaskStartedData links a task call of the parent to its child run.
type TaskStartedData struct {
	CallID      string   `json:"call_id"`
	ChildRun    string   `json:"child_run"`
	Kind        TaskKind `json:"kind"`
	Description string   `json:"description"`
	// Worktree, Branch and Base are a worker's: its git worktree, the
	// branch it is on and the commit its changes are measured against.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Base     string `json:"base,omitempty"`
	// Depth is the child's depth in the tree (1: a child of a top run).
	Depth int `json:"depth,omitempty"`
	// Budget is the child's share of its parent's budget (none: the parent
	// has none), fixed when the task starts so a resume keeps it.
	Budget *Budget `json:"budget,omitempty"`
}

func (*TaskStartedData) EventType() Type { return TaskStarted }
