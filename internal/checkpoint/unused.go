package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// RemoveUnusedRepo removes the shadow repository of workspace when no run
// has snapshots in it (what a scan left there, its objects and stat cache,
// serves nobody): for a workspace deleted for good, such as a worker
// subagent's worktree, whose runs were deleted first. A workspace without
// a repository, or one whose repository some run still uses, is left.
func RemoveUnusedRepo(agentHome, workspace string) error {
	gitDir, err := findShadowRepo(agentHome, workspace)
	if err != nil || gitDir == "" {
		return err
	}
	l := flock.New(filepath.Join(gitDir, "agent", "lock"), flock.SetPermissions(privateFile))
	if err := l.Lock(); err != nil {
		return fmt.Errorf("checkpoint: lock the shadow repository %s: %w", gitDir, err)
	}
	defer func() { _ = l.Unlock() }()
	others, _, err := shadowRuns(gitDir, "")
	if err != nil || others {
		return err
	}
	if err := os.RemoveAll(gitDir); err != nil {
		return fmt.Errorf("checkpoint: remove the shadow repository %s: %w", gitDir, err)
	}
	return nil
}
