package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"agent/internal/atomicfile"
)

// racySlack: stat data whose mtime or ctime is this close to (or after) the
// moment it was taken is not trusted, because a later write in the same
// timestamp tick would leave it unchanged (git's "racy git" problem). Such
// files (and directory listings) are read again on the next scan. 2 s covers
// the coarsest timestamps (FAT); a Store on a file system known to keep
// nanosecond timestamps uses fineSlack instead (Store.slack).
var racySlack = 2 * time.Second

// fineSlack is the slack on file systems with nanosecond timestamps taken
// from the kernel's coarse clock (a tick of at most 10 ms): ext4, xfs,
// btrfs, tmpfs, overlayfs, f2fs, zfs.
const fineSlack = 100 * time.Millisecond

// saveEvery: a full scan writes the stat cache at most this often; Close
// always writes it. Losing it only costs rehashing.
var saveEvery = time.Second

func racy(slack time.Duration, mtime, ctime, seen int64) bool {
	s := slack.Nanoseconds()
	return mtime >= seen-s || (ctime != 0 && ctime >= seen-s)
}

// Entry kinds in a directory listing.
const (
	entGone  uint8 = iota // vanished, unreadable or not looked at yet
	entFile               // regular file or symlink within MaxFileSize
	entDir                // directory
	entBig                // regular file over MaxFileSize (left out)
	entOther              // fifo, socket, device
)

// entState is what the last scan learnt about one directory entry.
type entState struct {
	kind    uint8
	inc     bool // contributed an entry to the tree
	ignKnow bool // ign is valid for ignDir under the directory's ignFP
	ign     bool
	ignDir  bool
	mode    filemode.FileMode
	size    int64
	mtime   int64
	ctime   int64
	ino     uint64
	seen    int64         // when the stat data was taken
	hash    plumbing.Hash // blob id; for a directory, its tree (emptyTree: nothing in it)
}

// dirState is one directory of the stat cache: its listing, the state of
// each entry (parallel to names) and the tree they made.
type dirState struct {
	sig   fileSig // the directory's own stat data when names were read
	seen  int64
	ignFP uint64 // identity of the ignore rules the ign flags were computed under
	tree  plumbing.Hash
	names []string
	ents  []entState
	scan  uint32
}

// statCache maps workspace directories (slash paths, "" for the root) to
// their state. It is keyed by stat data: size, mtime, ctime, inode and mode.
type statCache struct {
	dirs     map[string]*dirState
	dirty    bool
	scan     uint32
	lastSave time.Time
}

func newStatCache() *statCache { return &statCache{dirs: map[string]*dirState{}} }

// sweep drops the directories the current full scan did not visit.
func (c *statCache) sweep() {
	for p, d := range c.dirs {
		if d.scan != c.scan {
			delete(c.dirs, p)
			c.dirty = true
		}
	}
}

// forget makes every cached fact that names an object outside keep unknown
// (after a prune).
func (c *statCache) forget(keep map[plumbing.Hash]struct{}) {
	for _, d := range c.dirs {
		if _, ok := keep[d.tree]; !ok {
			d.tree = plumbing.ZeroHash
		}
		for i := range d.ents {
			e := &d.ents[i]
			if _, ok := keep[e.hash]; !ok && (e.kind == entFile || e.kind == entDir) {
				e.kind, e.inc, e.hash = entGone, false, plumbing.ZeroHash
				d.tree = plumbing.ZeroHash
			}
		}
	}
	c.dirty = true
}

var statMagic = []byte("AGCKSC02")

