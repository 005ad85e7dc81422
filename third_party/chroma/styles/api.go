package styles

import (
	"embed"
	"io/fs"
	"sort"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed *.xml
var embedded embed.FS

// Registry of Styles.
//
// nova: the embedded XML styles are parsed on first use instead of at
// program start (~10 ms of every nova invocation). Styles registered
// before that (glamour registers its own) are kept; use Get, Names and
// Register rather than reading Registry for an embedded style.
var Registry = map[string]*chroma.Style{}

var (
	loadOnce sync.Once
	mu       sync.Mutex
)

// load adds the embedded styles to Registry, keeping any style of the same
// name registered earlier.
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
			r, err := embedded.Open(file.Name())
			if err != nil {
				panic(err)
			}
			style, err := chroma.NewXMLStyle(r)
			if err != nil {
				panic(err)
			}
			_ = r.Close()
			mu.Lock()
			if _, ok := Registry[style.Name]; !ok {
				Registry[style.Name] = style
			}
			mu.Unlock()
		}
	})
}

// Fallback style. Reassign to change the default fallback style; nil means
// "swapoff".
var Fallback *chroma.Style

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	mu.Lock()
	defer mu.Unlock()
	Registry[style.Name] = style
	return style
}

// Names of all available styles.
func Names() []string {
	load()
	mu.Lock()
	defer mu.Unlock()
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
	mu.Lock()
	defer mu.Unlock()
	if style, ok := Registry[name]; ok {
		return style
	}
	if Fallback != nil {
		return Fallback
	}
	return Registry["swapoff"]
}
