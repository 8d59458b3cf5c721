//go:build cgo

package repomap

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tstypescript "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// otherEngine names the extractor used for non-Go languages in this build.
const otherEngine = "ts/1"

// TreeSitter reports whether this build parses non-Go languages with
// tree-sitter (true) or with the line scanner (false, CGO_ENABLED=0).
const TreeSitter = true

// Definition queries: @name is the defined name, @def.KIND the node whose
// text gives the signature.
const jsDefs = `
(class_declaration name: (_) @name) @def.class
(class name: (_) @name) @def.class
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(function_expression name: (identifier) @name) @def.function
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @def.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @def.function
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.const))
(program (variable_declaration (variable_declarator name: (identifier) @name) @def.var))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @def.const)))
(assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @def.function
(pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @def.function
`

const jsFieldDefs = `
(field_definition property: [(property_identifier) (private_property_identifier)] @name) @def.field
`

const tsExtraDefs = `
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name) @def.enum
(internal_module name: (identifier) @name) @def.module
(function_signature name: (identifier) @name) @def.function
(method_signature name: [(property_identifier) (private_property_identifier)] @name) @def.method
(abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @def.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @def.field
`

const pyDefs = `
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
(module (expression_statement (assignment left: (identifier) @name) @def.variable))
(module (expression_statement (assignment right: (assignment left: (identifier) @name) @def.variable)))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @def.variable)))
(class_definition body: (block (expression_statement (assignment right: (assignment left: (identifier) @name) @def.variable))))
`

const rustDefs = `
(struct_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(union_item name: (type_identifier) @name) @def.union
(type_item name: (type_identifier) @name) @def.type
(trait_item name: (type_identifier) @name) @def.trait
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(mod_item name: (identifier) @name) @def.module
(macro_definition name: (identifier) @name) @def.macro
(const_item name: (identifier) @name) @def.const
(static_item name: (identifier) @name) @def.static
`

const javaDefs = `
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.record
(annotation_type_declaration name: (identifier) @name) @def.interface
(method_declaration name: (identifier) @name) @def.method
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @def.field
(enum_constant name: (identifier) @name) @def.const
`

// Reference queries capture every identifier-like leaf.
const (
	jsRefs   = `[(identifier) (property_identifier) (shorthand_property_identifier) (private_property_identifier)] @ref`
	tsRefs   = `[(identifier) (property_identifier) (shorthand_property_identifier) (private_property_identifier) (type_identifier)] @ref`
	pyRefs   = `(identifier) @ref`
	rustRefs = `[(identifier) (type_identifier) (field_identifier)] @ref`
	javaRefs = `[(identifier) (type_identifier)] @ref`
)

// scopeKinds are the node kinds that nest definitions, per language.
var scopeKinds = map[string]bool{
	"class_definition": true, "function_definition": true, // python
	"class_declaration": true, "class": true, "abstract_class_declaration": true, // js/ts/java
	"function_declaration": true, "method_definition": true, "interface_declaration": true,
	"impl_item": true, "trait_item": true, "mod_item": true, // rust
	"enum_declaration": true, "record_declaration": true, "method_declaration": true, // java
	"internal_module": true,
}

type tsLang struct {
	once    sync.Once
	err     error
	ptr     func() *ts.Language
	defSrc  string
	refSrc  string
	lang    *ts.Language
	defs    *ts.Query
	refs    *ts.Query
	defCaps []string
	idle    chan *ts.Parser // parsers kept for reuse (C memory: never dropped silently)
}

var tsLangs = map[string]*tsLang{
	"python":     {ptr: func() *ts.Language { return ts.NewLanguage(tspython.Language()) }, defSrc: pyDefs, refSrc: pyRefs},
	"javascript": {ptr: func() *ts.Language { return ts.NewLanguage(tsjs.Language()) }, defSrc: jsDefs + jsFieldDefs, refSrc: jsRefs},
	"typescript": {ptr: func() *ts.Language { return ts.NewLanguage(tstypescript.LanguageTypescript()) }, defSrc: jsDefs + tsExtraDefs, refSrc: tsRefs},
	"tsx":        {ptr: func() *ts.Language { return ts.NewLanguage(tstypescript.LanguageTSX()) }, defSrc: jsDefs + tsExtraDefs, refSrc: tsRefs},
	"rust":       {ptr: func() *ts.Language { return ts.NewLanguage(tsrust.Language()) }, defSrc: rustDefs, refSrc: rustRefs},
	"java":       {ptr: func() *ts.Language { return ts.NewLanguage(tsjava.Language()) }, defSrc: javaDefs, refSrc: javaRefs},
}

func (l *tsLang) init() error {
	l.once.Do(func() {
		l.lang = l.ptr()
		var qerr *ts.QueryError
		if l.defs, qerr = ts.NewQuery(l.lang, l.defSrc); qerr != nil {
			l.err = fmt.Errorf("repomap: definition query: %w", qerr)
			return
		}
		if l.refs, qerr = ts.NewQuery(l.lang, l.refSrc); qerr != nil {
			l.err = fmt.Errorf("repomap: reference query: %w", qerr)
			return
		}
		l.defCaps = l.defs.CaptureNames()
		l.idle = make(chan *ts.Parser, 4)
	})
	return l.err
}

