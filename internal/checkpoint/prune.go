package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"agent/internal/atomicfile"
)

// DeleteRun removes the run's refs, then deletes the loose objects no
// longer reachable from any ref (mark and sweep) under the exclusive store
// lock, so no other process is between writing objects and its ref.
func (s *Store) DeleteRun(runID string) error {
	if err := validRunID(runID); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.lock.Lock(); err != nil {
		return fmt.Errorf("checkpoint: lock: %w", err)
	}
	defer func() { _ = s.lock.Unlock() }()
	refs, err := s.runRefs(runID)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if err := s.st.RemoveReference(r.Name()); err != nil {
			return fmt.Errorf("checkpoint: remove %s: %w", r.Name(), err)
		}
	}
	if f := s.headFiles[runID]; f != nil {
		f.Close()
		delete(s.headFiles, runID)
	}
	removeRefDir(filepath.Join(s.gitDir, filepath.FromSlash(refPrefix+runID)))
	delete(s.heads, runID)
	if err := s.prune(); err != nil {
		return err
	}
	// The removed refs and objects stay removed after a power loss.
	if err := s.sy.syncDirs(); err != nil {
		return fmt.Errorf("checkpoint: delete run: %w", err)
	}
	return nil
}

// removeRefDir removes a run's ref directory once its refs are gone, with
// the temporary files a killed ref write may have left in it.
func removeRefDir(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), atomicfile.TempMarker) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	if os.Remove(dir) == nil {
		_ = atomicfile.SyncDir(filepath.Dir(dir))
	}
}

// prune deletes unreachable loose objects; the caller holds the exclusive
// lock. It bumps the prune generation so every process drops the caches that
// assume objects exist, and keeps only the stat-cache entries whose blobs
// survive.
func (s *Store) prune() error {
	reach := map[plumbing.Hash]struct{}{}
	it, err := s.st.IterReferences()
	if err != nil {
		return fmt.Errorf("checkpoint: prune: %w", err)
	}
	var tips []plumbing.Hash
	_ = it.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference {
			tips = append(tips, r.Hash())
		}
		return nil
	})
	for _, h := range tips {
		if err := s.markCommits(h, reach); err != nil {
			return err
		}
	}
	now := time.Now()
	err = s.st.ForEachObjectHash(func(h plumbing.Hash) error {
		if _, ok := reach[h]; ok {
			return nil
		}
		return s.st.DeleteLooseObject(h)
	})
	if err != nil {
		return fmt.Errorf("checkpoint: prune: %w", err)
	}
	s.cleanTemp(now.Add(-time.Hour))
	gen := s.readGen() + 1
	if err := atomicfile.Write(s.genPath(), []byte(strconv.FormatUint(gen, 10)+"\n"), privateFile); err != nil {
		return fmt.Errorf("checkpoint: prune: %w", err)
	}
	sc := s.stat
	if sc == nil {
		sc = loadStatCache(s.statPath(), s.gen)
	}
	sc.forget(reach)
	s.resetCaches()
	s.heads = map[string]Snapshot{}
	s.snaps = map[plumbing.Hash]Snapshot{}
	s.gen = gen
	if err := s.saveStat(sc, gen); err != nil {
		return err
	}
	s.stat = sc
	return nil
}

func (s *Store) markCommits(h plumbing.Hash, reach map[plumbing.Hash]struct{}) error {
	for !h.IsZero() {
		if _, ok := reach[h]; ok {
			return nil
		}
		obj, err := s.encodedObject(plumbing.AnyObject, h)
		if err != nil {
			return fmt.Errorf("checkpoint: prune: %s: %w", h, err)
		}
		reach[h] = struct{}{}
		if obj.Type() != plumbing.CommitObject {
			if obj.Type() == plumbing.TreeObject {
				delete(reach, h)
				return s.markTree(h, reach)
			}
			return nil
		}
		c, err := object.DecodeCommit(s.st, obj)
		if err != nil {
			return fmt.Errorf("checkpoint: prune: %s: %w", h, err)
		}
		if err := s.markTree(c.TreeHash, reach); err != nil {
			return err
		}
		if snap, err := parseMessage(c.Message); err == nil && snap.Rules != "" {
			if err := s.markTree(plumbing.NewHash(snap.Rules), reach); err != nil {
				return err
			}
		}
		h = plumbing.ZeroHash
		for i, p := range c.ParentHashes {
			if i == 0 {
				h = p
				continue
			}
			if err := s.markCommits(p, reach); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Store) markTree(h plumbing.Hash, reach map[plumbing.Hash]struct{}) error {
	if _, ok := reach[h]; ok {
		return nil
	}
	reach[h] = struct{}{}
	es, err := s.readTree(h)
	if err != nil {
		return err
	}
	for _, e := range es {
		switch e.mode {
		case filemode.Dir:
			if err := s.markTree(e.hash, reach); err != nil {
				return err
			}
		case filemode.Submodule:
		default:
			reach[e.hash] = struct{}{}
		}
	}
	return nil
}

// cleanTemp removes temporary object files older than before (left by a
// crash in the middle of a write).
func (s *Store) cleanTemp(before time.Time) {
	dir := filepath.Join(s.gitDir, "objects", "pack")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "tmp_obj_") {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(before) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
