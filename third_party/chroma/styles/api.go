package styles

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed *.xml
var embedded embed.FS

// Registry of Styles.
//
// Patched (agent, third_party/chroma): the embedded styles are parsed on first
// use (Get, GetForMode or Names), not by the package initializer (parsing the
// ~70 XML files cost 7-14 ms and 1.9 MB at every process start). Until then
// Registry holds only the styles given to Register, and Fallback is nil. A
// style given to Register keeps its name when the embedded ones load.
var Registry = map[string]*chroma.Style{}

// Fallback style. Reassign to change the default fallback style. It is
// "swapoff" once the embedded styles are loaded, unless reassigned before.
var Fallback *chroma.Style

var loadOnce sync.Once

// load parses the embedded styles into Registry, once.
func load() {
	loadOnce.Do(func() {
		loaded := map[string]*chroma.Style{}
		files, err := fs.ReadDir(embedded, ".")
		if err != nil {
			panic(err)
		}
		for _, file := range files {
			if file.IsDir() {
				continue
			}
			r, err := embedded.Open(file.Name())
			if err != nil {
				panic(err)
			}
			style, err := chroma.NewXMLStyle(r)
			if err != nil {
				panic(err)
			}
			_ = r.Close()
			loaded[strings.ToLower(style.Name)] = style
		}
		for name, style := range loaded {
			if _, ok := Registry[name]; !ok {
				Registry[name] = style
			}
		}
		if Fallback == nil {
			Fallback = Registry["swapoff"]
		}
	})
}

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	Registry[strings.ToLower(style.Name)] = style
	return style
}

// Names of all available styles.
func Names() []string {
	load()
	out := []string{}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	load()
	if style, ok := Registry[strings.ToLower(name)]; ok {
		return style
	}
	return Fallback
}

// GetForMode returns the named style if it already matches mode, otherwise its
// registered counterpart if one exists and matches mode. If neither matches,
// the originally-requested style is returned (or Fallback if the name is
// unknown), so callers always get something usable.
func GetForMode(name string, mode chroma.Mode) *chroma.Style {
	load()
	style := Get(name)
	if style.Mode() == mode {
		return style
	}
	if style.Counterpart == "" {
		return style
	}
	counterpart, ok := Registry[style.Counterpart]
	if !ok || counterpart.Mode() != mode {
		return style
	}
	return counterpart
}

// RegisterPair links two styles as light/dark counterparts of each other.
//
// Both styles are also registered if they are not already present.
func RegisterPair(a, b *chroma.Style) {
	Register(a)
	Register(b)
	a.Counterpart = strings.ToLower(b.Name)
	b.Counterpart = strings.ToLower(a.Name)
}
