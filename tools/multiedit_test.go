package tools

import (
	"testing"
)

func TestMultiEdit(t *testing.T) {
	t.Parallel()
	type edit = map[string]any
	tests := []struct {
		name     string
		existing string // "-" for none
		edits    []edit
		isError  bool
		want     []string
		wantFile string // "" means unchanged
	}{
		{name: "edits apply in order", existing: "alpha\nbeta\ngamma\n",
			edits: []edit{
				{"old_string": "alpha", "new_string": "ALPHA"},
				{"old_string": "ALPHA\nbeta", "new_string": "ALPHA\nBETA"},
				{"old_string": "a", "new_string": "4", "replace_all": true},
			},
			want:     []string{"Applied 3 edits to f.txt (4 replacements).", "     1\tALPHA\n     2\tBETA\n     3\tg4mm4\n"},
			wantFile: "ALPHA\nBETA\ng4mm4\n"},
		{name: "second edit fails: nothing applied", existing: "alpha\nbeta\n",
			edits: []edit{
				{"old_string": "alpha", "new_string": "ALPHA"},
				{"old_string": "missing", "new_string": "x"},
			},
			isError: true, want: []string{"edits[1] (edit 2 of 2) failed: old_string was not found", "No edits were applied; f.txt is unchanged."}},
		{name: "not unique in a later edit", existing: "x\nx\ny\n",
			edits: []edit{
				{"old_string": "y", "new_string": "z"},
				{"old_string": "x", "new_string": "w"},
			},
			isError: true, want: []string{"edits[1]", "found 2 matches"}},
		{name: "an edit equal to itself", existing: "x\n",
			edits:   []edit{{"old_string": "x", "new_string": "x"}},
			isError: true, want: []string{"edits[0] (edit 1 of 1) failed: old_string and new_string are identical"}},
		{name: "create with empty first old_string", existing: "-",
			edits: []edit{
				{"old_string": "", "new_string": "package x\n\nfunc A() {}\n"},
				{"old_string": "A()", "new_string": "B()"},
			},
			want: []string{"Created f.txt (3 lines)."}, wantFile: "package x\n\nfunc B() {}\n"},
		{name: "CRLF and BOM kept", existing: "\ufeffa\r\nb\r\n",
			edits: []edit{
				{"old_string": "a\nb", "new_string": "a\nb\nc"},
				{"old_string": "c", "new_string": "C"},
			},
			wantFile: "\ufeffa\r\nb\r\nC\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewEnv(t.TempDir())
			abs := env.Abs("f.txt")
			if tt.existing != "-" {
				putFile(t, abs, tt.existing, 0o644)
				env.Files.Record(abs)
			}
			res := callFileTool(t, &MultiEdit{}, env, map[string]any{"file_path": "f.txt", "edits": tt.edits})
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			wantContains(t, res.Output, tt.want...)
			want := tt.wantFile
			if want == "" {
				want = tt.existing
			}
			if got := fileText(t, abs); got != want {
				t.Errorf("file = %q, want %q", got, want)
			}
			if !tt.isError {
				if res.Display == nil || len(res.Display.Diffs) != 1 {
					t.Errorf("Display = %+v", res.Display)
				}
			}
		})
	}
}

func TestMultiEditGuards(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	abs := env.Abs("f.txt")
	putFile(t, abs, "a\n", 0o644)
	edits := []map[string]any{{"old_string": "a", "new_string": "b"}}
	res := callFileTool(t, &MultiEdit{}, env, map[string]any{"file_path": "f.txt", "edits": edits})
	if !res.IsError {
		t.Fatalf("edit of an unread file succeeded: %s", res.Output)
	}
	wantContains(t, res.Output, "has not been read in this session")
	env.Files.Record(abs)
	changeBehindBack(t, abs, "a\nmore\n")
	res = callFileTool(t, &MultiEdit{}, env, map[string]any{"file_path": "f.txt", "edits": edits})
	wantContains(t, res.Output, "has changed on disk since it was last read")
	if got := fileText(t, abs); got != "a\nmore\n" {
		t.Errorf("file = %q", got)
	}
}
