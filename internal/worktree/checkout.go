package worktree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// checkout writes the files of commit into the new worktree at path and
// its index, with each file's stat data, so that `git status` there is
// clean. It writes every file once and compares nothing: go-git's own
// hard reset first diffs the empty directory against the tree, which on a
// 20k-file repository costs tens of seconds. Submodule entries are left
// out of the files (an empty directory, as git leaves one it does not
// initialize) but kept in the index.
func checkout(ctx context.Context, wr *git.Repository, commit plumbing.Hash, path string) error {
	c, err := wr.CommitObject(commit)
	if err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	tree, err := c.Tree()
	if err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	var entries []*index.Entry
	made := map[string]bool{".": true}
	walker := object.NewTreeWalker(tree, true, nil)
	defer walker.Close()
	for {
		name, e, err := walker.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("worktree: read the tree: %w", err)
		}
		if e.Mode == filemode.Dir {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			return fmt.Errorf("worktree: the tree holds the path %q, which is not below the worktree", name)
		}
		p := filepath.Join(path, filepath.FromSlash(name))
		if d := filepath.Dir(p); !made[d] {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return fmt.Errorf("worktree: %w", err)
			}
			made[d] = true
		}
		entries = append(entries, &index.Entry{Hash: e.Hash, Name: name, Mode: e.Mode})
	}
	// the blobs are read here, in order (go-git's object storage is not
	// safe for concurrent use); the files are written by a few goroutines,
	// as creating a file waits on the filesystem more than on a CPU
	type job struct {
		ent  *index.Entry
		data []byte
	}
	jobs := make(chan job, 64)
	errs := make(chan error, checkoutWriters)
	var wg sync.WaitGroup
	for range checkoutWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if err := writeEntry(j.ent, filepath.Join(path, filepath.FromSlash(j.ent.Name)), j.data); err != nil {
					errs <- err
					for range jobs { // drain: the reader stops at the error
					}
					return
				}
			}
		}()
	}
	var rerr error
	for _, ent := range entries {
		if rerr = ctx.Err(); rerr != nil || len(errs) > 0 {
			break
		}
		var data []byte
		if ent.Mode != filemode.Submodule {
			if data, rerr = blobBytes(wr, ent.Hash); rerr != nil {
				break
			}
		}
		jobs <- job{ent, data}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	if rerr != nil {
		return rerr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	idx := &index.Index{Version: 2, Entries: entries}
	if err := wr.Storer.SetIndex(idx); err != nil {
		return fmt.Errorf("worktree: write the index: %w", err)
	}
	return nil
}

// checkoutWriters is how many goroutines write a worktree's files.
const checkoutWriters = 4

// writeEntry writes data as the file of ent at p and records its stat
// data in ent.
func writeEntry(ent *index.Entry, p string, data []byte) error {
	switch ent.Mode {
	case filemode.Submodule:
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("worktree: %w", err)
		}
		return nil
	case filemode.Symlink:
		if err := os.Symlink(string(data), p); err != nil {
			return fmt.Errorf("worktree: %w", err)
		}
	default:
		perm := fs.FileMode(0o644)
		if ent.Mode == filemode.Executable {
			perm = 0o755
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return fmt.Errorf("worktree: %w", err)
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return fmt.Errorf("worktree: write %s: %w", p, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("worktree: write %s: %w", p, err)
		}
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	ent.ModifiedAt, ent.Size = fi.ModTime(), uint32(fi.Size())
	ent.CreatedAt = ent.ModifiedAt
	fillStat(ent, fi)
	return nil
}

func blobBytes(r *git.Repository, h plumbing.Hash) ([]byte, error) {
	b, err := r.BlobObject(h)
	if err != nil {
		return nil, fmt.Errorf("worktree: blob %s: %w", h, err)
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("worktree: blob %s: %w", h, err)
	}
	defer rd.Close()
	return io.ReadAll(rd)
}
