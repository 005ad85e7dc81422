package remote

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/config"
)

// newAgentServer is a server with two providers configured.
func newAgentServer(t *testing.T) *testServer {
	t.Helper()
	ts := newConfigServer(t, map[string]string{"ANTHROPIC_API_KEY": "k"})
	ts.writeConfig(`{"providers": [{"key": "ollama", "type": "ollama", "models": [{"model": "my-model", "tools": true}]}]}`)
	return ts
}

func TestAgentsMain(t *testing.T) {
	t.Parallel()
	ts := newAgentServer(t)
	code, body, _ := ts.do("GET", "/api/agents", "")
	if code != 200 {
		t.Fatalf("list: %d %s", code, body)
	}
	// The main agent always exists, with the model nova uses by default
	// (here config.json's first provider's first model); unset optional
	// fields are null.
	var raw struct {
		Items []map[string]json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &raw); err != nil || len(raw.Items) != 1 {
		t.Fatalf("list = %s", body)
	}
	for k, want := range map[string]string{"key": `"main"`, "name": `"Nova"`, "model": `"my-model"`, "provider": `"ollama"`, "tools": "null", "workspace_dir": "null", "parent_ids": "null"} {
		if got := string(raw.Items[0][k]); got != want {
			t.Errorf("main.%s = %s, want %s", k, got, want)
		}
	}
	if _, ok := raw.Items[0]["description"]; !ok || len(raw.Items[0]) != 8 {
		t.Errorf("main has fields %v", raw.Items[0])
	}
	code, body, _ = ts.do("GET", "/api/agents/main", "")
	if a := decode[config.Agent](t, body); code != 200 || a.Key != "main" || a.Model != "my-model" {
		t.Errorf("get main: %d %s", code, body)
	}

	// With nothing configured, main has no model yet.
	bare := newConfigServer(t, nil)
	if code, body, _ := bare.do("GET", "/api/agents/main", ""); code != 200 || !strings.Contains(body, `"model":"","provider":""`) {
		t.Errorf("main with no provider: %d %s", code, body)
	}
	// A broken config.json is a 500 that names it.
	path := bare.writeConfig("{")
	code, body, _ = bare.do("GET", "/api/agents", "")
	wantError(t, "list with a broken config.json", code, body, 500, path)
}

func TestAgentCreateGetDelete(t *testing.T) {
	t.Parallel()
	ts := newAgentServer(t)
	ws := filepath.Join(ts.o.Home, "project")
	os.MkdirAll(ws, 0o755)
	code, body, _ := ts.do("POST", "/api/agents", `{"key": "researcher", "name": "Researcher", "description": "Helps with research",
		"model": "claude-opus-4-1", "provider": "anthropic", "tools": ["Read", "Grep"], "workspace_dir": "~/project", "parent_ids": ["main"]}`)
	if code != 200 {
		t.Fatalf("create: %d %s", code, body)
	}
	want := `{"key":"researcher","name":"Researcher","description":"Helps with research","model":"claude-opus-4-1","provider":"anthropic","tools":["Read","Grep"],"workspace_dir":"` + realDir(t, ws) + `","parent_ids":["main"]}`
	if strings.TrimSpace(body) != want {
		t.Errorf("created:\n%s\nwant\n%s", body, want)
	}
	dir := filepath.Join(ts.o.NovaHome, "agents", "researcher")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("%s not created: %v", dir, err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "agent.json")); err != nil || !strings.Contains(string(data), `"name": "Researcher"`) {
		t.Errorf("agent.json: %s %v", data, err)
	}
	if code, body, _ := ts.do("GET", "/api/agents/researcher", ""); code != 200 || strings.TrimSpace(body) != want {
		t.Errorf("get: %d %s", code, body)
	}
	// Optional fields may be left out.
	if code, body, _ := ts.do("POST", "/api/agents", `{"key": "a-2", "name": "Two", "model": "my-model", "provider": "ollama"}`); code != 200 || !strings.Contains(body, `"tools":null,"workspace_dir":null,"parent_ids":null`) {
		t.Errorf("create minimal: %d %s", code, body)
	}
	code, body, _ = ts.do("GET", "/api/agents", "")
	var keys []string
	for _, a := range decode[AgentListResponse](t, body).Items {
		keys = append(keys, a.Key)
	}
	if strings.Join(keys, ",") != "main,a-2,researcher" {
		t.Errorf("list keys = %v", keys)
	}

	code, body, _ = ts.do("DELETE", "/api/agents/researcher", "")
	if code != 200 || strings.TrimSpace(body) != `{"status":"deleted","key":"researcher"}` {
		t.Errorf("delete: %d %s", code, body)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after delete: %v", dir, err)
	}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/api/agents/researcher"},
		{"DELETE", "/api/agents/researcher"},
		{"GET", "/api/agents/nobody"},
		{"DELETE", "/api/agents/nobody"},
		{"GET", "/api/agents/a.b"},
		{"DELETE", "/api/agents/A"},
	} {
		code, body, _ := ts.do(tt.method, tt.path, "")
		wantError(t, tt.method+" "+tt.path, code, body, 404, "not found")
	}
	code, body, _ = ts.do("DELETE", "/api/agents/main", "")
	wantError(t, "delete main", code, body, 400, "main agent cannot be deleted")
}

