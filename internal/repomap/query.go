package repomap

import (
	"path"

	"agent/internal/lazyre"
	"strings"
)

// queryInfo is what the request names: identifiers (with a strength in
// (0,1] for how surely each is code) and paths.
type queryInfo struct {
	exact map[string]float64 // token as written
	lower map[string]float64 // lower-cased token
	lens  [64]bool           // lengths of tokens (capped), to skip most names fast
	paths []string           // path-like tokens ("server.go", "internal/x")
	words map[string]float64 // lower-cased words, matched against file stems
}

var (
	queryTokRE = lazyre.New("`[^`]+`|[A-Za-z_$][\\w$]*(?:[./-][A-Za-z_$][\\w$-]*)*(?:\\(\\))?")
)

// stopwords are English words too common to seed the ranking strongly.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because
been before being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers him his how i if in into is it its itself just me more most
my no nor not now of off on once only or other our out over own same she should so some such than that
the their them then there these they this those through to too under until up very was we were what
when where which while who whom why will with would you your yours please want need happen happens
happening explain tell`) {
		stopwords[w] = true
	}
}

func parseQuery(q string) queryInfo {
	qi := queryInfo{exact: map[string]float64{}, lower: map[string]float64{}, words: map[string]float64{}}
	for _, loc := range queryTokRE.FindAllStringIndex(q, -1) {
		m := q[loc[0]:loc[1]]
		// a capitalised word inside a sentence is likely a name
		prev := strings.TrimRight(q[:loc[0]], " \t\n\"'(")
		sentenceStart := prev == "" || strings.HasSuffix(prev, ".") || strings.HasSuffix(prev, "?") || strings.HasSuffix(prev, "!") || strings.HasSuffix(prev, ":")
		code := false
		if strings.HasPrefix(m, "`") {
			m = strings.Trim(m, "`() ")
			code = true
		}
		if s, ok := strings.CutSuffix(m, "()"); ok {
			m, code = s, true
		}
		if strings.ContainsAny(m, "/") || isFileName(m) {
			qi.paths = append(qi.paths, strings.TrimPrefix(m, "./"))
		}
		if strings.Contains(m, ".") && !isFileName(m) {
			code = true // pkg.Name, obj.method
		}
		for _, part := range strings.FieldsFunc(m, func(r rune) bool { return r == '.' || r == '/' || r == '-' }) {
			s := tokenStrength(part, code, sentenceStart)
			if s == 0 {
				continue
			}
			if s > qi.exact[part] {
				qi.exact[part] = s
			}
			lp := strings.ToLower(part)
			if !stopwords[lp] && s > qi.lower[lp] {
				qi.lower[lp] = s
			}
			qi.lens[min(len(part), 63)] = true
			if len(lp) >= 3 && !stopwords[lp] && s > qi.words[lp] {
				qi.words[lp] = s
			}
		}
	}
	return qi
}

func isFileName(s string) bool {
	ext := path.Ext(s)
	if ext == "" || len(ext) > 6 {
		return false
	}
	switch ext[1:] {
	case "go", "py", "js", "mjs", "cjs", "jsx", "ts", "tsx", "rs", "java", "md", "json", "toml", "yaml", "yml", "mod", "txt", "c", "h", "sh":
		return true
	}
	return false
}

// tokenStrength rates how surely a query token names code.
func tokenStrength(tok string, code, sentenceStart bool) float64 {
	if code || strings.Contains(strings.Trim(tok, "_"), "_") || len(tok) >= 8 {
		return 1
	}
	for i := 1; i < len(tok); i++ {
		c := tok[i]
		if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return 1 // camelCase, ServeMux, utf8
		}
	}
	capital := tok[0] >= 'A' && tok[0] <= 'Z'
	if stopwords[strings.ToLower(tok)] && (!capital || sentenceStart) {
		return 0 // a function word that happens to be an identifier
	}
	if capital && !sentenceStart {
		return 0.8
	}
	if capital {
		return 0.5
	}
	return 0.5
}

// mentionOf returns the strength with which the request names name.
func (qi *queryInfo) mentionOf(name string) float64 {
	if len(qi.exact) == 0 || !qi.lens[min(len(name), 63)] {
		return 0
	}
	if s, ok := qi.exact[name]; ok {
		return s
	}
	if s, ok := qi.lower[strings.ToLower(name)]; ok {
		return s * 0.3
	}
	return 0
}
