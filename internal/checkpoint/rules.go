package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"agent/internal/gitignore"
)

// ruleRecord is the content of every ignore file a full scan read, keyed
// by where it was read: "above/<i>" for the i-th of gitignore.Layout.Above
// (info/exclude first), "ws/<dir>/.gitignore" (ws/.gitignore for the root)
// for the workspace's own. A snapshot keeps it as a tree (its Rules), so
// what the snapshot left out as ignored is decided by the rules of its
// time: a rollback to it asks them, not the rules a later command wrote
// (a line added to .git/info/exclude or a .gitignore cannot take a file
// out of the rollback's reach).
type ruleRecord map[string][]byte

// ruleHash is a Snapshot's Rules as a hash (ZeroHash: none).
func ruleHash(rules string) plumbing.Hash {
	if rules == "" {
		return plumbing.ZeroHash
	}
	return plumbing.NewHash(rules)
}

func aboveKey(i int) string { return "above/" + strconv.Itoa(i) }

func wsKey(dir string) string { return "ws/" + joinRel(dir, ".gitignore") }

// writeRules stores rec as a tree of blobs (layout: its keys as paths) and
// returns its id; ZeroHash for an empty record.
func (s *Store) writeRules(rec ruleRecord) (plumbing.Hash, error) {
	if len(rec) == 0 {
		return plumbing.ZeroHash, nil
	}
	type dir struct {
		files map[string]plumbing.Hash
		subs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]plumbing.Hash{}, subs: map[string]*dir{}} }
	root := newDir()
	for key, data := range rec {
		h, err := s.writeBlob(data)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		parts := strings.Split(key, "/")
		d := root
		for _, p := range parts[:len(parts)-1] {
			if d.subs[p] == nil {
				d.subs[p] = newDir()
			}
			d = d.subs[p]
		}
		d.files[parts[len(parts)-1]] = h
	}
	var write func(d *dir) (plumbing.Hash, error)
	write = func(d *dir) (plumbing.Hash, error) {
		es := make([]treeEntry, 0, len(d.files)+len(d.subs))
		for n, h := range d.files {
			es = append(es, treeEntry{name: n, mode: filemode.Regular, hash: h})
		}
		for n, sd := range d.subs {
			h, err := write(sd)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			es = append(es, treeEntry{name: n, mode: filemode.Dir, hash: h})
		}
		sortEntries(es)
		return s.writeTree(es)
	}
	return write(root)
}

// readRules is writeRules backwards.
func (s *Store) readRules(h plumbing.Hash) (ruleRecord, error) {
	rec := ruleRecord{}
	var read func(h plumbing.Hash, prefix string) error
	read = func(h plumbing.Hash, prefix string) error {
		es, err := s.readTree(h)
		if err != nil {
			return err
		}
		for _, e := range es {
			p := joinRel(prefix, e.name)
			if e.mode == filemode.Dir {
				if err := read(e.hash, p); err != nil {
					return err
				}
				continue
			}
			data, err := s.readRaw(plumbing.BlobObject, e.hash)
			if err != nil {
				return err
			}
			rec[p] = data
		}
		return nil
	}
	if err := read(h, ""); err != nil {
		return nil, fmt.Errorf("checkpoint: ignore rules %s: %w", h, err)
	}
	return rec, nil
}

// Reasons a rollback leaves a path as it is (Change.Reason).
const (
	reasonTooLargeNow = "it is now over the 10 MiB snapshot cap: no snapshot holds this version, so the rollback would destroy it for good"
	reasonBornLarge   = "it appeared after the checkpoint and is over the 10 MiB snapshot cap: no snapshot holds it, so the rollback would destroy it for good"
	reasonInTheWay    = "something no snapshot holds (an ignored or oversized file, or a directory of them) is in the way"
)

