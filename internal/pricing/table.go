package pricing

// builtin is the list price of each model, USD per million tokens, from the
// providers' public price pages (openai.com/api/pricing,
// docs.anthropic.com/en/docs/about-claude/pricing) as of 2025-11-20.
// Prices change: a user's [models."NAME"] price_* keys override these.
//
// OpenAI charges nothing extra to write its prompt cache (cache write =
// input) and bills cached input at its "cached input" rate. Anthropic's
// cache write is the 5-minute one (1.25x input) and its cache read 0.1x
// input; Sonnet's higher rate above 200k input tokens is not modelled.
var builtin = map[string]Price{
	// OpenAI: GPT-5 family
	"gpt-5":               oai(1.25, 0.125, 10),
	"gpt-5-mini":          oai(0.25, 0.025, 2),
	"gpt-5-nano":          oai(0.05, 0.005, 0.40),
	"gpt-5-codex":         oai(1.25, 0.125, 10),
	"gpt-5-pro":           oai(15, 15, 120),
	"gpt-5-chat-latest":   oai(1.25, 0.125, 10),
	"gpt-5.1":             oai(1.25, 0.125, 10),
	"gpt-5.1-codex":       oai(1.25, 0.125, 10),
	"gpt-5.1-codex-mini":  oai(0.25, 0.025, 2),
	"gpt-5.1-chat-latest": oai(1.25, 0.125, 10),
	// OpenAI: GPT-4.1 and GPT-4o
	"gpt-4.1":           oai(2, 0.50, 8),
	"gpt-4.1-mini":      oai(0.40, 0.10, 1.60),
	"gpt-4.1-nano":      oai(0.10, 0.025, 0.40),
	"gpt-4o":            oai(2.50, 1.25, 10),
	"gpt-4o-mini":       oai(0.15, 0.075, 0.60),
	"chatgpt-4o-latest": oai(5, 5, 15),
	"gpt-4-turbo":       oai(10, 10, 30),
	"gpt-4":             oai(30, 30, 60),
	"gpt-3.5-turbo":     oai(0.50, 0.50, 1.50),
	// OpenAI: reasoning models
	"o1":                oai(15, 7.50, 60),
	"o1-mini":           oai(1.10, 0.55, 4.40),
	"o1-pro":            oai(150, 150, 600),
	"o3":                oai(2, 0.50, 8),
	"o3-mini":           oai(1.10, 0.55, 4.40),
	"o3-pro":            oai(20, 20, 80),
	"o4-mini":           oai(1.10, 0.275, 4.40),
	"codex-mini-latest": oai(1.50, 0.375, 6),

	// Anthropic: Claude 4.x
	"claude-opus-4-5":   ant(5, 25),
	"claude-opus-4-1":   ant(15, 75),
	"claude-opus-4":     ant(15, 75),
	"claude-sonnet-4-5": ant(3, 15),
	"claude-sonnet-4":   ant(3, 15),
	"claude-haiku-4-5":  ant(1, 5),
	// Anthropic: Claude 3.x
	"claude-3-7-sonnet": ant(3, 15),
	"claude-3-5-sonnet": ant(3, 15),
	"claude-3-5-haiku":  ant(0.80, 4),
	"claude-3-opus":     ant(15, 75),
	"claude-3-haiku":    ant(0.25, 1.25),
}

// oai is an OpenAI price: cache writes cost the input price.
func oai(in, cached, out float64) Price {
	return Price{Input: in, Output: out, CacheRead: cached, CacheWrite: in}
}

// ant is an Anthropic price: cache reads at 0.1x input, 5-minute cache
// writes at 1.25x.
func ant(in, out float64) Price {
	return Price{Input: in, Output: out, CacheRead: in / 10, CacheWrite: in * 1.25}
}
