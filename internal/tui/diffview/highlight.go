package diffview

import (
	"image/color"
	"path"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
)

// Highlighter finds the chroma lexer of a file by its name and keeps it per
// extension: chroma's own match walks every lexer's name patterns, which
// takes milliseconds. One Highlighter can serve every diff view of the
// program; it is safe for concurrent use.
type Highlighter struct {
	mu     sync.Mutex
	lexers map[string]chroma.Lexer // nil value: no lexer for that key
}

// NewHighlighter returns an empty lexer cache.
func NewHighlighter() *Highlighter {
	return &Highlighter{lexers: map[string]chroma.Lexer{}}
}

// lexer returns the lexer for a file, or nil when none fits.
func (h *Highlighter) lexer(file string) chroma.Lexer {
	base := path.Base(strings.ReplaceAll(file, `\`, "/"))
	key := strings.ToLower(path.Ext(base))
	if key == "" || key == base {
		key = base // Makefile, Dockerfile, .bashrc
	}
	if key == "" || key == "." || key == "/" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if l, ok := h.lexers[key]; ok {
		return l
	}
	var l chroma.Lexer
	if name := lexerName(key); name != "" {
		l = lexers.Get(name)
	} else {
		l = lexers.Match(base)
	}
	if l != nil {
		l = chroma.Coalesce(l)
	}
	h.lexers[key] = l
	return l
}

// lexerName names the lexer of common extensions, so that they need no
// walk over every lexer's patterns.
func lexerName(ext string) string {
	switch ext {
	case ".go":
		return "Go"
	case ".py", ".pyi":
		return "Python"
	case ".js", ".mjs", ".cjs":
		return "JavaScript"
	case ".ts", ".tsx", ".mts", ".cts":
		return "TypeScript"
	case ".jsx":
		return "react"
	case ".rs":
		return "Rust"
	case ".java":
		return "Java"
	case ".c", ".h":
		return "C"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh":
		return "C++"
	case ".rb":
		return "Ruby"
	case ".sh", ".bash", ".zsh":
		return "Bash"
	case ".json":
		return "JSON"
	case ".yaml", ".yml":
		return "YAML"
	case ".toml":
		return "TOML"
	case ".md", ".markdown":
		return "markdown"
	case ".html", ".htm":
		return "HTML"
	case ".css":
		return "CSS"
	case ".sql":
		return "SQL"
	case ".kt":
		return "Kotlin"
	case ".swift":
		return "Swift"
	case ".php":
		return "PHP"
	case ".lua":
		return "Lua"
	case ".cs":
		return "C#"
	case ".xml":
		return "XML"
	case ".txt":
		return "plaintext"
	}
	return ""
}

// tokClass is what a token is, as far as colour goes.
type tokClass uint8

const (
	classText tokClass = iota
	classKeyword
	className
	classType
	classString
	classNumber
	classComment
	numClasses
)

func classOf(t chroma.TokenType) tokClass {
	switch {
	case t.InCategory(chroma.Comment):
		return classComment
	case t.InSubCategory(chroma.LiteralString):
		return classString
	case t.InSubCategory(chroma.LiteralNumber), t == chroma.KeywordConstant, t == chroma.NameConstant:
		return classNumber
	case t == chroma.KeywordType, t == chroma.NameClass:
		return classType
	case t.InCategory(chroma.Keyword):
		return classKeyword
	case t == chroma.NameFunction, t == chroma.NameBuiltin, t == chroma.NameDecorator, t == chroma.NameTag:
		return className
	}
	return classText
}

// span is a run of display text of one class.
type span struct {
	class tokClass
	text  string
}

// maxLexBytes bounds how much of a line is tokenised (chroma's regular
// expressions backtrack; the rest of a longer line is plain).
const maxLexBytes = 512

// tokenise splits text into classed spans. It returns nil (plain text) if
// the lexer fails, panics, or does not give back exactly the text.
func tokenise(l chroma.Lexer, text string) (out []span) {
	if l == nil || text == "" {
		return nil
	}
	head, rest := text, ""
	if len(head) > maxLexBytes {
		cut := maxLexBytes
		for cut > 0 && !isRuneStart(head[cut]) {
			cut--
		}
		head, rest = text[:cut], text[cut:]
	}
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	it, err := l.Tokenise(nil, head)
	if err != nil {
		return nil
	}
	n := 0
	for t := it(); t != chroma.EOF; t = it() {
		v := strings.ReplaceAll(t.Value, "\n", "")
		if v == "" {
			continue
		}
		c := classOf(t.Type)
		if k := len(out) - 1; k >= 0 && out[k].class == c {
			out[k].text += v
		} else {
			out = append(out, span{class: c, text: v})
		}
		n += len(v)
	}
	if n != len(head) {
		return nil
	}
	if rest != "" {
		out = append(out, span{class: classText, text: rest})
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Indexes of the line kinds in a palette.
const (
	kCtx = iota
	kAdd
	kDel
	numKinds
)

func kindIndex(k LineKind) int {
	switch k {
	case LineAdd:
		return kAdd
	case LineDel:
		return kDel
	}
	return kCtx
}

// palette is the SGR prefix of every part of a code row, built once from
// the theme. With NO_COLOR every prefix is empty and nothing is coloured.
type palette struct {
	color bool
	code  [numKinds][numClasses]string // highlighted code on each kind of line
	flat  [numKinds]string             // code without highlighting
	emph  [numKinds][numClasses]string // a changed word, highlighted
	eflat [numKinds]string             // a changed word without highlighting
	num   [numKinds]string             // line numbers
	mark  [numKinds]string             // the "+" / "-" marker
	pad   [numKinds]string             // padding (the line's background)
	faint string
	dim   string
}

const sgrReset = "\x1b[m"

func newPalette(t *theme.Theme) palette {
	if t.NoColor {
		return palette{}
	}
	p := palette{color: true}
	bgs := [numKinds]color.Color{nil, t.AddBg, t.DelBg}
	wordBgs := [numKinds]color.Color{nil, t.AddWordBg, t.DelWordBg}
	kindFg := [numKinds]color.Color{t.Fg, t.AddFg, t.DelFg}
	classFg := [numClasses]color.Color{t.Fg, t.Accent, t.Info, t.Info, t.OK, t.Warn, t.Subtle}
	codeFg := func(k int, c tokClass) color.Color { return classFg[c] }
	if t.Profile == colorprofile.ANSI {
		// on the 16 colours' green and red backgrounds only black reads
		black := lipgloss.Color("0")
		kindFg[kAdd], kindFg[kDel] = black, black
		codeFg = func(k int, c tokClass) color.Color {
			if k != kCtx {
				return black
			}
			return classFg[c]
		}
	}
	sgr := func(fg, bg color.Color, bold bool) string {
		var s ansi.Style
		if bold {
			s = s.Bold()
		}
		if fg != nil {
			s = s.ForegroundColor(fg)
		}
		if bg != nil {
			s = s.BackgroundColor(bg)
		}
		if len(s) == 0 {
			return ""
		}
		return "\x1b[0;" + strings.Join(s, ";") + "m" // each part resets what came before
	}
	for k := range numKinds {
		for c := range numClasses {
			p.code[k][c] = sgr(codeFg(k, c), bgs[k], false)
			p.emph[k][c] = p.code[k][c]
			if wordBgs[k] != nil {
				p.emph[k][c] = sgr(codeFg(k, c), wordBgs[k], true)
			}
		}
		p.flat[k] = sgr(kindFg[k], bgs[k], false)
		p.eflat[k] = p.flat[k]
		if wordBgs[k] != nil {
			p.eflat[k] = sgr(kindFg[k], wordBgs[k], true)
		}
		p.num[k] = sgr(t.Subtle, bgs[k], false)
		p.mark[k] = sgr(kindFg[k], bgs[k], k != kCtx)
		p.pad[k] = sgr(nil, bgs[k], false)
	}
	p.faint = sgr(t.Subtle, nil, false)
	p.dim = sgr(t.Muted, nil, false)
	return p
}
