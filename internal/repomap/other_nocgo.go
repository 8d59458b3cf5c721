//go:build !cgo

package repomap

// otherEngine names the extractor used for non-Go languages in this build:
// without cgo there is no tree-sitter, and the coarser line scanner
// (linescan.go) stands in for Python, JavaScript, TypeScript, Rust and Java.
const otherEngine = lineEngine

// TreeSitter reports whether this build parses non-Go languages with
// tree-sitter (true) or with the line scanner (false, CGO_ENABLED=0).
const TreeSitter = false

func parseOther(lang, name string, src []byte) (*FileTags, error) {
	return scanLines(lang, name, src), nil
}
