package tools

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/nova-dev/nova/permission"
)

func TestWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing string // "" for no file
		mode     os.FileMode
		read     bool // Read before writing
		changed  bool // changed on disk after the read
		path     string
		content  string
		isError  bool
		want     []string
		wantFile string
		wantMode os.FileMode
	}{
		{name: "create with parent dirs", path: "a/b/new.txt", content: "one\ntwo\n",
			want: []string{"Created a/b/new.txt (2 lines)."}, wantFile: "one\ntwo\n", wantMode: 0o644},
		{name: "overwrite after read keeps mode", existing: "old\n", mode: 0o755, read: true, path: "f.sh", content: "#!/bin/sh\necho hi\n",
			want: []string{"Overwrote f.sh (2 lines)."}, wantFile: "#!/bin/sh\necho hi\n", wantMode: 0o755},
		{name: "overwrite without read refused", existing: "old\n", mode: 0o644, path: "f.txt", content: "new\n",
			isError: true, want: []string{"has not been read in this session; Read it first"}, wantFile: "old\n"},
		{name: "changed since read refused", existing: "old\n", mode: 0o644, read: true, changed: true, path: "f.txt", content: "new\n",
			isError: true, want: []string{"has changed on disk since it was last read"}, wantFile: "changed by someone else\n"},
		{name: "CRLF file stays CRLF", existing: "a\r\nb\r\n", mode: 0o600, read: true, path: "w.txt", content: "x\ny\nz\n",
			want: []string{"Overwrote w.txt (3 lines)."}, wantFile: "x\r\ny\r\nz\r\n", wantMode: 0o600},
		{name: "BOM kept", existing: "\ufeffold\n", mode: 0o644, read: true, path: "b.txt", content: "new\n",
			wantFile: "\ufeffnew\n", wantMode: 0o644},
		{name: "read-only file refused", existing: "old\n", mode: 0o444, read: true, path: "ro.txt", content: "new\n",
			isError: true, want: []string{"is read-only (mode 0444); it was not changed"}, wantFile: "old\n"},
		{name: "directory refused", path: ".", content: "x", isError: true, want: []string{"is a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewEnv(t.TempDir())
			abs := env.Abs(tt.path)
			if tt.existing != "" {
				putFile(t, abs, tt.existing, tt.mode)
			}
			if tt.read {
				if r := callFileTool(t, &Read{}, env, map[string]any{"file_path": tt.path}); r.IsError {
					t.Fatal(r.Output)
				}
			}
			if tt.changed {
				changeBehindBack(t, abs, "changed by someone else\n")
			}
			res := callFileTool(t, &Write{}, env, map[string]any{"file_path": tt.path, "content": tt.content})
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			wantContains(t, res.Output, tt.want...)
			if tt.wantFile != "" {
				if got := fileText(t, abs); got != tt.wantFile {
					t.Errorf("file = %q, want %q", got, tt.wantFile)
				}
			}
			if tt.wantMode != 0 {
				if got := fileMode(t, abs); got != tt.wantMode {
					t.Errorf("mode = %v, want %v", got, tt.wantMode)
				}
			}
			if !tt.isError {
				if err := env.Files.CheckFresh(abs); err != nil {
					t.Errorf("file not fresh after write: %v", err)
				}
				if res.Display == nil || len(res.Display.Diffs) != 1 {
					t.Errorf("Display = %+v, want one file diff", res.Display)
				}
			}
		})
	}
}

func TestWriteDisplayDiff(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	putFile(t, env.Abs("f.txt"), "a\nb\nc\n", 0o644)
	callFileTool(t, &Read{}, env, map[string]any{"file_path": "f.txt"})
	res := callFileTool(t, &Write{}, env, map[string]any{"file_path": "f.txt", "content": "a\nB\nc\nd\n"})
	d := oneDiff(t, res)
	if d.Path != "f.txt" || d.Added != 2 || d.Removed != 1 {
		t.Errorf("diff = %+v", d)
	}
	wantContains(t, d.Diff, "-b\n+B\n", "+d\n")
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("result does not marshal: %v", err)
	}
}

func TestWriteThroughSymlink(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	target := env.Abs("real.txt")
	putFile(t, target, "old\n", 0o640)
	if err := os.Symlink(target, env.Abs("link.txt")); err != nil {
		t.Skip("no symlinks:", err)
	}
	callFileTool(t, &Read{}, env, map[string]any{"file_path": "link.txt"})
	if res := callFileTool(t, &Write{}, env, map[string]any{"file_path": "link.txt", "content": "new\n"}); res.IsError {
		t.Fatal(res.Output)
	}
	if st, err := os.Lstat(env.Abs("link.txt")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced by a file")
	}
	if got := fileText(t, target); got != "new\n" {
		t.Errorf("target = %q", got)
	}
	if got := fileMode(t, target); got != 0o640 {
		t.Errorf("target mode = %v", got)
	}
}

func TestWritePermission(t *testing.T) {
	t.Parallel()
	env := NewEnv("/w")
	req := requestFor(&Write{}, json.RawMessage(`{"file_path":"../x.txt","content":""}`), env)
	if req.Kind != permission.KindEdit || len(req.Paths) != 1 || req.Paths[0] != (permission.Access{Path: "/x.txt", Write: true}) {
		t.Errorf("Permission = %+v", req)
	}
}

func TestWriteEditToolsPermission(t *testing.T) {
	t.Parallel()
	env := NewEnv("/w")
	tests := []struct {
		tool  Tool
		input string
		path  string
	}{
		{&Edit{}, `{"file_path":"e.go","old_string":"a","new_string":"b"}`, "/w/e.go"},
		{&MultiEdit{}, `{"file_path":"/abs/m.go","edits":[]}`, "/abs/m.go"},
		{&NotebookEdit{}, `{"notebook_path":"n.ipynb","new_source":""}`, "/w/n.ipynb"},
	}
	for _, tt := range tests {
		req := requestFor(tt.tool, json.RawMessage(tt.input), env)
		if req.Tool != tt.tool.Name() || req.Kind != permission.KindEdit || len(req.Paths) != 1 || req.Paths[0] != (permission.Access{Path: tt.path, Write: true}) {
			t.Errorf("%s: Permission = %+v", tt.tool.Name(), req)
		}
		if req := requestFor(tt.tool, json.RawMessage(`[`), env); len(req.Paths) != 0 || req.Kind != permission.KindEdit {
			t.Errorf("%s: unparsable input gave %+v", tt.tool.Name(), req)
		}
	}
}
