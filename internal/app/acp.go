package app

import (
	"agent/internal/event"
)

// SetPolicy replaces the approval policy of a run this session drives, for
// the rest of this process: its approval mode (an editor's session/set_mode)
// and deny rules added to the ones the run started with (an editor's
// "reject always", a deny rule for the run). The journal keeps the run's
// own rules; a later process starts from them again. A mode or rule that
// does not parse is a *UsageError.
func (r *Run) SetPolicy(mode event.ApprovalMode, extraDeny []string) error {
	deny := append(append(append([]string{}, r.state.Deny...), r.s.set.Deny...), extraDeny...)
	return r.s.setPolicy(r.id, mode, r.state.Allow, deny)
}
