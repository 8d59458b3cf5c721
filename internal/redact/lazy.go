package redact

import (
	"regexp"
	"sync"
)

// The detectors' RE2 patterns are compiled on their first use, not when the
// package is initialised: compiled, the ~250 of them take 4.9 MB and ~20 ms,
// and a process that never redacts (agent help, agent runs, agent repomap)
// or a run whose text never hits a rule's keyword should not pay for them.
// Each compiled value is built once and never changes (sync.OnceValue); a
// pattern that does not compile panics at its first use, and
// TestEveryPatternCompiles compiles them all.

// lazyRE is a pattern compiled on its first use.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// lazyTable returns a function that gives element i of a table of n,
// building each element by build(i) on its first use.
func lazyTable[T any](n int, build func(i int) T) func(i int) T {
	table := sync.OnceValue(func() []func() T {
		out := make([]func() T, n)
		for i := range out {
			out[i] = sync.OnceValue(func() T { return build(i) })
		}
		return out
	})
	return func(i int) T { return table()[i]() }
}
