package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agent/internal/repomap"
)

// mapJSON is the contract's shape of `agent repomap --json`, plus stats.
type mapJSON struct {
	Budget int `json:"budget"`
	Tokens int `json:"tokens"`
	Files  []struct {
		Path    string  `json:"path"`
		Rank    float64 `json:"rank"`
		Symbols []struct {
			Name      string `json:"name"`
			Kind      string `json:"kind"`
			Line      int    `json:"line"`
			Signature string `json:"signature"`
		} `json:"symbols"`
	} `json:"files"`
	Text  string `json:"text"`
	Stats struct {
		Files  int `json:"files"`
		Parsed int `json:"parsed"`
		Cached int `json:"cached"`
	} `json:"stats"`
}

func (m *mapJSON) paths() []string {
	var out []string
	for _, f := range m.Files {
		out = append(out, f.Path)
	}
	return out
}

// mapRepo is a small Go + Python repository: an inventory service and a
// billing package, each with a caller, so references give the ranking
// something to work with.
var mapRepo = map[string]string{
	"go.mod":    "module example.com/shop\n\ngo 1.22\n",
	"README.md": "# shop\n\nInventory and billing for a small shop.\n",
	"inventory/stock.go": `package inventory

import "errors"

// ErrOutOfStock is returned when a reservation cannot be met.
var ErrOutOfStock = errors.New("out of stock")

// Warehouse holds stock levels by SKU.
type Warehouse struct {
	levels map[string]int
}

// NewWarehouse returns an empty warehouse.
func NewWarehouse() *Warehouse { return &Warehouse{levels: map[string]int{}} }

// ReserveStock takes n units of sku, or fails with ErrOutOfStock.
func (w *Warehouse) ReserveStock(sku string, n int) error {
	if w.levels[sku] < n {
		return ErrOutOfStock
	}
	w.levels[sku] -= n
	return nil
}
`,
	"inventory/restock.go": `package inventory

// Restock adds n units of sku.
func (w *Warehouse) Restock(sku string, n int) { w.levels[sku] += n }
`,
	"cmd/shop/main.go": `package main

import (
	"fmt"

	"example.com/shop/inventory"
)

func main() {
	w := inventory.NewWarehouse()
	w.Restock("apple", 3)
	fmt.Println(w.ReserveStock("apple", 2))
}
`,
	"billing/__init__.py": "",
	"billing/tax.py": `RATES = {"standard": 0.2, "reduced": 0.05}


def compute_tax(amount, rate_name="standard"):
    """Tax due on amount."""
    return round(amount * RATES[rate_name], 2)
`,
	"billing/invoice.py": `from billing.tax import compute_tax


class InvoiceBuilder:
    def __init__(self, customer):
        self.customer = customer
        self.lines = []

    def add_line(self, label, amount):
        self.lines.append((label, amount, compute_tax(amount)))
        return self

    def total(self):
        return sum(a + t for _, a, t in self.lines)
`,
	"billing/cli.py": `import sys

from billing.invoice import InvoiceBuilder


def main(argv):
    b = InvoiceBuilder(argv[1])
    for arg in argv[2:]:
        b.add_line(arg, 10.0)
    print(b.total())


if __name__ == "__main__":
    main(sys.argv)
`,
}

const mapSources = 7 // .go and .py files in mapRepo

func newMapEnv(t *testing.T) *env {
	t.Helper()
	return &env{t: t, ws: gitRepo(t, mapRepo), home: filepath.Join(t.TempDir(), "state")}
}

func (e *env) repomap(args ...string) *mapJSON {
	e.t.Helper()
	var m mapJSON
	e.mustJSON(&m, append([]string{"repomap", "--json"}, args...)...)
	return &m
}

func checkMap(t *testing.T, m *mapJSON, budget int) {
	t.Helper()
	if m.Budget != budget {
		t.Errorf("budget = %d, want %d", m.Budget, budget)
	}
	n, err := repomap.CountTokens("", m.Text)
	if err != nil {
		t.Fatal(err)
	}
	if n > budget || m.Tokens > budget {
		t.Errorf("the map is over budget: text counts %d tokens, reports %d, budget %d", n, m.Tokens, budget)
	}
	if len(m.Files) == 0 {
		t.Fatalf("no files in the map:\n%s", m.Text)
	}
	for i := 1; i < len(m.Files); i++ {
		if m.Files[i].Rank > m.Files[i-1].Rank {
			t.Errorf("files not in rank order: %s (%g) after %s (%g)", m.Files[i].Path, m.Files[i].Rank, m.Files[i-1].Path, m.Files[i-1].Rank)
		}
	}
	for _, f := range m.Files {
		if !strings.Contains(m.Text, f.Path+":") {
			t.Errorf("file %s is listed but not in the text", f.Path)
		}
	}
}

// topWith reports whether a file among the first n defines name, and returns
// that symbol's line.
func topWith(m *mapJSON, n int, path, name string) (int, bool) {
	for _, f := range m.Files[:min(n, len(m.Files))] {
		if f.Path != path {
			continue
		}
		for _, s := range f.Symbols {
			if s.Name == name {
				return s.Line, true
			}
		}
	}
	return 0, false
}

