package lexers

import (
	"regexp"

	"github.com/alecthomas/chroma/v2"
)

var (
	mysqlAnalyserNameBetweenBacktickRe = regexp.MustCompile("`[a-zA-Z_]\\w*`")
	mysqlAnalyserNameBetweenBracketRe  = regexp.MustCompile(`\[[a-zA-Z_]\w*\]`)
)

// Patched (agent, third_party/chroma): the change is made when the embedded
// lexers load (afterLoad), not at init.
func init() { // nolint: gochecknoinits
	afterLoad = append(afterLoad, func(find func(string) chroma.Lexer) {
		find("mysql").
			SetAnalyser(func(text string) float32 {
				nameBetweenBacktickCount := len(mysqlAnalyserNameBetweenBacktickRe.FindAllString(text, -1))
				nameBetweenBracketCount := len(mysqlAnalyserNameBetweenBracketRe.FindAllString(text, -1))

				var result float32

				// Same logic as above in the TSQL analysis.
				dialectNameCount := nameBetweenBacktickCount + nameBetweenBracketCount
				if dialectNameCount >= 1 && nameBetweenBacktickCount >= (2*nameBetweenBracketCount) {
					// Found at least twice as many `name` as [name].
					result += 0.5
				} else if nameBetweenBacktickCount > nameBetweenBracketCount {
					result += 0.2
				} else if nameBetweenBacktickCount > 0 {
					result += 0.1
				}

				return result
			})
	})
}
