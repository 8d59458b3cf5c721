package evals

import "strings"

// price is a model's list price in US dollars per million tokens.
type price struct {
	input, output float64
}

// prices are list prices of known models (OpenAI's published per-token
// prices, 2025), longest prefix first wins. A model not listed is reported
// in tokens only.
var prices = []struct {
	prefix string
	price
}{
	{"gpt-4.1-nano", price{0.10, 0.40}},
	{"gpt-4.1-mini", price{0.40, 1.60}},
	{"gpt-4.1", price{2.00, 8.00}},
	{"gpt-4o-mini", price{0.15, 0.60}},
	{"gpt-4o", price{2.50, 10.00}},
	{"gpt-5-nano", price{0.05, 0.40}},
	{"gpt-5-mini", price{0.25, 2.00}},
	{"gpt-5", price{1.25, 10.00}},
	{"o4-mini", price{1.10, 4.40}},
	{"o3-mini", price{1.10, 4.40}},
	{"o3", price{2.00, 8.00}},
}

// Cost is the price of tokens on model, or nil when the model is not in the
// table or the provider reported no usage.
func Cost(model string, t Tokens) *float64 {
	if t.Input == 0 && t.Output == 0 {
		return nil
	}
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // "openai/gpt-4.1" from a router
	}
	best := -1
	for i, p := range prices {
		if strings.HasPrefix(m, p.prefix) && (best < 0 || len(p.prefix) > len(prices[best].prefix)) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	p := prices[best].price
	c := roundTo((float64(t.Input)*p.input+float64(t.Output)*p.output)/1e6, 6)
	return &c
}
