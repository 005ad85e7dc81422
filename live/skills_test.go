package live

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// buildWith builds a print-mode runtime (nobody to ask) against srv.
func buildWith(t *testing.T, srv *llmtest.Server, home, ws string) *Runtime {
	t.Helper()
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	rt, err := Build(context.Background(), Options{NovaHome: filepath.Join(home, ".nova"), Workdir: ws, Home: home,
		Getenv: func(k string) string { return env[k] }, NoSandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

func runText(t *testing.T, rt *Runtime, text string) *agent.Done {
	t.Helper()
	var done *agent.Done
	for ev := range rt.Live.Run(context.Background(), llm.UserText(text)) {
		if ev.Type == agent.EventDone {
			done = ev.Done
		}
	}
	return done
}

// request is the part of an Anthropic request these tests compare.
type request struct {
	System   json.RawMessage `json:"system"`
	Tools    json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		} `json:"content"`
	} `json:"messages"`
}

func decode(t *testing.T, r llmtest.Request) request {
	t.Helper()
	var req request
	if err := json.Unmarshal(r.Body, &req); err != nil {
		t.Fatal(err)
	}
	return req
}

// userText is every text block of the request's user messages.
func (r request) userText() string {
	var b strings.Builder
	for _, m := range r.Messages {
		for _, c := range m.Content {
			if m.Role == "user" {
				b.WriteString(c.Text)
				b.Write(c.Content)
			}
		}
	}
	return b.String()
}

// The skills are listed in the first user message, never in the system
// prompt or the tools; a skill loaded by the model widens Bash for its
// run only; a skill added later is told in the next prompt, the system
// prompt and the tools byte for byte the same.
func TestSkillsInASession(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".nova", "skills", "deploy", "SKILL.md"),
		"---\ndescription: Deploy the app\nallowed-tools: Bash(touch:*)\n---\nTouch the marker.\n")
	srv := llmtest.New(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "Skill", Input: `{"skill":"deploy"}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "Bash", Input: `{"command":"touch during.txt"}`}}},
		llmtest.Turn{Text: "deployed"},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "b2", Name: "Bash", Input: `{"command":"touch after.txt"}`}}},
		llmtest.Turn{Text: "refused"},
	)
	defer srv.Close()
	rt := buildWith(t, srv, home, ws)
	if d := runText(t, rt, "deploy it"); d.IsError {
		t.Fatalf("first run: %+v", d)
	}
	if _, err := os.Stat(filepath.Join(ws, "during.txt")); err != nil {
		t.Errorf("the skill's allowed-tools did not let its run touch: %v", err)
	}
	writeFile(t, filepath.Join(home, ".nova", "skills", "later", "SKILL.md"), "---\ndescription: Added mid-session\n---\nx\n")
	if d := runText(t, rt, "again"); d.IsError {
		t.Fatalf("second run: %+v", d)
	}
	if _, err := os.Stat(filepath.Join(ws, "after.txt")); err == nil {
		t.Error("allowed-tools outlived the skill's run: after.txt was touched unasked")
	}

	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	first := decode(t, reqs[0])
	if txt := first.Messages[0].Content[0].Text; !strings.Contains(txt, "<skills>") || !strings.Contains(txt, "- deploy: Deploy the app") {
		t.Errorf("the first user message does not list the skill:\n%s", txt)
	}
	if bytes.Contains(first.System, []byte("deploy")) || bytes.Contains(first.Tools, []byte("deploy")) {
		t.Error("a skill's name reached the system prompt or the tools")
	}
	second := decode(t, reqs[1])
	if got := second.userText(); !strings.Contains(got, "Base directory for this skill: "+filepath.Join(home, ".nova", "skills", "deploy")) || !strings.Contains(got, "Touch the marker.") {
		t.Errorf("the Skill result is not the body with its base directory:\n%s", got)
	}
	fourth, fifth := decode(t, reqs[3]), decode(t, reqs[4])
	if !bytes.Equal(first.System, fourth.System) || !bytes.Equal(first.Tools, fourth.Tools) {
		t.Error("adding a skill changed the system prompt or the tools")
	}
	last := fourth.Messages[len(fourth.Messages)-1]
	var lastText string
	for _, c := range last.Content {
		lastText += c.Text
	}
	if !strings.Contains(lastText, "- later: Added mid-session") || strings.Contains(lastText, "- deploy:") || !strings.HasSuffix(lastText, "again") {
		t.Errorf("the second prompt does not tell the new skill alone:\n%s", lastText)
	}
	if got := fifth.userText(); !strings.Contains(got, "Permission to use Bash was denied") {
		t.Errorf("touch after the skill's run was not refused:\n%s", got)
	}
}

// Project skills need a trusted workspace; what they would add is told.
func TestProjectSkillsNeedTrust(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, ".claude", "skills", "proj", "SKILL.md"), "---\ndescription: the project's\n---\nx\n")
	srv := llmtest.New()
	defer srv.Close()
	rt := buildWith(t, srv, home, ws)
	found := false
	for _, ig := range rt.Ignored {
		found = found || ig.Setting == "skills" && ig.Value == "proj" && ig.File == filepath.Join(ws, ".claude", "skills")
	}
	if !found || rt.Skills.Load().Lookup("proj") != nil {
		t.Errorf("ignored %+v", rt.Ignored)
	}
	if _, _, err := config.NewTrustStore(filepath.Join(home, ".nova")).Trust(ws); err != nil {
		t.Fatal(err)
	}
	if rt := buildWith(t, srv, home, ws); rt.Skills.Load().Lookup("proj") == nil {
		t.Error("a trusted workspace's skill is not loaded")
	}
}

// A skill's model: haiku names the configured model of that family, else
// what --model haiku names (one alias table), a provider:model its
// provider's.
func TestSkillModel(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	srv := llmtest.New()
	defer srv.Close()
	rt := buildWith(t, srv, home, ws)
	m, err := rt.Skills.Model("haiku")
	if err != nil || m.ID != "anthropic:claude-haiku-5-5" || m.Model != "claude-haiku-5-5" || m.Client == nil {
		t.Errorf("haiku = %+v, %v", m, err)
	}
	if m, err := rt.Skills.Model("anthropic:claude-opus-4-1"); err != nil || m.Model != "claude-opus-4-1" {
		t.Errorf("anthropic:claude-opus-4-1 = %+v, %v", m, err)
	}
	if _, err := rt.Skills.Model("nowhere:x"); err == nil {
		t.Error("a provider nobody configured was accepted")
	}
}
