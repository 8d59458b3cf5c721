// Package checkpoint owns the shadow git repositories that hold snapshots
// ("checkpoints") of a workspace's files: one bare repository per workspace
// under $AGENT_HOME/checkpoints/<hash>.git, written only through go-git's
// object storage and plumbing (blobs, trees and commits are built here; no
// worktree, no index, no git binary at run time). It takes snapshots (a full
// scan with a stat cache, or an incremental one from a known list of changed
// paths), diffs them, restores a workspace to one of them and deletes a run's
// snapshots with a mark-and-sweep prune. For a worker subagent's git
// worktree it also scans a workspace without recording a snapshot: its
// files copied into another repository's object store (CopyFiles), or
// compared with a tree of one (DiffFrom); RemoveUnusedRepo drops the
// repository of a workspace gone for good once no run uses it.
//
// It must not touch the user's own .git: the workspace's .git/index,
// .git/info/exclude, .git/info/attributes and .git/config are only read. It
// knows nothing of events, the database or the model: callers bind a
// snapshot's ID to a position in a run's events.
//
// Ref layout: every snapshot is a commit whose parent is the previous
// snapshot of the same run; the run's head ref refs/agent/runs/<runID>/head
// names the newest, so it reaches them all. The head moves in the object
// log with each snapshot and is written to the ref when the log is folded:
// created once (temp file, fsync, rename), then rewritten in place (its 41
// bytes at offset 0, fsynced). Runs of earlier versions have one
// ref per snapshot, refs/agent/runs/<runID>/<seq>; they are read and
// continued. DeleteRun removes the run's refs and prunes the objects no
// longer reachable from any ref.
//
// Files beside the repository, in <hash>.git/agent/: "workspace" (the
// absolute workspace path, for people), "statcache" (per directory: its
// listing and stat data, and per entry size/mtime/ctime/inode/mode → blob
// id, plus the tree each directory made; binary, written atomically, last
// writer wins), "gen" (prune generation: other processes drop their caches
// when it changes) and "lock" (flock: shared while writing objects, refs and
// the stat cache, exclusive while pruning). The agent home itself is never
// part of a snapshot, even when it lies inside the workspace.
//
// Objects: a snapshot's new objects and the run's new head are appended to
// the process's object log (agent/objlog-<nonce>, objlog.go) and made
// durable by one fdatasync; the log is folded into a pack, git's own
// format (objects/pack/pack-<sum>.pack with its .idx; see packs.go), and
// its heads written as refs (forward only) when a stretch of a run ends
// (Settle), on Close, past 8 MiB, or by the next process after a crash.
// Past 16 packs a fold merges the smallest; a prune rewrites the reachable
// objects into fresh packs and removes the rest, so deleting a run reclaims
// its space. No objects/xx/ directory is made; loose objects an earlier
// version wrote are still read and are packed by the next prune. git
// --git-dir=<repo> fsck and cat-file read the repository whole at any
// moment, behind a live run's newest snapshots (still in its log).
//
// Durability: a snapshot is on disk when Snapshot or SnapshotPaths returns:
// its log record (objects and head) is fdatasynced, and a new log's name
// was made durable (renamed into place, directory fsynced) before its
// first record counts. A torn record ends a log (its crc); a fold writes
// the pack durably (temporary names, fdatasync, rename, directory fsync)
// before the refs, and the refs before the log is removed. The stat cache,
// the prune generation and the workspace file are written with atomicfile,
// the stat cache only after the objects it names are durable.
//
// Permissions: everything under checkpoints/ is the user's alone
// (directories 0700, files 0600, objects 0400), made so by repoFS rather
// than by the process umask, whatever the mode of the state directory. A
// repository an earlier version made with 0755/0644/0444 entries is
// tightened when it is opened (see tightenRepo).
package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/gofrs/flock"

	"agent/internal/atomicfile"
)

