package markdown

import (
	"html"
	"math/rand/v2"
	"strings"
	"testing"

	"charm.land/glamour/v2/ansi"
	"github.com/microcosm-cc/bluemonday"
)

// The glamour of third_party/glamour strips the HTML of a message with its
// own stripHTML instead of bluemonday.StrictPolicy() (bluemonday's package
// initializers cost every process of the binary 2-8 ms). These tests hold
// the two to the same output: bluemonday is linked into this test only.

// bluemondayStrip is what glamour v2.0.1's RenderContext.SanitizeHTML did.
func bluemondayStrip(s string, trim bool) string {
	s = bluemonday.StrictPolicy().Sanitize(s)
	if trim {
		s = strings.TrimSpace(s)
	}
	return html.UnescapeString(s)
}

var stripCorpus = []string{
	"", "   ", "plain text", "a < b and c > d", "x &amp; y &lt;z&gt; &#39;q&#39; &bogus;",
	"<b>bold</b> and <i>it</i>", "<script>alert(1)</script>after", "<SCRIPT>x</SCRIPT>y",
	"<style>p{color:red}</style>text", "<title>t</title>body", "<iframe src=x>inner</iframe>out",
	"<noscript><p>n</p></noscript>v", "<object><object>a</object>b</object>c", "<!-- comment -->c",
	"<!DOCTYPE html><html><body>hi</body></html>", "<a href=\"javascript:alert(1)\">link</a>",
	"<img src=x onerror=alert(1)>", "<br/>line<br />two", "<![CDATA[data]]>x", "<textarea><b>t</b></textarea>",
	"<plaintext><b>rest", "<p>unclosed", "</p>stray close", "<scr<script>ipt>alert(1)</script>",
	"<details open>d</details>", "<é>unicode tag</é>", "<script>a</script><script>b", "<style>a<b>c</style>d",
	"<title>x<title>y</title>z</title>w", "text <", "text </", "<", "<a", "<a href='x", "<!--", "<!-- open",
	"&lt;script&gt;alert(1)&lt;/script&gt;", "<div>\n  <span>  spaced  </span>\n</div>\n",
	"emoji 🙂 <b>ünïcödé</b>", "<frameset><frame>f</frame></frameset>g", "<nostyle>n</nostyle>m",
}

func TestStripHTMLIsBluemondayStrict(t *testing.T) {
	ctx := ansi.NewRenderContext(ansi.Options{})
	for _, s := range stripCorpus {
		for _, trim := range []bool{false, true} {
			if got, want := ctx.SanitizeHTML(s, trim), bluemondayStrip(s, trim); got != want {
				t.Errorf("SanitizeHTML(%q, %v) = %q, bluemonday's %q", s, trim, got, want)
			}
		}
	}
}

// TestStripHTMLRandomIsBluemondayStrict: random sequences of tag, entity and
// text fragments (seeded: a failure names its seed and input).
func TestStripHTMLRandomIsBluemondayStrict(t *testing.T) {
	frags := []string{
		"<script>", "</script>", "<style>", "</style>", "<title>", "</title>", "<iframe>", "</iframe>",
		"<object>", "</object>", "<noscript>", "</noscript>", "<b>", "</b>", "<p class=x>", "</p>",
		"<br/>", "<!-- c -->", "<!--", "-->", "<!DOCTYPE html>", "&amp;", "&lt;", "&gt;", "&#x41;", "&nope;",
		"<", ">", "</", "/>", "\"", "'", "=", " ", "\n", "text", "ü", "🙂", "<SCRIPT>", "</Style>",
		"<textarea>", "</textarea>", "<plaintext>", "<a href='javascript:x'>", "</a>", "<![CDATA[", "]]>",
		"<frame>", "</frame>", "<xmp>", "</xmp>", "<math>", "<svg><script>", "</svg>",
	}
	ctx := ansi.NewRenderContext(ansi.Options{})
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 24))
		var b strings.Builder
		for range 1 + r.IntN(16) {
			b.WriteString(frags[r.IntN(len(frags))])
		}
		s := b.String()
		if got, want := ctx.SanitizeHTML(s, false), bluemondayStrip(s, false); got != want {
			t.Fatalf("seed %d: SanitizeHTML(%q) = %q, bluemonday's %q", seed, s, got, want)
		}
	}
}

// FuzzStripHTML: `go test -fuzz FuzzStripHTML ./internal/tui/markdown/`.
func FuzzStripHTML(f *testing.F) {
	for _, s := range stripCorpus {
		f.Add(s)
	}
	ctx := ansi.NewRenderContext(ansi.Options{})
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ctx.SanitizeHTML(s, false), bluemondayStrip(s, false); got != want {
			t.Fatalf("SanitizeHTML(%q) = %q, bluemonday's %q", s, got, want)
		}
	})
}
