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
// The embedded XML styles are added on first use of Get, Names, Register
// (or GetForMode, RegisterPair) rather than at program start, where parsing
// them costs every program that links this package several milliseconds.
// Read Registry directly only after one of those has been called.
var Registry = map[string]*chroma.Style{}

var loadOnce sync.Once

// load adds the embedded styles to Registry, keeping any style of the same
// name that was put there directly before.
func load() {
	loadOnce.Do(func() {
		files, err := fs.ReadDir(embedded, ".")
		if err != nil {
			panic(err)
		}
		for _, file := range files {
			if file.IsDir() {
				continue
			}
			style := swapoff
			if file.Name() != "swapoff.xml" {
				style = mustParse(file.Name())
			}
			if _, ok := Registry[strings.ToLower(style.Name)]; !ok {
				Registry[strings.ToLower(style.Name)] = style
			}
		}
	})
}

func mustParse(name string) *chroma.Style {
	r, err := embedded.Open(name)
	if err != nil {
		panic(err)
	}
	defer r.Close()
	style, err := chroma.NewXMLStyle(r)
	if err != nil {
		panic(err)
	}
	return style
}

// swapoff is the default fallback, the one embedded style parsed at start.
var swapoff = mustParse("swapoff.xml")

// Fallback style. Reassign to change the default fallback style.
var Fallback = swapoff

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	load()
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
