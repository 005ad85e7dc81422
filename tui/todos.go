package tui

import (
	"fmt"

	"github.com/nova-dev/nova/tools/display"
)

// todosView shows the list above the input while a task runs: the item in
// progress by its active form, finished ones struck through.
func todosView(list []display.Todo, width int, st *styles) []string {
	if len(list) == 0 {
		return nil
	}
	done := 0
	for _, t := range list {
		if t.Status == "completed" {
			done++
		}
	}
	out := []string{st.dim.Render(fmt.Sprintf("Todos %d/%d", done, len(list)))}
	for _, t := range list {
		var l string
		switch t.Status {
		case "completed":
			l = "  ☒ " + st.todoDone.Render(t.Content)
		case "in_progress":
			text := t.ActiveForm
			if text == "" {
				text = t.Content
			}
			l = "  ◐ " + st.todoActive.Render(text)
		default:
			l = "  ☐ " + t.Content
		}
		out = append(out, clipLine(l, width))
	}
	return out
}
