package hooks

import (
	"fmt"
	"io"
	"strings"
)

// Describe writes what /hooks and nova doctor show of c: each configured
// hook under its event, in the order of a session, with its matcher, what
// it runs, its timeout, the file it is configured in (shortened by show),
// and why nova does not run it when it does not.
func (c *Config) Describe(w io.Writer, show func(string) string) {
	if show == nil {
		show = func(s string) string { return s }
	}
	if c.Len() == 0 {
		fmt.Fprintln(w, "  none configured")
		return
	}
	order := append([]Event(nil), Events()...)
	for _, h := range c.Hooks {
		if !known(h.Event) && !contains(order, h.Event) {
			order = append(order, h.Event)
		}
	}
	for _, ev := range order {
		var hs []*Hook
		for i := range c.Hooks {
			if c.Hooks[i].Event == ev {
				hs = append(hs, &c.Hooks[i])
			}
		}
		if len(hs) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s\n", ev)
		for _, h := range hs {
			fmt.Fprintf(w, "    %s\n", h.line(show))
			for _, note := range h.notes() {
				fmt.Fprintf(w, "      %s\n", note)
			}
		}
	}
}

// line is one hook, for people.
func (h *Hook) line(show func(string) string) string {
	var parts []string
	s, ok := specs[h.Event]
	switch {
	case ok && s.match == "", !ok && strings.TrimSpace(h.Matcher) == "":
	case strings.TrimSpace(h.Matcher) == "" || strings.TrimSpace(h.Matcher) == "*":
		parts = append(parts, "every "+strings.ReplaceAll(s.match, "_", " "))
	default:
		parts = append(parts, h.Matcher)
	}
	parts = append(parts, h.Type+" "+h.what())
	if h.Unavailable == "" && ok {
		parts = append(parts, "timeout "+seconds(timeout(h, h.Event)))
	}
	if h.Async {
		parts = append(parts, "async")
	}
	if h.Once {
		parts = append(parts, "once")
	}
	if h.If != "" && ifProblem(h) == "" {
		parts = append(parts, "if "+h.If)
	}
	return strings.Join(parts, "  ") + "  (" + show(h.File) + ")"
}

// notes say what of h nova does not do as configured.
func (h *Hook) notes() []string {
	var out []string
	if h.Unavailable != "" {
		n := "not run: " + h.Unavailable
		if s, ok := specs[h.Event]; ok && s.guard {
			n += "; every call it matches is blocked until it can run"
		}
		out = append(out, n)
	}
	if s, ok := specs[h.Event]; ok && s.match == "" && strings.TrimSpace(h.Matcher) != "" {
		out = append(out, fmt.Sprintf("matcher %q is ignored: %s takes none", h.Matcher, h.Event))
	}
	if why := ifProblem(h); why != "" {
		out = append(out, why)
	}
	return out
}

func contains(evs []Event, ev Event) bool {
	for _, e := range evs {
		if e == ev {
			return true
		}
	}
	return false
}
