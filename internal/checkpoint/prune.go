package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
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

// DeleteRun removes the run's refs, then deletes the objects no longer
// reachable from any ref (mark and sweep) under the exclusive store
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
	// This process's log and dead processes' logs become packs and refs
	// first, so the run's newest head is a ref to remove.
	if err := s.logs.foldOwn(s.packs); err != nil {
		return err
	}
	if err := s.logs.refresh(s.packs, true); err != nil {
		return err
	}
	if len(s.logs.head(runID)) > 0 {
		return fmt.Errorf("checkpoint: run %s is still being written by another agent process (its snapshots are in that process's object log); "+
			"end that session, then delete the run", runID)
	}
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

// prune deletes unreachable objects (see repack); the caller holds the
// exclusive lock. It bumps the prune generation so every process drops the caches that
// assume objects exist, and keeps only the stat-cache entries whose blobs
// survive.
func (s *Store) prune() error {
	// Every object log but another live process's becomes a pack first,
	// so what only a deleted run reached is reclaimed from them too.
	if err := s.logs.foldOwn(s.packs); err != nil {
		return fmt.Errorf("checkpoint: prune: %w", err)
	}
	if err := s.logs.refresh(s.packs, true); err != nil {
		return fmt.Errorf("checkpoint: prune: %w", err)
	}
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
	// A live process's log: its heads reach objects the packs hold.
	tips = append(tips, s.logs.allHeads()...)
	for _, h := range tips {
		if err := s.markCommits(h, reach); err != nil {
			return err
		}
	}
	now := time.Now()
	if err := s.repack(reach); err != nil {
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
		c, err := object.DecodeCommit(s.reader(), obj)
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

// repack rewrites the objects of reach into fresh packs and removes every
// other pack and every loose object an earlier version wrote, so a deleted
// run's objects are gone from the disk. The new packs are durable before
// anything is removed; a crash in between leaves both, which the next prune
// cleans. Objects are copied as they are (no recompression) from packs.
// The caller holds the exclusive lock: no other process is between writing
// objects and naming them.
func (s *Store) repack(reach map[plumbing.Hash]struct{}) error {
	s.packs.closeAll()
	if err := s.packs.refresh(); err != nil {
		return err
	}
	old := s.packs.sortedPacks()
	out := newPendingPack()
	made := map[plumbing.Hash]bool{}
	flush := func() error {
		if out.len() == 0 {
			return nil
		}
		pf, err := s.packs.write(out)
		if err != nil {
			return err
		}
		made[pf.sum] = true
		out = newPendingPack()
		return nil
	}
	copied := map[plumbing.Hash]bool{}
	keep := func(h plumbing.Hash) bool {
		_, ok := reach[h]
		return ok && !copied[h]
	}
	for _, pf := range old {
		if err := pf.copyInto(out, keep); err != nil {
			return err
		}
		for _, o := range out.objs {
			copied[o.h] = true
		}
		if len(out.buf) >= maxPendingBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	var looseFiles []string
	if s.loose {
		dirs, _ := filepath.Glob(filepath.Join(s.gitDir, "objects", "[0-9a-f][0-9a-f]"))
		for _, d := range dirs {
			ents, _ := os.ReadDir(d)
			for _, e := range ents {
				p := filepath.Join(d, e.Name())
				looseFiles = append(looseFiles, p)
				h, ok := hashOf(filepath.Base(d) + e.Name())
				if !ok || !keep(h) {
					continue
				}
				obj, err := s.looseObject(h)
				if err != nil {
					continue // a torn loose object: nothing to keep
				}
				data, err := readAllObject(obj)
				if err != nil {
					continue
				}
				if err := out.add(obj.Type(), data, h); err != nil {
					return err
				}
				copied[h] = true
				if len(out.buf) >= maxPendingBytes {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	var gone []*packFile
	for _, pf := range old {
		if !made[pf.sum] {
			gone = append(gone, pf)
		}
	}
	if err := s.packs.remove(gone); err != nil {
		return err
	}
	for _, p := range looseFiles {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if s.loose {
		dirs, _ := filepath.Glob(filepath.Join(s.gitDir, "objects", "[0-9a-f][0-9a-f]"))
		for _, d := range dirs {
			_ = os.Remove(d) // only if empty
		}
		s.sy.markDirty(filepath.Join(s.gitDir, "objects"))
		s.loose = hasLooseDirs(s.gitDir)
	}
	return nil
}

// cleanTemp removes the temporary files of object and pack writes older
// than before (left by a crash in the middle of a write), the pack files
// that fail validation (torn or truncated: no reader uses them) and the
// indexes whose pack is gone (a crash between their renames, or a merge
// killed between its removals). The caller holds the exclusive lock.
func (s *Store) cleanTemp(before time.Time) {
	if ents, err := os.ReadDir(s.auxDir); err == nil {
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), logTmpPrefix) && fi.ModTime().Before(before) {
				_ = os.Remove(filepath.Join(s.auxDir, e.Name()))
			}
		}
	}
	dir := s.packs.dir
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	names := map[string]bool{}
	for _, e := range ents {
		names[e.Name()] = true
	}
	for _, e := range ents {
		n := e.Name()
		p := filepath.Join(dir, n)
		switch {
		case strings.HasPrefix(n, "tmp_obj_") || strings.HasPrefix(n, "tmp_pack_") || strings.HasPrefix(n, "tmp_idx_"):
			if fi, err := e.Info(); err == nil && fi.ModTime().Before(before) {
				_ = os.Remove(p)
			}
		case strings.HasPrefix(n, "pack-") && strings.HasSuffix(n, ".idx"):
			if !names[strings.TrimSuffix(n, ".idx")+".pack"] {
				_ = os.Remove(p)
			}
		case strings.HasPrefix(n, "pack-") && strings.HasSuffix(n, ".pack"):
			if _, bad := s.packs.bad[p]; bad {
				_ = os.Remove(p)
				_ = os.Remove(strings.TrimSuffix(p, ".pack") + ".idx")
				delete(s.packs.bad, p)
			}
		}
	}
	s.sy.markDirty(dir)
}