// parseOther extracts tags for a non-Go language with tree-sitter.
func parseOther(lang, name string, src []byte) (*FileTags, error) {
	l := tsLangs[lang]
	if l == nil {
		return nil, fmt.Errorf("repomap: no tree-sitter grammar for %s", lang)
	}
	if err := l.init(); err != nil {
		return nil, err
	}
	var p *ts.Parser
	select {
	case p = <-l.idle:
	default:
		p = ts.NewParser()
		if err := p.SetLanguage(l.lang); err != nil {
			p.Close()
			return nil, fmt.Errorf("repomap: tree-sitter %s: %w", lang, err)
		}
	}
	tree := p.Parse(src, nil)
	select {
	case l.idle <- p:
	default:
		p.Close()
	}
	if tree == nil {
		return nil, fmt.Errorf("repomap: tree-sitter parse %s failed", name)
	}
	defer tree.Close()
	root := tree.RootNode()
	t := &FileTags{Lang: lang, Engine: otherEngine}

	qc := ts.NewQueryCursor()
	defer qc.Close()
	type found struct {
		tag   Tag
		start uint
	}
	byStart := map[uint]int{}
	var defs []found
	matches := qc.Matches(l.defs, root, src)
	for m := matches.Next(); m != nil; m = matches.Next() {
		var nameNode, defNode *ts.Node
		kind := ""
		for i := range m.Captures {
			c := &m.Captures[i]
			cn := l.defCaps[c.Index]
			if cn == "name" {
				nameNode = &c.Node
			} else if k, ok := strings.CutPrefix(cn, "def."); ok {
				defNode, kind = &c.Node, k
			}
		}
		if nameNode == nil || defNode == nil {
			continue
		}
		nm := strings.TrimPrefix(nameNode.Utf8Text(src), "#")
		if nm == "" || nm == "constructor" {
			continue
		}
		sig := tsSignature(defNode, src)
		if weakKind(kind) && isRequireBinding(sig) {
			continue // const x = require("..."): an import, not a definition
		}
		parent, pkind, depth := tsScope(defNode, src)
		if kind == "function" && (pkind == "class_definition" || pkind == "impl_item" || pkind == "trait_item") {
			kind = "method"
		}
		tag := Tag{Name: nm, Kind: kind, Line: int(nameNode.StartPosition().Row) + 1,
			Signature: sig, Parent: parent, Depth: depth}
		st := nameNode.StartByte()
		if i, ok := byStart[st]; ok {
			if weakKind(defs[i].tag.Kind) && !weakKind(kind) {
				defs[i].tag = tag
			}
			continue
		}
		byStart[st] = len(defs)
		defs = append(defs, found{tag, st})
	}
	slices.SortFunc(defs, func(a, b found) int { return int(a.start) - int(b.start) })
	for _, d := range defs {
		t.Defs = append(t.Defs, d.tag)
	}

	refs := make(map[string]int, 64)
	rq := ts.NewQueryCursor()
	defer rq.Close()
	rm := rq.Matches(l.refs, root, src)
	for m := rm.Next(); m != nil; m = rm.Next() {
		for i := range m.Captures {
			n := &m.Captures[i].Node
			if _, isDef := byStart[n.StartByte()]; isDef {
				continue
			}
			s, e := n.StartByte(), n.EndByte()
			if e <= s || e > uint(len(src)) || e-s > 100 {
				continue
			}
			name := strings.TrimPrefix(string(src[s:e]), "#")
			if !keywordish[name] {
				refs[name]++
			}
		}
	}
	t.Refs = refs
	t.Imports = scanImports(lang, src)
	t.Routes = scanRoutes(lang, src)
	t.Main = isMainSource(lang, name, src)
	return t, nil
}

// tsScope finds the enclosing definition of n: its name, node kind and
// the nesting depth.
func tsScope(n *ts.Node, src []byte) (string, string, int) {
	name, kind, depth := "", "", 0
	for p := n.Parent(); p != nil; p = p.Parent() {
		k := p.Kind()
		if !scopeKinds[k] {
			continue
		}
		depth++
		if kind != "" {
			continue
		}
		kind = k
		field := "name"
		if k == "impl_item" {
			field = "type"
		}
		if c := p.ChildByFieldName(field); c != nil {
			name = c.Utf8Text(src)
			if i := strings.IndexAny(name, "<("); i > 0 {
				name = name[:i]
			}
		}
	}
	return name, kind, depth
}

// tsSignature is the definition's text up to its body, on one line.
func tsSignature(n *ts.Node, src []byte) string {
	start, end := n.StartByte(), n.EndByte()
	if n.Kind() == "variable_declarator" {
		if p := n.Parent(); p != nil {
			start = p.StartByte()
		}
		if v := n.ChildByFieldName("value"); v != nil {
			if b := v.ChildByFieldName("body"); b != nil {
				end = b.StartByte()
			}
		}
	} else if b := n.ChildByFieldName("body"); b != nil {
		end = b.StartByte()
	} else if v := n.ChildByFieldName("value"); v != nil && n.Kind() == "pair" {
		if b := v.ChildByFieldName("body"); b != nil {
			end = b.StartByte()
		}
	}
	if end > uint(len(src)) || start >= end {
		return ""
	}
	text := stripComments(string(src[start:end]), n.Kind() == "function_definition" || n.Kind() == "class_definition")
	if n.ChildByFieldName("body") == nil && n.Kind() != "variable_declarator" && n.Kind() != "pair" {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[:i]
		}
	}
	return trimSigTail(oneLine(text, maxSig))
}
