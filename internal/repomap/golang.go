package repomap

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

const goEngine = "go/1"

// parseGo extracts exact tags from Go source with go/parser.
func parseGo(name string, src []byte) (*FileTags, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if f == nil {
		return nil, fmt.Errorf("repomap: parse %s: %w", name, err)
	}
	// A file with syntax errors still yields a partial AST; use it.
	tf := fset.File(f.Pos())
	text := func(from, to token.Pos) string {
		a, b := tf.Offset(from), tf.Offset(to)
		if a < 0 || b > len(src) || a >= b {
			return ""
		}
		return string(src[a:b])
	}
	line := func(p token.Pos) int { return tf.Line(p) }

	t := &FileTags{Lang: "go", Engine: goEngine, Package: f.Name.Name}
	defPos := make(map[token.Pos]bool)
	add := func(id *ast.Ident, kind, sig, parent string, depth int) {
		if id == nil || id.Name == "_" {
			return
		}
		defPos[id.Pos()] = true
		t.Defs = append(t.Defs, Tag{Name: id.Name, Kind: kind, Line: line(id.Pos()), Signature: oneLine(sig, maxSig), Parent: parent, Depth: depth})
	}
	imps := map[string]string{} // local package name -> import path
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		t.Imports = append(t.Imports, p)
		local := goPkgName(p)
		if imp.Name != nil {
			local = imp.Name.Name
		}
		if local != "_" && local != "." {
			imps[local] = p
		}
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			end := d.End()
			if d.Body != nil {
				end = d.Body.Lbrace
			}
			sig := strings.TrimSpace(text(d.Pos(), end))
			if d.Recv != nil && len(d.Recv.List) > 0 {
				add(d.Name, "method", sig, recvName(d.Recv.List[0].Type), 0)
			} else {
				add(d.Name, "func", sig, "", 0)
				if d.Name.Name == "main" && f.Name.Name == "main" {
					t.Main = true
				}
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					addType(add, s, text)
				case *ast.ValueSpec:
					kw := d.Tok.String()
					for _, n := range s.Names {
						add(n, kw, kw+" "+valueSig(n, s, text), "", 0)
					}
				}
			}
		}
	}
	t.Refs = goRefs(f, defPos, imps)
	t.Routes = goRoutes(f, line)
	return t, nil
}

func addType(add func(*ast.Ident, string, string, string, int), s *ast.TypeSpec, text func(a, b token.Pos) string) {
	head := "type " + s.Name.Name
	if s.TypeParams != nil {
		head += text(s.TypeParams.Opening, s.TypeParams.Closing+1)
	}
	if s.Assign.IsValid() {
		head += " ="
	}
	switch tt := s.Type.(type) {
	case *ast.StructType:
		add(s.Name, "type", head+" struct", "", 0)
		// Fields are definitions too: a request naming ReadBufferSize means
		// Transport. Embedded fields are left out (their type is the definition).
		for _, fl := range tt.Fields.List {
			for _, n := range fl.Names {
				add(n, "field", n.Name+" "+text(fl.Type.Pos(), fl.Type.End()), s.Name.Name, 1)
			}
		}
	case *ast.InterfaceType:
		add(s.Name, "type", head+" interface", "", 0)
		for _, m := range tt.Methods.List {
			if len(m.Names) == 0 {
				continue // embedded interface
			}
			for _, n := range m.Names {
				add(n, "method", text(n.Pos(), m.Type.End()), s.Name.Name, 1)
			}
		}
	default:
		add(s.Name, "type", head+" "+text(s.Type.Pos(), s.Type.End()), "", 0)
	}
}

func valueSig(n *ast.Ident, s *ast.ValueSpec, text func(a, b token.Pos) string) string {
	sig := n.Name
	if s.Type != nil {
		sig += " " + text(s.Type.Pos(), s.Type.End())
	}
	if len(s.Values) == len(s.Names) {
		for i, m := range s.Names {
			if m == n {
				v := oneLine(text(s.Values[i].Pos(), s.Values[i].End()), 60)
				sig += " = " + v
			}
		}
	}
	return sig
}

func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// goPredeclared names never resolve to a definition in the repository.
var goPredeclared = map[string]bool{
	"bool": true, "byte": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true, "string": true,
	"rune": true, "error": true, "any": true, "comparable": true, "len": true, "cap": true,
	"make": true, "new": true, "append": true, "copy": true, "delete": true, "panic": true,
	"recover": true, "print": true, "println": true, "close": true, "min": true, "max": true,
	"clear": true, "iota": true,
}

// goRefs counts the identifiers used in f, keyed the way they resolve:
// "Name" for an unqualified use (this package), "import/path.Name" for a
// qualified one, ".Name" for a selector on a value (field or method).
// Declared top-level names, import names and predeclared ones are left out.
func goRefs(f *ast.File, defPos map[token.Pos]bool, imps map[string]string) map[string]int {
	refs := make(map[string]int, 64)
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				if p, ok := imps[id.Name]; ok {
					refs[p+"."+x.Sel.Name]++
					return false
				}
			}
			ast.Inspect(x.X, visit)
			refs["."+x.Sel.Name]++
			return false
		case *ast.Ident:
			if !defPos[x.Pos()] && !keywordish[x.Name] && !goPredeclared[x.Name] {
				refs[x.Name]++
			}
			return false
		}
		return true
	}
	for _, decl := range f.Decls {
		if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			continue
		}
		ast.Inspect(decl, visit)
	}
	return refs
}

// goPkgName guesses the package name of an import path: its last element
// without a major-version suffix, "go-" prefix or "-go"/".go" suffix.
func goPkgName(p string) string {
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	last = strings.TrimPrefix(last, "go-")
	last = strings.TrimSuffix(strings.TrimSuffix(last, "-go"), ".go")
	if i := strings.IndexAny(last, ".-"); i > 0 {
		last = last[:i]
	}
	return last
}

var goRouteCalls = map[string]bool{
	"Handle": true, "HandleFunc": true, "GET": true, "POST": true, "PUT": true, "DELETE": true,
	"PATCH": true, "Get": true, "Post": true, "Put": true, "Delete": true, "Patch": true,
	"Any": true, "Route": true,
}

// goRoutes finds x.Handle("/path", ...)-style registrations.
func goRoutes(f *ast.File, line func(token.Pos) int) []Route {
	var out []Route
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 || len(out) >= 50 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !goRouteCalls[sel.Sel.Name] {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			pat, err := strconv.Unquote(lit.Value)
			if err != nil || !routeLike(pat) {
				return true
			}
			recv := ""
			if x, ok := sel.X.(*ast.Ident); ok {
				recv = x.Name + "."
			}
			out = append(out, Route{Line: line(call.Pos()), Pattern: pat, Call: recv + sel.Sel.Name})
			return true
		})
	}
	return out
}

// routeLike accepts "/x", "GET /x" and "host/x" patterns.
func routeLike(p string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	if i := strings.IndexByte(p, ' '); i > 0 && strings.ToUpper(p[:i]) == p[:i] {
		return strings.HasPrefix(strings.TrimSpace(p[i:]), "/")
	}
	return false
}
