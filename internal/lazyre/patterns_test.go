package lazyre

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every pattern given to New anywhere in the module compiles: a bad one
// would otherwise panic only when first used, not at start as
// regexp.MustCompile did.
func TestEveryPatternInTheModuleCompiles(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "third_party" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(x ast.Node) bool {
			call, ok := x.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "New" || len(call.Args) != 1 {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "lazyre" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: lazyre.New with a pattern that is not a literal", p)
				return true
			}
			src, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				return true
			}
			if _, err := regexp.Compile(src); err != nil {
				t.Errorf("%s: pattern %q: %v", p, src, err)
			}
			n++
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("found only %d patterns; the walk missed the module's packages", n)
	}
}
