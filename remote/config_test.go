package remote

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm/llmtest"
)

// newConfigServer is newTestServer with env as the whole environment, so
// the machine's ANTHROPIC_API_KEY and the like never leak into a test.
func newConfigServer(t *testing.T, env map[string]string, mod ...func(*Options)) *testServer {
	t.Helper()
	withEnv := func(o *Options) { o.Getenv = func(k string) string { return env[k] } }
	return newTestServer(t, append([]func(*Options){withEnv}, mod...)...)
}

// decode parses a response body into T, failing the test when it is not.
func decode[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("response %q: %v", body, err)
	}
	return v
}

// wantError checks a response is status with seed 000's error body,
// {"detail": "..."} and nothing else, the detail holding every one of has.
func wantError(t *testing.T, what string, code int, body string, status int, has ...string) {
	t.Helper()
	if code != status {
		t.Errorf("%s: %d %s, want %d", what, code, body, status)
		return
	}
	var e map[string]any
	detail, _ := e["detail"].(string)
	if err := json.Unmarshal([]byte(body), &e); err == nil {
		detail, _ = e["detail"].(string)
	}
	if len(e) != 1 || detail == "" {
		t.Errorf("%s: body %q is not {\"detail\": \"...\"}", what, body)
		return
	}
	for _, h := range has {
		if !strings.Contains(detail, h) {
			t.Errorf("%s: detail %q lacks %q", what, detail, h)
		}
	}
}

// writeConfig writes NOVA_HOME/config.json.
func (ts *testServer) writeConfig(body string) string {
	ts.t.Helper()
	path := filepath.Join(ts.o.NovaHome, "config.json")
	if err := os.MkdirAll(ts.o.NovaHome, 0o700); err != nil {
		ts.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		ts.t.Fatal(err)
	}
	return path
}

func modelIDs(list ModelListResponse) string {
	var ids []string
	for _, m := range list.Items {
		ids = append(ids, m.ID)
	}
	return strings.Join(ids, ",")
}

func TestModelsAndProviders(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, nil)
	if code, body, _ := ts.do("GET", "/api/models", ""); code != 200 || strings.TrimSpace(body) != `{"items":[]}` {
		t.Errorf("no providers: %d %s", code, body)
	}
	if code, body, _ := ts.do("GET", "/api/providers", ""); code != 200 || strings.TrimSpace(body) != `{"items":[]}` {
		t.Errorf("no providers: %d %s", code, body)
	}

	ts = newConfigServer(t, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test", "OLLAMA_HOST": "127.0.0.1:11434"})
	ts.writeConfig(`{"providers": [
	  {"key": "ollama", "type": "ollama", "name": "Ollama (local)", "models": [
	    {"model": "my-model", "tools": true},
	    {"model": "qwen2.5-coder:32b", "label": "Qwen", "toolCalling": true},
	    {"model": "plain"},
	    {"model": "no-tools", "tools": false}
	  ]},
	  {"key": "bare", "type": "openai-compatible"}
	]}`)
	code, body, _ := ts.do("GET", "/api/models", "")
	if code != 200 {
		t.Fatalf("models: %d %s", code, body)
	}
	list := decode[ModelListResponse](t, body)
	// config.json's providers first, then the environment's; OLLAMA_HOST's
	// "ollama" is shadowed by the file's; "bare" has no model to show;
	// the environment's Anthropic offers the current models nova knows,
	// as the terminal's /model does (live.KnownModels).
	if got := modelIDs(list); got != "ollama:my-model,ollama:qwen2.5-coder:32b,ollama:plain,ollama:no-tools,anthropic:claude-fable-5-1,anthropic:claude-opus-5-5,anthropic:claude-sonnet-5-5,anthropic:claude-haiku-5-5" {
		t.Errorf("ids = %s", got)
	}
	want := []ModelInfo{
		{ID: "ollama:my-model", Provider: "ollama", ProviderName: "Ollama (local)", Model: "my-model", Label: "my-model", Tools: true, Name: "my-model", ContextWindow: 128000},
		{ID: "ollama:qwen2.5-coder:32b", Provider: "ollama", ProviderName: "Ollama (local)", Model: "qwen2.5-coder:32b", Label: "Qwen", Tools: true, Name: "Qwen", ContextWindow: 128000},
		{ID: "ollama:plain", Provider: "ollama", ProviderName: "Ollama (local)", Model: "plain", Label: "plain", Tools: false, Name: "plain", ContextWindow: 128000},
		{ID: "ollama:no-tools", Provider: "ollama", ProviderName: "Ollama (local)", Model: "no-tools", Label: "no-tools", Tools: false, Name: "no-tools", ContextWindow: 128000},
		{ID: "anthropic:claude-fable-5-1", Provider: "anthropic", ProviderName: "Anthropic", Model: "claude-fable-5-1", Label: "claude-fable-5-1", Tools: false,
			Name: "Claude Fable 5.1", Alias: "fable", ContextWindow: 200000},
	}
	for i, w := range want {
		if i < len(list.Items) && list.Items[i] != w {
			t.Errorf("item %d = %+v, want %+v", i, list.Items[i], w)
		}
	}
	if !strings.Contains(body, `"provider_name":"Ollama (local)"`) || strings.Contains(body, "sk-ant-test") {
		t.Errorf("models body: %s", body)
	}

	code, body, _ = ts.do("GET", "/api/providers", "")
	if code != 200 || strings.TrimSpace(body) != `{"items":[{"key":"ollama","name":"Ollama (local)","type":"ollama"},{"key":"bare","name":"bare","type":"openai-compatible"},{"key":"anthropic","name":"Anthropic","type":"anthropic"}]}` {
		t.Errorf("providers: %d %s", code, body)
	}

	path := ts.writeConfig("{\n  \"providers\": [,]\n}")
	for _, p := range []string{"/api/models", "/api/providers"} {
		code, body, _ := ts.do("GET", p, "")
		wantError(t, "GET "+p+" with a broken config.json", code, body, 500, path, "line 2")
	}
}

