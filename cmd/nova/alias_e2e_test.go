package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// TestModelAliasAndUnknownModel: --model opus reaches the provider as the
// family's current model; a name no provider has exits 2 with the known
// models before any request, from --model and NOVA_MODEL alike; on an
// OpenAI-compatible server, a name the server does not list is refused
// the same way.
func TestModelAliasAndUnknownModel(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Opus here."})
	r := e.run("", "-p", "--output-format", "json", "--model", "opus", "hi")
	if r.code != 0 {
		t.Fatalf("--model opus: exit %d: %s", r.code, r.stderr)
	}
	var res struct{ Model string }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Model != "anthropic:claude-opus-5-5" {
		t.Errorf("result model = %q (%v)", res.Model, err)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 || reqs[0].JSON()["model"] != "claude-opus-5-5" {
		t.Fatalf("%d requests, model %v; want one for claude-opus-5-5", len(reqs), reqs[0].JSON()["model"])
	}

	for _, tc := range []struct {
		args []string
		env  string
		from string
	}{
		{args: []string{"-p", "--model", "sonet-5-5", "hi"}, from: "nova: --model sonet-5-5: no configured provider has this model. Known models:"},
		{args: []string{"-p", "hi"}, env: "NOVA_MODEL=opuss", from: "nova: NOVA_MODEL opuss: no configured provider has this model"},
	} {
		if tc.env != "" {
			e.env = append(e.env, tc.env)
		}
		r := e.run("", tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.from) || !strings.Contains(r.stderr, "claude-sonnet-5-5 (sonnet)") || !strings.Contains(r.stderr, "Aliases: ") {
			t.Errorf("%v %s: exit %d, stderr:\n%s", tc.args, tc.env, r.code, r.stderr)
		}
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("the provider saw %d requests, want no new one", n)
	}

	o := newE2E(t, llmtest.Turn{Text: "never"})
	o.srv.SetModels("coder-a", "coder-b")
	o.env = append(o.baseEnv(), "OPENAI_BASE_URL="+o.srv.URL+"/v1")
	r = o.run("", "-p", "--model", "openai:coder-x", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "model coder-x: openai does not list it; it lists coder-a, coder-b") {
		t.Errorf("unlisted model: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if n := len(o.srv.Requests()); n != 0 {
		t.Errorf("the server got %d model requests", n)
	}
}

// defaultModel is the Anthropic model nova uses when none is named: what
// the sonnet alias names.
func defaultModel() string { return config.DefaultModelName(llm.ProviderAnthropic) }

// TestUnlistedClaudeModelE2E: a claude-* id nova does not list
// (claude-sonnet-4-0, as 41 of one popular collection's commands name)
// is sent to Anthropic as given, from --model and from a command's
// model: frontmatter, as Claude Code sends it.
func TestUnlistedClaudeModelE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "One."}, llmtest.Turn{Text: "Two."})
	if r := e.run("", "-p", "--model", "claude-sonnet-4-0", "hi"); r.code != 0 {
		t.Fatalf("--model claude-sonnet-4-0: exit %d: %s", r.code, r.stderr)
	}
	e.writeHome(".claude/commands/old.md", "---\nmodel: claude-3-5-haiku-20241022\n---\nDo the old thing.\n")
	if r := e.run("", "-p", "/old"); r.code != 0 {
		t.Fatalf("/old: exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 2 || reqs[0].JSON()["model"] != "claude-sonnet-4-0" || reqs[1].JSON()["model"] != "claude-3-5-haiku-20241022" {
		var got []any
		for _, r := range reqs {
			got = append(got, r.JSON()["model"])
		}
		t.Errorf("the provider was asked for %v, want claude-sonnet-4-0 then claude-3-5-haiku-20241022", got)
	}
}
