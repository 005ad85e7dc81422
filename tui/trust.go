package tui

import (
	"context"
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TrustPrompt is what the trust dialog asks about: a folder and what its
// project settings would grant.
type TrustPrompt struct {
	// Dir is the folder as people read it (~/src/app).
	Dir string
	// Grants are what the folder's project settings would grant if it were
	// trusted; none means they grant nothing (yet).
	Grants []TrustGrant
}

// TrustGrant is one grant of a project settings file.
type TrustGrant struct {
	File    string // .nova/settings.json
	Setting string // permissions.allow
	Value   string // Bash(touch:*), Edit
}

// TrustChoice is the answer to the trust dialog.
type TrustChoice int

// The answers.
const (
	// TrustCancelled is esc or ctrl+c: quit, nothing changed.
	TrustCancelled TrustChoice = iota
	// TrustFolder trusts the folder, and remembers it.
	TrustFolder
	// TrustContinue goes on for this run with the project's grants ignored.
	TrustContinue
)

// trustModel is the trust dialog as a program of its own: it runs before
// the session exists, since nothing a project grants may be in force
// before the person has answered.
type trustModel struct {
	prompt TrustPrompt
	list   choiceList
	st     styles
	width  int
	choice TrustChoice
	done   bool
}

func newTrustModel(p TrustPrompt) *trustModel {
	return &trustModel{prompt: p, st: newStyles(true), width: 80, list: choiceList{choices: []choice{
		{label: "Yes, trust this folder"},
		{label: "No, continue without trusting it (its settings grant nothing this time)"},
	}}}
}

// RunTrust shows the trust dialog until the person answers. Cancelling
// the context answers TrustCancelled.
func RunTrust(ctx context.Context, p TrustPrompt, opts Options) (TrustChoice, error) {
	m := newTrustModel(p)
	_, err := tea.NewProgram(m, programOptions(ctx, opts)...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return TrustCancelled, nil
	}
	if err != nil {
		return TrustCancelled, err
	}
	return m.choice, nil
}

// Init asks for the background colour, as the main UI does.
func (m *trustModel) Init() tea.Cmd { return tea.RequestBackgroundColor }

// Update implements tea.Model.
func (m *trustModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = max(msg.Width, 20)
	case tea.BackgroundColorMsg:
		m.st = newStyles(msg.IsDark())
	case tea.InterruptMsg:
		m.done = true
		return m, tea.Quit
	case tea.KeyPressMsg:
		switch msg.String() {
		case "esc", "ctrl+c", "ctrl+d":
			m.done = true
			return m, tea.Quit
		}
		if i := m.list.key(msg); i >= 0 {
			m.choice = []TrustChoice{TrustFolder, TrustContinue}[i]
			m.done = true
			return m, tea.Quit
		}
	}
	return m, nil
}

// View implements tea.Model. Once answered it is empty, so the question
// does not stay on the terminal under the session.
func (m *trustModel) View() tea.View {
	if m.done {
		return tea.NewView("")
	}
	v := tea.NewView(m.render())
	v.WindowTitle = "nova"
	return v
}

// render draws the dialog in a frame of at most 100 columns.
func (m *trustModel) render() string {
	width := min(m.width, 100)
	inner := max(20, width-4)
	st := &m.st
	wrap := func(s string, indent int) []string {
		lines := strings.Split(ansi.Wrap(s, inner-indent, ""), "\n")
		for i := range lines {
			lines[i] = strings.Repeat(" ", indent) + lines[i]
		}
		return lines
	}
	body := []string{""}
	body = append(body, wrap(st.key.Render(m.prompt.Dir), 0)...)
	body = append(body, "")
	body = append(body, wrap("Settings in a project's .nova folder are written by whoever writes the repository, "+
		"not by you. Trust this folder only if you trust them.", 0)...)
	body = append(body, "")
	if len(m.prompt.Grants) == 0 {
		body = append(body, wrap("Its settings grant nothing yet. If you trust it, what they grant later "+
			"(allow rules, modes, env, sandbox exceptions) applies without asking again.", 0)...)
	} else {
		body = append(body, wrap("If you trust it, and every folder below it, its settings grant:", 0)...)
		file := ""
		for _, g := range m.prompt.Grants {
			if g.File != file {
				file = g.File
				body = append(body, "  "+file)
			}
			body = append(body, wrap(st.warn.Render(g.Setting)+": "+g.Value, 4)...)
		}
	}
	body = append(body, "")
	body = append(body, wrap("Their deny and ask rules apply either way.", 0)...)
	body = append(body, "")
	body = append(body, m.list.view(inner, st)...)
	return frame(width, st, "Do you trust the files in this folder?", body, "enter choose · 1/2 pick · esc quit")
}
