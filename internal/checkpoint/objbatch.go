package checkpoint

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// objectBatch collects the new objects of a snapshot in memory and makes
// them durable together as one pack (packs.go): a flush writes the pack
// and its index under temporary names, fdatasyncs each once, renames them
// into place and fsyncs objects/pack: two data syncs and one directory
// sync per checkpoint, whatever the number of objects, and no directory
// made beyond objects/pack. A pack is never renamed into place before its
// data is on disk, so a crash leaves only whole packs, which later
// snapshots may safely share.
//
// Until flush, pending objects are not in the repository: the Store
// flushes before it reads one, before it records a snapshot's ref or a
// stat cache naming them, and at the end of every locked operation.
type objectBatch struct {
	packs *packSet
	pend  *pendingPack
}

func newObjectBatch(packs *packSet) *objectBatch {
	return &objectBatch{packs: packs, pend: newPendingPack()}
}

func (b *objectBatch) has(h plumbing.Hash) bool { return b.pend.has(h) }

func (b *objectBatch) len() int { return b.pend.len() }

// add compresses data, an object of type t whose id is h, into the
// pending pack; a pending pack past maxPendingBytes is flushed at once.
func (b *objectBatch) add(t plumbing.ObjectType, data []byte, h plumbing.Hash) error {
	if err := b.pend.add(t, data, h); err != nil {
		return err
	}
	if len(b.pend.buf) >= maxPendingBytes {
		return b.flush()
	}
	return nil
}

// flush makes every pending object durable and visible as a pack, then
// fsyncs every directory the syncer holds dirty; past maxPacks packs it
// merges the smallest. On error the pending objects are discarded (the
// caller must forget that they exist).
func (b *objectBatch) flush() error {
	p := b.pend
	b.pend = newPendingPack()
	if p.len() > 0 {
		if _, err := b.packs.write(p); err != nil {
			b.packs.checking = nil
			return err
		}
		if plan := mergePlan(b.packs.sortedPacks()); plan != nil {
			// Packs other processes wrote since we last looked count too.
			if err := b.packs.refresh(); err != nil {
				return err
			}
			if err := b.packs.merge(mergePlan(b.packs.sortedPacks())); err != nil {
				return err
			}
		}
	}
	if err := b.packs.sy.syncDirs(); err != nil {
		b.packs.checking = nil
		return fmt.Errorf("checkpoint: write objects: %w", err)
	}
	for _, pf := range b.packs.checking {
		pf.durable = true
	}
	b.packs.checking = nil
	return nil
}

// discard drops the pending objects without making them visible.
func (b *objectBatch) discard() {
	b.pend = newPendingPack()
	b.packs.checking = nil
}
