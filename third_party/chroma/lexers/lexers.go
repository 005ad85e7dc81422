package lexers

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// nova: the embedded XML lexers are parsed on first use instead of at
// program start (it cost every nova invocation ~11 ms, even --version).
// Use the functions of this package, not the registry directly, so that
// the embedded lexers are loaded first.
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var (
	loadEmbedded sync.Once
	// loadHooks run once the embedded lexers are registered (analysers
	// that upstream attached in init).
	loadHooks []func()
)

// afterLoad runs f once the embedded lexers are loaded; it is only called
// from init functions, before any lookup.
func afterLoad(f func()) { loadHooks = append(loadHooks, f) }

// registry returns GlobalLexerRegistry with the embedded lexers loaded.
// Lexers defined in Go register at init and keep precedence over an
// embedded one of the same name, as when the embedded ones loaded first.
func registry() *chroma.LexerRegistry {
	loadEmbedded.Do(func() {
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		inGo := map[string]bool{}
		for _, l := range GlobalLexerRegistry.Lexers {
			inGo[l.Config().Name] = true
		}
		for _, path := range paths {
			lexer := chroma.MustNewXMLLexer(embedded, path)
			if inGo[lexer.Config().Name] {
				continue
			}
			GlobalLexerRegistry.Register(lexer)
		}
		for _, f := range loadHooks {
			f()
		}
	})
	return GlobalLexerRegistry
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return registry().Names(withAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return registry().Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return registry().MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return registry().Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	return registry().Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
