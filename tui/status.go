package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// statusView is the line under the input: model, permission mode,
// "shared" while /remote shares the session, context used, tokens (and cost when the prices are known; see tokenFigures),
// directory and branch.
// Parts are dropped from the right when the terminal is narrow.
func statusView(s Status, width int, st *styles) string {
	var parts []string
	parts = append(parts, s.Model)
	mode := string(s.Mode)
	if mode == "" {
		mode = string(permission.ModeDefault)
	}
	if s.Mode != permission.ModeDefault && s.Mode != "" {
		mode = st.mode.Render(mode)
	}
	parts = append(parts, mode)
	if s.shared {
		// Browsers see and may drive this session: it says so, near the
		// front, where a narrow line keeps it.
		parts = append(parts, st.mode.Render("shared"))
	}
	if s.Context != nil && s.Context.Limit > 0 {
		parts = append(parts, fmt.Sprintf("ctx %d%%", s.Context.Percent))
	}
	figures := tokenFigures(s)
	if len(figures) > 0 {
		parts = append(parts, figures[0])
	}
	branch := ""
	if s.Branch != "" {
		branch = " (" + s.Branch + ")"
	}
	parts = append(parts, shortPath(s.Cwd, s.Home)+branch)
	sep := st.status.Render(" · ")
	if line := strings.Join(styleParts(parts, st), sep); ansi.StringWidth(line) > width {
		// The directory's name says enough when room is short.
		parts[len(parts)-1] = filepath.Base(s.Cwd) + branch
	}
	fits := func(ps []string) bool { return ansi.StringWidth(strings.Join(styleParts(ps, st), sep)) <= width }
	if tok := len(parts) - 2; len(figures) > 0 {
		// The longest token figure that fits, the directory dropped if
		// need be, before the figure itself goes.
		for _, f := range figures {
			parts[tok] = f
			if fits(parts) || fits(parts[:tok+1]) {
				break
			}
		}
	}
	for len(parts) > 1 {
		line := strings.Join(styleParts(parts, st), sep)
		if ansi.StringWidth(line) <= width {
			return line
		}
		parts = parts[:len(parts)-1]
	}
	return clipLine(strings.Join(styleParts(parts, st), sep), width)
}

// tokenFigures are the status line's tokens, longest first: prompt tokens
// read fresh (input and cache writes) and output, then the cache reads on
// their own, since adding them in would make one alarming number of what
// costs a tenth, then the cost when the prices are known. The shorter ones
// leave out the cache reads, then all but the cost. None before any token
// was used.
func tokenFigures(s Status) []string {
	u := s.Usage
	if u == (llm.Usage{}) {
		return nil
	}
	short := tokens(u.InputTokens+u.CacheWriteTokens) + " in, " + tokens(u.OutputTokens) + " out"
	full := short
	if u.CacheReadTokens > 0 {
		full += ", " + tokens(u.CacheReadTokens) + " cached"
	}
	if s.CostUSD == nil {
		return []string{full, short}
	}
	cost := fmt.Sprintf("$%.2f", *s.CostUSD)
	return []string{full + " · " + cost, short + " · " + cost, cost}
}

func styleParts(parts []string, st *styles) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = st.status.Render(p)
	}
	return out
}

// shortPath abbreviates the home directory to ~.
func shortPath(p, home string) string {
	if home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return p
}
