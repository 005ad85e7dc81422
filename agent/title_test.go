package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// titleClient answers every request with one scripted reply and records
// the requests.
type titleClient struct {
	reply string
	err   error
	reqs  []llm.Request
}

func (c *titleClient) Stream(_ context.Context, req llm.Request, emit func(llm.StreamEvent)) error {
	c.reqs = append(c.reqs, req)
	if c.err != nil {
		return c.err
	}
	if c.reply != "" {
		emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: c.reply})
	}
	emit(llm.StreamEvent{Type: llm.EventUsage, Usage: &llm.Usage{InputTokens: 50, OutputTokens: 6}})
	emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopEndTurn})
	return nil
}

// firstExchangeHistory is a first run with a context message, a tool
// round and a final answer, then a second prompt.
func firstExchangeHistory(prompt string) []llm.Message {
	call := llm.ToolCall{ID: "c1", Name: "Read", Input: []byte(`{}`)}
	return []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("<environment>\nWorking directory: /secret/place\n</environment>"), llm.TextPart(prompt)}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("Let me look."), {Type: llm.PartToolCall, ToolCall: &call}}},
		{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c1", Content: []llm.Part{llm.TextPart("file")}}}}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("The parser test is flaky because of map order.")}},
		llm.UserText("second prompt"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("second answer")}},
	}
}

func TestTitle(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		err         error
		want        string
		wantErr     string
	}{
		{name: "plain", reply: "Fix flaky parser test", want: "Fix flaky parser test"},
		{name: "quoted with full stop", reply: "\"Fix flaky parser test.\"\n", want: "Fix flaky parser test"},
		{name: "label and markdown", reply: "**Title: Fix flaky parser test**", want: "Fix flaky parser test"},
		{name: "first line only", reply: "\n  Fix flaky parser test\nBecause the test...", want: "Fix flaky parser test"},
		{name: "keeps parentheses", reply: "Speed up build (Go)", want: "Speed up build (Go)"},
		{name: "at most seven words", reply: "one two three four five six seven eight nine", want: "one two three four five six seven"},
		{name: "at most 60 characters, between words", reply: "Internationalisation internationalisation internationalisation", want: "Internationalisation internationalisation"},
		{name: "empty answer", reply: "", wantErr: "no title"},
		{name: "only punctuation", reply: "\"...\"", wantErr: "no title"},
		{name: "provider error", err: errors.New("overloaded"), wantErr: "overloaded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &titleClient{reply: tc.reply, err: tc.err}
			a := New(Config{Client: c, Model: "m1", MaxTokens: 4096, History: firstExchangeHistory("why does the parser test fail sometimes?")})
			got, err := a.Title(context.Background())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Title() = %q, %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Title() = %q, %v; want %q", got, err, tc.want)
			}
			if n := len([]rune(got)); n > titleMaxChars {
				t.Errorf("title of %d characters", n)
			}
		})
	}
}

func TestTitleRequest(t *testing.T) {
	c := &titleClient{reply: "Flaky parser test"}
	long := "why does the parser test fail sometimes? " + strings.Repeat("x", 5000)
	a := New(Config{Client: c, Model: "m1", MaxTokens: 4096, System: "the agent's own prompt", History: firstExchangeHistory(long)})
	if _, err := a.Title(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(c.reqs) != 1 {
		t.Fatalf("%d requests", len(c.reqs))
	}
	req := c.reqs[0]
	if req.Model != "m1" || req.MaxTokens != titleMaxTokens || len(req.Tools) != 0 || req.ThinkingBudget != 0 {
		t.Errorf("request model %q max %d tools %d thinking %d", req.Model, req.MaxTokens, len(req.Tools), req.ThinkingBudget)
	}
	if !strings.HasPrefix(req.System, "You name conversations") {
		t.Errorf("system %q", req.System)
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != llm.RoleUser {
		t.Fatalf("messages %+v", req.Messages)
	}
	body := req.Messages[0].Text()
	for _, want := range []string{"why does the parser test fail sometimes?", "map order"} {
		if !strings.Contains(body, want) {
			t.Errorf("request lacks %q:\n%s", want, body)
		}
	}
	for _, bad := range []string{"/secret/place", "Let me look", "second"} {
		if strings.Contains(body, bad) {
			t.Errorf("request holds %q:\n%s", bad, body)
		}
	}
	if len(body) > titlePromptMax+titleAnswerMax+200 {
		t.Errorf("request of %d characters: the prompt was not clipped", len(body))
	}
	if u := a.Usage(); u.InputTokens != 50 || u.OutputTokens != 6 {
		t.Errorf("usage %+v: the title call should count", u)
	}
	if h := a.History(); len(h) != 6 {
		t.Errorf("history changed: %d messages", len(h))
	}
}

func TestTitleNoHistory(t *testing.T) {
	c := &titleClient{reply: "x"}
	a := New(Config{Client: c, Model: "m1"})
	if _, err := a.Title(context.Background()); err == nil {
		t.Error("a title without a prompt")
	}
	if len(c.reqs) != 0 {
		t.Error("a model call without a prompt")
	}
	if a.FirstPrompt() != "" {
		t.Error("first prompt without history")
	}
}

func TestFirstPrompt(t *testing.T) {
	shell := "<shell-command>\n$ ls\na b\n</shell-command>"
	for _, tc := range []struct {
		name  string
		parts []llm.Part
		want  string
	}{
		{name: "context dropped", parts: []llm.Part{llm.TextPart("<environment>\nx\n</environment>\n\n<instructions>"), llm.TextPart("fix it")}, want: "fix it"},
		{name: "shell output dropped", parts: []llm.Part{llm.TextPart(shell), llm.TextPart("fix it")}, want: "fix it"},
		{name: "shell output alone", parts: []llm.Part{llm.TextPart(shell)}, want: shell},
		{name: "attached resource dropped", parts: []llm.Part{llm.TextPart("summarise it"), llm.TextPart("<mcp-resource server=\"t\" uri=\"test://greeting\">\nhello\n</mcp-resource>")}, want: "summarise it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Config{Client: &titleClient{}, History: []llm.Message{{Role: llm.RoleUser, Parts: tc.parts}}})
			if got := a.FirstPrompt(); got != tc.want {
				t.Errorf("FirstPrompt() = %q, want %q", got, tc.want)
			}
		})
	}
}
