package live

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// offered is the tools and model of the last request the provider got.
func offered(t *testing.T, srv *llmtest.Server) (tools []string, model string) {
	t.Helper()
	var body struct {
		Model string `json:"model"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || json.Unmarshal(reqs[len(reqs)-1].Body, &body) != nil {
		t.Fatal("the provider received no request")
	}
	for _, tl := range body.Tools {
		tools = append(tools, tl.Name)
	}
	return tools, body.Model
}

// A restricted agent's session (tools: [Read]) reopened from its
// transcript by a new host (a restarted nova serve) and then switched to
// another model still offers the model the agent's tools alone: neither
// the reopening nor the switch's rebuilt runtime widens them. A main
// agent's session on the same host, the positive control, is offered
// Bash.
func TestControllerRestrictedAgentReopenedAndSwitched(t *testing.T) {
	srv := llmtest.New(llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"}, llmtest.Turn{Text: "three"}, llmtest.Turn{Text: "four"})
	t.Cleanup(srv.Close)
	home := t.TempDir()
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	base := Options{NovaHome: filepath.Join(home, ".nova"), Workdir: t.TempDir(), Home: home,
		Getenv: func(k string) string { return env[k] }, NoSandbox: true}
	store := config.NewAgentStore(base.NovaHome, base.Getenv)
	if _, err := store.Create(config.Agent{Key: "reader", Name: "Reader", Model: "claude-sonnet-4-5", Provider: "anthropic", Tools: []string{"Read"}}); err != nil {
		t.Fatal(err)
	}

	first := NewHost(context.Background(), base)
	sess, err := first.Create(context.Background(), Spec{AgentKey: "reader"})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	for range sess.Run(context.Background(), llm.UserText("hi")) {
	}
	if tools, _ := offered(t, srv); !slices.Equal(tools, []string{"Read"}) {
		t.Fatalf("the new session offered %v, want [Read]", tools)
	}
	first.Close()

	h := NewHost(context.Background(), base)
	t.Cleanup(h.Close)
	c, err := h.Controller(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Runtime().Session.ID(); got != id {
		t.Fatalf("the controller opened %s, want %s", got, id)
	}
	for range c.Runtime().Live.Run(context.Background(), llm.UserText("again")) {
	}
	if tools, _ := offered(t, srv); !slices.Equal(tools, []string{"Read"}) {
		t.Errorf("the reopened session offered %v, want [Read]", tools)
	}
	if err := c.SetModel("haiku"); err != nil {
		t.Fatal(err)
	}
	for range c.Runtime().Live.Run(context.Background(), llm.UserText("after the switch")) {
	}
	tools, model := offered(t, srv)
	if model != "claude-haiku-5-5" {
		t.Errorf("after SetModel(haiku) the request named %q: the switch did not happen", model)
	}
	if !slices.Equal(tools, []string{"Read"}) {
		t.Errorf("after the model switch the session offered %v, want [Read]", tools)
	}

	main, err := h.Create(context.Background(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	for range main.Run(context.Background(), llm.UserText("hi")) {
	}
	if tools, _ := offered(t, srv); !slices.Contains(tools, "Bash") {
		t.Errorf("positive control: the main agent's session offered %v, without Bash", tools)
	}
}