func (c *statCache) encode(gen uint64) []byte {
	buf := make([]byte, 0, 1<<16)
	buf = append(buf, statMagic...)
	buf = binary.LittleEndian.AppendUint64(buf, gen)
	buf = binary.AppendUvarint(buf, uint64(len(c.dirs)))
	str := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	for p, d := range c.dirs {
		str(p)
		buf = binary.AppendVarint(buf, d.sig.size)
		buf = binary.AppendVarint(buf, d.sig.mtime)
		buf = binary.AppendVarint(buf, d.sig.ctime)
		buf = binary.AppendUvarint(buf, d.sig.ino)
		buf = binary.AppendVarint(buf, d.seen)
		buf = binary.LittleEndian.AppendUint64(buf, d.ignFP)
		buf = append(buf, d.tree[:]...)
		buf = binary.AppendUvarint(buf, uint64(len(d.names)))
		for i, n := range d.names {
			e := &d.ents[i]
			str(n)
			var flags byte
			for j, b := range []bool{e.inc, e.ignKnow, e.ign, e.ignDir} {
				if b {
					flags |= 1 << j
				}
			}
			buf = append(buf, e.kind, flags)
			buf = binary.AppendUvarint(buf, uint64(e.mode))
			buf = binary.AppendVarint(buf, e.size)
			buf = binary.AppendVarint(buf, e.mtime)
			buf = binary.AppendVarint(buf, e.ctime)
			buf = binary.AppendUvarint(buf, e.ino)
			buf = binary.AppendVarint(buf, e.seen)
			buf = append(buf, e.hash[:]...)
		}
	}
	return buf
}

func (c *statCache) save(path string, gen uint64) error {
	if err := atomicfile.Write(path, c.encode(gen), privateFile); err != nil {
		return fmt.Errorf("checkpoint: save stat cache: %w", err)
	}
	c.dirty = false
	c.lastSave = time.Now()
	return nil
}

var errBadCache = errors.New("malformed stat cache")

// loadStatCache reads the cache written for prune generation gen; a
// missing, stale or damaged file gives an empty cache.
func loadStatCache(path string, gen uint64) *statCache {
	c := newStatCache()
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	if dirs, err := decodeStatCache(data, gen); err == nil {
		c.dirs = dirs
		c.lastSave = time.Now()
	}
	return c
}

func decodeStatCache(data []byte, gen uint64) (map[string]*dirState, error) {
	if len(data) < len(statMagic)+8 || !bytes.Equal(data[:len(statMagic)], statMagic) {
		return nil, errBadCache
	}
	data = data[len(statMagic):]
	if binary.LittleEndian.Uint64(data) != gen {
		return nil, errBadCache
	}
	r := &varReader{b: data[8:]}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return nil, errBadCache
	}
	dirs := make(map[string]*dirState, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		p := string(r.bytes(r.uvarint()))
		d := &dirState{}
		d.sig = fileSig{size: r.varint(), mtime: r.varint(), ctime: r.varint(), ino: r.uvarint()}
		d.seen = r.varint()
		if b := r.bytes(8); len(b) == 8 {
			d.ignFP = binary.LittleEndian.Uint64(b)
		}
		copy(d.tree[:], r.bytes(20))
		m := r.uvarint()
		if m > uint64(len(r.b)) {
			return nil, errBadCache
		}
		d.names = make([]string, m)
		d.ents = make([]entState, m)
		for j := range d.names {
			d.names[j] = string(r.bytes(r.uvarint()))
			e := &d.ents[j]
			kf := r.bytes(2)
			if len(kf) == 2 {
				e.kind = kf[0]
				e.inc, e.ignKnow, e.ign, e.ignDir = kf[1]&1 != 0, kf[1]&2 != 0, kf[1]&4 != 0, kf[1]&8 != 0
			}
			e.mode = filemode.FileMode(r.uvarint())
			e.size = r.varint()
			e.mtime = r.varint()
			e.ctime = r.varint()
			e.ino = r.uvarint()
			e.seen = r.varint()
			copy(e.hash[:], r.bytes(20))
		}
		dirs[p] = d
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errBadCache
	}
	return dirs, nil
}

type varReader struct {
	b   []byte
	err error
}

func (r *varReader) fail() {
	r.err = errBadCache
	r.b = nil
}

func (r *varReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *varReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *varReader) bytes(n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
