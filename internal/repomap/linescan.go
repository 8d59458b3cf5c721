package repomap

import (
	"bytes"

	"agent/internal/lazyre"
	"strings"
)

// The line scanner is the coarse stand-in for tree-sitter: it recognises
// definitions line by line with regular expressions, tracks nesting by
// indentation, and counts every identifier token in the file (comments and
// strings included) as a reference. It is what CGO_ENABLED=0 builds use for
// Python, JavaScript, TypeScript, Rust and Java; import lines are always
// read with it.

const lineEngine = "line/1"

type scope struct {
	indent     int
	bodyIndent int // -1 until the first deeper line is seen
	kind       string
	name       string
}

type lineRule struct {
	re    *lazyre.Regexp
	kind  string
	group int // submatch holding the name
	cheap string
}

var (
	pyDefRE   = lazyre.New(`^(async\s+)?def\s+([A-Za-z_]\w*)`)
	pyClassRE = lazyre.New(`^class\s+([A-Za-z_]\w*)`)
	pyAssign  = lazyre.New(`^([A-Za-z_]\w*)\s*(:[^=]*)?=`)

	jsRules = []lineRule{
		{lazyre.New(`^(export\s+)?(default\s+)?(async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)`), "function", 4, "function"},
		{lazyre.New(`^(export\s+)?(default\s+)?(declare\s+)?(abstract\s+)?class\s+([A-Za-z_$][\w$]*)`), "class", 5, "class"},
		{lazyre.New(`^(export\s+)?(declare\s+)?interface\s+([A-Za-z_$][\w$]*)`), "interface", 3, "interface"},
		{lazyre.New(`^(export\s+)?(declare\s+)?type\s+([A-Za-z_$][\w$]*)\s*[=<]`), "type", 3, "type"},
		{lazyre.New(`^(export\s+)?(declare\s+)?(const\s+)?enum\s+([A-Za-z_$][\w$]*)`), "enum", 4, "enum"},
		{lazyre.New(`^(export\s+)?(declare\s+)?(namespace|module)\s+([A-Za-z_$][\w$]*)\s*\{`), "module", 4, ""},
		{lazyre.New(`^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=`), "var", 1, "exports."},
		{lazyre.New(`^[A-Za-z_$][\w$]*\.prototype\.([A-Za-z_$][\w$]*)\s*=`), "method", 1, ".prototype."},
	}
	jsVarRE    = lazyre.New(`^(export\s+)?(const|let|var)\s+([A-Za-z_$][\w$]*)\s*(:[^=]*)?=\s*(.*)`)
	jsFuncVal  = lazyre.New(`^(async\s+)?(function\b|\([^)]*\)\s*(:[^=]*)?=>|[A-Za-z_$][\w$]*\s*=>)`)
	jsMethodRE = lazyre.New(`^(static\s+|async\s+|get\s+|set\s+|public\s+|private\s+|protected\s+|readonly\s+|override\s+|abstract\s+)*\*?(#?[A-Za-z_$][\w$]*)\s*(<[^>]*>)?\(.*\)?\s*(:\s*[^{;]+)?\{?\s*$`)
	jsFieldRE  = lazyre.New(`^(static\s+|public\s+|private\s+|protected\s+|readonly\s+|declare\s+)*(#?[A-Za-z_$][\w$]*)\s*[?!]?\s*(:[^=;]*)?(=|;|$)`)

	rustRules = []lineRule{
		{lazyre.New(`^(pub(\([^)]*\))?\s+)?((const|async|unsafe|extern\s+"[^"]*")\s+)*fn\s+([A-Za-z_]\w*)`), "function", 5, "fn "},
		{lazyre.New(`^(pub(\([^)]*\))?\s+)?(struct|enum|union|trait|type|mod)\s+([A-Za-z_]\w*)`), "", 4, ""},
		{lazyre.New(`^(pub(\([^)]*\))?\s+)?(const|static)\s+(mut\s+)?([A-Za-z_]\w*)\s*:`), "const", 5, ""},
		{lazyre.New(`^macro_rules!\s*([A-Za-z_]\w*)`), "macro", 1, "macro_rules"},
	}
	rustImplRE = lazyre.New(`^impl\b(<[^{]*?>)?\s*(.*?)\s*(where\b.*)?\{?\s*$`)

	javaTypeRE   = lazyre.New(`^((public|protected|private|static|final|abstract|sealed|non-sealed|strictfp)\s+)*(class|interface|enum|record|@interface)\s+([A-Za-z_$][\w$]*)`)
	javaMethodRE = lazyre.New(`^((public|protected|private|static|final|abstract|synchronized|native|default|strictfp)\s+)*(<[^>]+>\s+)?[\w.$<>\[\],? ]+\s+([A-Za-z_$][\w$]*)\s*\(`)
	javaFieldRE  = lazyre.New(`^((public|protected|private|static|final|transient|volatile)\s+)+[\w.$<>\[\],? ]+\s+([A-Za-z_$][\w$]*)\s*(=|;)`)

	notNames = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true,
		"function": true, "return": true, "with": true, "else": true, "new": true, "do": true,
		"try": true, "throw": true, "await": true, "yield": true, "typeof": true, "super": true,
		"constructor": true, "case": true, "default": true, "import": true, "export": true}
)

