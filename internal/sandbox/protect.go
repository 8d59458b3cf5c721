package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// gitProtection lists, for a workspace, the git directories to pin and the
// paths inside them where git finds code to run: hooks, config, info (its
// attributes and excludes), the config of linked worktrees and the hooks
// and config of submodules. A .git file (a worktree or submodule checkout)
// is followed to its git directory and that one's common directory, and is
// itself protected (a command must not point it elsewhere). Paths
// outside every writable directory need nothing (Landlock keeps them
// read-only already). Missing hooks/ and info/ directories are made, empty,
// so a command cannot make them itself.
func gitProtection(ws string, writable []string) (pin, protect []string) {
	inWritable := func(p string) bool {
		for _, w := range writable {
			if p == w || strings.HasPrefix(p, w+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	for _, g := range gitDirs(ws) {
		if !inWritable(g) {
			continue
		}
		pin = append(pin, g)
		for _, sub := range []string{"hooks", "info"} {
			p := filepath.Join(g, sub)
			if _, err := os.Lstat(p); os.IsNotExist(err) {
				_ = os.Mkdir(p, 0o755)
			}
		}
		protect = append(protect, protectedIn(g, true)...)
	}
	if f, ok := gitFile(ws); ok && inWritable(f) {
		protect = append(protect, f)
	}
	return pin, protect
}

// gitFile is the workspace's .git when it is a file (a linked worktree, a
// fork's, or a submodule checkout): it names the git directory git reads
// hooks and config from, so a command that rewrote it would have the
// person's next git run what it planted.
func gitFile(ws string) (string, bool) {
	p := filepath.Join(ws, ".git")
	st, err := os.Lstat(p)
	return p, err == nil && st.Mode().IsRegular()
}

// gitProtectionPaths lists the protected paths of ws whether or not they
// exist (to explain a refused write).
func gitProtectionPaths(ws string) (dirs, protect []string) {
	dirs = gitDirs(ws)
	for _, g := range dirs {
		protect = append(protect, protectedIn(g, false)...)
	}
	if f, ok := gitFile(ws); ok {
		protect = append(protect, f)
	}
	return dirs, protect
}

// protectedIn lists the paths of git directory g where git finds code to
// run; existing: only those that exist.
func protectedIn(g string, existing bool) []string {
	var out []string
	for _, name := range []string{"hooks", "info", "config", "config.worktree", "commondir"} {
		p := filepath.Join(g, name)
		if st, err := os.Lstat(p); !existing || err == nil && (st.IsDir() || st.Mode().IsRegular()) {
			out = append(out, p)
		}
	}
	for _, pat := range []string{"modules/*/hooks", "modules/*/config", "modules/*/info", "worktrees/*/config", "worktrees/*/config.worktree"} {
		m, _ := filepath.Glob(filepath.Join(g, pat))
		for _, p := range m {
			if st, err := os.Lstat(p); err == nil && (st.IsDir() || st.Mode().IsRegular()) {
				out = append(out, p)
			}
		}
	}
	return out
}

// gitDirs are the workspace's git directories: .git, or the directory a
// .git file points at and its common directory.
func gitDirs(ws string) []string {
	var dirs []string
	addDir := func(d string) {
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			return
		}
		if st, err := os.Stat(r); err != nil || !st.IsDir() {
			return
		}
		for _, x := range dirs {
			if x == r {
				return
			}
		}
		dirs = append(dirs, r)
	}
	dotgit := filepath.Join(ws, ".git")
	if st, err := os.Lstat(dotgit); err == nil && st.Mode().IsRegular() {
		if b, err := os.ReadFile(dotgit); err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			if g, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:"); ok {
				g = strings.TrimSpace(g)
				if !filepath.IsAbs(g) {
					g = filepath.Join(ws, g)
				}
				addDir(g)
				if c, err := os.ReadFile(filepath.Join(g, "commondir")); err == nil {
					cd := strings.TrimSpace(string(c))
					if !filepath.IsAbs(cd) {
						cd = filepath.Join(g, cd)
					}
					addDir(cd)
				}
			}
		}
	} else {
		addDir(dotgit)
	}
	return dirs
}

// hideState is what covers the agent's state directory home: the directory
// itself, or — where the workspace lies beneath it (a fork's worktree in
// home/worktrees/RUN) — at every level down to the workspace, each entry
// that does not lead to it (the journal, the checkpoints, the other
// worktrees).
func hideState(home, ws string) (dirs, files []string) {
	r, err := filepath.EvalSymlinks(home)
	if err != nil {
		return nil, nil
	}
	if ws != r && !strings.HasPrefix(ws, r+string(filepath.Separator)) {
		return []string{r}, nil
	}
	for d := r; d != ws; {
		ents, err := os.ReadDir(d)
		if err != nil {
			return dirs, files
		}
		next := ""
		for _, e := range ents {
			p := filepath.Join(d, e.Name())
			if ws == p || strings.HasPrefix(ws, p+string(filepath.Separator)) {
				next = p
				continue
			}
			switch {
			case e.IsDir():
				dirs = append(dirs, p)
			case e.Type().IsRegular():
				files = append(files, p)
			}
		}
		if next == "" {
			break
		}
		d = next
	}
	return dirs, files
}
