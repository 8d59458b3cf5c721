package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"agent/internal/gitignore"
	"agent/internal/redact"
)

// NewRedactor builds the redactor of a workspace (see newRedactor), for
// commands that redact outside a run (agent redact, agent export).
func NewRedactor(set *Settings) (*redact.Redactor, error) { return newRedactor(set) }

// newRedactor builds the run's redactor: the per-install key under the state
// directory, every secret-looking environment value, and every value of the
// workspace's .env files as exact-match secrets — and, in a linked
// worktree (a fork's), of its repository's main worktree's: the worktree
// holds no ignored file, but its commands can read the original's.
func newRedactor(set *Settings) (*redact.Redactor, error) {
	key, err := redact.LoadOrCreateKey(filepath.Join(set.Home, "redact.key"))
	if err != nil {
		return nil, usage("redaction key: %v", err)
	}
	r := redact.New(redact.Config{Key: key, PII: set.RedactPII, InternalDomains: set.InternalDomains})
	r.AddEnv(os.Environ())
	files := dotenvFiles(set.Workspace)
	if main := mainWorktree(set.Workspace); main != "" {
		files = append(files, dotenvFiles(main)...)
	}
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			r.AddDotenv(b)
		}
	}
	return r, nil
}

// dotenvFiles finds .env and .env.* files near the top of the workspace
// (three levels), skipping VCS and dependency directories.
func dotenvFiles(ws string) []string {
	var out []string
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(ws, p)
			if rel != "." && (strings.Count(rel, string(filepath.Separator)) >= 3 || skipDir[d.Name()]) {
				return filepath.SkipDir
			}
			return nil
		}
		if n := d.Name(); (n == ".env" || strings.HasPrefix(n, ".env.")) && !templateEnv(n) && d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// templateEnv: .env.example and the like hold placeholders, not secrets.
func templateEnv(name string) bool {
	for _, s := range []string{".example", ".sample", ".template", ".dist", ".defaults"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

var skipDir = map[string]bool{".git": true, "node_modules": true, "vendor": true, ".venv": true, "venv": true, "target": true, "dist": true, "build": true}

// mainWorktree is the main worktree of the repository ws is a linked
// worktree of; "" when ws is not one.
func mainWorktree(ws string) string {
	l := gitignore.Locate(ws)
	if l.Top == "" || l.Exclude == "" {
		return ""
	}
	common := filepath.Dir(filepath.Dir(l.Exclude))
	if filepath.Base(common) != ".git" {
		return ""
	}
	main := filepath.Dir(common)
	if main == l.Top {
		return ""
	}
	if st, err := os.Lstat(common); err != nil || !st.IsDir() {
		return ""
	}
	return main
}