// scanLines extracts tags from src line by line.
func scanLines(lang, name string, src []byte) *FileTags {
	t := &FileTags{Lang: lang, Engine: lineEngine}
	var stack []scope
	inString := "" // python triple-quote delimiter while inside one
	lineNo := 0
	lines := bytes.Split(src, []byte("\n"))
	for i := 0; i < len(lines); i++ {
		lineNo = i + 1
		raw := string(lines[i])
		trimmed := strings.TrimSpace(raw)
		if trimmed == "" {
			continue
		}
		indent := indentOf(raw)
		if lang == "python" {
			if inString != "" {
				if strings.Count(raw, inString)%2 == 1 {
					inString = ""
				}
				continue
			}
			for _, q := range []string{`"""`, `'''`} {
				if strings.Count(raw, q)%2 == 1 {
					inString = q
				}
			}
		}
		if lang == "python" && strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "*") || strings.HasPrefix(trimmed, "/*") {
			continue
		}
		closing := trimmed[0] == '}' || trimmed[0] == ')' || trimmed[0] == ']'
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if indent > top.indent {
				if top.bodyIndent < 0 {
					top.bodyIndent = indent
				}
				break
			}
			if indent == top.indent && closing && lang != "python" {
				stack = stack[:len(stack)-1]
				break
			}
			if lang != "python" && indent == top.indent {
				break // same-indent continuation (e.g. "} else {"); stays open
			}
			stack = stack[:len(stack)-1]
		}
		if closing {
			continue
		}
		var parent scope
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		atBody := len(stack) == 0 && indent == 0 || len(stack) > 0 && indent == parent.bodyIndent
		kind, nm, opens := "", "", false
		switch lang {
		case "python":
			kind, nm, opens = scanPython(trimmed, parent, atBody, t, lineNo, len(stack))
		case "javascript", "typescript", "tsx":
			kind, nm, opens = scanJS(trimmed, parent, atBody, len(stack))
		case "rust":
			kind, nm, opens = scanRust(trimmed, parent)
		case "java":
			kind, nm, opens = scanJava(trimmed, parent, atBody)
		}
		if nm == "" {
			continue
		}
		sig := stripComments(trimmed, lang == "python")
		if lang == "python" && !weakKind(kind) {
			for j := i + 1; j < len(lines) && j < i+6 && !strings.HasSuffix(strings.TrimSpace(sig), ":"); j++ {
				sig += "\n" + stripComments(strings.TrimSpace(string(lines[j])), true)
			}
		}
		sig = trimSigTail(oneLine(sig, maxSig))
		if kind != "" {
			t.Defs = append(t.Defs, Tag{Name: strings.TrimPrefix(nm, "#"), Kind: kind, Line: lineNo, Signature: sig, Parent: parent.name, Depth: len(stack)})
		}
		if opens {
			stack = append(stack, scope{indent: indent, bodyIndent: -1, kind: kind, name: strings.TrimPrefix(nm, "#")})
		}
	}
	t.Refs = tokenRefs(src, t.Defs)
	t.Imports = scanImports(lang, src)
	t.Routes = scanRoutes(lang, src)
	t.Main = isMainSource(lang, name, src)
	return t
}

