package repomap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Acceptance: on code nobody here wrote, a query naming an identifier
// defined in exactly one file puts that file into a 1,024-token map in at
// least 9 cases of 10. Identifiers are sampled deterministically (evenly
// spaced over the sorted candidates); the oracle is go/ast for Go and
// Universal Ctags (or a regexp when ctags is missing) for Python and
// JavaScript. Files the map deliberately skips (generated, over 1 MiB,
// minified) and hidden, testdata, vendor and node_modules directories are
// left out of the oracle too.

const (
	acceptSample = 50
	acceptRate   = 0.9
)

func pythonLib() string { return "/root/.pyenv/versions/3.11.7/lib/python3.11" }

func npmLib() string {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(npm); err == nil {
		npm = real
	}
	return filepath.Join(filepath.Dir(npm), "..", "lib")
}

// oracleDefs maps identifier -> set of defining files (slash paths).
type oracleDefs map[string]map[string]bool

func (o oracleDefs) add(name, file string) {
	if o[name] == nil {
		o[name] = map[string]bool{}
	}
	o[name][file] = true
}

// unique returns a deterministic sample of identifiers defined in exactly
// one file, with that file.
func (o oracleDefs) unique(n int) [][2]string {
	var all [][2]string
	for name, files := range o {
		if len(files) != 1 || name == "_" {
			continue
		}
		for f := range files {
			all = append(all, [2]string{name, f})
		}
	}
	slices.SortFunc(all, func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	if len(all) <= n {
		return all
	}
	out := make([][2]string, 0, n)
	for i := range n {
		out = append(out, all[i*len(all)/n])
	}
	return out
}

func skipOracleDir(name string) bool {
	return strings.HasPrefix(name, ".") || skipDirs[name]
}

func goOracle(t *testing.T, root string) oracleDefs {
	o := oracleDefs{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipOracleDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxFileSize {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil || ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				o.add(d.Name.Name, rel)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						o.add(s.Name.Name, rel)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							o.add(n.Name, rel)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

type ctagsTag struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	Kind      string `json:"kind"`
	Pattern   string `json:"pattern"`
	ScopeKind string `json:"scopeKind"`
}

var (
	topLevelVarRE = regexp.MustCompile(`^/\^(export )?(const|let|var) `)
	classFieldRE  = regexp.MustCompile(`^/\^ {0,2}(static\s+)?#?[A-Za-z_$][\w$]*\s*(=|;|\$/)`)
)

// ctagsOracle runs Universal Ctags; ok is false when ctags is missing.
func ctagsOracle(t *testing.T, root, lang string) (oracleDefs, bool) {
	ctags, err := exec.LookPath("ctags")
	if err != nil {
		return nil, false
	}
	args := []string{"-R", "--languages=" + lang, "--output-format=json", "--fields=+nKzs"}
	for d := range skipDirs {
		args = append(args, "--exclude="+d)
	}
	cmd := exec.Command(ctags, append(args, "-f", "-", ".")...)
	cmd.Dir = root
	cmd.Stderr = nil // ctags warns about null tags on stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	o := oracleDefs{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var tg ctagsTag
		if json.Unmarshal(sc.Bytes(), &tg) != nil || tg.Name == "" || strings.Contains("/"+tg.Path, "/.") && !strings.HasPrefix(tg.Path, "./") {
			continue
		}
		tg.Path = strings.TrimPrefix(tg.Path, "./")
		if lang == "Python" {
			if !strings.HasSuffix(tg.Path, ".py") {
				continue
			}
			switch tg.Kind {
			case "class", "function", "member", "variable":
			default:
				continue
			}
		} else {
			if langOf(tg.Path) != "javascript" || strings.HasPrefix(tg.Name, "Anonymous") {
				continue
			}
			switch tg.Kind {
			case "class":
				// ctags calls object literals classes: keep real classes
				// and top-level object constants
				if !strings.Contains(tg.Pattern, "class ") && !topLevelVarRE.MatchString(tg.Pattern) {
					continue
				}
			case "function", "method", "getter", "setter", "generator":
			case "field":
				// class-body declarations; ctags also reports object
				// keys and parameter reassignments as fields
				if tg.ScopeKind != "class" || !classFieldRE.MatchString(tg.Pattern) {
					continue
				}
			case "constant", "variable":
				if !topLevelVarRE.MatchString(tg.Pattern) {
					continue // ctags also reports locals
				}
				if strings.Contains(tg.Pattern, "require(") {
					continue // an import binding, defined in the module it names
				}
			default:
				continue
			}
		}
		if data, err := os.ReadFile(filepath.Join(root, tg.Path)); err != nil || skipReason(filepath.Base(tg.Path), data) != "" {
			continue
		}
		o.add(tg.Name, filepath.ToSlash(strings.TrimPrefix(tg.Path, "./")))
	}
	return o, true
}

var (
	regexPyDef = regexp.MustCompile(`(?m)^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*=[^=]`)
	regexJSDef = regexp.MustCompile(`(?m)^\s*(?:export\s+)?(?:async\s+)?(?:function\*?|class)\s+([A-Za-z_$][\w$]*)|^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=`)
)

// regexOracle is the fallback when ctags is not installed.
func regexOracle(t *testing.T, root, ext string, re *regexp.Regexp) oracleDefs {
	o := oracleDefs{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipOracleDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ext) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || skipReason(d.Name(), data) != "" {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		for _, m := range re.FindAllSubmatch(data, -1) {
			for _, g := range m[1:] {
				if len(g) > 0 {
					o.add(string(g), filepath.ToSlash(rel))
				}
			}
		}
		return nil
	})
	return o
}

// hitRate builds one 1,024-token map per sampled identifier and reports
// the share whose defining file is in the map.
func hitRate(t *testing.T, root string, sample [][2]string) (float64, []string) {
	t.Helper()
	cache := NewMemCache()
	hits := 0
	var misses []string
	for _, s := range sample {
		q := fmt.Sprintf("Where is %s defined, and how is it used?", s[0])
		m, err := Build(context.Background(), Options{Root: root, Tokens: 1024, Query: q, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := CountTokens("", m.Text); n > 1024 {
			t.Errorf("map for %q has %d tokens > 1024", q, n)
		}
		found := slices.ContainsFunc(m.Files, func(f File) bool { return f.Path == s[1] })
		if found {
			hits++
		} else {
			misses = append(misses, s[0]+" ("+s[1]+")")
		}
	}
	return float64(hits) / float64(len(sample)), misses
}

func checkRate(t *testing.T, lang string, rate float64, n int, misses []string) {
	t.Logf("%s (engine %s): %d identifiers, hit rate %.0f%%", lang, otherEngine, n, rate*100)
	if len(misses) > 0 {
		t.Logf("misses: %s", strings.Join(misses, ", "))
	}
	if rate < acceptRate {
		t.Errorf("%s hit rate %.2f < %.2f", lang, rate, acceptRate)
	}
}

func TestAcceptanceGoNetHTTP(t *testing.T) {
	root := filepath.Join(goroot(), "src", "net", "http")
	if _, err := os.Stat(root); err != nil {
		t.Skip("no net/http sources")
	}
	sample := goOracle(t, root).unique(acceptSample)
	rate, misses := hitRate(t, root, sample)
	checkRate(t, "go", rate, len(sample), misses)
}

func TestAcceptancePythonStdlib(t *testing.T) {
	var all [][2]string
	var rates []float64
	var misses []string
	for _, pkg := range []string{"email", "asyncio"} {
		root := filepath.Join(pythonLib(), pkg)
		if _, err := os.Stat(root); err != nil {
			continue
		}
		o, ok := ctagsOracle(t, root, "Python")
		if !ok {
			o = regexOracle(t, root, ".py", regexPyDef)
		}
		sample := o.unique(acceptSample / 2)
		rate, m := hitRate(t, root, sample)
		rates = append(rates, rate*float64(len(sample)))
		all = append(all, sample...)
		for _, x := range m {
			misses = append(misses, pkg+"/"+x)
		}
	}
	if len(all) == 0 {
		t.Skip("no Python standard library corpus")
	}
	sum := 0.0
	for _, r := range rates {
		sum += r
	}
	checkRate(t, "python", sum/float64(len(all)), len(all), misses)
}

func TestAcceptanceJavaScriptNpm(t *testing.T) {
	root := npmLib()
	if root == "" {
		t.Skip("npm not installed")
	}
	if _, err := os.Stat(root); err != nil {
		t.Skip("no npm lib dir")
	}
	o, ok := ctagsOracle(t, root, "JavaScript")
	if !ok {
		o = regexOracle(t, root, ".js", regexJSDef)
	}
	sample := o.unique(acceptSample)
	rate, misses := hitRate(t, root, sample)
	checkRate(t, "javascript", rate, len(sample), misses)
}

// TestAcceptanceLarge repeats the check on whole trees (GOROOT/src, the
// Python standard library); it takes about a minute, so it runs only with
// REPOMAP_LARGE=1.
func TestAcceptanceLarge(t *testing.T) {
	if os.Getenv("REPOMAP_LARGE") == "" {
		t.Skip("set REPOMAP_LARGE=1 to run")
	}
	goRoot := filepath.Join(goroot(), "src")
	if _, err := os.Stat(goRoot); err == nil {
		sample := goOracle(t, goRoot).unique(40)
		rate, misses := hitRate(t, goRoot, sample)
		checkRate(t, "go (GOROOT/src)", rate, len(sample), misses)
	}
	if _, err := os.Stat(pythonLib()); err == nil {
		if o, ok := ctagsOracle(t, pythonLib(), "Python"); ok {
			sample := o.unique(40)
			rate, misses := hitRate(t, pythonLib(), sample)
			checkRate(t, "python (lib/python3.11)", rate, len(sample), misses)
		}
	}
}