func TestAddProvider(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, nil)
	code, body, _ := ts.do("POST", "/api/config/providers", `{"key": "openai", "type": "openai-response", "name": "OpenAI", "base_url": "https://api.openai.com/v1", "api_key": "sk-test"}`)
	if code != 200 {
		t.Fatalf("add: %d %s", code, body)
	}
	if got := modelIDs(decode[ModelListResponse](t, body)); got != "openai:gpt-6-astra,openai:gpt-6.1-sol,openai:gpt-6-luna,openai:gpt-5" {
		t.Errorf("refreshed models = %s", got)
	}
	path := filepath.Join(ts.o.NovaHome, "config.json")
	f, err := config.LoadFile(ts.o.NovaHome)
	if err != nil || len(f.Providers) != 1 {
		t.Fatalf("config.json: %v %+v", err, f)
	}
	if p := f.Providers[0]; p.Key != "openai" || p.Type != "openai-response" || p.Name != "OpenAI" || p.BaseURL != "https://api.openai.com/v1" || p.APIKey != "sk-test" {
		t.Errorf("saved %+v", p)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("config.json mode %v: it holds API keys", st.Mode().Perm())
	}
	// name, base_url and api_key may be empty.
	if code, body, _ := ts.do("POST", "/api/config/providers", `{"key": "local", "type": "ollama", "name": "", "base_url": "", "api_key": ""}`); code != 200 {
		t.Errorf("optional fields empty: %d %s", code, body)
	}
	if code, body, _ := ts.do("GET", "/api/providers", ""); !strings.Contains(body, `{"key":"local","name":"local","type":"ollama"}`) {
		t.Errorf("providers after adding: %d %s", code, body)
	}

	if code, _, _ := ts.do("POST", "/api/config/providers", "key=x&type=ollama", "Content-Type", "application/x-www-form-urlencoded"); code != 415 {
		t.Errorf("a form body: %d, want 415", code)
	}
	for _, tt := range []struct{ name, body, has string }{
		{"no key", `{"type": "ollama"}`, "key is required"},
		{"colon in key", `{"key": "a:b", "type": "ollama"}`, "not a provider key"},
		{"space in key", `{"key": "my key", "type": "ollama"}`, "not a provider key"},
		{"no type", `{"key": "x"}`, "type is required"},
		{"unknown type", `{"key": "x", "type": "gemini"}`, `type "gemini"`},
		{"duplicate", `{"key": "openai", "type": "ollama"}`, "already exists"},
		{"bad base_url", `{"key": "x", "type": "ollama", "base_url": "localhost:11434"}`, "base_url"},
		{"not JSON", `{"key": `, "not valid JSON"},
		{"wrong field type", `{"key": 1, "type": "ollama"}`, "not valid JSON"},
		{"no body", ``, "empty"},
	} {
		before, _ := os.ReadFile(path)
		code, body, _ := ts.do("POST", "/api/config/providers", tt.body, "Content-Type", "application/json")
		wantError(t, tt.name, code, body, 400, tt.has)
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("%s: config.json changed", tt.name)
		}
	}
}

func TestAddProviderKeepsBrokenConfig(t *testing.T) {
	t.Parallel()
	for _, broken := range []string{"{\"providers\": [", `{"providers": [{"key": "x", "type": "gemini"}]}`} {
		ts := newConfigServer(t, nil)
		path := ts.writeConfig(broken)
		code, body, _ := ts.do("POST", "/api/config/providers", `{"key": "local", "type": "ollama"}`)
		wantError(t, "a broken config.json", code, body, 500, path, "did not change it")
		code, body, _ = ts.do("POST", "/api/config/models", `{"provider": "x", "model": "m"}`)
		wantError(t, "a model into a broken config.json", code, body, 500, path)
		if data, _ := os.ReadFile(path); string(data) != broken {
			t.Errorf("broken config.json rewritten to %q", data)
		}
	}
}

func TestAddProvidersConcurrently(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, nil)
	const n = 12
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// ts.do may only Fatal on the test's goroutine; a transport
			// error would show as a missing provider below.
			codes[i], _, _ = ts.do("POST", "/api/config/providers", fmt.Sprintf(`{"key": "p%d", "type": "ollama"}`, i))
		}()
	}
	wg.Wait()
	f, err := config.LoadFile(ts.o.NovaHome)
	if err != nil || len(f.Providers) != n {
		t.Errorf("%d concurrent adds left %v, %+v (codes %v)", n, err, f, codes)
	}
}

