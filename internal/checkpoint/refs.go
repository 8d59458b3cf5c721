package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"agent/internal/atomicfile"
)

// refPrefix is the private namespace of the snapshots' refs.
const refPrefix = "refs/agent/runs/"

// headName is the last component of a run's head ref,
// refs/agent/runs/<run>/head: the run's newest snapshot. Each snapshot's
// parent is the run's previous one, so the head reaches them all.
const headName = "head"

func headRefName(runID string) plumbing.ReferenceName {
	return plumbing.ReferenceName(refPrefix + runID + "/" + headName)
}

// parseRef splits refs/agent/runs/<run>/head (seq 0) or, in the layout of
// earlier versions (one ref per snapshot, still read),
// refs/agent/runs/<run>/<seq> (seq > 0).
func parseRef(name plumbing.ReferenceName) (run string, seq int, ok bool) {
	rest, found := strings.CutPrefix(name.String(), refPrefix)
	if !found {
		return "", 0, false
	}
	i := strings.LastIndexByte(rest, '/')
	if i <= 0 {
		return "", 0, false
	}
	if rest[i+1:] == headName {
		return rest[:i], 0, true
	}
	n, err := strconv.Atoi(rest[i+1:])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	return rest[:i], n, true
}

var signature = object.Signature{Name: "agent", Email: "agent@localhost"}

// commitSnapshot records tree as the run's next snapshot; rules is the
// tree of the ignore files it was taken under (ZeroHash: none read).
func (s *Store) commitSnapshot(meta Meta, tree plumbing.Hash, skipped []string, rules plumbing.Hash) (Snapshot, error) {
	head, err := s.head(meta.RunID)
	if err != nil {
		return Snapshot{}, err
	}
	t := meta.Time
	if t.IsZero() {
		t = time.Now()
	}
	t = t.UTC().Truncate(time.Second)
	if len(skipped) == 0 {
		skipped = nil
	}
	snap := Snapshot{
		Tree: tree.String(), Parent: head.ID, RunID: meta.RunID, CallID: meta.CallID,
		Kind: meta.Kind, Seq: head.Seq + 1, Step: meta.Step, Event: meta.Event, Time: t, Skipped: skipped,
	}
	if !rules.IsZero() {
		snap.Rules = rules.String()
	}
	sig := signature
	sig.When = t
	c := &object.Commit{Author: sig, Committer: sig, Message: formatMessage(&snap), TreeHash: tree}
	if head.ID != "" {
		c.ParentHashes = []plumbing.Hash{plumbing.NewHash(head.ID)}
	}
	h, err := s.writeCommit(c)
	if err != nil {
		return Snapshot{}, err
	}
	// The commit, the objects it names and the run's new head are one
	// append to the object log and one sync (objlog.go); the head ref is
	// written when the log is folded.
	s.logs.pendHeads[meta.RunID] = h
	if err := s.flushObjects(); err != nil {
		return Snapshot{}, err
	}
	snap.ID = h.String()
	s.heads[meta.RunID] = snap
	s.snaps[h] = snap
	return snap, nil
}

// writeRefs makes each head of a folded object log its run's head ref,
// forward only: a ref that already names that snapshot, or one with a
// higher Seq (written by a later process of the run), is left as it is.
// The objects are durable (the log's pack) before it runs.
func (s *Store) writeRefs(heads map[string]plumbing.Hash) error {
	runs := make([]string, 0, len(heads))
	for run := range heads {
		runs = append(runs, run)
	}
	sort.Strings(runs)
	for _, run := range runs {
		h := heads[run]
		// A head that is no snapshot of the run here (a log planted or
		// damaged, its crc whole) never becomes a ref git cannot follow.
		next, nerr := s.getHash(h)
		var pathErr *fs.PathError
		switch {
		case nerr == nil && next.RunID != run, errors.Is(nerr, plumbing.ErrObjectNotFound):
			continue
		case nerr != nil && !errors.As(nerr, &pathErr):
			continue // not a commit, or not one of ours: its bytes, not the disk
		case nerr != nil:
			return nerr
		}
		if r, err := s.st.Reference(headRefName(run)); err == nil && r.Type() == plumbing.HashReference {
			if r.Hash() == h {
				continue
			}
			cur, cerr := s.getHash(r.Hash())
			if cerr == nil && cur.RunID == run && cur.Seq >= next.Seq {
				continue
			}
		}
		if err := s.setHead(run, h); err != nil {
			return err
		}
	}
	return nil
}

