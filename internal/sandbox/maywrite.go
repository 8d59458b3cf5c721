package sandbox

import (
	"path/filepath"
	"strings"
)

// MayWrite reports whether a command confined here could write the file p
// (absolute): not under a read-only sandbox, not a protected git path or
// a kept file, not the agent's state directory, and inside a writable
// directory. Without a sandbox (off) everything is writable. The
// in-process runner of builtins (internal/tools) asks it, so it writes
// nothing the sandboxed bash would be refused.
func (s *Sandbox) MayWrite(p string) bool {
	if s == nil || !s.Active() {
		return true
	}
	if s.stateDir != "" {
		sd := s.stateDir
		if a, err := filepath.Abs(sd); err == nil {
			sd = a
		}
		sd = resolveExisting(sd)
		r := resolveExisting(p)
		if r == sd || strings.HasPrefix(r, sd+string(filepath.Separator)) {
			return false
		}
	}
	return s.mayWrite(p)
}
