package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/nova-dev/nova/permission"
)

// statusView is the line under the input: model, permission mode, context
// used, tokens (and cost when the prices are known), directory and branch.
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
	if s.Context != nil && s.Context.Limit > 0 {
		parts = append(parts, fmt.Sprintf("ctx %d%%", s.Context.Percent))
	}
	if t := s.Usage.InputTokens + s.Usage.OutputTokens + s.Usage.CacheReadTokens + s.Usage.CacheWriteTokens; t > 0 {
		tok := tokens(t) + " tok"
		if s.CostUSD != nil {
			tok += fmt.Sprintf(" $%.2f", *s.CostUSD)
		}
		parts = append(parts, tok)
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
	for len(parts) > 1 {
		line := strings.Join(styleParts(parts, st), sep)
		if ansi.StringWidth(line) <= width {
			return line
		}
		parts = parts[:len(parts)-1]
	}
	return clipLine(strings.Join(styleParts(parts, st), sep), width)
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
