package composer

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenFiles is the file list of the @ popup's golden view.
var goldenFiles = FileList{Paths: []string{
	".gitignore", "README.md", "cmd/agent/main.go", "docs/design.md", "go.mod", "go.sum",
	"internal/app/service.go", "internal/migrate/migrate.go", "internal/tui/composer/composer.go",
	"internal/tui/model.go", "main.go", "main_test.go",
}}

// goldenStates builds each view the golden files show.
var goldenStates = []struct {
	name  string
	build func(d *driver)
}{
	{"empty", func(d *driver) {}},
	{"multiline", func(d *driver) {
		d.typ("Refactor the parser:").press("shift+enter")
		d.typ("- keep the public API as it is").press("shift+enter")
		d.typ("- the error messages should name the line and the column, like the Go compiler's do").press("shift+enter")
		d.paste(lines(120))
		d.typ(" is the log")
	}},
	{"slash", func(d *driver) { d.typ("/c") }},
	{"at", func(d *driver) {
		d.m.SetFiles(goldenFiles)
		d.typ("why does @mg")
	}},
}

func TestGoldenViews(t *testing.T) {
	for _, st := range goldenStates {
		for _, w := range []int{40, 80, 120, 200} {
			for _, dark := range []bool{true, false} {
				bg := map[bool]string{true: "dark", false: "light"}[dark]
				name := fmt.Sprintf("%s_%d_%s", st.name, w, bg)
				t.Run(name, func(t *testing.T) {
					d := newDriver(t, Options{Theme: theme.New(dark, false)})
					d.m.SetSize(w, 14)
					st.build(d)
					got := ansi.Strip(d.m.View()) + "\n"
					for i, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
						if lw := ansi.StringWidth(l); lw > w {
							t.Errorf("line %d is %d wide, more than %d: %q", i, lw, w, l)
						}
					}
					if n := strings.Count(got, "\n"); n != d.m.Height() {
						t.Errorf("the view has %d lines, Height says %d", n, d.m.Height())
					}
					path := filepath.Join("testdata", name+".golden")
					if *update {
						if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
						return
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatalf("%v (run go test -update to write it)", err)
					}
					if got != string(want) {
						t.Errorf("view differs from %s:\n%s\nwant:\n%s", path, got, want)
					}
				})
			}
		}
	}
}

// TestNoColor: with a NoColor theme the view sets no colour at all (bold
// and reverse, for the cursor and the selection, remain).
func TestNoColor(t *testing.T) {
	for _, st := range goldenStates {
		t.Run(st.name, func(t *testing.T) {
			d := newDriver(t, Options{Theme: theme.New(true, true)})
			d.m.SetBusy(st.name == "empty")
			st.build(d)
			v := d.m.View()
			for _, seq := range sgrSequences(v) {
				for _, p := range strings.Split(seq, ";") {
					switch p {
					case "", "0", "1", "2", "3", "4", "7", "22", "23", "24", "27":
					default:
						t.Fatalf("colour escape %q in the NO_COLOR view:\n%q", seq, v)
					}
				}
			}
		})
	}
}

// sgrSequences is the parameters of each SGR escape (ESC [ ... m) in s.
func sgrSequences(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return out
		}
		s = s[i+2:]
		j := strings.IndexFunc(s, func(r rune) bool { return r >= 0x40 && r <= 0x7e })
		if j < 0 {
			return out
		}
		if s[j] == 'm' {
			out = append(out, s[:j])
		}
		s = s[j+1:]
	}
}