// MaxFileSize is the largest file a snapshot stores; bigger files are left
// out and listed in Snapshot.Skipped.
const MaxFileSize = 10 << 20

// Kind says why a snapshot was taken.
type Kind string

// Kinds of snapshot.
const (
	KindBefore   Kind = "before"
	KindAfter    Kind = "after"
	KindRollback Kind = "rollback"
)

// Meta describes a snapshot; it is recorded in the commit message.
type Meta struct {
	RunID  string // required: [A-Za-z0-9._-], at most 128 bytes
	CallID string // the tool call's id; empty for a rollback
	Kind   Kind
	Step   int       // the run's step, for listings
	Event  int64     // the run's event seq this snapshot binds to (0: none)
	Time   time.Time // zero: now
}

// Snapshot is one checkpoint: a commit in the shadow repository.
type Snapshot struct {
	ID      string // commit hash (hex)
	Tree    string // root tree hash (hex)
	Parent  string // previous snapshot of the run; empty for the first
	RunID   string
	CallID  string
	Kind    Kind
	Seq     int // 1-based position among the run's snapshots
	Step    int
	Event   int64
	Time    time.Time
	Skipped []string // files left out (over MaxFileSize), sorted
	// Rules is the tree of the ignore files the snapshot was taken under
	// (see ruleRecord); empty when none was read or the snapshot predates
	// the record. A rollback to the snapshot judges "ignored" by them.
	Rules string
}

// Action is what a Change does to a path.
type Action string

// Actions. ActionKept is only returned by a restore: the path could not be
// given its content at the target without destroying something no snapshot
// holds (a file now over the size cap, a file over it at the target, or a
// directory of ignored files in the way); it was left alone, and
// Change.Reason says why.
const (
	ActionAdded    Action = "added"
	ActionModified Action = "modified"
	ActionDeleted  Action = "deleted"
	ActionKept     Action = "kept"
)

// Change is one path that differs between two snapshots.
type Change struct {
	Path   string
	Action Action
	// Reason says, for ActionKept, why the path was left as it is.
	Reason string
}

// Store is the shadow repository of one workspace. Its methods are safe for
// concurrent use (they are serialized by mu); two processes may share the
// repository (see the package comment on locking).
type Store struct {
	mu        sync.Mutex
	workspace string
	exclude   string // the agent home, when it lies inside the workspace (slash path)
	gitDir    string
	auxDir    string
	st        *filesystem.Storage
	sy        *syncer      // dirty directories, fsynced before refs and the stat cache
	objs      *objectBatch // objects written but not yet durable
	packs     *packSet     // the packs this process reads
	logs      *logSet      // the object logs (objlog.go)
	// loose: the repository still has loose objects of an earlier version
	// (objects/xx/ directories); they are read until a prune packs them.
	loose bool
	lock  *flock.Flock

	gen   uint64                     // prune generation our caches belong to
	have  map[plumbing.Hash]struct{} // objects known to exist
	trees map[plumbing.Hash][]treeEntry
	heads map[string]Snapshot // run → newest snapshot
	// headFiles are the runs' head refs kept open for rewriting in place.
	headFiles map[string]*os.File
	// slack is the racy-timestamp slack of the workspace's file system.
	slack   time.Duration
	snaps   map[plumbing.Hash]Snapshot
	stat    *statCache
	ignores map[string]*ignoreFile
	nonce   uint64
	uidx    *userIndex

	lastScan scanStats
	// beforeOpen, when set (by tests), runs between a snapshot's stat of an
	// entry and its open, with the entry's workspace-relative path.
	beforeOpen func(rel string)
}