// reachWalk finds, for a rollback to target, the files the target's rules
// (the ignore rules and the size cap of its time) would have held but the
// rollback's own snapshot (cur) does not: held lists those it can still
// take in (under the cap: ignored now, by a rule written after the
// target); unheld, those it cannot (over the cap, not over the cap in the
// target either), with the reason. A target without a record of its rules
// (made by an earlier version) is judged by the rules on disk.
func (s *Store) reachWalk(ctx context.Context, target Snapshot, cur plumbing.Hash) (held []string, unheld []Change, err error) {
	tgtTree := plumbing.NewHash(target.Tree)
	tgtSkipped := make(map[string]bool, len(target.Skipped))
	for _, p := range target.Skipped {
		tgtSkipped[p] = true
	}
	var rec ruleRecord
	if target.Rules != "" {
		if rec, err = s.readRules(plumbing.NewHash(target.Rules)); err != nil {
			return nil, nil, err
		}
	}
	root, err := openDir(s.workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("checkpoint: rollback: %w", err)
	}
	defer root.close()
	var set *ignoreSet
	l := gitignore.Locate(s.workspace)
	if rec == nil {
		set, _ = s.rootIgnore(root, nil)
	} else {
		var above []ignoreRule
		for i, src := range l.Above() {
			above = append(above, l.ParseAbove(rec[aboveKey(i)], src)...)
		}
		set = (*ignoreSet)(nil).wrap(l.RootSet(above, parseIgnore(rec[wsKey("")], nil)))
	}
	buf := make([]byte, 32<<10)
	var walk func(dr *dirReader, rel string, parts []string, set *ignoreSet) error
	walk = func(dr *dirReader, rel string, parts []string, set *ignoreSet) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("checkpoint: rollback: %w", err)
		}
		names, err := dr.names(buf)
		if err != nil {
			return nil
		}
		sort.Strings(names)
		for _, name := range names {
			if name == ".git" {
				continue
			}
			p := joinRel(rel, name)
			var st fileStat
			if dr.lstat(name, &st) != nil || s.excluded(p) {
				continue
			}
			kp := append(parts[:len(parts):len(parts)], name)
			if set.match(kp, st.isDir()) {
				continue
			}
			switch {
			case st.isDir():
				sub, err := dr.sub(name)
				if err != nil {
					continue
				}
				var own []ignoreRule
				if rec != nil {
					own = parseIgnore(rec[wsKey(p)], kp)
				} else {
					own, _ = s.loadIgnore(fileAt{sub, ".gitignore"}, kp, nil, "")
				}
				err = walk(sub, p, kp, set.descend(kp).extend(own))
				sub.close()
				if err != nil {
					return err
				}
			case st.isRegular() || st.isLink():
				if tgtSkipped[p] {
					continue // over the cap at the target too: outside it
				}
				if _, in, err := s.lookup(cur, p); err != nil {
					return err
				} else if in {
					continue // the rollback's snapshot holds it: the diff decides
				}
				_, inTarget, err := s.lookup(tgtTree, p)
				if err != nil {
					return err
				}
				switch {
				case st.isRegular() && st.size > MaxFileSize && inTarget:
					// the restore names it (the target has it, cur skipped it)
				case st.isRegular() && st.size > MaxFileSize:
					unheld = append(unheld, Change{Path: p, Action: ActionKept, Reason: reasonBornLarge})
				default:
					held = append(held, p)
				}
			}
		}
		return nil
	}
	if err := walk(root, "", nil, set); err != nil {
		return nil, nil, err
	}
	return held, unheld, nil
}

// takeIn adds the files paths (found by reachWalk) to tree, read beneath
// the workspace root and never through a symlink, and returns the new tree.
// A path that is gone or changed type meanwhile is left out.
func (s *Store) takeIn(ctx context.Context, tree plumbing.Hash, paths []string) (plumbing.Hash, error) {
	root, err := s.loadNode(tree)
	if err != nil {
		return tree, err
	}
	ws, err := openDir(s.workspace)
	if err != nil {
		return tree, fmt.Errorf("checkpoint: rollback: %w", err)
	}
	defer ws.close()
	for _, rel := range paths {
		if err := ctx.Err(); err != nil {
			return tree, fmt.Errorf("checkpoint: rollback: %w", err)
		}
		parts := strings.Split(rel, "/")
		e, err := s.readHeld(ws, parts)
		if err != nil {
			return tree, err
		}
		if e.mode == 0 {
			continue
		}
		n := root
		for _, name := range parts[:len(parts)-1] {
			if n, err = s.dir(n, name, true); err != nil {
				return tree, err
			}
			if n == nil {
				break
			}
		}
		if n == nil {
			continue // a parent is a file in the tree: a path changed type meanwhile
		}
		e.name = parts[len(parts)-1]
		n.set(e)
	}
	return s.writeNode(root, "")
}

// readHeld stores the file at parts (opened one directory below the other
// from ws) and returns its entry (mode 0: gone, changed or too large).
func (s *Store) readHeld(ws *dirReader, parts []string) (treeEntry, error) {
	d := ws
	defer func() { closeBelow(d, ws) }()
	for _, name := range parts[:len(parts)-1] {
		sub, err := d.sub(name)
		closeBelow(d, ws)
		d = nil
		if err != nil {
			return treeEntry{}, nil
		}
		d = sub
	}
	name := parts[len(parts)-1]
	var st fileStat
	if d.lstat(name, &st) != nil || !(st.isRegular() || st.isLink()) {
		return treeEntry{}, nil
	}
	mode := gitMode(&st)
	data, _, err := readEntryAt(d, name, mode, &st)
	switch {
	case errors.Is(err, errTooLarge), errors.Is(err, errChanged):
		return treeEntry{}, nil
	case err != nil:
		return treeEntry{}, nil // vanished or unreadable
	}
	h, err := s.writeBlob(data)
	if err != nil {
		return treeEntry{}, err
	}
	return treeEntry{mode: mode, hash: h}, nil
}