func TestAddModel(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, map[string]string{"ANTHROPIC_API_KEY": "k"})
	ts.writeConfig(`{"default_model": "ollama:my-model", "x-kept": 1, "providers": [{"key": "ollama", "type": "ollama", "name": "Ollama (local)"}]}`)
	code, body, _ := ts.do("POST", "/api/config/models", `{"provider": "ollama", "model": "my-model"}`)
	if code != 200 {
		t.Fatalf("add: %d %s", code, body)
	}
	list := decode[ModelListResponse](t, body)
	if len(list.Items) != 5 || list.Items[0] != (ModelInfo{ID: "ollama:my-model", Provider: "ollama", ProviderName: "Ollama (local)", Model: "my-model", Label: "my-model", Tools: true, Name: "my-model", ContextWindow: 128000}) {
		t.Errorf("refreshed = %+v", list.Items)
	}
	code, body, _ = ts.do("POST", "/api/config/models", `{"provider": "ollama", "model": "llama3:8b", "label": "Llama 3", "tools": false}`)
	if code != 200 || !strings.Contains(body, `{"id":"ollama:llama3:8b","provider":"ollama","provider_name":"Ollama (local)","model":"llama3:8b","label":"Llama 3","tools":false,"name":"Llama 3","context_window":128000}`) {
		t.Errorf("add with label and tools: %d %s", code, body)
	}
	f, err := config.LoadFile(ts.o.NovaHome)
	if err != nil || len(f.Providers[0].Models) != 2 {
		t.Fatalf("config.json: %v %+v", err, f)
	}
	if m := f.Providers[0].Models[0]; m.Model != "my-model" || m.Tools == nil || !*m.Tools {
		t.Errorf("saved %+v: tools must be written, true by default", m)
	}
	if m := f.Providers[0].Models[1]; m.Label != "Llama 3" || m.Tools == nil || *m.Tools {
		t.Errorf("saved %+v", m)
	}
	data, _ := os.ReadFile(filepath.Join(ts.o.NovaHome, "config.json"))
	if !strings.Contains(string(data), `"x-kept": 1`) || f.DefaultModel != "ollama:my-model" {
		t.Errorf("the rest of config.json was not kept: %s", data)
	}

	for _, tt := range []struct{ name, body, has string }{
		{"no provider", `{"model": "m"}`, "provider is required"},
		{"unknown provider", `{"provider": "nope", "model": "m"}`, `unknown provider "nope"`},
		{"environment provider", `{"provider": "anthropic", "model": "claude-opus-4-1"}`, "ANTHROPIC_API_KEY"},
		{"no model", `{"provider": "ollama"}`, "model is required"},
		{"model with spaces", `{"provider": "ollama", "model": " m "}`, "spaces"},
		{"duplicate", `{"provider": "ollama", "model": "my-model"}`, "already has model"},
		{"tools not a bool", `{"provider": "ollama", "model": "x", "tools": "yes"}`, "not valid JSON"},
		{"not JSON", `[`, "not valid JSON"},
	} {
		code, body, _ := ts.do("POST", "/api/config/models", tt.body)
		wantError(t, tt.name, code, body, 400, tt.has)
	}
	if after, _ := os.ReadFile(filepath.Join(ts.o.NovaHome, "config.json")); string(after) != string(data) {
		t.Errorf("a refused request changed config.json")
	}
}

// A provider added through the API takes no session's prompts unless the
// request makes it the default: a new session still goes to the
// provider it went to; with "default": true, to the new one.
func TestAddProviderLeavesTheDefault(t *testing.T) {
	t.Parallel()
	ts, first := newHostServer(t, llmtest.Turn{Text: "from the first"})
	other := llmtest.New(llmtest.Turn{Text: "from the other"})
	t.Cleanup(other.Close)
	add := fmt.Sprintf(`{"key":"elsewhere","type":"anthropic","base_url":%q,"api_key":"k"}`, other.URL)
	if code, body, _ := ts.do("POST", "/api/config/providers", add); code != 200 {
		t.Fatalf("add: %d %s", code, body)
	}
	ts.newSession()
	if len(first.Requests()) != 1 || len(other.Requests()) != 0 {
		t.Fatalf("a new session after the add went to the new provider (first %d, other %d)", len(first.Requests()), len(other.Requests()))
	}
	add = fmt.Sprintf(`{"key":"chosen","type":"anthropic","base_url":%q,"api_key":"k","default":true}`, other.URL)
	if code, body, _ := ts.do("POST", "/api/config/providers", add); code != 200 {
		t.Fatalf("add as the default: %d %s", code, body)
	}
	if code, body, _ := ts.do("POST", "/api/chat", `{"message":"hi"}`); code != 200 || !strings.Contains(body, "from the other") {
		t.Errorf("a new session after a default add: %d %s", code, body)
	}
}
