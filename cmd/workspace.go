package cmd

import (
	"fmt"
	"os"
	"path/filepath"
)

// resolveWorkspace returns the absolute, symlink-resolved workspace: -C DIR,
// else the git top-level of the current directory, else the current directory.
func resolveWorkspace(dir string) (string, error) {
	explicit := dir != ""
	if !explicit {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usageErr("workspace %s: %v", dir, err)
	}
	abs, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", usageErr("workspace %s does not exist (fix the -C path)", dir)
	}
	st, err := os.Stat(abs)
	if err != nil || !st.IsDir() {
		return "", usageErr("workspace %s is not a directory (fix the -C path)", dir)
	}
	if explicit {
		return abs, nil
	}
	for d := abs; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}
