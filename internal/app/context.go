package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"agent/internal/agent"
	"agent/internal/contextbuild"
	"agent/internal/redact"
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
	red   *redact.Redactor

	mu      sync.Mutex
	builder repomap.Builder
	cache   repomap.Cache
	noCache bool
}

func (r *repoMapper) Map(ctx context.Context, q contextbuild.RepoMapQuery) (contextbuild.RepoMap, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil && !r.noCache {
		c, err := openRepoMapCache(ctx, r.store, r.root, r.red, r.warn)
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
		opts.Cache = r.cache
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

// openRepoMapCache opens the journal's tag cache of root for repomap
// builds: what it persists (rows and the root's snapshot) is redacted with
// red, and a failed write is a warning (the map is built either way; the
// next build parses those files again).
func openRepoMapCache(ctx context.Context, st *store.Store, root string, red *redact.Redactor, warn func(string)) (repomap.Cache, error) {
	c, err := st.RepomapCache(ctx, root)
	if err != nil {
		return nil, err
	}
	var redFn func(string) string
	if red != nil {
		redFn = red.Redact
	}
	c.EnableSnapshot(redFn)
	return softCache{c, warn, red}, nil
}

// WriteSnapshot turns a failed snapshot write into a warning.
func (s softCache) WriteSnapshot(ctx context.Context, write func(io.Writer) error) error {
	if err := s.RepomapCache.WriteSnapshot(ctx, write); err != nil && !errors.Is(err, repomap.ErrSnapshotsOff) {
		s.warn(fmt.Sprintf("the repo map snapshot was not saved (the next process reads the cache rows): %v", err))
	}
	return nil
}

// softCache turns a failed cache write into a warning (the map is built
// either way) and redacts what it writes: the tags quote signatures, and a
// constant's may hold a secret, which must not reach the disk.
type softCache struct {
	*store.RepomapCache
	warn func(string)
	red  *redact.Redactor
}

func (s softCache) Put(path string, size, mtimeNs int64, t *repomap.FileTags) {
	if s.red != nil && t != nil {
		cp := *t
		cp.Defs = make([]repomap.Tag, len(t.Defs))
		for i, d := range t.Defs {
			d.Signature = s.red.Redact(d.Signature)
			cp.Defs[i] = d
		}
		cp.Routes = make([]repomap.Route, len(t.Routes))
		for i, r := range t.Routes {
			r.Pattern = s.red.Redact(r.Pattern)
			cp.Routes[i] = r
		}
		cp.Refs = make(map[string]int, len(t.Refs))
		// an identifier is a token, not a key, unless it is long
		for k, n := range t.Refs {
			if len(k) >= 16 {
				k = s.red.Redact(k)
			}
			cp.Refs[k] += n
		}
		cp.Imports = make([]string, len(t.Imports))
		for i, imp := range t.Imports {
			if len(imp) >= 16 {
				imp = s.red.Redact(imp)
			}
			cp.Imports[i] = imp
		}
		cp.Package = s.red.Redact(t.Package)
		t = &cp
	}
	s.RepomapCache.Put(path, size, mtimeNs, t)
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

// providerSummarizer asks the run's model for a compaction summary, as one
// streamed answer whose text is the summary (tool calls are ignored).
type providerSummarizer struct{ p agent.Provider }

func (s providerSummarizer) Summarize(ctx context.Context, req *agent.Request) (string, error) {
	st, err := s.p.Stream(ctx, req)
	if err != nil {
		return "", err
	}
	defer st.Close()
	var sb strings.Builder
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return sb.String(), nil
		}
		if err != nil {
			return "", err
		}
		switch ev.Kind {
		case agent.EvTextDelta:
			sb.WriteString(ev.Text)
		case agent.EvError:
			return "", ev.Err
		}
	}
}
