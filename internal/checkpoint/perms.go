package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// markers are the entries of a shadow repository whose modes tell whether
// it still has the group/other bits an earlier version gave it (go-git's
// 0755 directories, 0644 HEAD and config, 0444 objects); the repository
// directory itself was always 0700. They are tightened last, so a
// tightening that is killed half-way is finished by the next Open.
var markers = []string{"objects", "refs", "HEAD", "config"}

// tightenRepo removes the group and other bits from everything in gitDir
// if one of its markers has any. It costs four lstat calls when there is
// nothing to do.
func tightenRepo(gitDir string) error {
	loose := false
	for _, m := range markers {
		if fi, err := os.Lstat(filepath.Join(gitDir, m)); err == nil && fi.Mode().Perm()&0o077 != 0 {
			loose = true
			break
		}
	}
	if !loose {
		return nil
	}
	if err := tightenDir(gitDir, true); err != nil {
		return fmt.Errorf("checkpoint: make %s private: %w", gitDir, err)
	}
	return nil
}

// tightenDir chmods what dir holds, then dir itself (entries before their
// directory; at the top, the markers after everything else).
func tightenDir(dir string, top bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if top {
		slices.SortStableFunc(ents, func(a, b fs.DirEntry) int {
			am, bm := slices.Contains(markers, a.Name()), slices.Contains(markers, b.Name())
			switch {
			case am == bm:
				return 0
			case am:
				return 1
			}
			return -1
		})
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			continue // chmod would follow it out of the repository
		case e.IsDir():
			if err := tightenDir(p, false); err != nil {
				return err
			}
		default:
			if err := tighten(p); err != nil {
				return err
			}
		}
	}
	return tighten(dir)
}

func tighten(p string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if m := fi.Mode().Perm(); m&0o077 != 0 {
		return os.Chmod(p, m&^0o077)
	}
	return nil
}
