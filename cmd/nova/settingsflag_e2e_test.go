package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// touchTurns are a model that runs `touch name` in Bash, then answers.
func touchTurns(name string) []llmtest.Turn {
	return []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_touch", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch " + name})}}},
		{Text: "Done."},
	}
}

// denials reads the result's permission_denials' tool names.
func denials(t *testing.T, r runResult) []string {
	t.Helper()
	var res struct {
		PermissionDenials []struct {
			ToolName string `json:"tool_name"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	var names []string
	for _, d := range res.PermissionDenials {
		names = append(names, d.ToolName)
	}
	return names
}

// TestSettingsFlagDenyE2E: a deny rule given with --settings, inline or as
// a file, holds over an allow rule: the denied command does not run (its
// sentinel file is not created), in an untrusted folder too. The control:
// without it, the same call runs.
func TestSettingsFlagDenyE2E(t *testing.T) {
	e := newE2E(t, touchTurns("control")...)
	r := e.run("", "-p", "--output-format", "json", "--no-sandbox", "--allowedTools", "Bash", "make the file")
	if _, err := os.Stat(filepath.Join(e.ws, "control")); err != nil || r.code != 0 {
		t.Fatalf("control: the allowed call did not run (%v): exit %d %s", err, r.code, r.stderr)
	}

	deny := `{"permissions": {"deny": ["Bash(touch:*)"]}}`
	e.write("ci-settings.json", deny)
	for _, flag := range []string{deny, "ci-settings.json"} {
		e.srv.Push(touchTurns("pwned")...)
		r := e.run("", "-p", "--output-format", "json", "--no-sandbox", "--allowedTools", "Bash", "--settings", flag, "make the file")
		if _, err := os.Stat(filepath.Join(e.ws, "pwned")); err == nil {
			t.Fatalf("--settings %s: the denied command ran", flag)
		}
		if r.code != 0 || strings.Join(denials(t, r), ",") != "Bash" {
			t.Errorf("--settings %s: exit %d, denials %v; stderr %s", flag, r.code, denials(t, r), r.stderr)
		}
	}
}

// TestSettingsFlagBadE2E: a --settings that does not load stops nova with
// exit 2 before any request, saying what is wrong.
func TestSettingsFlagBadE2E(t *testing.T) {
	e := newE2E(t)
	e.write("bad.json", `{"permissions": {"allow": ["Bash(oops"]}}`)
	for _, bad := range []struct{ flag, want string }{
		{`{"permissions": `, "--settings JSON"},
		{`{"permissions": {"defaultMode": "yolo"}}`, `unknown defaultMode "yolo"`},
		{"nope.json", "--settings: open"},
		{"bad.json", "bad.json: line 1"},
		{"", "--settings: empty"},
	} {
		r := e.run("", "-p", "--settings", bad.flag, "hi")
		if r.code != 2 || !strings.Contains(r.stderr, bad.want) {
			t.Errorf("--settings %q: exit %d stderr %q, want 2 and %q", bad.flag, r.code, r.stderr, bad.want)
		}
	}
	if r := e.run("", "-p", "--setting-sources", "user,policy", "hi"); r.code != 2 || !strings.Contains(r.stderr, `unknown settings source "policy"`) {
		t.Errorf("--setting-sources policy: exit %d stderr %q", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the provider", n)
	}
}

// TestSettingSourcesE2E: leaving project out of --setting-sources leaves
// the project's allow rule out (the call is denied: nobody to ask), while
// the user's still holds; the control loads both.
func TestSettingSourcesE2E(t *testing.T) {
	e := newE2E(t)
	e.write(".nova/settings.json", `{"permissions": {"allow": ["Bash(touch project*)"]}}`)
	if err := os.MkdirAll(filepath.Join(e.home, ".nova"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".nova", "settings.json"), []byte(`{"permissions": {"allow": ["Bash(touch user*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := e.run("", "trust"); r.code != 0 {
		t.Fatalf("nova trust: %d %s", r.code, r.stderr)
	}
	run := func(file string, args ...string) runResult {
		e.srv.Push(touchTurns(file)...)
		return e.run("", append(append([]string{"-p", "--output-format", "json", "--no-sandbox"}, args...), "make the file")...)
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(e.ws, name))
		return err == nil
	}
	if r := run("project-control"); !exists("project-control") {
		t.Fatalf("control: the project's allow rule did not hold: %s %s", r.stdout, r.stderr)
	}
	if r := run("project-left-out", "--setting-sources", "user,local"); exists("project-left-out") || strings.Join(denials(t, r), ",") != "Bash" {
		t.Errorf("--setting-sources user,local: the project's rule still allowed the call (denials %v)", denials(t, r))
	}
	if r := run("user-kept", "--setting-sources", "user,local"); !exists("user-kept") {
		t.Errorf("--setting-sources user,local: the user's rule no longer holds: %s %s", r.stdout, r.stderr)
	}
	if r := run("user-left-out", "--setting-sources="); exists("user-left-out") {
		t.Errorf(`--setting-sources "": the user's rule still allowed the call: %s`, r.stdout)
	}
}
