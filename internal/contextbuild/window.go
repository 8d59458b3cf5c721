package contextbuild

import (
	"context"
	"strings"

	"agent/internal/agent"
)

// WindowSource says where the builder's window came from.
const (
	WindowFromConfig   = "config"
	WindowFromProvider = "provider"
	WindowFromTable    = "model table"
	WindowDefault      = "default"
)

// knownWindows are the context windows of well-known models, by name
// prefix, longest prefix first where they overlap.
var knownWindows = []struct {
	prefix string
	tokens int
}{
	{"gpt-4.1", 1_047_576}, {"gpt-4o", 128_000}, {"gpt-4-turbo", 128_000}, {"gpt-4-32k", 32_768}, {"gpt-4", 8_192},
	{"gpt-3.5-turbo", 16_385}, {"gpt-5", 400_000}, {"o1-mini", 128_000}, {"o1", 200_000}, {"o3", 200_000}, {"o4-mini", 200_000},
	{"claude-", 200_000},
}

// KnownWindow returns the context window of a well-known model.
func KnownWindow(model string) (int, bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // "openai/gpt-4o" on a router
	}
	for _, k := range knownWindows {
		if strings.HasPrefix(m, k.prefix) {
			return k.tokens, true
		}
	}
	return 0, false
}

// resolveWindow settles the window at the first build: the config's, else
// the model table's, else the provider's model list, else the default.
func (b *Builder) resolveWindow(ctx context.Context) {
	if b.window > 0 {
		return
	}
	switch {
	case b.opt.Window > 0:
		b.window, b.windowSource = b.opt.Window, WindowFromConfig
		return
	}
	if n, ok := KnownWindow(b.opt.Model); ok {
		b.window, b.windowSource = n, WindowFromTable
		return
	}
	if b.opt.WindowLookup != nil {
		if n, err := b.opt.WindowLookup(ctx, b.opt.Model); err == nil && n > 0 {
			b.window, b.windowSource = n, WindowFromProvider
			return
		}
	}
	b.window, b.windowSource = agent.DefaultWindow, WindowDefault
}
