package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// todoStateKey is where TodoWrite keeps the session's list in Env state.
const todoStateKey = "todos"

// TodoItem is one task of the session's todo list.
type TodoItem struct {
	Content    string `json:"content" jsonschema:"The task, in the imperative (\"Run tests\")"`
	Status     string `json:"status"` // pending, in_progress or completed
	ActiveForm string `json:"activeForm" jsonschema:"The task in the present continuous, shown while it is in progress (\"Running tests\")"`
	ID         string `json:"id,omitempty"`
}

// TodoList is the session's todo list, kept in Env state by TodoWrite.
type TodoList struct {
	mu    sync.Mutex
	items []TodoItem
}

// Items returns a copy of the list.
func (l *TodoList) Items() []TodoItem {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]TodoItem(nil), l.items...)
}

func (l *TodoList) set(items []TodoItem) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append([]TodoItem(nil), items...)
}

// Todos returns the session's current todo list (empty before the first
// TodoWrite), for frontends that show it and for resuming.
func Todos(env *Env) []TodoItem {
	return todoList(env).Items()
}

func todoList(env *Env) *TodoList {
	return env.State(todoStateKey, func() any { return &TodoList{} }).(*TodoList)
}

// TodoWrite replaces the session's todo list.
type TodoWrite struct{ Input[todoWriteInput] }

type todoWriteInput struct {
	Todos []TodoItem `json:"todos" jsonschema:"The updated todo list"`
}

// tuneSchema lists the statuses and refuses empty task texts.
func (todoWriteInput) tuneSchema(s *jsonschema.Schema) {
	item := prop(s, "todos").Items
	if item == nil {
		return
	}
	prop(item, "content").MinLength = jsonschema.Ptr(1)
	prop(item, "status").Enum = enum("pending", "in_progress", "completed")
	prop(item, "activeForm").MinLength = jsonschema.Ptr(1)
}

// Name implements Tool.
func (*TodoWrite) Name() string { return "TodoWrite" }

// Kind implements Tool: the list is session state, not files.
func (*TodoWrite) Kind() permission.Kind { return permission.KindOther }

// Description implements Tool.
func (*TodoWrite) Description() string {
	return `Use this tool to create and manage a structured task list for your current coding session. It helps you track progress, organize complex tasks, and shows the user how the work is going.

When to use it:
- Complex multi-step tasks (3 or more distinct steps), or when the user gives several tasks at once.
- When the user asks for a todo list, and right after receiving new instructions (capture them as todos).
- Mark a task in_progress BEFORE you begin working on it, and completed as soon as it is done; do not batch completions.
Skip it for a single, trivial or purely conversational request.

How it works:
- Each call replaces the whole list: send every task, each with content (imperative, e.g. "Run the tests"), activeForm (present continuous, shown while it runs, e.g. "Running the tests") and status: pending, in_progress or completed. An optional id keeps track of a task across calls.
- Keep exactly one task in_progress at a time.
- Only mark a task completed when it is fully done: not when tests fail, the work is partial, or you hit an unresolved error; then keep it in_progress and add a task for what blocks it.
- Remove tasks that are no longer relevant by leaving them out of the list.`
}

// Run implements Tool.
func (*TodoWrite) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in todoWriteInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for TodoWrite: %v", err), nil
	}
	counts := map[string]int{}
	ids := map[string]bool{}
	for i, t := range in.Todos {
		switch {
		case strings.TrimSpace(t.Content) == "":
			return Errorf("todos[%d]: content is empty", i), nil
		case strings.TrimSpace(t.ActiveForm) == "":
			return Errorf("todos[%d] (%q): activeForm is empty; give the task in the present continuous, e.g. \"Running tests\"", i, t.Content), nil
		case t.Status != "pending" && t.Status != "in_progress" && t.Status != "completed":
			return Errorf("todos[%d] (%q): status must be pending, in_progress or completed, not %q", i, t.Content, t.Status), nil
		case t.ID != "" && ids[t.ID]:
			return Errorf("todos[%d] (%q): id %q is used twice", i, t.Content, t.ID), nil
		}
		ids[t.ID] = t.ID != ""
		counts[t.Status]++
	}
	items := append([]TodoItem{}, in.Todos...)
	todoList(env).set(items)
	if env.Notify != nil {
		env.Notify(ctx, todosDisplay(items))
	}

	var b strings.Builder
	b.WriteString("Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable.")
	fmt.Fprintf(&b, " (%d %s: %d completed, %d in progress, %d pending)",
		len(items), grepPlural(len(items), "task", "tasks"), counts["completed"], counts["in_progress"], counts["pending"])
	if n := counts["in_progress"]; n > 1 {
		fmt.Fprintf(&b, "\nWarning: %d tasks are in_progress; keep exactly one task in_progress at a time and finish it before starting the next.", n)
	}
	return Result{Output: b.String(), Display: todosDisplay(items)}, nil
}

// todosDisplay is the list as frontends show it.
func todosDisplay(items []TodoItem) *display.Display {
	out := make([]display.Todo, len(items))
	for i, t := range items {
		out[i] = display.Todo{Content: t.Content, Status: t.Status, ActiveForm: t.ActiveForm, ID: t.ID}
	}
	return display.OfTodos(out)
}
