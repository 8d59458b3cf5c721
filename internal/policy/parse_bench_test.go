package policy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func BenchmarkParseOnly(b *testing.B) {
	s := longChain()
	b.ReportAllocs()
	for b.Loop() {
		f, _ := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
		syntax.Walk(f, func(syntax.Node) bool { return true })
	}
}