// Open opens (creating it if needed) the shadow repository of workspace
// under agentHome/checkpoints.
func Open(agentHome, workspace string) (*Store, error) {
	if agentHome == "" {
		return nil, errors.New("checkpoint: empty agent home")
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: workspace %q: %w", workspace, err)
	}
	if r, err := filepath.EvalSymlinks(ws); err == nil {
		ws = r
	}
	fi, err := os.Stat(ws)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: workspace: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("checkpoint: workspace %s is not a directory", ws)
	}
	sum := sha256.Sum256([]byte(ws))
	sy := &syncer{}
	root := filepath.Join(agentHome, "checkpoints")
	if err := sy.mkdirAll(root); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	gitDir := filepath.Join(root, hex.EncodeToString(sum[:16])+".git")
	if err := tightenRepo(gitDir); err != nil {
		return nil, err
	}
	st := filesystem.NewStorageWithOptions(newRepoFS(gitDir, sy), cache.NewObjectLRU(8*cache.MiByte), filesystem.Options{})
	if err := initRepo(gitDir, st, sy); err != nil {
		return nil, err
	}
	aux := filepath.Join(gitDir, "agent")
	if err := sy.mkdirAll(aux); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if err := sy.syncDirs(); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	wsFile := filepath.Join(aux, "workspace")
	if b, err := os.ReadFile(wsFile); err != nil || string(b) != ws+"\n" {
		if err := atomicfile.Write(wsFile, []byte(ws+"\n"), privateFile); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
	}
	exclude := ""
	if h, err := filepath.Abs(agentHome); err == nil {
		if r, err := filepath.EvalSymlinks(h); err == nil {
			h = r
		}
		if rel, err := filepath.Rel(ws, h); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			exclude = filepath.ToSlash(rel) // "." when the agent home is the workspace
		}
	}
	packs := newPackSet(gitDir, sy)
	logs := newLogSet(aux, sy)
	s := &Store{
		workspace: ws,
		exclude:   exclude,
		gitDir:    gitDir,
		auxDir:    aux,
		st:        st,
		sy:        sy,
		objs:      newObjectBatch(packs, logs),
		packs:     packs,
		logs:      logs,
		loose:     hasLooseDirs(gitDir),
		lock:      flock.New(filepath.Join(aux, "lock"), flock.SetPermissions(0o600)),
		trees:     map[plumbing.Hash][]treeEntry{},
		snaps:     map[plumbing.Hash]Snapshot{},
		heads:     map[string]Snapshot{},
		headFiles: map[string]*os.File{},
		slack:     min(racySlack, timestampSlack(ws)),
		ignores:   map[string]*ignoreFile{},
	}
	logs.setRefs = s.writeRefs
	s.resetCaches()
	s.gen = s.readGen()
	// The object logs of processes that died are folded into packs now,
	// so git finds their objects (and the refs naming them) whole.
	if err := s.withShared(func() error { return s.logs.refresh(s.packs, true) }); err != nil {
		s.packs.closeAll()
		s.logs.closeAll()
		return nil, err
	}
	return s, nil
}

// initRepo makes gitDir a bare repository (through st, so its files are
// private) unless it is one, and makes the new scaffolding durable.
func initRepo(gitDir string, st *filesystem.Storage, sy *syncer) error {
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err == nil {
		return nil
	}
	if err := sy.mkdirAll(gitDir); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	_, err := git.Init(st, nil)
	if err != nil && !errors.Is(err, git.ErrRepositoryAlreadyExists) {
		return fmt.Errorf("checkpoint: init shadow repository: %w", err)
	}
	if err := sy.syncDirs(); err != nil {
		return fmt.Errorf("checkpoint: init shadow repository: %w", err)
	}
	return nil
}

