package tui

import (
	"fmt"
	"strings"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/tools/display"
)

// displayRenderer shows one display kind: the one-line summary of a
// finished call and its expanded body. A nil func means the default: the
// first line of the output, the start of the output.
type displayRenderer struct {
	summary func(d *display.Display, r *agent.ToolResult) string
	body    func(d *display.Display, r *agent.ToolResult, width int, st *styles) []string
}

// rendererFor is the renderer of kind; a kind it does not know (a newer
// tool's, or none) is shown by its output alone.
func rendererFor(kind display.Kind) displayRenderer {
	switch kind {
	case display.KindDiff:
		return displayRenderer{summary: diffSummary, body: diffBody}
	case display.KindCommand:
		return displayRenderer{summary: commandSummary, body: commandBody}
	case display.KindShell:
		return displayRenderer{summary: shellSummary}
	case display.KindSearch:
		return displayRenderer{summary: searchSummary}
	case display.KindFetch:
		return displayRenderer{summary: fetchSummary}
	case display.KindTodos:
		return displayRenderer{summary: todosSummary, body: todosBody}
	case display.KindQuestions:
		return displayRenderer{summary: questionsSummary, body: questionsBody}
	case display.KindPlan:
		return displayRenderer{summary: planSummary, body: planBody}
	}
	return displayRenderer{}
}

func diffSummary(d *display.Display, _ *agent.ToolResult) string {
	added, removed := 0, 0
	for _, f := range d.Diffs {
		added += f.Added
		removed += f.Removed
	}
	return fmt.Sprintf("+%d -%d in %d file%s", added, removed, len(d.Diffs), plural(len(d.Diffs)))
}

func diffBody(d *display.Display, _ *agent.ToolResult, _ int, st *styles) []string {
	return diffsView(d, st)
}

func commandSummary(d *display.Display, r *agent.ToolResult) string {
	c := d.Command
	switch {
	case c.Background != "":
		return "running in the background as " + c.Background
	case c.TimedOut:
		return "timed out"
	case c.ExitCode != 0:
		return fmt.Sprintf("exit %d: %s", c.ExitCode, firstLine(lastLines(r.Output, 1)))
	}
	return ""
}

func commandBody(d *display.Display, r *agent.ToolResult, width int, st *styles) []string {
	body := []string{st.toolArg.Render("$ " + d.Command.Command)}
	return append(body, tail(strings.Split(wrapPlain(r.Output, width-4), "\n"), 20)...)
}

func shellSummary(d *display.Display, _ *agent.ToolResult) string {
	s := d.Shell
	out := s.ID + " " + s.Status
	if s.ExitCode != nil {
		out += fmt.Sprintf(" (exit %d)", *s.ExitCode)
	}
	return out
}

func searchSummary(d *display.Display, _ *agent.ToolResult) string {
	s := d.Search
	out := fmt.Sprintf("%d %s", s.Count, s.Unit)
	if s.Truncated {
		out += ", not all shown"
	}
	if s.Denied > 0 {
		out += fmt.Sprintf(", %d left out by deny rules", s.Denied)
	}
	return out
}

func fetchSummary(d *display.Display, _ *agent.ToolResult) string {
	f := d.Fetch
	if f.Redirect != "" {
		return fmt.Sprintf("%d: redirects to %s (not followed)", f.Status, f.Redirect)
	}
	out := fmt.Sprintf("%d", f.Status)
	if f.Bytes > 0 {
		out += " · " + formatBytes(f.Bytes)
	}
	if f.ContentType != "" {
		out += " · " + f.ContentType
	}
	if f.Truncated {
		out += " · cut to fit"
	}
	return out
}

func todosSummary(d *display.Display, _ *agent.ToolResult) string {
	done := 0
	for _, t := range d.Todos {
		if t.Status == "completed" {
			done++
		}
	}
	return fmt.Sprintf("%d/%d task%s done", done, len(d.Todos), plural(len(d.Todos)))
}

func todosBody(d *display.Display, _ *agent.ToolResult, width int, st *styles) []string {
	if ls := todosView(d.Todos, width-4, st); len(ls) > 1 {
		return ls[1:] // without the "Todos n/m" heading the summary repeats
	}
	return nil
}

func questionsSummary(d *display.Display, _ *agent.ToolResult) string {
	var as []string
	for _, a := range d.Questions.Answers {
		if strings.TrimSpace(a) == "" {
			a = "(no answer)"
		}
		as = append(as, a)
	}
	return "answered: " + strings.Join(as, "; ")
}

func questionsBody(d *display.Display, _ *agent.ToolResult, width int, st *styles) []string {
	var body []string
	for i, q := range d.Questions.Questions {
		a := "(no answer)"
		if i < len(d.Questions.Answers) && strings.TrimSpace(d.Questions.Answers[i]) != "" {
			a = d.Questions.Answers[i]
		}
		body = append(body, clipLine(q, width-4), st.toolArg.Render(clipLine("→ "+a, width-4)))
	}
	return body
}

func planSummary(d *display.Display, _ *agent.ToolResult) string {
	p := d.Plan
	switch {
	case p.Plan == "":
		return "plan mode"
	case p.Approved:
		return "plan approved · mode " + p.Mode
	}
	return "plan not approved · still in plan mode"
}

func planBody(d *display.Display, r *agent.ToolResult, width int, _ *styles) []string {
	text := d.Plan.Plan
	if text == "" {
		text = r.Output
	}
	return strings.Split(wrapPlain(text, width-4), "\n")
}

// formatBytes is a size in the largest unit that keeps it above 1.
func formatBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