// setHead makes h the run's head ref. The first time, the ref is created
// with atomicfile (temporary file beside it, fsync, rename, fsync of its
// directory); after that it is rewritten in place: one write of its 41 bytes
// at offset 0 (the file never changes size, so a reader or a crash sees the
// old hash or the new one) and an fsync, without a new file each snapshot.
// It runs after flushObjects: every object the ref names is already durable.
func (s *Store) setHead(runID string, h plumbing.Hash) error {
	p := filepath.Join(s.gitDir, filepath.FromSlash(headRefName(runID).String()))
	data := []byte(h.String() + "\n")
	f := s.headFiles[runID]
	if f == nil {
		if g, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			if fi, err := g.Stat(); err == nil && fi.Size() == int64(len(data)) {
				f = g
			} else {
				g.Close() // not a ref this version wrote: replace it whole
			}
		}
	}
	if f != nil {
		if _, err := f.WriteAt(data, 0); err != nil {
			f.Close()
			delete(s.headFiles, runID)
			return fmt.Errorf("checkpoint: set head of %s: %w", runID, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			delete(s.headFiles, runID)
			return fmt.Errorf("checkpoint: set head of %s: %w", runID, err)
		}
		s.headFiles[runID] = f
		s.sy.note(syncEvent{Op: opRefRewrite, Path: p})
		return nil
	}
	err := atomicfile.Write(p, data, privateFile)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		// A run's first ref: make its directory, durably.
		if err := s.sy.mkdirAll(filepath.Dir(p)); err != nil {
			return fmt.Errorf("checkpoint: set head of %s: %w", runID, err)
		}
		err = atomicfile.Write(p, data, privateFile)
	}
	if err != nil {
		return fmt.Errorf("checkpoint: set head of %s: %w", runID, err)
	}
	s.sy.note(syncEvent{Op: opRef, Path: p})
	if err := s.sy.syncDirs(); err != nil {
		return fmt.Errorf("checkpoint: set head of %s: %w", runID, err)
	}
	if g, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
		s.headFiles[runID] = g
	}
	return nil
}

// closeHeads closes the head refs kept open for rewriting.
func (s *Store) closeHeads() {
	for run, f := range s.headFiles {
		f.Close()
		delete(s.headFiles, run)
	}
}

// head is the run's newest snapshot (zero if none). A run's snapshots are
// taken by the one process that holds the run's lock, so a head cached by
// this process stays the head.
func (s *Store) head(runID string) (Snapshot, error) {
	if h, ok := s.heads[runID]; ok {
		return h, nil
	}
	// Another process may be writing the run, or have written it, in its
	// object log: the logs are listed afresh.
	if err := s.logs.refresh(s.packs, false); err != nil {
		return Snapshot{}, err
	}
	if tips := s.logs.head(runID); len(tips) > 0 {
		// Newer than the ref, unless a later process of the run folded
		// its own log meanwhile: the highest Seq wins.
		if r, err := s.st.Reference(headRefName(runID)); err == nil && r.Type() == plumbing.HashReference {
			tips = append(tips, r.Hash())
		}
		var best Snapshot
		for _, t := range tips {
			snap, err := s.getHash(t)
			if err != nil {
				return Snapshot{}, err
			}
			if best.ID == "" || snap.Seq > best.Seq {
				best = snap
			}
		}
		s.heads[runID] = best
		return best, nil
	}
	var tip plumbing.Hash
	if r, err := s.st.Reference(headRefName(runID)); err == nil && r.Type() == plumbing.HashReference {
		tip = r.Hash()
	} else {
		// A run of an earlier version: one ref per snapshot, the newest last.
		refs, err := s.runRefs(runID)
		if err != nil {
			return Snapshot{}, err
		}
		for i := len(refs) - 1; i >= 0; i-- {
			if _, seq, _ := parseRef(refs[i].Name()); seq > 0 {
				tip = refs[i].Hash()
				break
			}
		}
	}
	if tip.IsZero() {
		return Snapshot{}, nil
	}
	h, err := s.getHash(tip)
	if err != nil {
		return Snapshot{}, err
	}
	s.heads[runID] = h
	return h, nil
}

// runRefs returns the run's refs ordered by seq.
func (s *Store) runRefs(runID string) ([]*plumbing.Reference, error) {
	it, err := s.st.IterReferences()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: refs: %w", err)
	}
	var out []*plumbing.Reference
	seqs := map[plumbing.ReferenceName]int{}
	err = it.ForEach(func(r *plumbing.Reference) error {
		run, seq, ok := parseRef(r.Name())
		if ok && run == runID && r.Type() == plumbing.HashReference {
			out = append(out, r)
			seqs[r.Name()] = seq
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checkpoint: refs: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return seqs[out[i].Name()] < seqs[out[j].Name()] })
	return out, nil
}