// hasLooseDirs reports whether objects/ has a fan-out directory (xx/) of
// loose objects, which earlier versions wrote (and created up front).
func hasLooseDirs(gitDir string) bool {
	ents, _ := os.ReadDir(filepath.Join(gitDir, "objects"))
	for _, e := range ents {
		if n := e.Name(); e.IsDir() && len(n) == 2 && isHex(n) {
			return true
		}
	}
	return false
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// GitDir is the shadow repository's directory (use git --git-dir=... to
// inspect it).
func (s *Store) GitDir() string { return s.gitDir }

// Workspace is the absolute, symlink-resolved workspace root.
func (s *Store) Workspace() string { return s.workspace }

// Close writes the stat cache if it changed and releases the store.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.withShared(func() error {
		// This process's object log becomes a pack: git reads the
		// repository whole once the store is closed.
		if err := s.logs.foldOwn(s.packs); err != nil {
			return err
		}
		if s.stat == nil || !s.stat.dirty {
			return nil
		}
		return s.saveStat(s.stat, s.gen)
	})
	s.closeHeads()
	s.packs.closeAll()
	s.logs.closeAll()
	if e := s.st.Close(); e != nil && err == nil {
		err = fmt.Errorf("checkpoint: close: %w", e)
	}
	return err
}

// Settle folds this process's object log into a pack and writes the heads
// it holds as refs (see objlog.go), so git's own tools see every snapshot
// taken so far. The app calls it when a stretch of a run ends; Close does
// it too. The snapshots are durable before it either way.
func (s *Store) Settle() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.withShared(func() error { return s.logs.foldOwn(s.packs) })
}

// saveStat writes the stat cache for prune generation gen, after the
// objects it names are durable.
func (s *Store) saveStat(c *statCache, gen uint64) error {
	if err := s.flushObjects(); err != nil {
		return err
	}
	return c.save(s.statPath(), gen)
}

// resetCaches drops everything that assumes objects exist in the store,
// the packs included (they are listed again when next needed: a prune
// may have removed some).
func (s *Store) resetCaches() {
	s.have = map[plumbing.Hash]struct{}{}
	s.stat = nil
	s.packs.closeAll()
}

// withShared runs fn under the shared store lock, first dropping our caches
// if another process pruned the repository since we filled them.
func (s *Store) withShared(fn func() error) error {
	if err := s.lock.RLock(); err != nil {
		return fmt.Errorf("checkpoint: lock: %w", err)
	}
	defer func() { _ = s.lock.Unlock() }()
	if g := s.readGen(); g != s.gen {
		s.resetCaches()
		s.heads = map[string]Snapshot{}
		s.snaps = map[plumbing.Hash]Snapshot{}
		s.gen = g
	}
	// A torn or truncated pack is ignored; the stat cache may name blobs
	// it held, so it is dropped (the next scan hashes the files again).
	if err := s.packs.ensureLoaded(); err != nil {
		return err
	}
	if s.packs.sawBad {
		s.packs.sawBad = false
		s.have = map[plumbing.Hash]struct{}{}
		s.stat = newStatCache()
		s.stat.dirty = true
	}
	err := fn()
	// Nothing stays pending outside the lock (an error path may leave
	// objects that the caches already name).
	if ferr := s.flushObjects(); err == nil {
		err = ferr
	}
	if err == nil && s.stat != nil && s.stat.dirty && time.Since(s.stat.lastSave) >= saveEvery {
		err = s.saveStat(s.stat, s.gen)
	}
	return err
}

func (s *Store) genPath() string  { return filepath.Join(s.auxDir, "gen") }
func (s *Store) statPath() string { return filepath.Join(s.auxDir, "statcache") }

func (s *Store) readGen() uint64 {
	b, err := os.ReadFile(s.genPath())
	if err != nil {
		return 0
	}
	g, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return g
}

// excluded reports whether rel is the agent home or lies below it: the
// shadow repositories are never part of a snapshot.
func (s *Store) excluded(rel string) bool {
	return s.exclude != "" && (s.exclude == "." || rel == s.exclude || strings.HasPrefix(rel, s.exclude+"/"))
}

func validRunID(id string) error {
	if id == "" || len(id) > 128 || id[0] == '.' || strings.HasSuffix(id, ".lock") || strings.Contains(id, "..") {
		return fmt.Errorf("checkpoint: invalid run id %q", id)
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("checkpoint: invalid run id %q", id)
		}
	}
	return nil
}
