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

func TestSplitBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		final      bool
		closed     []string
		open       string
	}{
		{"paragraph still arriving", "Hello wor", false, nil, "Hello wor"},
		{"paragraph closed by a blank line", "One.\n\nTwo", false, []string{"One.\n\n"}, "Two"},
		{"final closes the last block", "One.\n\nTwo", true, []string{"One.\n\n", "Two"}, ""},
		{"fence open", "Look:\n\n```go\nfunc f() {\n", false, []string{"Look:\n\n"}, "```go\nfunc f() {\n"},
		{"fence closed", "```go\nfunc f() {}\n```\nAfter", false, []string{"```go\nfunc f() {}\n```\n"}, "After"},
		{"blank lines inside a fence", "```\na\n\nb\n```\n", false, []string{"```\na\n\nb\n```\n"}, ""},
		{"a closing fence still arriving", "```\na\n``", false, nil, "```\na\n``"},
		{"a list waits for the line after a blank", "- a\n- b\n\n", false, nil, "- a\n- b\n\n"},
		{"a loose list stays one block", "- a\n\n- b\n\nText\n", false, []string{"- a\n\n- b\n\n"}, "Text\n"},
		{"a list item's code stays in the list", "1. run\n\n   ```sh\n   ls\n   ```\n\n2. done\n\nEnd\n", false, []string{"1. run\n\n   ```sh\n   ls\n   ```\n\n2. done\n\n"}, "End\n"},
		{"a table is a block of its own", "Costs:\n| a | b |\n|---|---|\n| 1 | 2 |\n\nafter", false, []string{"Costs:\n", "| a | b |\n|---|---|\n| 1 | 2 |\n"}, "after"},
		{"a table ends at a heading", "| a |\n|---|\n| 1 |\n# H\n", true, []string{"| a |\n|---|\n| 1 |\n", "# H\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			closed, open := splitBlocks(tc.text, tc.final)
			if strings.Join(closed, "|·|") != strings.Join(tc.closed, "|·|") || open != tc.open {
				t.Errorf("splitBlocks(%q) = %q, open %q; want %q, open %q", tc.text, closed, open, tc.closed, tc.open)
			}
		})
	}
}

// TestSplitBlocksIsStable streams a message one byte at a time: a block,
// once closed, is never cut differently later, and the blocks of the
// finished message are those the stream closed, so the message does not
// jump when it ends.
func TestSplitBlocksIsStable(t *testing.T) {
	msg := "# Plan\n\nFirst **this**:\n\n- a\n- b\n\n  more of b\n\n```go\nfunc f() {\n\n\treturn\n}\n```\n| x | y |\n|---|---|\n| 1 | 2 |\n\nDone.\n"
	var prev []string
	for n := 0; n <= len(msg); n++ {
		closed, _ := splitBlocks(msg[:n], false)
		if len(closed) < len(prev) || strings.Join(closed[:len(prev)], "") != strings.Join(prev, "") {
			t.Fatalf("at %d bytes the closed blocks changed: %q, then %q", n, prev, closed)
		}
		prev = closed
	}
	final, _ := splitBlocks(msg, true)
	if strings.Join(final[:len(prev)], "") != strings.Join(prev, "") {
		t.Errorf("the finished message is cut differently: streamed %q, final %q", prev, final)
	}
}

func TestExpandTabs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\tx", "        x"},
		{"ab\tc", "ab      c"},
		{"12345678\tx", "12345678        x"},
		{"a\n\tb", "a\n        b"},
		{"\x1b[1mab\x1b[0m\tc", "\x1b[1mab\x1b[0m      c"},
		{"日本\tx", "日本    x"},
	} {
		if got := expandTabs(tc.in, 8); got != tc.want {
			t.Errorf("expandTabs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMarkdownTablesAndHeadings: a table is framed and as wide as its
// content, not the screen; headings lose their #.
func TestMarkdownTablesAndHeadings(t *testing.T) {
	m := &markdown{dark: true}
	out := ansi.Strip(m.render("## Results\n\n| name | ok |\n|:-----|---:|\n| `go vet` | yes |\n| tests | **no** |\n", 100))
	if strings.Contains(out, "#") {
		t.Errorf("heading keeps its #:\n%s", out)
	}
	if !strings.Contains(out, "╭") || !strings.Contains(out, "╰") {
		t.Errorf("table has no frame:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.ContainsAny(l, "│╭╰") && ansi.StringWidth(l) > 30 {
			t.Errorf("table row %q is %d columns wide: not sized to its content", l, ansi.StringWidth(l))
		}
	}
	if strings.Contains(out, "**") || strings.Contains(out, "`") {
		t.Errorf("cell Markdown left raw:\n%s", out)
	}
	// Too wide for the screen: the table is cut down to it.
	wide := "| a | b |\n|---|---|\n| " + strings.Repeat("word ", 30) + "| x |\n"
	for _, l := range strings.Split(ansi.Strip(m.render(wide, 60)), "\n") {
		if ansi.StringWidth(l) > 60 {
			t.Errorf("row %q wider than the screen", l)
		}
	}
}

// TestMarkdownKeepsSingleLineBreaks: one fact per line stays one per line
// (CommonMark would join them into a paragraph); a long line still wraps,
// and lists and blank-line paragraphs are unchanged.
func TestMarkdownKeepsSingleLineBreaks(t *testing.T) {
	m := &markdown{dark: true}
	src := "Summary:\nFiles changed: 2\nTests: 14 passed\n\n- one\n- two\n\n" + strings.Repeat("word ", 30) + "\n"
	var lines []string
	for _, l := range strings.Split(ansi.Strip(m.render(src, 60)), "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"Summary:\nFiles changed: 2\nTests: 14 passed\n", "• one\n", "• two\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in\n%s", want, got)
		}
	}
	for _, l := range lines {
		if len(l) > 60 {
			t.Errorf("a line is wider than 60: %q", l)
		}
	}
}

// TestMarkdownStripsHTML guards the patched glamour (third_party/glamour):
// HTML a model writes shows as its text, entities decoded once, with no tag
// and nothing of a script or style.
func TestMarkdownStripsHTML(t *testing.T) {
	m := &markdown{dark: true}
	src := "Inline <b>bold</b> &amp;lt; <span style=\"x\">kept</span> end.\n\n<div>\n<p>Block &amp; text</p>\n<script>alert(1)</script><style>p{}</style><!-- note -->\n</div>\n"
	got := ansi.Strip(m.render(src, 80))
	for _, want := range []string{"bold", "&lt;", "kept", "end.", "Block & text"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in %q", want, got)
		}
	}
	for _, bad := range []string{"<b>", "</b>", "<span", "alert(1)", "<div>", "p{}", "note", "&amp;"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q left in %q", bad, got)
		}
	}
}