func TestAgentCreateRefused(t *testing.T) {
	t.Parallel()
	ts := newAgentServer(t)
	os.WriteFile(filepath.Join(ts.o.Home, "file"), []byte("x"), 0o644)
	if code, body, _ := ts.do("POST", "/api/agents", `{"key": "taken", "name": "T", "model": "m", "provider": "ollama"}`); code != 200 {
		t.Fatalf("create: %d %s", code, body)
	}
	for _, tt := range []struct {
		name, body string
		status     int
		has        string
	}{
		{"short key", `{"key": "ab", "name": "n", "model": "m", "provider": "ollama"}`, 400, "^[a-z0-9-]{3,32}$"},
		{"long key", `{"key": "` + strings.Repeat("a", 33) + `", "name": "n", "model": "m", "provider": "ollama"}`, 400, "not an agent key"},
		{"upper-case key", `{"key": "Research", "name": "n", "model": "m", "provider": "ollama"}`, 400, "not an agent key"},
		{"path in key", `{"key": "../etc", "name": "n", "model": "m", "provider": "ollama"}`, 400, "not an agent key"},
		{"no key", `{"name": "n", "model": "m", "provider": "ollama"}`, 400, "not an agent key"},
		{"no name", `{"key": "abc", "model": "m", "provider": "ollama"}`, 400, "name is required"},
		{"blank name", `{"key": "abc", "name": "  ", "model": "m", "provider": "ollama"}`, 400, "name is required"},
		{"no model", `{"key": "abc", "name": "n", "provider": "ollama"}`, 400, "model is required"},
		{"no provider", `{"key": "abc", "name": "n", "model": "m"}`, 400, "provider is required"},
		{"unknown provider", `{"key": "abc", "name": "n", "model": "m", "provider": "nope"}`, 400, `unknown provider "nope"`},
		{"relative workspace", `{"key": "abc", "name": "n", "model": "m", "provider": "ollama", "workspace_dir": "src"}`, 400, "workspace_dir"},
		{"missing workspace", `{"key": "abc", "name": "n", "model": "m", "provider": "ollama", "workspace_dir": "~/nope"}`, 400, "does not exist"},
		{"file as workspace", `{"key": "abc", "name": "n", "model": "m", "provider": "ollama", "workspace_dir": "~/file"}`, 400, "not a directory"},
		{"tools not a list", `{"key": "abc", "name": "n", "model": "m", "provider": "ollama", "tools": "Read"}`, 400, "not valid JSON"},
		{"not JSON", `{`, 400, "not valid JSON"},
		{"duplicate", `{"key": "taken", "name": "n", "model": "m", "provider": "ollama"}`, 409, "already exists"},
		{"main", `{"key": "main", "name": "n", "model": "m", "provider": "ollama"}`, 409, "already exists"},
	} {
		code, body, _ := ts.do("POST", "/api/agents", tt.body)
		wantError(t, tt.name, code, body, tt.status, tt.has)
	}
	if _, err := os.Stat(filepath.Join(ts.o.NovaHome, "agents", "abc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused agent left its directory: %v", err)
	}
}

