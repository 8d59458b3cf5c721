package checkpoint

// Deleting a run's snapshots when all the caller has is the run's recorded
// workspace path, which may no longer exist (agent runs rm, retention).

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/gofrs/flock"
)

// DeleteRunSnapshots removes the run's snapshots (its refs, and the objects
// only they reached) from the shadow repository of workspace under
// agentHome/checkpoints. The repository is found by the workspace path it
// records (<repo>/agent/workspace), so a run that never took a snapshot
// creates no repository here, and deleting twice is not an error.
//
// When the workspace directory is gone, Open cannot derive the repository:
// if no other run has snapshots there, the repository holds nothing anyone
// needs and is removed whole (under its exclusive lock); otherwise the
// workspace path is recreated empty for the prune and the directories made
// for it are removed again afterwards (only those, and only if empty).
func DeleteRunSnapshots(agentHome, workspace, runID string) error {
	gitDir, err := findShadowRepo(agentHome, workspace)
	if err != nil || gitDir == "" {
		return err
	}
	if err := validRunID(runID); err != nil {
		return err
	}
	if fi, err := os.Stat(workspace); err == nil && fi.IsDir() {
		return deleteWithRepo(agentHome, workspace, runID)
	}
	others, mine, err := shadowRuns(gitDir, runID)
	if err != nil {
		return err
	}
	if !mine {
		return nil
	}
	if !others {
		l := flock.New(filepath.Join(gitDir, "agent", "lock"), flock.SetPermissions(privateFile))
		if err := l.Lock(); err != nil {
			return fmt.Errorf("checkpoint: lock the shadow repository %s: %w", gitDir, err)
		}
		defer func() { _ = l.Unlock() }()
		if err := os.RemoveAll(gitDir); err != nil {
			return fmt.Errorf("checkpoint: remove the shadow repository %s: %w", gitDir, err)
		}
		return nil
	}
	made, err := mkdirAllTracked(workspace)
	if err != nil {
		return fmt.Errorf("workspace %s no longer exists and its shadow repository holds other runs; "+
			"recreate the directory (mkdir -p %s) and retry: %w", workspace, workspace, err)
	}
	defer func() {
		for i := len(made) - 1; i >= 0; i-- {
			_ = os.Remove(made[i])
		}
	}()
	return deleteWithRepo(agentHome, workspace, runID)
}

// deleteWithRepo opens the repository of an existing workspace and deletes
// the run's snapshots there.
func deleteWithRepo(agentHome, workspace, runID string) error {
	repo, err := Open(agentHome, workspace)
	if err != nil {
		return fmt.Errorf("open the shadow repository: %w", err)
	}
	err = repo.DeleteRun(runID)
	if cerr := repo.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// findShadowRepo returns the shadow repository recording workspace (as
// given, or absolute and symlink-resolved while it still exists), or "".
func findShadowRepo(agentHome, workspace string) (string, error) {
	root := filepath.Join(agentHome, "checkpoints")
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("checkpoint: list shadow repositories: %w", err)
	}
	want := []string{filepath.Clean(workspace)}
	if abs, err := filepath.Abs(workspace); err == nil {
		if abs != want[0] {
			want = append(want, abs)
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil && r != abs {
			want = append(want, r)
		}
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasSuffix(e.Name(), ".git") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, e.Name(), "agent", "workspace"))
		if err != nil {
			continue
		}
		got := strings.TrimSuffix(string(b), "\n")
		for _, w := range want {
			if got == w {
				return filepath.Join(root, e.Name()), nil
			}
		}
	}
	return "", nil
}

// shadowRuns reports whether runID, and whether any other run, has refs
// under refs/agent/runs/ in gitDir, loose or packed. Only names of the ref
// layout count (<run>/head, or <run>/<seq> of earlier versions): a dot file
// in a run's ref directory is the leftover of a killed ref write, not a ref.
func shadowRuns(gitDir, runID string) (others, mine bool, err error) {
	note := func(name string) {
		run, _, ok := parseRef(plumbing.ReferenceName(name))
		switch {
		case !ok:
		case run == runID:
			mine = true
		default:
			others = true
		}
	}
	runsDir := filepath.Join(gitDir, filepath.FromSlash(refPrefix))
	ents, err := os.ReadDir(runsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, false, fmt.Errorf("checkpoint: list refs of %s: %w", gitDir, err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub, err := os.ReadDir(filepath.Join(runsDir, e.Name()))
		if err != nil {
			return false, false, fmt.Errorf("checkpoint: list refs of %s: %w", gitDir, err)
		}
		for _, s := range sub {
			if s.Type().IsRegular() && !strings.HasPrefix(s.Name(), ".") {
				note(refPrefix + e.Name() + "/" + s.Name())
			}
		}
	}
	inLogs, err := logRuns(filepath.Join(gitDir, "agent"))
	if err != nil {
		return false, false, err
	}
	for _, run := range inLogs {
		note(refPrefix + run + "/" + headName)
	}
	f, err := os.Open(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return others, mine, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("checkpoint: read packed refs of %s: %w", gitDir, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue // header, peeled tag
		}
		if _, name, ok := strings.Cut(line, " "); ok {
			note(name)
		}
	}
	if err := sc.Err(); err != nil {
		return false, false, fmt.Errorf("checkpoint: read packed refs of %s: %w", gitDir, err)
	}
	return others, mine, nil
}

// mkdirAllTracked is os.MkdirAll (mode 0700) that returns the directories
// it created, outermost first; on failure it removes them again.
func mkdirAllTracked(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o700); err != nil {
			for j := len(made) - 1; j >= 0; j-- {
				_ = os.Remove(made[j])
			}
			return nil, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}