func TestRepomapJSONRanksTheQueriedDefinition(t *testing.T) {
	e := newMapEnv(t)

	m := e.repomap("--tokens", "512", "--query", "where is compute_tax defined and who calls it?")
	checkMap(t, m, 512)
	line, ok := topWith(m, 3, "billing/tax.py", "compute_tax")
	if !ok {
		t.Fatalf("billing/tax.py with compute_tax is not in the top 3: %q\n%s", m.paths(), m.Text)
	}
	if line != 4 {
		t.Errorf("compute_tax is at line %d, want 4", line)
	}
	if m.Stats.Files != mapSources || m.Stats.Parsed != mapSources || m.Stats.Cached != 0 {
		t.Errorf("first run stats = %+v, want all %d files parsed, none cached", m.Stats, mapSources)
	}

	g := e.repomap("--tokens", "512", "--query", "why does ReserveStock return ErrOutOfStock?")
	checkMap(t, g, 512)
	if _, ok := topWith(g, 3, "inventory/stock.go", "ReserveStock"); !ok {
		t.Fatalf("inventory/stock.go with ReserveStock is not in the top 3: %q\n%s", g.paths(), g.Text)
	}

	// The text output is the JSON's text: what the model sees.
	r := e.run("repomap", "--tokens", "512", "--query", "why does ReserveStock return ErrOutOfStock?")
	if r.code != 0 || r.stdout != g.Text {
		t.Fatalf("text output (exit %d) differs from the JSON text:\n%s\n---\n%s\nstderr: %s", r.code, r.stdout, g.Text, r.stderr)
	}

	// -C maps another directory than the current one.
	other := newMapEnv(t)
	fromC := e.repomap("-C", other.ws, "--tokens", "512", "--query", "why does ReserveStock return ErrOutOfStock?")
	if !slices.Equal(fromC.paths(), g.paths()) {
		t.Errorf("-C %s gives files %q, want %q", other.ws, fromC.paths(), g.paths())
	}

	// A focused file is in the map even when the query points elsewhere.
	f := e.repomap("--tokens", "256", "--focus", "billing/cli.py", "--query", "ReserveStock")
	checkMap(t, f, 256)
	if !slices.Contains(f.paths(), "billing/cli.py") {
		t.Errorf("--focus billing/cli.py is not in the map: %q", f.paths())
	}
}

func TestRepomapWarmRunParsesOnlyWhatChanged(t *testing.T) {
	e := newMapEnv(t)
	args := []string{"--tokens", "1024", "--query", "InvoiceBuilder"}
	cold := e.repomap(args...)
	if cold.Stats.Parsed != mapSources || cold.Stats.Cached != 0 {
		t.Fatalf("cold run stats = %+v", cold.Stats)
	}
	if st, err := os.Stat(e.home); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("state directory: %v, mode %v; want 0700", err, st.Mode().Perm())
	}

	warm := e.repomap(args...)
	if warm.Stats.Parsed != 0 || warm.Stats.Cached != cold.Stats.Parsed {
		t.Fatalf("second run stats = %+v, want 0 parsed and %d cached", warm.Stats, cold.Stats.Parsed)
	}
	if warm.Text != cold.Text {
		t.Fatalf("the warm map differs from the cold one:\n%s\n---\n%s", cold.Text, warm.Text)
	}

	p := filepath.Join(e.ws, "inventory", "restock.go")
	src := mapRepo["inventory/restock.go"] + "\n// DrainWarehouse empties every SKU.\nfunc (w *Warehouse) DrainWarehouse() { clear(w.levels) }\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	edited := e.repomap("--tokens", "1024", "--query", "DrainWarehouse")
	if edited.Stats.Parsed != 1 || edited.Stats.Cached != cold.Stats.Parsed-1 {
		t.Fatalf("after editing one file stats = %+v, want 1 parsed and %d cached", edited.Stats, cold.Stats.Parsed-1)
	}
	if _, ok := topWith(edited, 3, "inventory/restock.go", "DrainWarehouse"); !ok {
		t.Fatalf("the new DrainWarehouse is not in the top 3: %q\n%s", edited.paths(), edited.Text)
	}

	// --no-cache parses everything and leaves the cache as it was.
	nc := e.repomap("--no-cache", "--tokens", "1024", "--query", "DrainWarehouse")
	if nc.Stats.Cached != 0 || nc.Stats.Parsed != cold.Stats.Parsed {
		t.Fatalf("--no-cache stats = %+v", nc.Stats)
	}
	if again := e.repomap(args...); again.Stats.Parsed != 0 {
		t.Fatalf("the run after the edit did not save it: %+v", again.Stats)
	}
}

func TestRepomapUsageErrors(t *testing.T) {
	e := newMapEnv(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package x\n\nfunc Secret() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(e.ws, "link.go")); err != nil {
		t.Fatal(err)
	}
	dotdot, err := filepath.Rel(e.ws, filepath.Join(outside, "secret.go"))
	if err != nil || !strings.HasPrefix(dotdot, "..") {
		t.Fatalf("relative path to %s: %q, %v", outside, dotdot, err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"tokens too small", []string{"--tokens", "10"}, "--tokens 10 is out of range"},
		{"tokens too large", []string{"--tokens", "2000000"}, "between 64 and 1000000"},
		{"tokens not a number", []string{"--tokens", "many"}, "--tokens"},
		{"focus dot-dot", []string{"--focus", dotdot}, "outside the workspace"},
		{"focus outside", []string{"--focus", filepath.Join(outside, "secret.go")}, "outside the workspace"},
		{"focus symlink outside", []string{"--focus", "link.go"}, "outside the workspace"},
		{"focus missing", []string{"--focus", "nope/missing.go"}, "no such file"},
		{"positional query", []string{"how", "does", "it", "work"}, "--query"},
		{"bad workspace", []string{"-C", filepath.Join(outside, "absent")}, "-C"},
	}
	for _, c := range cases {
		r := e.run(append([]string{"repomap"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: agent repomap %q: exit %d, stderr %q; want exit 2 naming %q", c.name, c.args, r.code, r.stderr, c.want)
		}
		if r.stdout != "" {
			t.Errorf("%s: stdout %q, want nothing", c.name, r.stdout)
		}
	}

}