func TestAgentUpdate(t *testing.T) {
	t.Parallel()
	ts := newAgentServer(t)
	ts.do("POST", "/api/agents", `{"key": "writer", "name": "Writer", "description": "d", "model": "my-model", "provider": "ollama", "tools": ["Edit"]}`)
	code, body, _ := ts.do("PATCH", "/api/agents/writer", `{"model": "claude-sonnet-4-5", "provider": "anthropic"}`)
	if code != 200 || strings.TrimSpace(body) != `{"key":"writer","name":"Writer","description":"d","model":"claude-sonnet-4-5","provider":"anthropic","tools":["Edit"],"workspace_dir":null,"parent_ids":null}` {
		t.Errorf("patch: %d %s", code, body)
	}
	if _, body, _ := ts.do("GET", "/api/agents/writer", ""); decode[config.Agent](t, body).Provider != "anthropic" {
		t.Errorf("patch not saved: %s", body)
	}
	// main can be given its own model; it then stops following the default.
	if code, body, _ := ts.do("PATCH", "/api/agents/main", `{"model": "claude-opus-4-1", "provider": "anthropic"}`); code != 200 || !strings.Contains(body, `"key":"main","name":"Nova"`) {
		t.Errorf("patch main: %d %s", code, body)
	}
	if _, body, _ := ts.do("GET", "/api/agents", ""); decode[AgentListResponse](t, body).Items[0].Model != "claude-opus-4-1" {
		t.Errorf("main after patch: %s", body)
	}

	for _, tt := range []struct {
		name, path, body string
		status           int
		has              string
	}{
		{"no model", "/api/agents/writer", `{"provider": "ollama"}`, 400, "both required"},
		{"no provider", "/api/agents/writer", `{"model": "m"}`, 400, "both required"},
		{"empty", "/api/agents/writer", `{}`, 400, "both required"},
		{"unknown provider", "/api/agents/writer", `{"model": "m", "provider": "nope"}`, 400, "unknown provider"},
		{"not JSON", "/api/agents/writer", `model=m`, 400, "not valid JSON"},
		{"missing agent", "/api/agents/nobody", `{"model": "m", "provider": "ollama"}`, 404, "not found"},
	} {
		code, body, _ := ts.do("PATCH", tt.path, tt.body)
		wantError(t, tt.name, code, body, tt.status, tt.has)
	}
	if _, err := os.Stat(filepath.Join(ts.o.NovaHome, "agents", "nobody")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("PATCH of a missing agent created it: %v", err)
	}
}

func TestAgentCorruptFile(t *testing.T) {
	t.Parallel()
	ts := newAgentServer(t)
	dir := filepath.Join(ts.o.NovaHome, "agents", "broken")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "agent.json"), []byte("{"), 0o600)
	code, body, _ := ts.do("GET", "/api/agents", "")
	wantError(t, "list with a corrupt agent", code, body, 500, filepath.Join(dir, "agent.json"))
	if code, body, _ := ts.do("DELETE", "/api/agents/broken", ""); code != 200 {
		t.Errorf("delete a corrupt agent: %d %s", code, body)
	}
	if code, _, _ := ts.do("GET", "/api/agents", ""); code != 200 {
		t.Errorf("list after deleting it: %d", code)
	}
}
