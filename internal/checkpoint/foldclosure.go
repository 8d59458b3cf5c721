package checkpoint

import (
	"bytes"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// A store reuses an object it finds in another live process's object log
// rather than writing it again (objects.go hasObject), so a log's commits
// and trees may name objects only that other log holds. Its heads become
// refs when it is folded, and git must then find everything they reach in
// packs: fold copies those objects, read from the other log, into the
// pack it writes (foreignClosure). Packed objects reach only packed ones
// (every fold keeps that), so the walk stops at the first packed object
// and visits only what logs hold.

// foreignClosure lists, in a stable order, the objects reachable from l's
// heads that l does not hold and no pack holds, with the log holding each.
func (ls *logSet) foreignClosure(l *objLog, ps *packSet) ([]foreignObject, error) {
	if err := ps.ensureLoaded(); err != nil {
		return nil, err
	}
	var out []foreignObject
	seen := map[plumbing.Hash]bool{}
	var stack []plumbing.Hash
	for _, h := range l.heads {
		stack = append(stack, h)
	}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[h] {
			continue
		}
		seen[h] = true
		if pf, _ := ps.find(h); pf != nil {
			continue
		}
		src, e, ok := l, logEntry{}, false
		if e, ok = l.ents[h]; !ok {
			src, e, ok = ls.findOther(h, l)
			if !ok {
				continue // not here: a missing object is git's to report, as before
			}
			out = append(out, foreignObject{h: h, log: src, e: e})
		}
		if t, err := src.entryType(e); err != nil {
			return nil, err
		} else if t != plumbing.CommitObject && t != plumbing.TreeObject {
			continue // a blob names nothing: not read
		}
		// An entry that does not decode (a log not written by a store)
		// names nothing: it is copied as it is, and git reports it, as
		// before; it must not stop the fold and so the next Open.
		obj, err := src.object(e)
		if err != nil {
			continue
		}
		links, err := objectLinks(obj)
		if err != nil {
			continue
		}
		stack = append(stack, links...)
	}
	return out, nil
}

// foreignObject is an object of another log a fold copies.
type foreignObject struct {
	h   plumbing.Hash
	log *objLog
	e   logEntry
}

// findOther finds h in a log other than l (this process's own included).
func (ls *logSet) findOther(h plumbing.Hash, l *objLog) (*objLog, logEntry, bool) {
	if ls.own != nil && ls.own != l {
		if e, ok := ls.own.ents[h]; ok {
			return ls.own, e, true
		}
	}
	for _, p := range ls.sortedOthers() {
		if o := ls.others[p]; o != l {
			if e, ok := o.ents[h]; ok {
				return o, e, true
			}
		}
	}
	return nil, logEntry{}, false
}

// objectLinks lists the objects a commit or tree names (a commit's tree
// and parents, a tree's entries but gitlinks); blobs name none.
func objectLinks(obj plumbing.EncodedObject) ([]plumbing.Hash, error) {
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	var out []plumbing.Hash
	switch obj.Type() {
	case plumbing.CommitObject:
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(line) == 0 {
				break // the message follows
			}
			if v, ok := bytes.CutPrefix(line, []byte("tree ")); ok {
				out = append(out, plumbing.NewHash(string(v)))
			} else if v, ok := bytes.CutPrefix(line, []byte("parent ")); ok {
				out = append(out, plumbing.NewHash(string(v)))
			}
		}
	case plumbing.TreeObject:
		es, err := decodeTree(data)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.mode != filemode.Submodule { // a gitlink names no object here
				out = append(out, e.hash)
			}
		}
	}
	return out, nil
}

// entryType reads the type of the pack entry e of l (its first byte).
func (l *objLog) entryType(e logEntry) (plumbing.ObjectType, error) {
	var b [1]byte
	if e.n < 1 {
		return plumbing.InvalidObject, fmt.Errorf("object log %s: empty entry", l.path)
	}
	if _, err := l.f.ReadAt(b[:], e.off); err != nil {
		return plumbing.InvalidObject, fmt.Errorf("object log %s: %w", l.path, err)
	}
	return plumbing.ObjectType((b[0] >> 4) & 7), nil
}
