package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestUnnamedModelIsTheFirstListed points nova at an OpenAI-compatible
// server without naming a model: it uses the first one the server lists,
// says so, and a server that lists none stops it with exit code 2 and what
// to do (docs/configuration.md, "Choosing the model").
func TestUnnamedModelIsTheFirstListed(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Hello from coder-b."})
	e.srv.SetModels("coder-b", "coder-a")
	e.env = append(e.baseEnv(), "OPENAI_BASE_URL="+e.srv.URL+"/v1")
	r := e.run("", "-p", "--output-format", "json", "hi")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if want := "nova: warning: using model coder-b, the first of 2 that openai lists; choose another with --model openai:<model>\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	var res struct {
		Result, Model string
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Result != "Hello from coder-b." || res.Model != "openai:coder-b" {
		t.Errorf("result = %+v (%v)", res, err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" || reqs[0].JSON()["model"] != "coder-b" {
		t.Fatalf("requests = %d, first %s model %v; want one chat completion for coder-b", len(reqs), reqs[0].Path, reqs[0].JSON()["model"])
	}

	e.srv.SetModels()
	r = e.run("", "-p", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "lists no models") || !strings.Contains(r.stderr, "pass --model openai:<model>, set NOVA_MODEL, or add models to") {
		t.Errorf("a server listing nothing: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("the provider saw %d requests, want no new one", n)
	}
}
