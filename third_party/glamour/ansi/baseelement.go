package ansi

import (
	"fmt"
	"io"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// BaseElement renders a styled primitive element.
type BaseElement struct {
	Token  string
	Prefix string
	Suffix string
	Style  StylePrimitive
}

// formatToken fills the {{.text}} actions of a style's Format with token.
// nova's copy reads no other action: executing a text/template makes the
// linker keep every exported method of every type in the program (it cannot
// tell which one a template calls by name), which was a third of nova's
// binary and touched at start-up. Every Format of glamour's own styles and
// of nova's is text around {{.text}}.
func formatToken(format string, token string) (string, error) {
	var b strings.Builder
	whole := format
	for {
		open := strings.Index(format, "{{")
		if open < 0 {
			b.WriteString(format)
			return b.String(), nil
		}
		text, rest := format[:open], format[open+2:]
		end := strings.Index(rest, "}}")
		if end < 0 {
			return "", fmt.Errorf("glamour: error parsing template %q: unclosed action", whole)
		}
		action := rest[:end]
		format = rest[end+2:]
		// {{- and -}} trim the white space beside the action, as in
		// text/template.
		if a, ok := strings.CutPrefix(action, "- "); ok {
			action, text = a, strings.TrimRight(text, " \t\r\n")
		}
		if a, ok := strings.CutSuffix(action, " -"); ok {
			action, format = a, strings.TrimLeft(format, " \t\r\n")
		}
		if strings.TrimSpace(action) != ".text" {
			return "", fmt.Errorf("glamour: template %q: only {{.text}} actions are supported", whole)
		}
		b.WriteString(text)
		b.WriteString(token)
	}
}

func renderText(w io.Writer, rules StylePrimitive, s string) (int, error) { //nolint:unparam
	if len(s) == 0 {
		return 0, nil
	}

	// XXX: We're using [ansi.Style] instead of [lipgloss.Style] because
	// Lip Gloss has a weird bug where it adds spaces when rendering joined
	// strings. Needs further investigation.
	style := ansi.Style{}
	if rules.Upper != nil && *rules.Upper {
		s = cases.Upper(language.English).String(s)
	}
	if rules.Lower != nil && *rules.Lower {
		s = cases.Lower(language.English).String(s)
	}
	if rules.Title != nil && *rules.Title {
		s = cases.Title(language.English).String(s)
	}
	if rules.Color != nil {
		style = style.ForegroundColor(lipgloss.Color(*rules.Color))
	}
	if rules.BackgroundColor != nil {
		style = style.BackgroundColor(lipgloss.Color(*rules.BackgroundColor))
	}
	if rules.Underline != nil && *rules.Underline {
		style = style.Underline(true)
	}
	if rules.Bold != nil && *rules.Bold {
		style = style.Bold()
	}
	if rules.Italic != nil && *rules.Italic {
		style = style.Italic(true)
	}
	if rules.CrossedOut != nil && *rules.CrossedOut {
		style = style.Strikethrough(true)
	}
	if rules.Inverse != nil && *rules.Inverse {
		style = style.Reverse(true)
	}
	if rules.Blink != nil && *rules.Blink {
		style = style.Blink(true)
	}

	n, err := io.WriteString(w, style.Styled(s))
	if err != nil {
		return n, fmt.Errorf("glamour: error writing to writer: %w", err)
	}

	return n, nil
}

// StyleOverrideRender renders a BaseElement with an overridden style.
func (e *BaseElement) StyleOverrideRender(w io.Writer, ctx RenderContext, style StylePrimitive) error {
	bs := ctx.blockStack
	st1 := cascadeStylePrimitives(bs.Current().Style.StylePrimitive, style)
	st2 := cascadeStylePrimitives(bs.With(e.Style), style)

	return e.doRender(w, st1, st2)
}

// Render renders a BaseElement.
func (e *BaseElement) Render(w io.Writer, ctx RenderContext) error {
	bs := ctx.blockStack
	st1 := bs.Current().Style.StylePrimitive
	st2 := bs.With(e.Style)
	return e.doRender(w, st1, st2)
}

func (e *BaseElement) doRender(w io.Writer, st1, st2 StylePrimitive) error {
	_, _ = renderText(w, st1, e.Prefix)
	defer func() {
		_, _ = renderText(w, st1, e.Suffix)
	}()

	// render unstyled prefix/suffix
	_, _ = renderText(w, st1, st2.BlockPrefix)
	defer func() {
		_, _ = renderText(w, st1, st2.BlockSuffix)
	}()

	// render styled prefix/suffix
	_, _ = renderText(w, st2, st2.Prefix)
	defer func() {
		_, _ = renderText(w, st2, st2.Suffix)
	}()

	s := e.Token
	if len(st2.Format) > 0 {
		var err error
		s, err = formatToken(st2.Format, s)
		if err != nil {
			return err
		}
	}
	_, _ = renderText(w, st2, escapeReplacer.Replace(s))
	return nil
}

// https://www.markdownguide.org/basic-syntax/#characters-you-can-escape
var escapeReplacer = strings.NewReplacer(
	"\\\\", "\\",
	"\\`", "`",
	"\\*", "*",
	"\\_", "_",
	"\\{", "{",
	"\\}", "}",
	"\\[", "[",
	"\\]", "]",
	"\\<", "<",
	"\\>", ">",
	"\\(", "(",
	"\\)", ")",
	"\\#", "#",
	"\\+", "+",
	"\\-", "-",
	"\\.", ".",
	"\\!", "!",
	"\\|", "|",
)
