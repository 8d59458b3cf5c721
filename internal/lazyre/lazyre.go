// Package lazyre owns regular expressions compiled on first use rather
// than when their package is initialised: every process of the binary
// (agent version, the sandbox spawner, hooks' keepers) paid for compiling
// every package-level regexp at start (docs/benchmarks.md, "The process
// floor"). It wraps the methods the agent's packages use; it touches
// nothing else.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regexp compiled by the first method called on it. A pattern
// that does not compile panics then, as regexp.MustCompile would have at
// start; every pattern is a constant checked by its package's tests.
type Regexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// New returns a Regexp for src, not yet compiled.
func New(src string) *Regexp { return &Regexp{src: src} }

// Get returns the compiled regexp.
func (l *Regexp) Get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// MatchString is regexp.Regexp.MatchString.
func (l *Regexp) MatchString(s string) bool { return l.Get().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *Regexp) FindStringSubmatch(s string) []string { return l.Get().FindStringSubmatch(s) }

// FindAllString is regexp.Regexp.FindAllString.
func (l *Regexp) FindAllString(s string, n int) []string { return l.Get().FindAllString(s, n) }

// FindAllStringIndex is regexp.Regexp.FindAllStringIndex.
func (l *Regexp) FindAllStringIndex(s string, n int) [][]int { return l.Get().FindAllStringIndex(s, n) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (l *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.Get().FindAllStringSubmatch(s, n)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (l *Regexp) ReplaceAllString(src, repl string) string {
	return l.Get().ReplaceAllString(src, repl)
}

// String is the pattern.
func (l *Regexp) String() string { return l.src }

// FindAllSubmatch is regexp.Regexp.FindAllSubmatch.
func (l *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte { return l.Get().FindAllSubmatch(b, n) }

// FindAllSubmatchIndex is regexp.Regexp.FindAllSubmatchIndex.
func (l *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return l.Get().FindAllSubmatchIndex(b, n)
}
