package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"agent/internal/event"
)

// A command may make a repository inside the workspace (git init sub),
// plant hooks or a core.fsmonitor in its .git, and stage it as a gitlink
// (git add sub): the person's next git status in the workspace recurses
// into it and runs what it planted, outside any sandbox. No mount can
// protect a .git that does not exist yet, so after each command the
// sandbox looks for gitlinks the workspace's index did not hold when the
// session's runs began and whose directory has a .git, and takes them out
// of the index. The repository stays on disk, untracked: git status then
// does not go into it.

// gitlinkWatch is the sandbox's view of the workspace index's gitlinks.
type gitlinkWatch struct {
	base   map[string]bool // gitlink paths before the first command
	taken  bool
	stamp  indexStamp // of the index last read
	hasRun map[string]bool
}

// indexStamp tells whether the index changed since it was last read:
// git replaces it by rename (a new file), or a command rewrites it.
type indexStamp struct {
	info os.FileInfo
}

func stampOf(st os.FileInfo) indexStamp { return indexStamp{info: st} }

func (a indexStamp) same(b indexStamp) bool {
	return a.info != nil && b.info != nil && os.SameFile(a.info, b.info) &&
		a.info.Size() == b.info.Size() && a.info.ModTime().Equal(b.info.ModTime())
}

// indexPath is the workspace's index, or "" where the sandbox does not
// watch it (not workspace-write; .git not a directory: a linked worktree's
// index lives elsewhere).
func (s *Sandbox) indexPath() string {
	if s.mode != ModeWorkspaceWrite || s.ws == "" {
		return ""
	}
	g := filepath.Join(s.ws, ".git")
	if st, err := os.Lstat(g); err != nil || !st.IsDir() {
		return ""
	}
	return filepath.Join(g, "index")
}

// baselineGitlinks records the index's gitlinks when a run starts its
// first command, before that command runs. While another run has a live
// spawner, the earlier baseline stays (that run's commands may have staged
// since). Called with s.mu held.
func (s *Sandbox) baselineGitlinks(runID string) {
	p := s.indexPath()
	if p == "" {
		return
	}
	if s.links.hasRun == nil {
		s.links.hasRun = map[string]bool{}
	}
	if s.links.hasRun[runID] {
		return
	}
	s.links.hasRun[runID] = true
	if s.links.taken && len(s.spawners) > 0 {
		return
	}
	s.links.taken = true
	s.links.base = map[string]bool{}
	st, err := os.Stat(p)
	if err != nil {
		s.links.stamp = indexStamp{}
		return
	}
	idx, err := readIndex(p)
	if err != nil {
		return
	}
	s.links.stamp = stampOf(st)
	for _, e := range idx.Entries {
		if e.Mode == filemode.Submodule {
			s.links.base[e.Name] = true
		}
	}
}

// undoNewGitlinks takes out of the index the gitlinks a command staged
// for a repository it made, and reports each.
func (s *Sandbox) undoNewGitlinks() []event.SandboxBlock {
	p := s.indexPath()
	if p == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.links.taken {
		return nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil
	}
	if stampOf(st).same(s.links.stamp) {
		return nil
	}
	idx, err := readIndex(p)
	if err != nil {
		return nil
	}
	var found []string
	drop := map[string]bool{}
	for _, e := range idx.Entries {
		if e.Mode != filemode.Submodule || s.links.base[e.Name] {
			continue
		}
		if _, err := os.Lstat(filepath.Join(s.ws, filepath.FromSlash(e.Name), ".git")); err != nil {
			continue // no repository there: git status has nothing to go into
		}
		if !drop[e.Name] {
			found = append(found, e.Name)
		}
		drop[e.Name] = true
	}
	if len(found) == 0 {
		s.links.stamp = stampOf(st)
		return nil
	}
	werr := removeGitlinks(p, drop)
	if st, err := os.Stat(p); err == nil && werr == nil {
		s.links.stamp = stampOf(st)
	}
	var out []event.SandboxBlock
	for _, name := range found {
		target := filepath.Join(s.ws, filepath.FromSlash(name))
		out = append(out, event.SandboxBlock{Kind: "write", Target: target, Allow: gitlinkAllow(name, werr)})
	}
	return out
}

func gitlinkAllow(name string, werr error) string {
	check := fmt.Sprintf("check %s/.git/config and %s/.git/hooks (or where a .git file points) before running git in it or cd-ing into it "+
		"(a shell prompt that shows git status runs git there)", name, name)
	if werr != nil {
		return fmt.Sprintf("the command staged a repository it made (%s) as a gitlink: your next git status would go into it and run "+
			"its hooks and core.fsmonitor outside any sandbox. The sandbox could not take it out of the index (%v): run "+
			"git rm --cached %s before any other git command in the workspace; %s", name, werr, name, check)
	}
	return fmt.Sprintf("the command staged a repository it made (%s) as a gitlink: git status would have gone into it and run its "+
		"hooks and core.fsmonitor outside any sandbox. The sandbox took it out of the index; the repository stays on disk, "+
		"untracked (git status does not go into it). To keep it as a gitlink, %s, then run git add %s yourself", name, check, name)
}

func readIndex(p string) (*index.Index, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	idx := &index.Index{}
	if err := index.NewDecoder(bytes.NewReader(b)).Decode(idx); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return idx, nil
}

// removeGitlinks rewrites the index at p without the gitlink entries
// named in drop; every other entry is kept as it was. The optional
// extensions are dropped (git rebuilds its cached tree and untracked
// cache); an index with a mandatory extension (split index, sparse index)
// or with conflicts is left alone. The write follows git's own lock
// protocol: index.lock, made exclusively, renamed over the index.
func removeGitlinks(p string, drop map[string]bool) error {
	idx, err := readIndex(p)
	if err != nil {
		return err
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if e.Stage != 0 {
			return errors.New("the index has unresolved conflicts")
		}
		if e.Mode == filemode.Submodule && drop[e.Name] {
			continue
		}
		kept = append(kept, e)
	}
	if !sort.SliceIsSorted(kept, func(i, j int) bool { return kept[i].Name < kept[j].Name }) {
		return errors.New("the index's entries are out of order")
	}
	idx.Entries = kept
	idx.Cache, idx.ResolveUndo, idx.EndOfIndexEntry = nil, nil, nil
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		return fmt.Errorf("write the index: %w", err)
	}
	perm := os.FileMode(0o644)
	if st, err := os.Stat(p); err == nil {
		perm = st.Mode().Perm()
	}
	lock := p + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("lock the index: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lock, p)
	}
	if err != nil {
		os.Remove(lock)
		return fmt.Errorf("write the index: %w", err)
	}
	return nil
}
