package main

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestFallbackModel: once the session's model is overloaded past its
// retries, the request goes to --fallback-model, and so does the rest of
// the turn; the next run asks the session's model first again.
func TestFallbackModel(t *testing.T) {
	overloaded := llmtest.Turn{Status: 529, ErrorType: "overloaded_error", ErrorMessage: "Overloaded", RetryAfterMS: "1"}
	e := newE2E(t, overloaded, overloaded, overloaded, overloaded, overloaded,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Glob", Input: `{"pattern":"*.txt"}`}}},
		llmtest.Turn{Text: "Fallback answered."},
		llmtest.Turn{Text: "Primary again."})
	flags := []string{"-p", "--output-format", "stream-json", "--verbose", "--model", "anthropic:claude-sonnet-4-5", "--fallback-model", "anthropic:claude-haiku-4-5"}
	r := e.run("", append(flags, "go")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, `"result":"Fallback answered."`) || !strings.Contains(last, `"is_error":false`) {
		t.Errorf("result = %s", last)
	}
	if !strings.Contains(r.stdout, "switching to the fallback model anthropic:claude-haiku-4-5") {
		t.Errorf("no message says the model was switched:\n%s", r.stdout)
	}
	models := func() []string {
		var out []string
		for _, q := range e.srv.Requests() {
			m, _ := q.JSON()["model"].(string)
			out = append(out, m)
		}
		return out
	}
	want := "claude-sonnet-4-5 claude-sonnet-4-5 claude-sonnet-4-5 claude-sonnet-4-5 claude-sonnet-4-5 claude-haiku-4-5 claude-haiku-4-5"
	if got := strings.Join(models(), " "); got != want {
		t.Errorf("models asked %s, want %s", got, want)
	}
	var id string
	for _, l := range lines {
		if strings.Contains(l, `"subtype":"init"`) {
			id = l[strings.Index(l, `"session_id":"`)+14:][:26]
		}
	}
	r = e.run("", append(flags, "--resume", id, "again")...)
	if r.code != 0 || !strings.Contains(r.stdout, `"result":"Primary again."`) {
		t.Fatalf("second run: exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	if m := models(); m[len(m)-1] != "claude-sonnet-4-5" {
		t.Errorf("the next run asked %s first, want the session's model", m[len(m)-1])
	}
}

// TestFallbackModelRefused: a fallback that is the session's model or no
// model nova knows is refused at start.
func TestFallbackModelRefused(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "never asked for"})
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--model", "anthropic:claude-sonnet-4-5", "--fallback-model", "anthropic:claude-sonnet-4-5"}, "is the session's model"},
		{[]string{"--fallback-model", "nosuch:model"}, "--fallback-model nosuch:model"},
	} {
		r := e.run("", append(append([]string{"-p"}, c.args...), "hi")...)
		if r.code != 2 || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.stderr)
		}
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}
