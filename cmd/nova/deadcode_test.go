package main

import (
	"bytes"
	"debug/elf"
	"reflect"
	"sort"
	"strings"
	"testing"
	"text/template"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// templateExecSymbol is in the binary only when some Template.Execute is
// reachable from main. Such a call makes the linker keep every exported
// method of every type that reaches an interface, because it cannot tell
// which one a template will call by name: 23 MB of nova's 75 MB binary,
// and about 8 MB of the peak RSS of a one-turn `nova -p` (the kernel maps
// 64 KB of the binary around each page start-up touches, and the extra
// methods spread what start-up touches over more of them).
const templateExecSymbol = "text/template.(*state).evalField"

// TestBinaryLeavesTemplateExecOut fails when a template execution is
// reachable in nova again: cobra's SetVersionTemplate, or glamour's style
// formats before third_party/glamour filled them without text/template,
// each brought it back alone.
func TestBinaryLeavesTemplateExecOut(t *testing.T) {
	f, err := elf.Open(novaBin)
	if err != nil {
		t.Skipf("not an ELF binary: %v", err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("symbols of %s: %v", novaBin, err)
	}
	for _, s := range syms {
		if s.Name == templateExecSymbol {
			t.Fatalf("%s is linked: a text/template or html/template Execute is reachable from main, so the linker keeps every exported method (go build -ldflags=-dumpdep shows the path to it)", templateExecSymbol)
		}
	}
	if len(syms) < 1000 {
		t.Fatalf("only %d symbols in %s: stripped?", len(syms), novaBin)
	}
}

// TestGlamourStyleFormatsRender renders an image, a link and a rule with
// every style glamour ships, and wants each style's Format expanded as
// text/template expands it. third_party/glamour fills a Format's {{.text}}
// itself, to keep Template.Execute out of nova (above).
func TestGlamourStyleFormatsRender(t *testing.T) {
	const md = "![logo](https://example.com/logo.png)\n\n---\n\n[site](https://example.com)\n"
	names := make([]string, 0, len(styles.DefaultStyles))
	for name := range styles.DefaultStyles {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		style := *styles.DefaultStyles[name]
		r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(80))
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Render(md)
		if err != nil {
			t.Errorf("%s: render: %v", name, err)
			continue
		}
		plain := ansi.Strip(out)
		for _, want := range []string{
			viaTemplate(t, style.ImageText.Format, "logo"),
			viaTemplate(t, style.HorizontalRule.Format, ""),
		} {
			// A rule's Format has the newlines around it, which the
			// renderer pads to the width.
			if want = strings.TrimSpace(want); !strings.Contains(plain, want) {
				t.Errorf("%s: output lacks %q:\n%s", name, want, plain)
			}
		}
		// The copy fills {{.text}} and nothing else: a style with another
		// action would fail to render.
		for _, format := range styleFormats(reflect.ValueOf(style)) {
			if strings.Contains(strings.ReplaceAll(format, "{{.text}}", ""), "{{") {
				t.Errorf("%s: Format %q has an action other than {{.text}}", name, format)
			}
		}
	}
}

// viaTemplate is format executed as glamour v2.0.1 executed it.
func viaTemplate(t *testing.T, format, text string) string {
	t.Helper()
	tmpl, err := template.New(format).Funcs(gansi.TemplateFuncMap).Parse(format)
	if err != nil {
		t.Fatalf("parse %q: %v", format, err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, map[string]any{"text": text}); err != nil {
		t.Fatalf("execute %q: %v", format, err)
	}
	return b.String()
}

// styleFormats is every non-empty Format string field under v.
func styleFormats(v reflect.Value) []string {
	var out []string
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			out = append(out, styleFormats(v.Elem())...)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if v.Type().Field(i).Name == "Format" && f.Kind() == reflect.String && f.String() != "" {
				out = append(out, f.String())
				continue
			}
			out = append(out, styleFormats(f)...)
		}
	}
	return out
}