func indentOf(s string) int {
	n := 0
	for _, c := range s {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

func scanPython(line string, parent scope, atBody bool, t *FileTags, lineNo, depth int) (string, string, bool) {
	if m := pyDefRE.FindStringSubmatch(line); m != nil {
		if parent.kind == "class" {
			return "method", m[2], true
		}
		return "function", m[2], true
	}
	if m := pyClassRE.FindStringSubmatch(line); m != nil {
		return "class", m[1], true
	}
	if !atBody || (parent.name != "" && parent.kind != "class") {
		return "", "", strings.HasSuffix(line, ":")
	}
	m := pyAssign.FindStringSubmatch(line)
	if m == nil || strings.HasPrefix(line[len(m[0]):], "=") {
		return "", "", strings.HasSuffix(line, ":")
	}
	// chained assignment: a = b = value
	rest := line[len(m[0]):]
	for {
		mm := pyAssign.FindStringSubmatch(strings.TrimSpace(rest))
		if mm == nil || strings.HasPrefix(strings.TrimSpace(rest)[len(mm[0]):], "=") {
			break
		}
		t.Defs = append(t.Defs, Tag{Name: mm[1], Kind: "variable", Line: lineNo, Signature: oneLine(line, maxSig), Parent: parent.name, Depth: depth})
		rest = strings.TrimSpace(rest)[len(mm[0]):]
	}
	return "variable", m[1], false
}

func scanJS(line string, parent scope, atBody bool, depth int) (string, string, bool) {
	opens := strings.HasSuffix(line, "{") || strings.HasSuffix(line, "(") || strings.HasSuffix(line, "=> {")
	for _, r := range jsRules {
		if r.cheap != "" && !strings.Contains(line, r.cheap) {
			continue
		}
		if m := r.re.FindStringSubmatch(line); m != nil {
			return r.kind, m[r.group], opens
		}
	}
	if m := jsVarRE.FindStringSubmatch(line); m != nil {
		if isRequireBinding(line) {
			return "", "", opens
		}
		if jsFuncVal.MatchString(m[5]) {
			return "function", m[3], opens
		}
		if depth == 0 {
			if m[2] == "const" {
				return "const", m[3], opens
			}
			return "var", m[3], opens
		}
		return "", "", opens
	}
	if parent.kind == "class" && atBody {
		if m := jsMethodRE.FindStringSubmatch(line); m != nil && !notNames[m[2]] && strings.Contains(line, "(") {
			return "method", m[2], opens
		}
		if m := jsFieldRE.FindStringSubmatch(line); m != nil && !notNames[m[2]] {
			return "field", m[2], opens
		}
	}
	return "", "", opens
}

func scanRust(line string, parent scope) (string, string, bool) {
	opens := strings.HasSuffix(line, "{")
	if strings.HasPrefix(line, "impl") {
		if m := rustImplRE.FindStringSubmatch(line); m != nil {
			target := m[2]
			if i := strings.LastIndex(target, " for "); i >= 0 {
				target = target[i+5:]
			}
			if i := strings.IndexAny(target, "<("); i >= 0 {
				target = target[:i]
			}
			if i := strings.LastIndex(target, "::"); i >= 0 {
				target = target[i+2:]
			}
			return "", "impl " + strings.TrimSpace(target), true
		}
	}
	for _, r := range rustRules {
		if r.cheap != "" && !strings.Contains(line, r.cheap) {
			continue
		}
		m := r.re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		kind := r.kind
		if kind == "" {
			kind = m[3]
		}
		if kind == "function" && (strings.HasPrefix(parent.name, "impl ") || parent.kind == "trait") {
			kind = "method"
		}
		return kind, m[r.group], opens
	}
	return "", "", opens
}

func scanJava(line string, parent scope, atBody bool) (string, string, bool) {
	opens := strings.HasSuffix(line, "{")
	if strings.HasPrefix(line, "@") && !strings.HasPrefix(line, "@interface") {
		return "", "", false
	}
	if m := javaTypeRE.FindStringSubmatch(line); m != nil {
		kind := m[3]
		if kind == "@interface" {
			kind = "interface"
		}
		return kind, m[4], opens
	}
	if !atBody || parent.kind == "" {
		return "", "", opens
	}
	if m := javaMethodRE.FindStringSubmatch(line); m != nil && !notNames[m[4]] && !strings.Contains(line, "=") {
		return "method", m[4], opens
	}
	if m := javaFieldRE.FindStringSubmatch(line); m != nil {
		return "field", m[3], opens
	}
	return "", "", opens
}

// tokenRefs counts identifier tokens, less one use per definition site.
func tokenRefs(src []byte, defs []Tag) map[string]int {
	refs := make(map[string]int, 64)
	identTokens(src, func(tok []byte, _ int) {
		if len(tok) > 1 {
			refs[string(tok)]++
		}
	})
	for _, d := range defs {
		if refs[d.Name] <= 1 {
			delete(refs, d.Name)
		} else {
			refs[d.Name]--
		}
	}
	for k := range keywordish {
		delete(refs, k)
	}
	return refs
}

var importREs = map[string][]*lazyre.Regexp{
	"python": {
		lazyre.New(`(?m)^\s*import\s+([\w.]+(?:\s*,\s*[\w.]+)*)`),
		lazyre.New(`(?m)^\s*from\s+(\.*[\w.]+)\s+import\b`),
		lazyre.New(`(?m)^\s*from\s+(\.+)\s+import\s+\(?([\w, ]+)`),
	},
	"javascript": {
		lazyre.New(`\brequire\(\s*['"]([^'"]+)['"]\s*\)`),
		lazyre.New(`(?m)^\s*(?:import|export)\b[^'"\n;]*?\bfrom\s+['"]([^'"]+)['"]`),
		lazyre.New(`(?m)^\s*import\s+['"]([^'"]+)['"]`),
		lazyre.New(`\bimport\(\s*['"]([^'"]+)['"]\s*\)`),
	},
	"rust": {
		lazyre.New(`(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([\w:]+)`),
		lazyre.New(`(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;`),
	},
	"java": {
		lazyre.New(`(?m)^\s*import\s+(?:static\s+)?([\w.]+)`),
	},
}

// scanImports reads import statements with regular expressions.
func scanImports(lang string, src []byte) []string {
	if lang == "typescript" || lang == "tsx" {
		lang = "javascript"
	}
	var out []string
	seen := map[string]bool{}
	for i, re := range importREs[lang] {
		for _, m := range re.FindAllSubmatch(src, -1) {
			if len(m) > 2 {
				// from . import a, b: the names are sibling modules
				for _, n := range strings.Split(string(m[2]), ",") {
					if f := strings.Fields(n); len(f) > 0 && !seen[string(m[1])+f[0]] {
						seen[string(m[1])+f[0]] = true
						out = append(out, string(m[1])+f[0])
					}
				}
				continue
			}
			for _, p := range strings.Split(string(m[1]), ",") {
				p = strings.TrimSpace(p)
				if lang == "rust" && i == 1 {
					p = "mod:" + p
				}
				if p != "" && !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
	}
	return out
}
