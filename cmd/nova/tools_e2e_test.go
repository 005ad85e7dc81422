package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/tools"
)

// sentResult is a tool_result block of an Anthropic request.
type sentResult struct {
	IsError bool
	Text    string
}

// toolResultsOf returns the tool_result blocks of an Anthropic Messages
// request by tool_use_id.
func toolResultsOf(t *testing.T, req llmtest.Request) map[string]sentResult {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	out := map[string]sentResult{}
	for _, m := range body.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			r := sentResult{IsError: b.IsError}
			var s string
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			switch {
			case json.Unmarshal(b.Content, &s) == nil:
				r.Text = s
			case json.Unmarshal(b.Content, &parts) == nil:
				for _, p := range parts {
					r.Text += p.Text
				}
			}
			out[b.ToolUseID] = r
		}
	}
	return out
}

// check is what a scripted call's result must look like.
type check struct {
	call llmtest.ToolCall
	// contains are texts the result must hold.
	contains []string
	// denied, when set, says the call must be refused by the permission
	// checker's layer of that name: an error result, a denied tool_result
	// event and an entry in the result's permission_denials.
	denied string
}

func TestToolsE2E(t *testing.T) {
	var hits atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Fixture page</title></head><body><nav>menu</nav><h1>Release notes</h1><p>Version 2 renames <code>Frob</code> to <code>Twiddle</code>.</p></body></html>`)
	}))
	defer web.Close()
	if !strings.HasPrefix(web.URL, "http://127.0.0.1:") {
		t.Fatalf("test server at %s, want 127.0.0.1", web.URL)
	}

	e := newE2E(t)
	// A skill of the user's: outside the workspace, which the test holds
	// to the files the tools made.
	skillDir := filepath.Join(e.home, ".nova", "skills", "e2e-check")
	if err := os.MkdirAll(skillDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skillDir, "SKILL.md"), []byte("---\ndescription: Checks the e2e world\n---\nCheck $0 in ${CLAUDE_SKILL_DIR}.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.write("notes.txt", "alpha\nbeta\ngamma\n")
	e.write("multi.txt", "red green blue\n")
	e.write("patchme.txt", "one\ntwo\nthree\n")
	e.write("obsolete.txt", "delete me\n")
	e.write("nb.ipynb", `{"cells":[{"cell_type":"code","execution_count":1,"id":"c1","metadata":{},"outputs":[{"name":"stdout","output_type":"stream","text":["1\n"]}],"source":["print(1)"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`+"\n")

	call := func(id, name string, in map[string]any) llmtest.ToolCall {
		return llmtest.ToolCall{ID: id, Name: name, Input: jsonInput(in)}
	}
	patch := strings.Join([]string{
		"*** Begin Patch",
		"*** Update File: patchme.txt",
		" one",
		"-two",
		"+TWO",
		" three",
		"*** Add File: added.txt",
		"+added by patch",
		"*** Delete File: obsolete.txt",
		"*** End Patch",
	}, "\n")
	const memText = "The e2e suite drives nova against the fake provider."
	turns := [][]check{
		{
			{call: call("read_notes", "Read", map[string]any{"file_path": "notes.txt"}), contains: []string{"     2\tbeta"}},
			{call: call("read_multi", "Read", map[string]any{"file_path": "multi.txt"}), contains: []string{"red green blue"}},
			{call: call("read_patch", "Read", map[string]any{"file_path": "patchme.txt"}), contains: []string{"two"}},
			{call: call("read_nb", "Read", map[string]any{"file_path": "nb.ipynb"}), contains: []string{`id="c1"`, "print(1)"}},
			{call: call("todo", "TodoWrite", map[string]any{"todos": []map[string]any{
				{"content": "Edit the files", "activeForm": "Editing the files", "status": "in_progress"},
				{"content": "Run the commands", "activeForm": "Running the commands", "status": "pending"},
			}}), contains: []string{"2 tasks"}},
		},
		{
			{call: call("write", "Write", map[string]any{"file_path": "new.txt", "content": "created by Write\n"}), contains: []string{"Created"}},
			{call: call("edit", "Edit", map[string]any{"file_path": "notes.txt", "old_string": "beta", "new_string": "BETA"}), contains: []string{"BETA"}},
			{call: call("multiedit", "MultiEdit", map[string]any{"file_path": "multi.txt", "edits": []map[string]any{
				{"old_string": "red", "new_string": "RED"}, {"old_string": "blue", "new_string": "BLUE"},
			}}), contains: []string{"Applied 2 edits"}},
			{call: call("patch", "ApplyPatch", map[string]any{"input": patch})},
			{call: call("notebook", "NotebookEdit", map[string]any{"notebook_path": "nb.ipynb", "cell_id": "c1", "new_source": "print(2)"})},
		},
		{
			{call: call("glob", "Glob", map[string]any{"pattern": "**/*.txt"}), contains: []string{filepath.Join(e.ws, "new.txt"), filepath.Join(e.ws, "added.txt")}},
			{call: call("grep", "Grep", map[string]any{"pattern": "BETA|TWO", "output_mode": "content"}), contains: []string{"notes.txt:2:BETA", "patchme.txt:2:TWO"}},
			{call: call("ls", "LS", map[string]any{}), contains: []string{"new.txt", "nb.ipynb"}},
		},
		{
			{call: call("bash_cd", "Bash", map[string]any{"command": "mkdir -p sub && cd sub && export NOVA_E2E=kept && echo hi > bash.txt", "description": "make sub and stay there"})},
		},
		{
			{call: call("bash_state", "Bash", map[string]any{"command": `pwd && echo "env=$NOVA_E2E" && cd ..`}), contains: []string{filepath.Join(e.ws, "sub"), "env=kept"}},
			{call: call("bash_bg", "Bash", map[string]any{"command": "echo bg-out; touch bg.ready; sleep 60", "run_in_background": true}), contains: []string{"bash_1"}},
		},
		{
			{call: call("bash_wait", "Bash", map[string]any{"command": "until [ -e bg.ready ]; do sleep 0.05; done; echo ready", "timeout": 30000}), contains: []string{"ready"}},
		},
		{
			{call: call("bgout_1", "BashOutput", map[string]any{"bash_id": "bash_1"}), contains: []string{"Status: running"}},
		},
		{
			{call: call("kill", "KillShell", map[string]any{"shell_id": "bash_1"}), contains: []string{"Killed shell bash_1"}},
		},
		{
			{call: call("bgout_2", "BashOutput", map[string]any{"bash_id": "bash_1"}), contains: []string{"Status: killed"}},
		},
		{
			{call: call("fetch", "WebFetch", map[string]any{"url": web.URL + "/notes", "prompt": "What was renamed?"}), contains: []string{"Prompt: What was renamed?", "# Release notes", "Page title: Fixture page"}},
			{call: call("ask", "AskUserQuestion", map[string]any{"questions": []map[string]any{{
				"question": "Which name should we keep?", "header": "Name",
				"options": []map[string]any{{"label": "Twiddle"}, {"label": "Frob"}},
			}}}), contains: []string{"Nobody can answer"}},
			{call: call("remember", "Remember", map[string]any{"memory": memText}), contains: []string{"Saved to memory"}},
			{call: call("skill", "Skill", map[string]any{"skill": "e2e-check", "args": "alpha"}),
				contains: []string{"Base directory for this skill: " + skillDir, "Check alpha in " + skillDir + "."}},
		},
	}
	// Plan mode last: once in it, nothing can be edited. Print mode wires
	// it (the checker is the session's mode switch), and nobody can approve
	// a plan there: ExitPlanMode is answered in words and the session stays
	// read-only, so a Write after it is refused as one before it is.
	const planDenial = "Permission to use Write was denied (mode layer): plan mode is read-only"
	turns = append(turns,
		[]check{{call: call("plan_enter", "EnterPlanMode", map[string]any{}), contains: []string{"Entered plan mode"}}},
		[]check{
			{call: call("plan_read", "Read", map[string]any{"file_path": "notes.txt"}), contains: []string{"BETA"}},
			{call: call("plan_write", "Write", map[string]any{"file_path": "planned.txt", "content": "too early\n"}), contains: []string{planDenial}, denied: "mode"},
		},
		[]check{{call: call("plan_exit", "ExitPlanMode", map[string]any{"plan": "1. Rename Frob to Twiddle."}),
			contains: []string{"The plan was not approved: nobody can approve it", "you are still in plan mode"}}},
		[]check{{call: call("plan_write_after", "Write", map[string]any{"file_path": "planned.txt", "content": "still too early\n"}), contains: []string{planDenial}, denied: "mode"}},
	)
	var builtin []string
	for _, tl := range tools.Builtin() {
		builtin = append(builtin, tl.Name())
	}

	// Every built-in tool (and Remember and Skill, registered beside
	// them) is used.
	used := map[string]bool{}
	for _, turn := range turns {
		for _, c := range turn {
			used[c.call.Name] = true
		}
	}
	// A new tool fails here until it is added: say exactly how.
	missing := false
	for _, name := range append(builtin, "Remember", "Skill") {
		if !used[name] {
			missing = true
			t.Errorf("the trajectory does not use %[1]s: add a call of it to a turn of turns in TestToolsE2E (cmd/nova/tools_e2e_test.go), "+
				"e.g. {call: call(%[2]q, %[1]q, map[string]any{...}), contains: []string{\"text its result must hold\"}}, "+
				"with the input its schema in tools/schemas_gen.go describes, and check on disk what it changed", name, strings.ToLower(name))
		}
	}
	if missing {
		t.FailNow()
	}

	var script []llmtest.Turn
	for _, turn := range turns {
		var calls []llmtest.ToolCall
		for _, c := range turn {
			calls = append(calls, c.call)
		}
		script = append(script, llmtest.Turn{ToolCalls: calls})
	}
	script = append(script, llmtest.Turn{Text: "All tools used."})
	e.srv.Push(script...)

	r := e.run("", "-p", "--output-format", "stream-json", "--permission-mode", "acceptEdits",
		"--allowedTools", "Bash,WebFetch(domain:127.0.0.1)", "use every tool")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	// The files on disk.
	for name, want := range map[string]string{
		"new.txt":      "created by Write\n",
		"notes.txt":    "alpha\nBETA\ngamma\n",
		"multi.txt":    "RED green BLUE\n",
		"patchme.txt":  "one\nTWO\nthree\n",
		"added.txt":    "added by patch\n",
		"sub/bash.txt": "hi\n",
	} {
		if got := e.read(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "obsolete.txt")); !os.IsNotExist(err) {
		t.Errorf("obsolete.txt was not deleted by the patch (%v)", err)
	}
	var nb struct {
		Cells []struct {
			ID             string          `json:"id"`
			Source         json.RawMessage `json:"source"`
			Outputs        []any           `json:"outputs"`
			ExecutionCount *int            `json:"execution_count"`
		} `json:"cells"`
		NBFormat int `json:"nbformat"`
	}
	if err := json.Unmarshal([]byte(e.read("nb.ipynb")), &nb); err != nil {
		t.Fatalf("nb.ipynb is no longer JSON: %v", err)
	}
	if len(nb.Cells) != 1 || nb.Cells[0].ID != "c1" || nbSource(nb.Cells[0].Source) != "print(2)" || len(nb.Cells[0].Outputs) != 0 || nb.Cells[0].ExecutionCount != nil || nb.NBFormat != 4 {
		t.Errorf("nb.ipynb = %s", e.read("nb.ipynb"))
	}
	var files []string
	_ = filepath.WalkDir(e.ws, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(e.ws, p)
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	if want := []string{"added.txt", "bg.ready", "multi.txt", "nb.ipynb", "new.txt", "notes.txt", "patchme.txt", "sub/bash.txt"}; !slices.Equal(files, want) {
		t.Errorf("workspace holds %v, want %v", files, want)
	}
	mem, err := os.ReadFile(memory.MemoryPath(filepath.Join(e.home, ".nova"), e.ws))
	if err != nil || !strings.Contains(string(mem), "- [fact] "+memText) {
		t.Errorf("MEMORY.md = %q (%v), want the remembered fact", mem, err)
	}
	if hits.Load() != 1 {
		t.Errorf("the web server was hit %d times, want 1", hits.Load())
	}

	// What the model was told: each result in the request after its turn.
	reqs := e.srv.Requests()
	if len(reqs) != len(turns)+1 {
		t.Fatalf("provider saw %d requests, want %d", len(reqs), len(turns)+1)
	}
	bgOut := ""
	for i, turn := range turns {
		results := toolResultsOf(t, reqs[i+1])
		for _, c := range turn {
			res, ok := results[c.call.ID]
			switch {
			case !ok:
				t.Errorf("%s (%s): no tool_result in request %d", c.call.ID, c.call.Name, i+1)
				continue
			case c.denied != "" && !res.IsError:
				t.Errorf("%s (%s) ran, want it refused by the %s layer: %s", c.call.ID, c.call.Name, c.denied, res.Text)
			case res.IsError && c.denied == "":
				t.Errorf("%s (%s) failed: %s", c.call.ID, c.call.Name, res.Text)
				continue
			}
			for _, want := range c.contains {
				if !strings.Contains(res.Text, want) {
					t.Errorf("%s (%s): result lacks %q:\n%s", c.call.ID, c.call.Name, want, res.Text)
				}
			}
			if c.call.Name == "BashOutput" {
				bgOut += res.Text
			}
		}
	}
	if !strings.Contains(bgOut, "bg-out") {
		t.Errorf("the background shell's output was never read: %q", bgOut)
	}

	// The stream: an init line, a tool_call and a tool_result per call.
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var init struct {
		Type           string   `json:"type"`
		Subtype        string   `json:"subtype"`
		PermissionMode string   `json:"permissionMode"`
		Tools          []string `json:"tools"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &init); err != nil || init.Subtype != "init" || init.PermissionMode != "acceptEdits" {
		t.Errorf("init line = %s (%v)", lines[0], err)
	}
	for _, name := range append(builtin, "Remember", "Skill") {
		if !slices.Contains(init.Tools, name) {
			t.Errorf("init tools %v lack %s", init.Tools, name)
		}
	}
	wantDenied := map[string]string{} // call id -> layer
	for _, turn := range turns {
		for _, c := range turn {
			if c.denied != "" {
				wantDenied[c.call.ID] = c.denied
			}
		}
	}
	// A tool_use block (assistant) and a tool_result block (user) per
	// call, and nova's nova_tool_result saying whether it was denied.
	st := parseStream(t, r.stdout)
	for _, turn := range turns {
		for _, c := range turn {
			id := c.call.ID
			if st.toolUses[id] != 1 || st.toolResults[id] != 1 {
				t.Errorf("%s: %d tool_use and %d tool_result blocks, want 1 each", id, st.toolUses[id], st.toolResults[id])
			}
			if want := wantDenied[id] != ""; st.meta[id].Denied != want {
				t.Errorf("%s (%s): denied = %v, want %v", id, st.meta[id].Name, st.meta[id].Denied, want)
			}
		}
	}
	var last struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
		Result  string `json:"result"`
		Denials []struct {
			ToolName  string `json:"tool_name"`
			ToolUseID string `json:"tool_use_id"`
			Layer     string `json:"layer"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Type != "result" || last.Subtype != "success" || last.Result != "All tools used." {
		t.Errorf("last line = %s", lines[len(lines)-1])
	}
	gotDenied := map[string]string{}
	for _, d := range last.Denials {
		gotDenied[d.ToolUseID] = d.Layer
	}
	if !maps.Equal(gotDenied, wantDenied) {
		t.Errorf("permission_denials = %+v, want the calls and layers %v", last.Denials, wantDenied)
	}
}

// nbSource joins a notebook source field, a string or a list of strings.
func nbSource(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []string
	_ = json.Unmarshal(raw, &parts)
	return strings.Join(parts, "")
}
