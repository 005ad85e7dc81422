package tools

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-dev/nova/tools/display"
)

func TestTodoWrite(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	var notices []*display.Display
	env.Notify = func(_ context.Context, d *display.Display) { notices = append(notices, d) }
	list := []map[string]any{
		{"content": "Write the parser", "status": "completed", "activeForm": "Writing the parser"},
		{"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests", "id": "t2"},
		{"content": "Update docs", "status": "pending", "activeForm": "Updating docs"},
	}
	res := ftRun(t, &TodoWrite{}, env, map[string]any{"todos": list})
	if res.IsError || !strings.Contains(res.Output, "Todos have been modified successfully") ||
		!strings.Contains(res.Output, "3 tasks: 1 completed, 1 in progress, 1 pending") {
		t.Errorf("output = %q", res.Output)
	}
	if strings.Contains(res.Output, "Warning") {
		t.Errorf("one task in progress is no warning: %q", res.Output)
	}
	want := []TodoItem{
		{Content: "Write the parser", Status: "completed", ActiveForm: "Writing the parser"},
		{Content: "Run the tests", Status: "in_progress", ActiveForm: "Running the tests", ID: "t2"},
		{Content: "Update docs", Status: "pending", ActiveForm: "Updating docs"},
	}
	if got := Todos(env); !reflect.DeepEqual(got, want) {
		t.Errorf("stored list = %+v", got)
	}
	shown := []display.Todo{
		{Content: "Write the parser", Status: "completed", ActiveForm: "Writing the parser"},
		{Content: "Run the tests", Status: "in_progress", ActiveForm: "Running the tests", ID: "t2"},
		{Content: "Update docs", Status: "pending", ActiveForm: "Updating docs"},
	}
	if len(notices) != 1 || notices[0].Kind != display.KindTodos || !reflect.DeepEqual(notices[0].Todos, shown) {
		t.Errorf("notices = %+v", notices)
	}

	// Each call replaces the whole list; two in progress is a warning only.
	two := []map[string]any{
		{"content": "A", "status": "in_progress", "activeForm": "Doing A"},
		{"content": "B", "status": "in_progress", "activeForm": "Doing B"},
	}
	res = ftRun(t, &TodoWrite{}, env, map[string]any{"todos": two})
	if res.IsError || !strings.Contains(res.Output, "Warning: 2 tasks are in_progress") {
		t.Errorf("two in progress: %+v", res)
	}
	if got := Todos(env); len(got) != 2 || got[0].Content != "A" {
		t.Errorf("list not replaced: %+v", got)
	}
	if len(notices) != 2 {
		t.Errorf("got %d notices, want 2", len(notices))
	}

	// No Notify (print mode) is fine.
	env.Notify = nil
	if res := ftRun(t, &TodoWrite{}, env, map[string]any{"todos": []map[string]any{}}); res.IsError || len(Todos(env)) != 0 {
		t.Errorf("clearing the list: %+v, %+v", res, Todos(env))
	}
}

func TestTodoWriteRejects(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	cases := []struct {
		todos []map[string]any
		want  string
	}{
		{[]map[string]any{{"content": "  ", "status": "pending", "activeForm": "x"}}, "content is empty"},
		{[]map[string]any{{"content": "A", "status": "pending", "activeForm": " "}}, "activeForm is empty"},
		{[]map[string]any{
			{"content": "A", "status": "pending", "activeForm": "a", "id": "1"},
			{"content": "B", "status": "pending", "activeForm": "b", "id": "1"},
		}, `id "1" is used twice`},
	}
	for _, c := range cases {
		res := ftRun(t, &TodoWrite{}, env, map[string]any{"todos": c.todos})
		if !res.IsError || !strings.Contains(res.Output, c.want) {
			t.Errorf("TodoWrite(%v) = %+v, want an error containing %q", c.todos, res, c.want)
		}
	}
	if len(Todos(env)) != 0 {
		t.Errorf("a rejected list was stored: %+v", Todos(env))
	}
	reg := NewRegistry()
	if err := reg.Register(&TodoWrite{}); err != nil {
		t.Fatal(err)
	}
	if err := reg.validate("TodoWrite", []byte(`{"todos":[{"content":"A","status":"done","activeForm":"a"}]}`)); err == nil {
		t.Error("the schema accepted status \"done\"")
	}
}
