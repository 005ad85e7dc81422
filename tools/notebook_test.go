package tools

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestNotebookEdit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		input   map[string]any
		isError bool
		want    []string
		check   func(t *testing.T, cells []map[string]any, top map[string]any)
	}{
		{name: "replace a code cell clears its outputs",
			input: map[string]any{"cell_id": "c1", "new_source": "x = 1\nprint(x)\n"},
			want:  []string{"Replaced the source of code cell 1 in nb.ipynb."},
			check: func(t *testing.T, cells []map[string]any, _ map[string]any) {
				c := cells[1]
				if src := c["source"].([]any); len(src) != 2 || src[0] != "x = 1\n" || src[1] != "print(x)\n" {
					t.Errorf("source = %#v", c["source"])
				}
				if outs := c["outputs"].([]any); len(outs) != 0 || c["execution_count"] != nil {
					t.Errorf("outputs not cleared: %v %v", outs, c["execution_count"])
				}
				if tags := c["metadata"].(map[string]any)["tags"]; tags == nil {
					t.Errorf("cell metadata lost")
				}
			}},
		{name: "replace by index and change type",
			input: map[string]any{"cell_id": "2", "new_source": "# Now text", "cell_type": "markdown"},
			check: func(t *testing.T, cells []map[string]any, _ map[string]any) {
				c := cells[2]
				if c["cell_type"] != "markdown" || c["outputs"] != nil || c["execution_count"] != nil {
					t.Errorf("cell = %#v", c)
				}
			}},
		{name: "insert after a cell gets an id",
			input: map[string]any{"cell_id": "m1", "new_source": "y = 2", "cell_type": "code", "edit_mode": "insert"},
			want:  []string{"Inserted a new code cell at index 1"},
			check: func(t *testing.T, cells []map[string]any, _ map[string]any) {
				if len(cells) != 4 {
					t.Fatalf("%d cells", len(cells))
				}
				c := cells[1]
				id, _ := c["id"].(string)
				if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(id) || c["cell_type"] != "code" {
					t.Errorf("new cell = %#v", c)
				}
				if _, ok := c["outputs"].([]any); !ok {
					t.Errorf("code cell without outputs")
				}
				if cells[2]["id"] != "c1" {
					t.Errorf("cell order broken")
				}
			}},
		{name: "insert at the start without cell_id",
			input: map[string]any{"new_source": "intro", "cell_type": "markdown", "edit_mode": "insert"},
			check: func(t *testing.T, cells []map[string]any, _ map[string]any) {
				if nbText(cells[0]["source"]) != "intro" || cells[0]["outputs"] != nil {
					t.Errorf("first cell = %#v", cells[0])
				}
			}},
		{name: "delete",
			input: map[string]any{"cell_id": "c2", "new_source": "", "edit_mode": "delete"},
			want:  []string{"Deleted cell 2 (2 cells remain)"},
			check: func(t *testing.T, cells []map[string]any, top map[string]any) {
				if len(cells) != 2 {
					t.Errorf("%d cells", len(cells))
				}
				if top["metadata"].(map[string]any)["x_custom"] == nil {
					t.Errorf("unknown notebook metadata lost")
				}
			}},
		{name: "insert needs a cell type",
			input:   map[string]any{"new_source": "x", "edit_mode": "insert"},
			isError: true, want: []string{"cell_type (code or markdown) is required to insert a cell"}},
		{name: "unknown cell",
			input:   map[string]any{"cell_id": "nope", "new_source": "x"},
			isError: true, want: []string{`no cell with id or index "nope" (the notebook has 3 cells`}},
		{name: "replace needs a cell",
			input:   map[string]any{"new_source": "x"},
			isError: true, want: []string{"cell_id is required to replace a cell"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewEnv(t.TempDir())
			abs := env.Abs("nb.ipynb")
			putFile(t, abs, testNotebook, 0o600)
			env.Files.Record(abs)
			in := map[string]any{"notebook_path": "nb.ipynb"}
			for k, v := range tt.input {
				in[k] = v
			}
			res := callFileTool(t, &NotebookEdit{}, env, in)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			wantContains(t, res.Output, tt.want...)
			raw := fileText(t, abs)
			if tt.isError {
				if raw != testNotebook {
					t.Errorf("notebook changed by a failed edit")
				}
				return
			}
			var top map[string]any
			if err := json.Unmarshal([]byte(raw), &top); err != nil {
				t.Fatalf("notebook is no longer valid JSON: %v\n%s", err, raw)
			}
			if !strings.HasPrefix(raw, "{\n \"cells\": [\n") || !strings.HasSuffix(raw, "}\n") {
				t.Errorf("not written in Jupyter's layout:\n%.200s", raw)
			}
			if strings.Contains(raw, `\u003c`) {
				t.Errorf("HTML escaped in notebook")
			}
			if fileMode(t, abs) != 0o600 {
				t.Errorf("mode changed")
			}
			if err := env.Files.CheckFresh(abs); err != nil {
				t.Errorf("not recorded: %v", err)
			}
			var cells []map[string]any
			for _, c := range top["cells"].([]any) {
				cells = append(cells, c.(map[string]any))
			}
			if tt.check != nil {
				tt.check(t, cells, top)
			}
		})
	}
}

func TestNotebookEditGuards(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	abs := env.Abs("nb.ipynb")
	putFile(t, abs, testNotebook, 0o644)
	in := map[string]any{"notebook_path": "nb.ipynb", "cell_id": "c1", "new_source": "x"}
	wantContains(t, callFileTool(t, &NotebookEdit{}, env, in).Output, "has not been read in this session")
	putFile(t, env.Abs("a.py"), "x\n", 0o644)
	wantContains(t, callFileTool(t, &NotebookEdit{}, env, map[string]any{"notebook_path": "a.py", "new_source": "x"}).Output,
		"is not a Jupyter notebook (.ipynb)")
	putFile(t, env.Abs("bad.ipynb"), "{not json", 0o644)
	env.Files.Record(env.Abs("bad.ipynb"))
	wantContains(t, callFileTool(t, &NotebookEdit{}, env, map[string]any{"notebook_path": "bad.ipynb", "cell_id": "0", "new_source": "x"}).Output,
		"not a valid notebook")
}

// nbText joins a decoded notebook text field.
func nbText(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, p := range s {
			b.WriteString(p.(string))
		}
		return b.String()
	}
	return ""
}
