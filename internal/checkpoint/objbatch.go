package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
)

// maxPendingObjects bounds a batch (and the files it holds open); a full
// batch is flushed at once.
const maxPendingObjects = 256

// objectBatch writes the loose objects of a snapshot so that they become
// durable together, at the cost of about two journal commits per batch
// instead of two per object: each object is compressed into a temporary
// file in objects/pack ("tmp_obj_*", where git and go-git keep theirs;
// prune removes old leftovers) and kept open; flush fsyncs all of them
// (the first fsync commits the others' data with it), renames each to
// objects/xx/yyyy and fsyncs the fan-out directories once each. An object
// is never renamed into place before its data is on disk, so a crash
// leaves only whole objects, which later snapshots may safely share.
//
// Until flush, pending objects are not in the repository: the Store
// flushes before it reads one, before it records a snapshot's ref or a
// stat cache naming them, and at the end of every locked operation.
type objectBatch struct {
	objects string // <gitDir>/objects
	sy      *syncer
	pend    []pendingObject
	idx     map[plumbing.Hash]struct{}
	buf     bytes.Buffer
}

type pendingObject struct {
	h plumbing.Hash
	f *os.File
}

func newObjectBatch(gitDir string, sy *syncer) *objectBatch {
	return &objectBatch{objects: filepath.Join(gitDir, "objects"), sy: sy, idx: map[plumbing.Hash]struct{}{}}
}

func (b *objectBatch) has(h plumbing.Hash) bool {
	_, ok := b.idx[h]
	return ok
}

func (b *objectBatch) len() int { return len(b.pend) }

// add writes data, an object of type t whose id is h, to a temporary file.
func (b *objectBatch) add(t plumbing.ObjectType, data []byte, h plumbing.Hash) error {
	if b.has(h) {
		return nil
	}
	b.buf.Reset()
	w := objfile.NewWriter(&b.buf)
	err := w.WriteHeader(t, int64(len(data)))
	if err == nil {
		_, err = w.Write(data)
	}
	if e := w.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("compress object %s: %w", h, err)
	}
	if w.Hash() != h {
		return fmt.Errorf("object hash mismatch: %s != %s", w.Hash(), h)
	}
	tmpDir := filepath.Join(b.objects, "pack")
	f, err := os.CreateTemp(tmpDir, "tmp_obj_")
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		if err = b.sy.mkdirAll(tmpDir); err == nil {
			f, err = os.CreateTemp(tmpDir, "tmp_obj_")
		}
	}
	if err != nil {
		return fmt.Errorf("write object %s: %w", h, err)
	}
	// Objects are read-only, as in git; the open descriptor still writes.
	err = f.Chmod(0o400)
	if err == nil {
		_, err = f.Write(b.buf.Bytes())
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return fmt.Errorf("write object %s: %w", h, err)
	}
	b.pend = append(b.pend, pendingObject{h: h, f: f})
	b.idx[h] = struct{}{}
	if len(b.pend) >= maxPendingObjects {
		return b.flush()
	}
	return nil
}

// flush makes every pending object durable and visible, then fsyncs every
// directory the syncer holds dirty. On error the pending objects are
// discarded (the caller must forget that they exist).
func (b *objectBatch) flush() error {
	pend := b.pend
	b.pend, b.idx = nil, map[plumbing.Hash]struct{}{}
	var err error
	for _, p := range pend {
		if err == nil {
			err = b.sy.syncFile(p.f, p.f.Name())
		}
		if e := p.f.Close(); err == nil && e != nil {
			err = fmt.Errorf("close object %s: %w", p.h, e)
		}
	}
	if err != nil {
		for _, p := range pend {
			_ = os.Remove(p.f.Name())
		}
		return fmt.Errorf("checkpoint: write objects: %w", err)
	}
	for i, p := range pend {
		if err := b.place(p); err != nil {
			for _, q := range pend[i:] {
				_ = os.Remove(q.f.Name())
			}
			return fmt.Errorf("checkpoint: write objects: %w", err)
		}
	}
	if err := b.sy.syncDirs(); err != nil {
		return fmt.Errorf("checkpoint: write objects: %w", err)
	}
	return nil
}

// place renames a synced temporary object to its name (replacing a copy
// another process wrote meanwhile: same bytes).
func (b *objectBatch) place(p pendingObject) error {
	hex := p.h.String()
	dir := filepath.Join(b.objects, hex[:2])
	dst := filepath.Join(dir, hex[2:])
	err := os.Rename(p.f.Name(), dst)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		if err = b.sy.mkdirAll(dir); err == nil {
			err = os.Rename(p.f.Name(), dst)
		}
	}
	if err != nil {
		return err
	}
	b.sy.markDirty(dir)
	b.sy.note(syncEvent{Op: opRename, Path: p.f.Name(), To: dst})
	return nil
}

// discard removes the pending objects without making them visible.
func (b *objectBatch) discard() {
	for _, p := range b.pend {
		_ = p.f.Close()
		_ = os.Remove(p.f.Name())
	}
	b.pend, b.idx = nil, map[plumbing.Hash]struct{}{}
}

// fanout is the directory of h's loose object.
func (b *objectBatch) fanout(h plumbing.Hash) string {
	return filepath.Join(b.objects, h.String()[:2])
}
