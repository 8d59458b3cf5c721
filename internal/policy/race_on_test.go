//go:build race

package policy

// The race detector makes the parser several times slower: the bound on
// adversarial inputs grows with it.
const slowFactor = 10
