// Package worktree owns the linked git worktrees the agent makes of a
// person's repository: a fork's own checkout on its own branch (and, for
// whoever needs one, any run that must not touch the workspace's files).
//
// go-git has no `git worktree add`, so Add writes git's worktree
// administrative files itself, exactly as git does
// (<common>/worktrees/<name>/{HEAD,commondir,gitdir} and the worktree's
// .git file "gitdir: ..."), commits the files it is given on a new branch
// and checks that commit out (files and index, written once each: see
// checkout). `git worktree
// list` lists the result, `git worktree remove` removes it, and `git
// status` in it is clean. Remove takes a worktree away only when it holds
// no uncommitted change (a *DirtyError says what), and its branch only when
// nothing was committed on it since Add, unless told to force both (a
// worker subagent's worktree, whose changes its caller has read); Forget
// clears what a crash in the middle of Add left. No git binary is run, so
// no hook of the repository runs.
//
// Only these are written in the person's repository: the new branch's ref,
// the commit and the objects of its tree, and the worktree's administrative
// directory. The workspace's files, index, HEAD and config are not touched.
package worktree

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// AddOptions say what worktree Add makes.
type AddOptions struct {
	// Repo is the workspace: the top directory of a git repository's
	// worktree (its main one or a linked one).
	Repo string
	// Path is the new worktree's directory; it must not exist yet.
	Path string
	// Branch is the new branch's short name, e.g. "agent/fork-RUN"; it must
	// not exist yet.
	Branch string
	// Tree stores the files of the new worktree in the repository's object
	// store and returns their tree's id (a checkpoint's CopyTree). It is
	// committed on Branch, with the workspace's HEAD as parent (none when
	// the HEAD is unborn), so the worktree starts clean.
	Tree func(storer.EncodedObjectStorer) (plumbing.Hash, error)
	// Message is that commit's message.
	Message string
}

// Worktree is a linked worktree Add made.
type Worktree struct {
	Path   string // absolute
	Branch string // short name
	Commit string // the commit Add made on Branch
	Admin  string // its administrative directory, <common>/worktrees/<name>
}

// Add makes a linked worktree of opt.Repo at opt.Path on the new branch
// opt.Branch, holding the files opt.Tree stores. On an error nothing of it
// is left behind.
func Add(ctx context.Context, opt AddOptions) (wt *Worktree, err error) {
	if opt.Tree == nil || opt.Branch == "" || opt.Path == "" {
		return nil, errors.New("worktree: add: no tree, branch or path")
	}
	common, err := commonDir(opt.Repo)
	if err != nil {
		return nil, err
	}
	path, err := filepath.Abs(opt.Path)
	if err != nil {
		return nil, fmt.Errorf("worktree: %w", err)
	}
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("worktree: %s exists already: choose another directory or remove it", path)
	}
	repo, err := git.PlainOpenWithOptions(opt.Repo, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("worktree: open the git repository of %s: %w", opt.Repo, err)
	}
	ref := plumbing.NewBranchReferenceName(opt.Branch)
	if _, err := repo.Storer.Reference(ref); err == nil {
		return nil, fmt.Errorf("worktree: branch %s exists already in %s", opt.Branch, opt.Repo)
	}
	var parents []plumbing.Hash
	if head, err := repo.Head(); err == nil {
		parents = append(parents, head.Hash())
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil, fmt.Errorf("worktree: the HEAD of %s: %w", opt.Repo, err)
	}
	tree, err := opt.Tree(repo.Storer)
	if err != nil {
		return nil, fmt.Errorf("worktree: store the files: %w", err)
	}
	sig := signature(repo)
	c := &object.Commit{Author: sig, Committer: sig, Message: opt.Message, TreeHash: tree, ParentHashes: parents}
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return nil, fmt.Errorf("worktree: encode the commit: %w", err)
	}
	commit, err := repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return nil, fmt.Errorf("worktree: store the commit: %w", err)
	}
	if err := repo.Storer.SetReference(plumbing.NewHashReference(ref, commit)); err != nil {
		return nil, fmt.Errorf("worktree: create branch %s: %w", opt.Branch, err)
	}
	w := &Worktree{Path: path, Branch: opt.Branch, Commit: commit.String()}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(path)
			if w.Admin != "" {
				_ = os.RemoveAll(w.Admin)
			}
			_ = repo.Storer.RemoveReference(ref)
		}
	}()
	if w.Admin, err = makeAdmin(common, path, ref); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	wr, err := git.PlainOpenWithOptions(path, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("worktree: open the new worktree %s: %w", path, err)
	}
	if err := checkout(ctx, wr, commit, path); err != nil {
		return nil, fmt.Errorf("worktree: check out %s in %s: %w", opt.Branch, path, err)
	}
	return w, nil
}

