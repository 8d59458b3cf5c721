package repomap

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"agent/internal/lazyre"
	"slices"
	"strings"
)

// aboutLines reads what the root's README and config files say, and the
// entry points they declare (package.json bin/scripts, pyproject scripts,
// Makefile targets).
func aboutLines(root string, others []string) (about, entries []string) {
	rootFiles := map[string]string{} // lower name -> name
	for _, o := range others {
		if !strings.Contains(o, "/") {
			rootFiles[strings.ToLower(o)] = o
		}
	}
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || len(data) > 1<<20 {
			return ""
		}
		return string(data)
	}
	for _, n := range []string{"readme.md", "readme", "readme.rst", "readme.txt", "readme.markdown"} {
		if name, ok := rootFiles[n]; ok {
			if s := readmeSummary(read(name)); s != "" {
				about = append(about, name+": "+s)
			}
			break
		}
	}
	if name, ok := rootFiles["go.mod"]; ok {
		about = append(about, goModSummary(read(name)))
	}
	if name, ok := rootFiles["package.json"]; ok {
		a, e := packageJSON(read(name))
		if a != "" {
			about = append(about, a)
		}
		entries = append(entries, e...)
	}
	if name, ok := rootFiles["pyproject.toml"]; ok {
		a, e := pyproject(read(name))
		if a != "" {
			about = append(about, a)
		}
		entries = append(entries, e...)
	}
	if name, ok := rootFiles["cargo.toml"]; ok {
		if a := tomlSummary("Cargo.toml", read(name), "package"); a != "" {
			about = append(about, a)
		}
	}
	for _, n := range []string{"makefile", "gnumakefile"} {
		if name, ok := rootFiles[n]; ok {
			if t := makeTargets(read(name)); len(t) > 0 {
				entries = append(entries, "make: "+strings.Join(t, " "))
			}
			break
		}
	}
	return about, entries
}

var mdNoise = lazyre.New(`!\[[^\]]*\]\([^)]*\)|\[!\[.*|<[^>]+>|\[([^\]]*)\]\([^)]*\)`)

// readmeSummary returns the first heading and the first prose sentence.
func readmeSummary(s string) string {
	var title, text string
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(mdNoise.ReplaceAllString(line, "$1"))
		if l == "" || strings.HasPrefix(l, "```") || strings.Trim(l, "=-*_#~ ") == "" {
			continue
		}
		if strings.HasPrefix(l, "#") {
			if title == "" {
				title = strings.TrimSpace(strings.TrimLeft(l, "#"))
			}
			continue
		}
		if title == "" {
			title = l
			continue
		}
		text = l
		if i := strings.Index(text, ". "); i > 0 {
			text = text[:i+1]
		}
		break
	}
	out := title
	if text != "" {
		out += " — " + text
	}
	return oneLine(out, 200)
}

func goModSummary(s string) string {
	mod, gov, reqs := "", "", 0
	inReq := false
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(l, "module "):
			mod = strings.TrimSpace(l[7:])
		case strings.HasPrefix(l, "go "):
			gov = strings.TrimSpace(l[3:])
		case l == "require (":
			inReq = true
		case inReq && l == ")":
			inReq = false
		case inReq && l != "" && !strings.HasPrefix(l, "//"):
			reqs++
		case strings.HasPrefix(l, "require "):
			reqs++
		}
	}
	return fmt.Sprintf("go.mod: module %s, go %s, %d requires", mod, gov, reqs)
}

func packageJSON(s string) (string, []string) {
	var p struct {
		Name        string          `json:"name"`
		Version     string          `json:"version"`
		Description string          `json:"description"`
		Main        string          `json:"main"`
		Bin         json.RawMessage `json:"bin"`
		Scripts     map[string]any  `json:"scripts"`
	}
	if json.Unmarshal([]byte(s), &p) != nil {
		return "", nil
	}
	about := "package.json: " + p.Name
	if p.Version != "" {
		about += "@" + p.Version
	}
	if p.Description != "" {
		about += " — " + p.Description
	}
	if p.Main != "" {
		about += "; main " + p.Main
	}
	var entries []string
	var bins map[string]string
	var one string
	if json.Unmarshal(p.Bin, &bins) == nil && len(bins) > 0 {
		var bs []string
		for k, v := range bins {
			bs = append(bs, k+" → "+v)
		}
		slices.Sort(bs)
		entries = append(entries, "bin: "+strings.Join(bs[:min(5, len(bs))], ", "))
	} else if json.Unmarshal(p.Bin, &one) == nil && one != "" {
		entries = append(entries, "bin: "+p.Name+" → "+one)
	}
	if len(p.Scripts) > 0 {
		var ks []string
		for k := range p.Scripts {
			ks = append(ks, k)
		}
		common := map[string]int{"start": 0, "dev": 1, "build": 2, "test": 3, "lint": 4, "serve": 5}
		slices.SortFunc(ks, func(a, b string) int {
			ca, oka := common[a]
			cb, okb := common[b]
			switch {
			case oka && okb:
				return ca - cb
			case oka:
				return -1
			case okb:
				return 1
			}
			return strings.Compare(a, b)
		})
		entries = append(entries, "npm scripts: "+strings.Join(ks[:min(10, len(ks))], " "))
	}
	return oneLine(about, 200), entries
}

// pyproject reads [project] name/description and [project.scripts].
func pyproject(s string) (string, []string) {
	about := tomlSummary("pyproject.toml", s, "project", "tool.poetry")
	var scripts []string
	sec := ""
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			sec = strings.Trim(l, "[] ")
			continue
		}
		if sec == "project.scripts" || sec == "tool.poetry.scripts" {
			if k, v, ok := strings.Cut(l, "="); ok {
				scripts = append(scripts, strings.TrimSpace(k)+" → "+strings.Trim(strings.TrimSpace(v), `"'`))
			}
		}
	}
	var entries []string
	if len(scripts) > 0 {
		entries = append(entries, "scripts: "+strings.Join(scripts[:min(5, len(scripts))], ", "))
	}
	return about, entries
}

// tomlSummary reads name, version and description from the first of the
// given tables.
func tomlSummary(file, s string, tables ...string) string {
	vals := map[string]string{}
	sec := ""
	for _, line := range strings.Split(s, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			sec = strings.Trim(l, "[] ")
			continue
		}
		if !slices.Contains(tables, sec) {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if (k == "name" || k == "version" || k == "description") && vals[k] == "" {
			vals[k] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	if vals["name"] == "" {
		return ""
	}
	out := file + ": " + vals["name"]
	if vals["version"] != "" {
		out += "@" + vals["version"]
	}
	if vals["description"] != "" {
		out += " — " + vals["description"]
	}
	return oneLine(out, 200)
}

var makeTargetRE = lazyre.New(`(?m)^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:([^=]|$)`)

func makeTargets(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range makeTargetRE.FindAllStringSubmatch(s, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
		if len(out) == 12 {
			break
		}
	}
	return out
}
