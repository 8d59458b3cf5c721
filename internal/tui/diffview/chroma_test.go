package diffview

import (
	"testing"

	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// TestChromaRegistriesLoadOnFirstUse: third_party/chroma registers its
// embedded lexers and styles on first use instead of at init (the guard on
// the init cost is TestFloorInitialisers in the main package). Looked up,
// the registries are whole: the lexers defined in Go win over the XML ones
// of the same name as before, and the analysers that init functions used
// to attach to XML lexers (dns, mysql, zed) are attached.
func TestChromaRegistriesLoadOnFirstUse(t *testing.T) {
	if n := len(lexers.Names(false)); n < 250 {
		t.Errorf("%d lexers registered, want the ~270 of chroma v2.27.0", n)
	}
	if l := lexers.Get("go"); l != lexers.Go {
		t.Errorf(`Get("go") = %v, want the Go lexer defined in Go`, l)
	}
	for file, want := range map[string]string{
		"main.go": "Go", "x.py": "Python", "x.rs": "Rust", "x.ts": "TypeScript", "db.zone": "dns",
		"q.sql": "MySQL", "Dockerfile": "Docker", "x.md": "markdown", "x.zed": "Zed",
	} {
		l := lexers.Match(file)
		if l == nil || l.Config().Name != want {
			t.Errorf("Match(%q) = %v, want %s", file, l, want)
		}
	}
	for text, want := range map[string]string{
		"@ IN SOA ns.example. admin.example. 1 2 3 4 5\n":                                        "dns",
		"SELECT `name` FROM `users` WHERE `id` = 1;":                                             "MySQL",
		"definition user {}\ndefinition doc { relation reader: user\npermission view = reader }": "Zed",
	} {
		l := lexers.Analyse(text)
		if l == nil || l.Config().Name != want {
			t.Errorf("Analyse(%q) = %v, want %s (an analyser attached on load)", text, l, want)
		}
	}
	if s := styles.Get("github-dark"); s == nil || s.Name != "github-dark" {
		t.Errorf(`styles.Get("github-dark") = %v`, s)
	}
	if styles.Fallback == nil || styles.Fallback.Name != "swapoff" {
		t.Errorf("styles.Fallback = %v after a lookup, want swapoff", styles.Fallback)
	}
	if s := styles.Get("no-such-style"); s != styles.Fallback {
		t.Errorf("an unknown style gives %v, want the fallback", s)
	}
	if n := len(styles.Names()); n < 60 {
		t.Errorf("%d styles registered, want the ~70 of chroma v2.27.0", n)
	}
}
