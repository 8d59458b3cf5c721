package checkpoint

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// objectBatch collects the new objects of a snapshot in memory and makes
// them durable together: a flush appends them to the process's object log
// (objlog.go) and fdatasyncs it once, whatever the number of objects; no
// file or directory is created per checkpoint. The log is folded into a
// pack (packs.go) when it grows past foldAt and when the store closes.
//
// Until flush, pending objects are not in the repository: the Store
// flushes before it reads one, before it records a snapshot's ref or a
// stat cache naming them, and at the end of every locked operation.
type objectBatch struct {
	packs *packSet
	logs  *logSet
	pend  *pendingPack
}

func newObjectBatch(packs *packSet, logs *logSet) *objectBatch {
	return &objectBatch{packs: packs, logs: logs, pend: newPendingPack()}
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

// flush makes every pending object durable: appended to this process's
// object log and fdatasynced once (objlog.go); a log past foldAt is folded
// into a pack. Then it fdatasyncs the other processes' logs objects were
// found in and fsyncs every directory the syncer holds dirty. On error the
// pending objects are discarded (the caller must forget that they exist).
func (b *objectBatch) flush() error {
	p := b.pend
	b.pend = newPendingPack()
	if p.len() > 0 || len(b.logs.pendHeads) > 0 {
		if err := b.logs.append(p); err != nil {
			b.packs.checking = nil
			return err
		}
		if b.logs.own != nil && b.logs.own.size >= foldAt {
			if err := b.logs.foldOwn(b.packs); err != nil {
				return err
			}
		}
	}
	if err := b.logs.syncChecking(); err != nil {
		b.packs.checking = nil
		return err
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
	b.logs.pendHeads = map[string]plumbing.Hash{}
	b.packs.checking = nil
}
