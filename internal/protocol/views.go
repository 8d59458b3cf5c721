package protocol

import (
	"time"

	"agent/internal/event"
)

// RunInfo is one run as a listing shows it (`agent runs --json` writes it).
type RunInfo struct {
	ID        string             `json:"run_id"`
	Status    event.Status       `json:"status"`
	Workspace string             `json:"workspace"`
	Model     string             `json:"model"`
	Approval  event.ApprovalMode `json:"approval"`
	Prompt    string             `json:"prompt"`
	Started   time.Time          `json:"started"`
	Updated   time.Time          `json:"updated"`
	Steps     int                `json:"steps"`
	ToolCalls int                `json:"tool_calls"`
	TokensIn  int                `json:"tokens_in"`
	TokensOut int                `json:"tokens_out"`
	LastSeq   int64              `json:"last_seq"`
	Answer    string             `json:"answer"`
	Failure   string             `json:"failure"`
}

// Finished reports whether the run ended with a final answer or a person's
// stop: nothing to continue without a new message.
func (r RunInfo) Finished() bool { return Finished(r.Status) }

// Finished reports whether a run of status s has nothing to continue
// without a new message (a final answer, or a person's stop).
func Finished(s event.Status) bool {
	return s == event.StatusCompleted || s == event.StatusStopped
}

// CheckpointInfo is one checkpoint of a run (`agent checkpoints --json`
// writes the journal's fields). An after-checkpoint is paired with its
// call's before-checkpoint: together they are the call's patch.
type CheckpointInfo struct {
	ID        string               `json:"checkpoint_id"`
	RunID     string               `json:"run_id"`
	Seq       int64                `json:"seq"`
	Step      int                  `json:"step"`
	CallID    string               `json:"call_id"`
	Kind      event.CheckpointKind `json:"kind"`
	Files     []string             `json:"files"`
	Workspace string               `json:"workspace"`
	Created   time.Time            `json:"created"`

	// Tool is the call's tool, when the journal names it.
	Tool string `json:"-"`
	// Before is the call's before-checkpoint (after-checkpoints only).
	Before string `json:"-"`
	// Added and Removed count the lines of the call's patch, when asked
	// for (CheckpointOptions.Counts) and the checkpoint is a paired after.
	Added, Removed int `json:"-"`
}

// Paired reports whether c is an after-checkpoint with its before.
func (c CheckpointInfo) Paired() bool { return c.Kind == event.CheckpointAfter && c.Before != "" }

// GrantInfo is one "allow for this run" grant that has not expired.
type GrantInfo struct {
	Rule    string
	Expires time.Time
}

// AuditEntry is one row of the audit log (`agent audit --json` writes it):
// an approval decision, a rollback, an export, a deletion.
type AuditEntry struct {
	Time   time.Time `json:"time"`
	RunID  string    `json:"run_id"`
	Action string    `json:"action"`
	CallID string    `json:"call_id"`
	Detail string    `json:"detail"`
}

// FileAction is what a rollback did to one path.
type FileAction string

// The file actions of a rollback.
const (
	FileAdded    FileAction = "added"
	FileModified FileAction = "modified"
	FileDeleted  FileAction = "deleted"
	// FileKept: the path was left as it is (a file no snapshot can hold);
	// FileChange.Reason says why.
	FileKept FileAction = "kept"
)

// FileChange is one path a rollback looked at.
type FileChange struct {
	Path   string
	Action FileAction
	// Reason says, for FileKept, why the path was left as it is.
	Reason string
}

// Deleted says what deleting one run removed.
type Deleted struct {
	RunID               string
	Events, Checkpoints int
}

// ModelRequest is one model request of a run, what its context report
// shows (`agent context`).
type ModelRequest struct {
	RunID string
	// Request is the model_request event's payload; its Context is the
	// report (budget, layers, cuts).
	Request *event.ModelRequestData
	// Compaction is the compaction the request is the first after (nil:
	// none, or not in the journal).
	Compaction *event.CompactionData
}
