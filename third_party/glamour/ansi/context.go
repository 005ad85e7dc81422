package ansi

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// RenderContext holds the current rendering options and state.
type RenderContext struct {
	options Options

	blockStack *BlockStack
	table      *TableElement
}

// NewRenderContext returns a new RenderContext.
func NewRenderContext(options Options) RenderContext {
	return RenderContext{
		options:    options,
		blockStack: &BlockStack{},
		table:      &TableElement{},
	}
}

// SanitizeHTML sanitizes HTML content: the text it holds, with every tag,
// comment and doctype dropped, and nothing of what the elements that
// bluemonday's StrictPolicy skips hold (scripts, styles, frames and the
// like).
func (ctx RenderContext) SanitizeHTML(s string, trimSpaces bool) string {
	s = stripHTML(s)
	if trimSpaces {
		s = strings.TrimSpace(s)
	}
	return s
}

// skipContent is the set of elements whose content is not text to show,
// as bluemonday's default set of elements to skip the content of.
var skipContent = map[atom.Atom]bool{
	atom.Frame: true, atom.Frameset: true, atom.Iframe: true, atom.Noembed: true,
	atom.Noframes: true, atom.Noscript: true, atom.Object: true, atom.Script: true,
	atom.Style: true, atom.Title: true,
}

// stripHTML is the unescaped text of s outside skipped elements.
func stripHTML(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skipping := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skipping == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			if skipContent[atom.Lookup(name)] {
				skipping++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if skipContent[atom.Lookup(name)] && skipping > 0 {
				skipping--
			}
		}
	}
}
