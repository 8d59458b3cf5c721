package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"agent/internal/event"
	"agent/internal/gitignore"
)

// ListDir is the list_dir tool: one directory's entries.
type ListDir struct{}

// listMaxEntries bounds a listing.
const listMaxEntries = 1000

type listDirArgs struct {
	Path string `json:"path"`
}

func (ListDir) Name() string     { return "list_dir" }
func (ListDir) Risk() event.Risk { return event.RiskRead }
func (ListDir) Description() string {
	return "List the entries of a workspace directory (default: the workspace root), one a line, sorted; " +
		"directories end with \"/\", symlinks with \"@\", files show their size. Not recursive: use glob for that. " +
		"Entries ignored by .gitignore and the .git directory are left out."
}

func (ListDir) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"path": strField("Directory path relative to the workspace (default \".\")."),
	})
}

func (t ListDir) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a listDirArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return Result{}, err
	}
	if err := checkEnv(t.Name(), env); err != nil {
		return Result{}, err
	}
	root, err := env.openRoot()
	if err != nil {
		return Result{}, fmt.Errorf("list_dir: %w", err)
	}
	_, rel, err := Resolve(env.Workspace, a.Path)
	if err != nil {
		return Result{}, fmt.Errorf("list_dir: %w", err)
	}
	d, err := gitignore.OpenDir(root, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Result{}, fmt.Errorf("list_dir: %s: directory not found: %w", rel, fs.ErrNotExist)
	case err != nil:
		if fi, serr := root.Stat(rel); serr == nil && !fi.IsDir() {
			return Result{}, fmt.Errorf("list_dir: %s is a file, not a directory; use read_file", rel)
		}
		return Result{}, fmt.Errorf("list_dir: %w", confined(env.Workspace, a.Path, err))
	}
	defer d.Close()
	entries, err := d.Entries()
	if err != nil {
		return Result{}, fmt.Errorf("list_dir: %w", err)
	}
	// The directory named explicitly is listed even if ignored; its entries
	// follow the rules the walks, the repo map and checkpoints follow.
	rules, off := gitignore.NewTree(root.Name(), root.FS()).Dir(gitignore.Split(rel))
	parts := append(gitignore.Split(rel), "")

	var b strings.Builder
	shown, ignored := 0, 0
	for _, de := range entries {
		name := de.Name()
		if name == ".git" {
			continue
		}
		parts[len(parts)-1] = name
		if !off && rules.Match(parts, de.IsDir()) {
			ignored++
			continue
		}
		if shown == listMaxEntries {
			fmt.Fprintf(&b, "[... more entries not shown; the directory has %d]\n", len(entries))
			break
		}
		shown++
		switch {
		case de.IsDir():
			b.WriteString(name + "/\n")
		case de.Type()&fs.ModeSymlink != 0:
			b.WriteString(name + "@\n")
		default:
			size := ""
			if info, err := d.Lstat(name); err == nil {
				size = "  " + humanSize(info.Size())
			}
			b.WriteString(name + size + "\n")
		}
	}
	header := rel + "/\n"
	if rel == "." {
		header = "./\n"
	}
	if shown == 0 {
		b.WriteString("(no entries)\n")
	}
	if ignored > 0 {
		fmt.Fprintf(&b, "(%d ignored entries not shown)\n", ignored)
	}
	return Result{Output: Truncate(header+b.String(), MaxOutput)}, nil
}

// humanSize renders a byte count compactly: 512 B, 1.5 KB, 3.2 MB.
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTPE"[exp])
}