// makeAdmin writes the worktree's administrative directory and its .git
// file, as `git worktree add` does; it returns the directory.
func makeAdmin(common, path string, ref plumbing.ReferenceName) (string, error) {
	base := filepath.Join(common, "worktrees")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("worktree: %w", err)
	}
	name := sanitize(filepath.Base(path))
	admin := filepath.Join(base, name)
	for i := 1; ; i++ {
		err := os.Mkdir(admin, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || i > 100 {
			return "", fmt.Errorf("worktree: %w", err)
		}
		admin = filepath.Join(base, fmt.Sprintf("%s%d", name, i))
	}
	files := []struct{ name, data string }{
		{"HEAD", "ref: " + ref.String() + "\n"},
		{"commondir", "../..\n"},
		{"gitdir", filepath.Join(path, ".git") + "\n"},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(admin, f.name), []byte(f.data), 0o644); err != nil {
			return admin, fmt.Errorf("worktree: %w", err)
		}
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return admin, fmt.Errorf("worktree: %w", err)
	}
	if err := os.WriteFile(filepath.Join(path, ".git"), []byte("gitdir: "+admin+"\n"), 0o644); err != nil {
		return admin, fmt.Errorf("worktree: %w", err)
	}
	return admin, nil
}

// sanitize makes a worktree's directory name a name git accepts for its
// administrative directory.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 || strings.HasPrefix(b.String(), ".") {
		return "wt" + b.String()
	}
	return b.String()
}

// signature is the person's name and e-mail from the git configuration,
// else the agent's.
func signature(repo *git.Repository) object.Signature {
	sig := object.Signature{Name: "agent", Email: "agent@localhost", When: time.Now()}
	if cfg, err := repo.ConfigScoped(config.GlobalScope); err == nil {
		if cfg.User.Name != "" {
			sig.Name = cfg.User.Name
		}
		if cfg.User.Email != "" {
			sig.Email = cfg.User.Email
		}
	}
	return sig
}

// commonDir is the git directory shared by every worktree of the
// repository whose worktree top is repo: repo/.git, or for a linked
// worktree the directory its administrative directory's commondir names.
func commonDir(repo string) (string, error) {
	dot := filepath.Join(repo, ".git")
	fi, err := os.Stat(dot)
	if err != nil {
		return "", fmt.Errorf("worktree: %s is not the top directory of a git repository (no .git): %w", repo, err)
	}
	if fi.IsDir() {
		return filepath.Abs(dot)
	}
	admin, err := gitdirOf(repo)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(admin, "commondir"))
	if err != nil {
		return admin, nil // a separate git dir, not a linked worktree
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(admin, c)
	}
	return filepath.Clean(c), nil
}

// gitdirOf reads the "gitdir: DIR" of a worktree's .git file.
func gitdirOf(path string) (string, error) {
	b, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		return "", fmt.Errorf("worktree: %w", err)
	}
	s := strings.TrimSpace(string(b))
	d, ok := strings.CutPrefix(s, "gitdir:")
	if !ok {
		return "", fmt.Errorf("worktree: %s/.git is not a gitdir file", path)
	}
	d = strings.TrimSpace(d)
	if !filepath.IsAbs(d) {
		d = filepath.Join(path, d)
	}
	return filepath.Clean(d), nil
}
