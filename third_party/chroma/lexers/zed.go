package lexers

import (
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// Zed lexer.
// Patched (agent, third_party/chroma): the change is made when the embedded
// lexers load (afterLoad), not at init.
func init() { // nolint: gochecknoinits
	afterLoad = append(afterLoad, func(find func(string) chroma.Lexer) {
		find("Zed").SetAnalyser(func(text string) float32 {
			if strings.Contains(text, "definition ") && strings.Contains(text, "relation ") && strings.Contains(text, "permission ") {
				return 0.9
			}
			if strings.Contains(text, "definition ") {
				return 0.5
			}
			if strings.Contains(text, "relation ") {
				return 0.5
			}
			if strings.Contains(text, "permission ") {
				return 0.25
			}
			return 0.0
		})
	})
}
