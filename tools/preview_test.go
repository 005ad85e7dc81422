package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// TestPreviewIsWhatRunDoes: the diff a Previewer shows before a call is
// the diff the call's result carries after it ran, and previewing writes
// nothing; a call that would fail previews nothing.
func TestPreviewIsWhatRunDoes(t *testing.T) {
	t.Parallel()
	patch := "*** Begin Patch\n*** Update File: f.go\n@@\n func main() {\n-\tprintln(\"hi\")\n+\tprintln(\"patched\")\n }\n*** Add File: new.txt\n+fresh\n*** End Patch\n"
	for _, tc := range []struct {
		name  string
		tool  Tool
		input map[string]any
		fails bool
	}{
		{"Edit", &Edit{}, map[string]any{"file_path": "f.go", "old_string": "\tprintln(\"hi\")", "new_string": "\tprintln(\"hello\")"}, false},
		{"Edit that would fail", &Edit{}, map[string]any{"file_path": "f.go", "old_string": "absent", "new_string": "x"}, true},
		{"MultiEdit", &MultiEdit{}, map[string]any{"file_path": "f.go", "edits": []map[string]any{{"old_string": "main", "new_string": "run", "replace_all": true}, {"old_string": "\"hi\"", "new_string": "\"bye\""}}}, false},
		{"Write, new file", &Write{}, map[string]any{"file_path": "made.go", "content": "package made\n\nfunc F() {}\n"}, false},
		{"Write over a file", &Write{}, map[string]any{"file_path": "f.go", "content": "package main\n"}, false},
		{"ApplyPatch", &ApplyPatch{}, map[string]any{"input": patch}, false},
		{"ApplyPatch that would fail", &ApplyPatch{}, map[string]any{"input": "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\n"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := NewEnv(t.TempDir())
			abs := env.Abs("f.go")
			const src = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
			putFile(t, abs, src, 0o644)
			env.Files.Record(abs)
			raw, _ := json.Marshal(tc.input)
			pv, fail := tc.tool.(Previewer).Preview(context.Background(), raw, env)
			if got := fileText(t, abs); got != src {
				t.Fatalf("the preview changed f.go: %q", got)
			}
			if tc.fails {
				if pv != nil {
					t.Errorf("a call that fails previewed %+v", pv)
				}
				if fail == nil || !fail.IsError {
					t.Fatalf("a call that fails gave no failure: %+v", fail)
				}
				if res := callFileTool(t, tc.tool, env, tc.input); res.Output != fail.Output {
					t.Errorf("preview says %q, run says %q", fail.Output, res.Output)
				}
				return
			}
			if pv == nil || len(pv.Diffs) == 0 {
				t.Fatalf("no preview")
			}
			res := callFileTool(t, tc.tool, env, tc.input)
			if res.IsError || res.Display == nil {
				t.Fatalf("run: %s", res.Output)
			}
			if len(pv.Diffs) != len(res.Display.Diffs) {
				t.Fatalf("preview has %d diffs, the result %d", len(pv.Diffs), len(res.Display.Diffs))
			}
			for i := range pv.Diffs {
				if pv.Diffs[i] != res.Display.Diffs[i] {
					t.Errorf("preview %+v\nresult  %+v", pv.Diffs[i], res.Display.Diffs[i])
				}
			}
		})
	}
}

// TestPipelineAskCarriesPreview: the ask a person answers holds the diff.
func TestPipelineAskCarriesPreview(t *testing.T) {
	t.Parallel()
	ask := permission.Decision{Behavior: permission.Ask, Layer: permission.LayerMode, Reason: "Edit needs approval"}
	p, env := newPlPipeline(t, &plChecker{decision: ask}, &Edit{})
	asker := &plAsker{answer: Approval{}}
	env.Ask = asker
	putFile(t, env.Abs("a.txt"), "old line\n", 0o644)
	env.Files.Record(env.Abs("a.txt"))
	plRun(p, env, "Edit", `{"file_path":"a.txt","old_string":"old line","new_string":"new line"}`)
	if len(asker.asks) != 1 || asker.asks[0].Preview == nil || len(asker.asks[0].Preview.Diffs) != 1 {
		t.Fatalf("asks = %+v", asker.asks)
	}
	if d := asker.asks[0].Preview.Diffs[0]; d.Added != 1 || d.Removed != 1 || d.Path != "a.txt" {
		t.Errorf("preview diff = %+v", d)
	}
}

// TestPipelineRefusesWhatCannotWorkBeforeAsking: an Edit of a file never
// read is refused before a person is asked to approve it, in the words Run
// would use; a file the model may not read without asking is still asked
// about (the refusal would tell it what is there), and a call that can
// work is asked about as before.
func TestPipelineRefusesWhatCannotWorkBeforeAsking(t *testing.T) {
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	c, err := permission.NewChecker(permission.Config{Workspace: ws, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p, env := newPlPipeline(t, c, &Edit{}, &Write{})
	env.Workdir = ws
	asker := &plAsker{answer: Approval{}}
	env.Ask = asker
	putFile(t, filepath.Join(ws, "unread.txt"), "old line\n", 0o644)
	putFile(t, filepath.Join(outside, "secret.txt"), "old line\n", 0o644)
	putFile(t, filepath.Join(ws, "read.txt"), "old line\n", 0o644)
	env.Files.Record(filepath.Join(ws, "read.txt"))

	for _, call := range []struct{ tool, input string }{
		{"Edit", `{"file_path":"unread.txt","old_string":"old line","new_string":"new line"}`},
		{"Write", `{"file_path":"unread.txt","content":"new\n"}`},
		{"Edit", `{"file_path":"read.txt","old_string":"not there","new_string":"x"}`},
	} {
		out := plRun(p, env, call.tool, call.input)
		if len(asker.asks) != 0 {
			t.Fatalf("%s %s: asked %+v", call.tool, call.input, asker.asks)
		}
		if !out.Result.IsError || out.Denied {
			t.Errorf("%s %s: %+v", call.tool, call.input, out)
		}
	}
	if got := fileText(t, filepath.Join(ws, "unread.txt")); got != "old line\n" {
		t.Fatalf("unread.txt = %q", got)
	}
	if out := plRun(p, env, "Edit", `{"file_path":"unread.txt","old_string":"old line","new_string":"new line"}`); !strings.Contains(out.Result.Output, "has not been read") {
		t.Errorf("the refusal says %q", out.Result.Output)
	}

	// Outside the workspace a read asks: so does the edit, whatever it
	// would find.
	plRun(p, env, "Edit", `{"file_path":"`+filepath.Join(outside, "secret.txt")+`","old_string":"password","new_string":"x"}`)
	if len(asker.asks) != 1 {
		t.Fatalf("an edit outside the workspace was not asked about: %d asks", len(asker.asks))
	}
	// Positive control: an edit that can work is asked about.
	plRun(p, env, "Edit", `{"file_path":"read.txt","old_string":"old line","new_string":"new line"}`)
	if len(asker.asks) != 2 || asker.asks[1].Preview == nil {
		t.Fatalf("a workable edit was not asked about with its diff: %+v", asker.asks)
	}
}
