package tui

import (
	"encoding/json"
	"fmt"
)

// todo is one item of the agent's todo list. The list arrives as whatever
// type the TodoWrite tool keeps, so it is read through JSON by field name.
type todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

// parseTodos reads an agent.EventTodos payload; anything unreadable is an
// empty list.
func parseTodos(v any) []todo {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var list []todo
	if json.Unmarshal(raw, &list) != nil {
		var wrapped struct {
			Todos []todo `json:"todos"`
		}
		if json.Unmarshal(raw, &wrapped) != nil {
			return nil
		}
		list = wrapped.Todos
	}
	return list
}

// todosView shows the list above the input while a task runs: the item in
// progress by its active form, finished ones struck through.
func todosView(list []todo, width int, st *styles) []string {
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
