package lexers

import (
	"regexp"

	"github.com/alecthomas/chroma/v2"
)

// TODO(moorereason): can this be factored away?
var zoneAnalyserRe = regexp.MustCompile(`(?m)^@\s+IN\s+SOA\s+`)

// Patched (agent, third_party/chroma): the change is made when the embedded
// lexers load (afterLoad), not at init.
func init() { // nolint: gochecknoinits
	afterLoad = append(afterLoad, func(find func(string) chroma.Lexer) {
		find("dns").SetAnalyser(func(text string) float32 {
			if zoneAnalyserRe.FindString(text) != "" {
				return 1.0
			}
			return 0.0
		})
	})
}