// Get returns the snapshot with that id (a commit hash, or a unique prefix
// of at least 4 hex digits).
func (s *Store) Get(id string) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.resolveHash(id)
	if err != nil {
		return Snapshot{}, err
	}
	return s.getHash(h)
}

func (s *Store) getHash(h plumbing.Hash) (Snapshot, error) {
	if snap, ok := s.snaps[h]; ok {
		return snap, nil
	}
	obj, err := s.encodedObject(plumbing.CommitObject, h)
	if err != nil {
		return Snapshot{}, fmt.Errorf("checkpoint: snapshot %s: %w", h, err)
	}
	c, err := object.DecodeCommit(s.reader(), obj)
	if err != nil {
		return Snapshot{}, fmt.Errorf("checkpoint: snapshot %s: %w", h, err)
	}
	snap, err := parseMessage(c.Message)
	if err != nil {
		return Snapshot{}, fmt.Errorf("checkpoint: snapshot %s: %w", h, err)
	}
	snap.ID = h.String()
	snap.Tree = c.TreeHash.String()
	if len(c.ParentHashes) > 0 {
		snap.Parent = c.ParentHashes[0].String()
	}
	snap.Time = c.Committer.When.UTC()
	s.snaps[h] = snap
	return snap, nil
}

// List returns the run's snapshots, oldest first: from the head back along
// the parents.
func (s *Store) List(runID string) ([]Snapshot, error) {
	if err := validRunID(runID); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	head, err := s.head(runID)
	if err != nil || head.ID == "" {
		return nil, err
	}
	var out []Snapshot
	for snap := head; ; {
		out = append(out, snap)
		if snap.Parent == "" {
			break
		}
		if snap, err = s.getHash(plumbing.NewHash(snap.Parent)); err != nil {
			return nil, err
		}
		if snap.RunID != runID {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// Runs lists the runs that have snapshots in this store, sorted.
func (s *Store) Runs() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, err := s.st.IterReferences()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: refs: %w", err)
	}
	set := map[string]bool{}
	_ = it.ForEach(func(r *plumbing.Reference) error {
		if run, _, ok := parseRef(r.Name()); ok {
			set[run] = true
		}
		return nil
	})
	s.logs.runs(set)
	out := make([]string, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Strings(out)
	return out, nil
}

// Commit message layout: a subject, a blank line, then one "Key: value"
// trailer a line. Values that are not plain are Go-quoted.
func formatMessage(snap *Snapshot) string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent checkpoint %d (%s)\n\n", snap.Seq, snap.Kind)
	kv := func(k, v string) { fmt.Fprintf(&b, "%s: %s\n", k, quoteIfNeeded(v)) }
	kv("Agent-Run", snap.RunID)
	if snap.CallID != "" {
		kv("Agent-Call", snap.CallID)
	}
	kv("Agent-Kind", string(snap.Kind))
	kv("Agent-Seq", strconv.Itoa(snap.Seq))
	kv("Agent-Step", strconv.Itoa(snap.Step))
	if snap.Event != 0 {
		kv("Agent-Event", strconv.FormatInt(snap.Event, 10))
	}
	for _, p := range snap.Skipped {
		kv("Agent-Skipped", p)
	}
	if snap.Rules != "" {
		kv("Agent-Ignore", snap.Rules)
	}
	return b.String()
}

func quoteIfNeeded(v string) string {
	if v == "" || strings.TrimSpace(v) != v || strings.HasPrefix(v, `"`) || strconv.Quote(v) != `"`+v+`"` {
		return strconv.Quote(v)
	}
	return v
}

func parseMessage(msg string) (Snapshot, error) {
	var snap Snapshot
	_, body, _ := strings.Cut(msg, "\n\n")
	for _, line := range strings.Split(body, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		if strings.HasPrefix(v, `"`) {
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
		}
		switch k {
		case "Agent-Run":
			snap.RunID = v
		case "Agent-Call":
			snap.CallID = v
		case "Agent-Kind":
			snap.Kind = Kind(v)
		case "Agent-Seq":
			snap.Seq, _ = strconv.Atoi(v)
		case "Agent-Step":
			snap.Step, _ = strconv.Atoi(v)
		case "Agent-Event":
			snap.Event, _ = strconv.ParseInt(v, 10, 64)
		case "Agent-Skipped":
			snap.Skipped = append(snap.Skipped, v)
		case "Agent-Ignore":
			if plumbing.IsHash(v) {
				snap.Rules = v
			}
		}
	}
	if snap.RunID == "" {
		return snap, errors.New("not an agent checkpoint")
	}
	return snap, nil
}
