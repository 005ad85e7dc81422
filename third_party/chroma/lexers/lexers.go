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
// The embedded XML lexers are added on first use of a lookup function of
// this package (Get, Match, MatchMimeType, Analyse, Names, Aliases) rather
// than at program start, where parsing them costs every program that links
// this package several milliseconds. Read the registry's fields directly
// only after one of those has been called.
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var (
	loadOnce sync.Once
	// analysers to set on embedded lexers once they are loaded.
	analysers = map[string]func(text string) float32{}
)

// setAnalyser sets the analyser of the named lexer once the embedded lexers
// are loaded. Only for init functions.
func setAnalyser(name string, analyser func(text string) float32) {
	analysers[name] = analyser
}

// registry returns GlobalLexerRegistry with the embedded lexers loaded. The
// result is the registry an eager load would have built: the embedded lexers
// first, then every lexer registered before the first lookup, in its order,
// replacing an embedded lexer of the same name.
func registry() *chroma.LexerRegistry {
	loadOnce.Do(func() {
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		registered := GlobalLexerRegistry.Lexers
		*GlobalLexerRegistry = *chroma.NewLexerRegistry()
		for _, path := range paths {
			GlobalLexerRegistry.Register(chroma.MustNewXMLLexer(embedded, path))
		}
		for _, lexer := range registered {
			GlobalLexerRegistry.Register(lexer)
		}
		for name, analyser := range analysers {
			GlobalLexerRegistry.Get(name).SetAnalyser(analyser)
		}
	})
	return GlobalLexerRegistry
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return registry().Names(withAliases)
}

// Aliases of all the lexers, and skip those lexers who do not have any aliases,
// or show their name instead
func Aliases(skipWithoutAliases bool) []string {
	return registry().Aliases(skipWithoutAliases)
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
