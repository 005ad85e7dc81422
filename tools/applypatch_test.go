package tools

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

func TestApplyPatch(t *testing.T) {
	t.Parallel()
	const aGo = "package a\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n"
	tests := []struct {
		name    string
		files   map[string]string // before
		patch   string
		isError bool
		want    []string
		after   map[string]string // "-" means must not exist; unnamed files must be unchanged
	}{
		{name: "add, update, delete and move across files",
			files: map[string]string{"a.go": aGo, "old.txt": "bye\n", "c.txt": "one\ntwo\n"},
			patch: `*** Begin Patch
*** Add File: dir/new.txt
+hello
+world
*** Update File: a.go
@@ func A() int {
-	return 1
+	return 10
@@ func B() int {
-	return 2
+	return 20
 }
*** Delete File: old.txt
*** Update File: c.txt
*** Move to: moved/c2.txt
 one
-two
+2
*** End Patch`,
			want: []string{"Success. Updated the following files:\nA dir/new.txt\nM a.go\nD old.txt\nM moved/c2.txt (moved from c.txt)\n"},
			after: map[string]string{
				"dir/new.txt":  "hello\nworld\n",
				"a.go":         strings.NewReplacer("return 1", "return 10", "return 2", "return 20").Replace(aGo),
				"old.txt":      "-",
				"c.txt":        "-",
				"moved/c2.txt": "one\n2\n",
			}},
		{name: "second file does not apply: nothing changes",
			files: map[string]string{"a.go": aGo, "b.txt": "x\ny\nz\n"},
			patch: `*** Begin Patch
*** Update File: a.go
@@
 func A() int {
-	return 1
+	return 10
*** Add File: added.txt
+new
*** Update File: b.txt
@@
 x
-y
+Y
@@
 nothing
-like
+this
*** End Patch`,
			isError: true,
			want:    []string{"hunk 2 of 2 in b.txt did not apply", "It expected these lines:\n    nothing\n    like", "No files were changed."},
			after:   map[string]string{"added.txt": "-"}},
		{name: "context found ignoring whitespace",
			files: map[string]string{"w.py": "def f():  \n    return 1\n"},
			patch: "*** Begin Patch\n*** Update File: w.py\n@@\n def f():\n-  return 1\n+    return 2\n*** End Patch\n",
			after: map[string]string{"w.py": "def f():\n    return 2\n"}},
		{name: "end of file hunk picks the last match",
			files: map[string]string{"e.txt": "x\nend\nx\nend\n"},
			patch: "*** Begin Patch\n*** Update File: e.txt\n@@\n x\n-end\n+END\n*** End of File\n*** End Patch",
			after: map[string]string{"e.txt": "x\nend\nx\nEND\n"}},
		{name: "unified range header tolerated, CRLF and no final newline kept",
			files: map[string]string{"r.txt": "a\r\nb\r\nc"},
			patch: "*** Begin Patch\n*** Update File: r.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n*** End Patch",
			after: map[string]string{"r.txt": "a\r\nB\r\nc"}},
		{name: "pure addition after the anchor line",
			files: map[string]string{"p.txt": "head\nbody\n"},
			patch: "*** Begin Patch\n*** Update File: p.txt\n@@ head\n+inserted\n*** End Patch",
			after: map[string]string{"p.txt": "head\ninserted\nbody\n"}},
		{name: "heredoc wrapper and trailing blank line",
			files: map[string]string{"h.txt": "1\n2\n"},
			patch: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: h.txt\n 1\n-2\n+two\n\n*** End Patch\nEOF\n",
			after: map[string]string{"h.txt": "1\ntwo\n"}},
		{name: "pure rename",
			files: map[string]string{"r.sh": "#!/bin/sh\n"},
			patch: "*** Begin Patch\n*** Update File: r.sh\n*** Move to: bin/r.sh\n*** End Patch",
			want:  []string{"M bin/r.sh (moved from r.sh)"},
			after: map[string]string{"r.sh": "-", "bin/r.sh": "#!/bin/sh\n"}},
		{name: "add over an existing file refused",
			files:   map[string]string{"x.txt": "keep\n"},
			patch:   "*** Begin Patch\n*** Add File: x.txt\n+new\n*** End Patch",
			isError: true, want: []string{"cannot add x.txt: it already exists"}},
		{name: "move onto an existing file refused",
			files:   map[string]string{"x.txt": "1\n", "y.txt": "2\n"},
			patch:   "*** Begin Patch\n*** Update File: x.txt\n*** Move to: y.txt\n-1\n+one\n*** End Patch",
			isError: true, want: []string{"cannot move x.txt to y.txt: the destination already exists"}},
		{name: "update of a missing file",
			patch:   "*** Begin Patch\n*** Update File: gone.txt\n-a\n+b\n*** End Patch",
			isError: true, want: []string{"cannot update: File does not exist:", "gone.txt"}},
		{name: "anchor not found",
			files:   map[string]string{"a.go": aGo},
			patch:   "*** Begin Patch\n*** Update File: a.go\n@@ func C() int {\n-\treturn 3\n+\treturn 30\n*** End Patch",
			isError: true, want: []string{`hunk 1 of 1 in a.go did not apply: its @@ line "func C() int {" was not found`}},
		{name: "missing begin marker",
			patch:   "*** Update File: a.go\n-a\n+b\n",
			isError: true, want: []string{`invalid patch: the patch must start with "*** Begin Patch"`}},
		{name: "bad hunk line",
			files:   map[string]string{"a.go": aGo},
			patch:   "*** Begin Patch\n*** Update File: a.go\n@@\n return 1\n?? what\n*** End Patch",
			isError: true, want: []string{"invalid patch: line 5: a hunk line of a.go must start with ' ', '-' or '+'"}},
		{name: "same file twice",
			files:   map[string]string{"a.go": aGo},
			patch:   "*** Begin Patch\n*** Delete File: a.go\n*** Update File: a.go\n-x\n+y\n*** End Patch",
			isError: true, want: []string{"a.go appears more than once in the patch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewEnv(t.TempDir())
			for name, content := range tt.files {
				putFile(t, env.Abs(name), content, 0o644)
			}
			res := callFileTool(t, &ApplyPatch{}, env, map[string]any{"input": tt.patch})
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			wantContains(t, res.Output, tt.want...)
			for name, content := range tt.files {
				if _, named := tt.after[name]; named {
					continue
				}
				if got := fileText(t, env.Abs(name)); got != content {
					t.Errorf("%s changed to %q", name, got)
				}
			}
			for name, want := range tt.after {
				_, err := os.Stat(env.Abs(name))
				if want == "-" {
					if err == nil {
						t.Errorf("%s exists", name)
					}
					continue
				}
				if got := fileText(t, env.Abs(name)); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if !tt.isError {
				if res.Display == nil || res.Display.Kind != display.KindDiff {
					t.Errorf("Display = %+v", res.Display)
				}
			}
		})
	}
}

func TestApplyPatchFreshness(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	abs := env.Abs("f.txt")
	putFile(t, abs, "a\nb\n", 0o755)
	patch := "*** Begin Patch\n*** Update File: f.txt\n a\n-b\n+B\n*** End Patch"

	env.Files.Record(abs)
	changeBehindBack(t, abs, "a\nb\nc\n")
	res := callFileTool(t, &ApplyPatch{}, env, map[string]any{"input": patch})
	wantContains(t, res.Output, "has changed on disk since it was last read", "No files were changed.")

	env = NewEnv(env.Workdir) // never read in this session: fine
	res = callFileTool(t, &ApplyPatch{}, env, map[string]any{"input": patch})
	if res.IsError {
		t.Fatal(res.Output)
	}
	if got := fileText(t, abs); got != "a\nB\nc\n" {
		t.Errorf("file = %q", got)
	}
	if fileMode(t, abs) != 0o755 {
		t.Errorf("mode not kept")
	}
	if err := env.Files.CheckFresh(abs); err != nil {
		t.Errorf("patched file not recorded: %v", err)
	}
	d := displayOf(t, res, display.KindDiff).Diffs
	if len(d) != 1 || d[0].Added != 1 || d[0].Removed != 1 {
		t.Errorf("diffs = %+v", d)
	}
}

// TestApplyPatchRollback makes a write fail after another file was written:
// the written one must be restored.
func TestApplyPatchRollback(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	putFile(t, env.Abs("a.txt"), "a\n", 0o644)
	putFile(t, env.Abs("gone.txt"), "g\n", 0o600)
	putFile(t, env.Abs("blocker"), "I am a file, not a directory\n", 0o644)
	patch := `*** Begin Patch
*** Update File: a.txt
-a
+A
*** Delete File: gone.txt
*** Add File: blocker/new.txt
+x
*** End Patch`
	res := callFileTool(t, &ApplyPatch{}, env, map[string]any{"input": patch})
	if !res.IsError {
		t.Fatalf("patch applied: %s", res.Output)
	}
	wantContains(t, res.Output, "applying the patch failed", "rolled back; no files were changed")
	if got := fileText(t, env.Abs("a.txt")); got != "a\n" {
		t.Errorf("a.txt = %q after rollback", got)
	}
	if got := fileText(t, env.Abs("gone.txt")); got != "g\n" {
		t.Errorf("gone.txt = %q after rollback", got)
	}
	if fileMode(t, env.Abs("gone.txt")) != 0o600 {
		t.Errorf("restored file lost its mode")
	}
}

func TestApplyPatchPermission(t *testing.T) {
	t.Parallel()
	env := NewEnv("/w")
	patch := "*** Begin Patch\n*** Add File: n.txt\n+x\n*** Update File: u.txt\n*** Move to: sub/m.txt\n@@\n-a\n+b\n*** Delete File: /abs/d.txt\n*** End Patch"
	raw, _ := json.Marshal(map[string]string{"input": patch})
	req := (&ApplyPatch{}).Permission(raw, env)
	want := []permission.Access{{Path: "/w/n.txt", Write: true}, {Path: "/w/u.txt", Write: true}, {Path: "/w/sub/m.txt", Write: true}, {Path: "/abs/d.txt", Write: true}}
	if req.Kind != permission.KindEdit || len(req.Paths) != len(want) {
		t.Fatalf("Permission = %+v", req)
	}
	for i := range want {
		if req.Paths[i] != want[i] {
			t.Errorf("path %d = %+v, want %+v", i, req.Paths[i], want[i])
		}
	}
	// A patch that does not parse still names its files.
	raw, _ = json.Marshal(map[string]string{"input": "*** Update File: x.go\ngarbage"})
	if req := (&ApplyPatch{}).Permission(raw, env); len(req.Paths) != 1 || req.Paths[0].Path != "/w/x.go" {
		t.Errorf("unparsable patch gave %+v", req)
	}
}

func TestApplyPatchMoveKeepsMode(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	putFile(t, env.Abs("run.sh"), "echo a\n", 0o755)
	patch := "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n-echo a\n+echo b\n*** End Patch"
	if res := callFileTool(t, &ApplyPatch{}, env, map[string]any{"input": patch}); res.IsError {
		t.Fatal(res.Output)
	}
	if got := fileText(t, env.Abs("bin/run.sh")); got != "echo b\n" {
		t.Errorf("moved file = %q", got)
	}
	if got := fileMode(t, env.Abs("bin/run.sh")); got != 0o755 {
		t.Errorf("moved file mode = %v, want 0755", got)
	}
}

func TestApplyPatchReadOnlyFile(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	putFile(t, env.Abs("a.txt"), "a\n", 0o644)
	putFile(t, env.Abs("ro.txt"), "r\n", 0o444)
	patch := "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: ro.txt\n-r\n+R\n*** End Patch"
	res := callFileTool(t, &ApplyPatch{}, env, map[string]any{"input": patch})
	wantContains(t, res.Output, "ro.txt is read-only", "rolled back; no files were changed")
	if got := fileText(t, env.Abs("a.txt")); got != "a\n" {
		t.Errorf("a.txt = %q after rollback", got)
	}
}
