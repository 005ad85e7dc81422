package tui

import (
	"charm.land/lipgloss/v2"
)

// styles are the colours and emphasis of every part of the UI. They are
// built for a dark or a light background; colour is removed for NO_COLOR
// terminals by Bubble Tea's renderer (it downsamples to the terminal's
// colour profile), so the styles never need to know.
type styles struct {
	user, userBar     lipgloss.Style
	dim, thinking     lipgloss.Style
	toolName, toolArg lipgloss.Style
	ok, err, warn     lipgloss.Style
	diffAdd, diffDel  lipgloss.Style
	diffHunk          lipgloss.Style
	dialogBorder      lipgloss.Style
	dialogTitle       lipgloss.Style
	selected          lipgloss.Style
	status, mode      lipgloss.Style
	todoActive        lipgloss.Style
	todoDone          lipgloss.Style
	key               lipgloss.Style
}

func newStyles(dark bool) styles {
	ld := lipgloss.LightDark(dark)
	accent := ld(lipgloss.Color("#5A56E0"), lipgloss.Color("#8B87FF"))
	muted := ld(lipgloss.Color("#6B6B6B"), lipgloss.Color("#8A8A8A"))
	green := ld(lipgloss.Color("#1A7F37"), lipgloss.Color("#3FB950"))
	red := ld(lipgloss.Color("#CF222E"), lipgloss.Color("#F85149"))
	yellow := ld(lipgloss.Color("#9A6700"), lipgloss.Color("#D29922"))
	s := styles{
		user:         lipgloss.NewStyle().Bold(true),
		userBar:      lipgloss.NewStyle().Foreground(accent),
		dim:          lipgloss.NewStyle().Foreground(muted),
		thinking:     lipgloss.NewStyle().Foreground(muted).Italic(true),
		toolName:     lipgloss.NewStyle().Bold(true),
		toolArg:      lipgloss.NewStyle().Foreground(muted),
		ok:           lipgloss.NewStyle().Foreground(green),
		err:          lipgloss.NewStyle().Foreground(red).Bold(true),
		warn:         lipgloss.NewStyle().Foreground(yellow),
		diffAdd:      lipgloss.NewStyle().Foreground(green),
		diffDel:      lipgloss.NewStyle().Foreground(red),
		diffHunk:     lipgloss.NewStyle().Foreground(accent),
		dialogBorder: lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(yellow).Padding(0, 1),
		dialogTitle:  lipgloss.NewStyle().Bold(true).Foreground(yellow),
		// Reverse video keeps the highlighted choice visible without colour.
		selected:   lipgloss.NewStyle().Reverse(true).Bold(true),
		status:     lipgloss.NewStyle().Foreground(muted),
		mode:       lipgloss.NewStyle().Foreground(yellow).Bold(true),
		todoActive: lipgloss.NewStyle().Bold(true),
		todoDone:   lipgloss.NewStyle().Foreground(muted).Strikethrough(true),
		key:        lipgloss.NewStyle().Bold(true),
	}
	return s
}
