package tui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestMarkdownHighlightsCode guards the lazily loaded syntax highlighter
// (third_party/chroma): a fenced Go block comes out coloured, token by
// token, in both styles.
func TestMarkdownHighlightsCode(t *testing.T) {
	src := "Here:\n\n```go\nfunc main() {\n\tfmt.Println(\"hi\") // greet\n}\n```\n"
	for _, dark := range []bool{true, false} {
		m := &markdown{dark: dark}
		out := m.render(src, 80)
		plain := ansi.Strip(out)
		if !strings.Contains(plain, `fmt.Println("hi")`) {
			t.Fatalf("dark=%v: code missing from %q", dark, plain)
		}
		// The Go lexer gives the keyword and the function name different
		// colours; without highlighting they share the block's colour.
		kw, fn := sgrBefore(out, "func"), sgrBefore(out, "main")
		if kw == "" || kw == fn {
			t.Errorf("dark=%v: func %q and main %q are coloured alike: not highlighted:\n%q", dark, kw, fn, out)
		}
	}
}

// sgrBefore returns the SGR parameters directly before word in s.
func sgrBefore(s, word string) string {
	m := regexp.MustCompile(`\x1b\[([0-9;]*)m` + regexp.QuoteMeta(word)).FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[1]
}
