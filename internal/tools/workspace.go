package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PathError is a path a tool refuses: one that resolves outside the workspace
// (through "..", an absolute path or a symlink), or a write into a .git
// directory.
type PathError struct {
	Path      string // the path as the model gave it
	Resolved  string // where it leads, when known
	Workspace string
	Reason    PathReason
}

// PathReason says why a path was refused.
type PathReason string

// Reasons for refusing a path.
const (
	ReasonOutside PathReason = "outside" // it resolves outside the workspace
	ReasonGit     PathReason = "git"     // a write inside a .git directory
	// ReasonMoved: it resolved inside, but a directory on the way was
	// swapped for a symlink out while the tool opened it.
	ReasonMoved PathReason = "moved"
	// ReasonKept: a script the person's hooks run outside the sandbox.
	ReasonKept PathReason = "kept"
)

func (e *PathError) Error() string {
	switch e.Reason {
	case ReasonGit:
		return fmt.Sprintf("path %q is inside a .git directory; the repository's own files are never written by tools", e.Path)
	case ReasonKept:
		return fmt.Sprintf("path %q is a script the person's hooks run (outside the sandbox); tools never write it", e.Path)
	case ReasonMoved:
		return fmt.Sprintf("path %q resolves outside the workspace (a directory on the way was swapped for a symlink leading out of %s while the tool opened it; nothing outside was read or written); use a path relative to the workspace", e.Path, e.Workspace)
	}
	where := e.Workspace
	if e.Resolved != "" {
		where = fmt.Sprintf("it leads to %s, the workspace is %s", e.Resolved, e.Workspace)
	}
	return fmt.Sprintf("path %q resolves outside the workspace (%s); use a path relative to the workspace", e.Path, where)
}

// maxLinks bounds symlink chains, as the kernel does (ELOOP).
const maxLinks = 255

// Resolve confines p to workspace. p may be relative to the workspace or
// absolute inside it; "" means the workspace itself. Symlinks are followed —
// in every component, dangling ones too, and for paths that do not exist yet
// (the part that exists is resolved, the rest appended) — and the result must
// stay inside the symlink-resolved workspace. It returns the resolved absolute
// path and that path relative to the workspace, slash-separated ("." for the
// root). A refusal is a *PathError.
//
// Resolve only decides; it does not hold the path. The file tools open the
// relative path it returns beneath the workspace's *os.Root (confine.go), so
// a symlink swapped in after Resolve looked cannot lead them outside.
func Resolve(workspace, p string) (abs, rel string, err error) {
	root, err := workspaceRoot(workspace)
	if err != nil {
		return "", "", err
	}
	lexRoot := filepath.Clean(workspace)
	outside := func(resolved string) error {
		return &PathError{Path: p, Resolved: resolved, Workspace: root, Reason: ReasonOutside}
	}

	var joined string
	switch {
	case p == "":
		joined = root
	case filepath.IsAbs(p):
		joined = filepath.Clean(p)
		// Accept an absolute path under the workspace as given or as resolved.
		if r, ok := within(lexRoot, joined); ok && lexRoot != root {
			joined = filepath.Join(root, r)
		} else if _, ok := within(root, joined); !ok {
			return "", "", outside(joined)
		}
	default:
		joined = filepath.Join(root, p)
		if _, ok := within(root, joined); !ok {
			return "", "", outside(joined)
		}
	}

	resolved, err := evalLenient(joined)
	if err != nil {
		return "", "", fmt.Errorf("resolve %q: %w", p, err)
	}
	r, ok := within(root, resolved)
	if !ok {
		return "", "", outside(resolved)
	}
	return resolved, r, nil
}

// ResolveWrite is Resolve for a path a tool will write: it also refuses any
// path inside a .git directory (the user's repository, or a nested one),
// whether named directly or reached through a symlink.
func ResolveWrite(workspace, p string) (abs, rel string, err error) {
	abs, rel, err = Resolve(workspace, p)
	if err != nil {
		return "", "", err
	}
	lexical := filepath.ToSlash(filepath.Clean(p))
	if inGitDir(rel) || inGitDir(lexical) {
		root, _ := workspaceRoot(workspace)
		return "", "", &PathError{Path: p, Resolved: abs, Workspace: root, Reason: ReasonGit}
	}
	return abs, rel, nil
}

// inGitDir reports whether a slash path has a ".git" component.
func inGitDir(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if strings.EqualFold(c, ".git") {
			return true
		}
	}
	return false
}

// workspaceRoot returns the cleaned, symlink-resolved workspace.
func workspaceRoot(workspace string) (string, error) {
	if workspace == "" || !filepath.IsAbs(workspace) {
		return "", fmt.Errorf("workspace %q is not an absolute path", workspace)
	}
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return "", fmt.Errorf("workspace: %w", err)
	}
	return root, nil
}

// within reports whether p lies in root (or is root) and p relative to root,
// slash-separated. Both must be clean absolute paths.
func within(root, p string) (string, bool) {
	r, err := filepath.Rel(root, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// evalLenient resolves every symlink of the absolute path p, like
// filepath.EvalSymlinks, but does not require p to exist: a dangling symlink
// is followed to its target, and components below one that does not exist are
// appended as they are (what does not exist cannot be a link).
func evalLenient(p string) (string, error) {
	vol := filepath.VolumeName(p)
	sep := string(filepath.Separator)
	resolved := vol + sep
	rest := strings.Split(p[len(vol):], sep)
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// Nothing below exists, so nothing below is a link; keep walking
			// only so that a later ".." comes back to real directories.
			resolved = next
			continue
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			resolved = tv + sep
			target = target[len(tv):]
		}
		rest = append(strings.Split(target, sep), rest...)
	}
	return resolved, nil
}
