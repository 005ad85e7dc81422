package tools

import (
	"os"
	"testing"
)

func TestEdit(t *testing.T) {
	t.Parallel()
	const src = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	tests := []struct {
		name     string
		existing string // "-" for no file
		mode     os.FileMode
		noRead   bool
		changed  bool
		input    map[string]any
		isError  bool
		want     []string
		wantFile string // "" means unchanged
		wantMode os.FileMode
	}{
		{name: "replace one occurrence", existing: src,
			input:    map[string]any{"old_string": "\tprintln(\"hi\")", "new_string": "\tprintln(\"hello\")\n\tprintln(\"world\")"},
			want:     []string{"Edited f.go: replaced 1 occurrence.", "     3\tfunc main() {\n     4\t\tprintln(\"hello\")\n     5\t\tprintln(\"world\")\n     6\t}\n"},
			wantFile: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n\tprintln(\"world\")\n}\n"},
		{name: "not read first", existing: src, noRead: true,
			input:   map[string]any{"old_string": "main", "new_string": "x"},
			isError: true, want: []string{"has not been read in this session"}},
		{name: "changed on disk since read", existing: src, changed: true,
			input:   map[string]any{"old_string": "main", "new_string": "x"},
			isError: true, want: []string{"has changed on disk since it was last read", "Read it again"}},
		{name: "not unique", existing: "a = 1\na = 1\na = 1\n",
			input:   map[string]any{"old_string": "a = 1", "new_string": "a = 2"},
			isError: true, want: []string{"old_string is not unique: found 3 matches", "replace_all is false"}},
		{name: "replace_all", existing: "a = 1\nb\na = 1\na = 1\n",
			input: map[string]any{"old_string": "a = 1", "new_string": "a = 2", "replace_all": true},
			want:  []string{"replaced 3 occurrences."}, wantFile: "a = 2\nb\na = 2\na = 2\n"},
		{name: "not found", existing: src,
			input:   map[string]any{"old_string": "nothing like it", "new_string": "x"},
			isError: true, want: []string{"old_string was not found in the file", "(in f.go)"}},
		{name: "not found, but would match ignoring whitespace", existing: src,
			input:   map[string]any{"old_string": "    println(\"hi\")", "new_string": "x"},
			isError: true, want: []string{"matches at line 4 if whitespace is ignored"}},
		{name: "line-number prefixes copied", existing: src,
			input:   map[string]any{"old_string": "     3\tfunc main() {\n     4\t\tprintln(\"hi\")", "new_string": "x"},
			isError: true, want: []string{"line-number prefixes of Read's output"}},
		{name: "old equals new", existing: src,
			input:   map[string]any{"old_string": "main", "new_string": "main"},
			isError: true, want: []string{"old_string and new_string are identical"}},
		{name: "CRLF file round trip", existing: "one\r\ntwo\r\nthree\r\n",
			input: map[string]any{"old_string": "one\ntwo\n", "new_string": "one\n2\n2b\n"},
			want:  []string{"     2\t2\n     3\t2b\n"}, wantFile: "one\r\n2\r\n2b\r\nthree\r\n"},
		{name: "CRLF in the model's strings", existing: "one\r\ntwo\r\n",
			input:    map[string]any{"old_string": "one\r\ntwo", "new_string": "1\r\n2"},
			wantFile: "1\r\n2\r\n"},
		{name: "mixed line endings matched in CRLF form", existing: "a\r\nb\nc\r\nd\n",
			input:    map[string]any{"old_string": "b\nc\n", "new_string": "B\nC\n"},
			wantFile: "a\r\nB\r\nC\r\nd\n"},
		{name: "BOM kept", existing: "\ufeffhello\nworld\n",
			input:    map[string]any{"old_string": "hello", "new_string": "bye"},
			wantFile: "\ufeffbye\nworld\n"},
		{name: "mode kept", existing: "#!/bin/sh\necho a\n", mode: 0o750,
			input:    map[string]any{"old_string": "echo a", "new_string": "echo b"},
			wantFile: "#!/bin/sh\necho b\n", wantMode: 0o750},
		{name: "missing file", existing: "-",
			input:   map[string]any{"old_string": "a", "new_string": "b"},
			isError: true, want: []string{"File does not exist:", "Use Write to create a file."}},
		{name: "empty old_string creates a file", existing: "-",
			input: map[string]any{"old_string": "", "new_string": "new\nfile\n"},
			want:  []string{"Created f.go (2 lines)."}, wantFile: "new\nfile\n", wantMode: 0o644},
		{name: "empty old_string on a file with content", existing: src,
			input:   map[string]any{"old_string": "", "new_string": "x"},
			isError: true, want: []string{"old_string is empty, but f.go already has content"}},
		{name: "binary file refused", existing: "a\x00b",
			input:   map[string]any{"old_string": "a", "new_string": "b"},
			isError: true, want: []string{"looks like a binary file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewEnv(t.TempDir())
			abs := env.Abs("f.go")
			before := tt.existing
			if tt.existing != "-" {
				mode := tt.mode
				if mode == 0 {
					mode = 0o644
				}
				putFile(t, abs, tt.existing, mode)
				if !tt.noRead {
					env.Files.Record(abs)
				}
				if tt.changed {
					before = "changed elsewhere\n"
					changeBehindBack(t, abs, before)
				}
			}
			in := map[string]any{"file_path": "f.go"}
			for k, v := range tt.input {
				in[k] = v
			}
			res := callFileTool(t, &Edit{}, env, in)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			wantContains(t, res.Output, tt.want...)
			want := tt.wantFile
			if want == "" {
				want = before
			}
			if before == "-" && want == "-" {
				if _, err := os.Stat(abs); err == nil {
					t.Errorf("file was created")
				}
			} else if got := fileText(t, abs); got != want {
				t.Errorf("file = %q, want %q", got, want)
			}
			if tt.wantMode != 0 {
				if got := fileMode(t, abs); got != tt.wantMode {
					t.Errorf("mode = %v, want %v", got, tt.wantMode)
				}
			}
			if !tt.isError {
				if err := env.Files.CheckFresh(abs); err != nil {
					t.Errorf("not recorded after edit: %v", err)
				}
				if d := oneDiff(t, res); d.Path != "f.go" || d.Diff == "" {
					t.Errorf("Display = %#v", res.Display)
				}
			}
		})
	}
}

func TestEditSnippetOfLargeReplaceAll(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	abs := env.Abs("big.txt")
	putFile(t, abs, numbered(1, 100), 0o644)
	env.Files.Record(abs)
	res := callFileTool(t, &Edit{}, env, map[string]any{"file_path": "big.txt", "old_string": "line", "new_string": "LINE", "replace_all": true})
	if res.IsError {
		t.Fatal(res.Output)
	}
	wantContains(t, res.Output, "replaced 100 occurrences", "     1\tLINE 1\n", "    40\tLINE 40\n", "... (60 more lines in the changed region")
	if d := oneDiff(t, res); d.Added != 100 || d.Removed != 100 {
		t.Errorf("diff counts %d/%d", d.Added, d.Removed)
	}
}
