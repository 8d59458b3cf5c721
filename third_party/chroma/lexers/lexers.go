package lexers

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// Patched (agent, third_party/chroma): the lexers of the embedded XML files
// are registered on the registry's first lookup, not by the package
// initializer (reading their ~260 configs cost 10-20 ms and 2.7 MB at every
// process start). The lexers defined in Go still register at init; the
// registry puts them after the XML ones when it loads, as before.
var GlobalLexerRegistry = chroma.NewLazyLexerRegistry(func(reg *chroma.LexerRegistry) {
	// index(reg)
	paths, err := fs.Glob(embedded, "embedded/*.xml")
	if err != nil {
		panic(err)
	}
	byName := map[string]chroma.Lexer{}
	for _, path := range paths {
		lexer := reg.Register(chroma.MustNewXMLLexer(embedded, path))
		config := lexer.Config()
		for _, name := range append([]string{config.Name}, config.Aliases...) {
			byName[name] = lexer
			byName[strings.ToLower(name)] = lexer
		}
	}
	for _, change := range afterLoad {
		change(func(name string) chroma.Lexer { return byName[name] })
	}
})

// afterLoad are the changes made to embedded lexers once they are loaded (the
// package's init functions used to make them; they add their change here).
// Each is given a lookup by name or alias among the embedded lexers.
var afterLoad []func(find func(name string) chroma.Lexer)

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return GlobalLexerRegistry.Names(withAliases)
}

// Aliases of all the lexers, and skip those lexers who do not have any aliases,
// or show their name instead
func Aliases(skipWithoutAliases bool) []string {
	return GlobalLexerRegistry.Aliases(skipWithoutAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return GlobalLexerRegistry.Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return GlobalLexerRegistry.MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return GlobalLexerRegistry.Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	return GlobalLexerRegistry.Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
