package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"agent/internal/contextbuild"
	"agent/internal/repomap"
	"agent/internal/store"
)

// repoMapper renders the repo map of L5a for the context builder, with the
// journal's tag cache opened at its first use and kept for the session, so
// a refresh parses only the files that changed since the last one.
type repoMapper struct {
	root  string
	store *store.Store
	warn  func(string)

	mu      sync.Mutex
	builder repomap.Builder
	cache   *store.RepomapCache
	noCache bool
}

func (r *repoMapper) Map(ctx context.Context, q contextbuild.RepoMapQuery) (contextbuild.RepoMap, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil && !r.noCache {
		c, err := r.store.RepomapCache(ctx, r.root)
		if err != nil {
			r.noCache = true
			r.warn(fmt.Sprintf("the repo map cache could not be opened (every refresh parses again): %v", err))
		} else {
			r.cache = c
		}
	}
	conv := make([]string, 0, len(q.Files))
	for _, f := range q.Files {
		conv = append(conv, filepath.Join(r.root, filepath.FromSlash(f)))
	}
	opts := repomap.Options{Root: r.root, Tokens: q.Tokens, Query: q.Query, Conversation: conv, Workers: min(runtime.GOMAXPROCS(0), 4)}
	if r.cache != nil {
		opts.Cache = softCache{r.cache, r.warn}
	}
	m, err := r.builder.Build(ctx, opts)
	if err != nil {
		return contextbuild.RepoMap{}, err
	}
	out := contextbuild.RepoMap{Text: m.Text, Tokens: m.Tokens}
	for _, f := range m.Files {
		out.Files = append(out.Files, f.Path)
	}
	return out, nil
}

// softCache turns a failed cache write into a warning: the map is built
// either way.
type softCache struct {
	*store.RepomapCache
	warn func(string)
}

func (s softCache) Flush() error {
	if err := s.RepomapCache.Flush(); err != nil {
		s.warn(fmt.Sprintf("the repo map cache was not saved (the next refresh parses again): %v", err))
	}
	return nil
}

// globalInstructions is the user's own AGENTS.md, beside config.toml.
func globalInstructions() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "agent", "AGENTS.md")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config", "agent", "AGENTS.md")
	}
	return ""
}
