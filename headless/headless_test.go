package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// replay is a Runner that plays fixed events.
type replay []agent.Event

func (r replay) Run(ctx context.Context, _ llm.Message) <-chan agent.Event {
	ch := make(chan agent.Event, len(r))
	for _, ev := range r {
		ch <- ev
	}
	close(ch)
	return ch
}

func run(t *testing.T, ctx context.Context, format string, evs replay) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(ctx, evs, Options{Prompt: "p", Format: format, SessionID: "01JTEST", Model: "m:x", Tools: []string{"Read"},
		PermissionMode: "default", Cwd: "/w", Stdout: &out, Stderr: &errOut})
	return out.String(), errOut.String(), code
}

func done(d agent.Done) agent.Event { return agent.Event{Type: agent.EventDone, Done: &d} }

func TestFormatsAndExitCodes(t *testing.T) {
	denial := agent.Done{Subtype: agent.SubtypeSuccess, Result: "ok", NumTurns: 2,
		Denials: []agent.Denial{{ToolName: "Bash", ToolUseID: "t1", ToolInput: json.RawMessage(`{"command":"rm x"}`), Layer: permission.LayerAsk, Reason: "nobody"}}}
	tests := []struct {
		name     string
		format   string
		ctx      func() context.Context
		evs      replay
		code     int
		stdout   func(string) bool
		stderrIn string
	}{
		{"text success", FormatText, context.Background, replay{{Type: agent.EventTextDelta, Text: "ok"}, done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "ok"})}, ExitOK,
			func(s string) bool { return s == "ok\n" }, ""},
		{"text failure keeps stdout empty", FormatText, context.Background, replay{done(agent.Done{Subtype: agent.SubtypeError, IsError: true, Error: "provider down", Result: "partial"})}, ExitFailed,
			func(s string) bool { return s == "" }, "provider down"},
		{"max turns", FormatJSON, context.Background, replay{done(agent.Done{Subtype: agent.SubtypeMaxTurns, IsError: true, Error: "max"})}, ExitFailed,
			func(s string) bool { return strings.Contains(s, `"subtype":"error_max_turns"`) }, "max"},
		{"interrupted", FormatJSON, func() context.Context { c, cancel := context.WithCancel(context.Background()); cancel(); return c },
			replay{done(agent.Done{Subtype: agent.SubtypeInterrupted, IsError: true, Error: "interrupted"})}, ExitInterrupted,
			func(s string) bool {
				return strings.Contains(s, `"subtype":"error_during_execution"`) && strings.Contains(s, `"is_error":true`)
			}, "interrupted"},
		{"denials listed", FormatJSON, context.Background, replay{done(denial)}, ExitOK,
			func(s string) bool {
				return strings.Contains(s, `"permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm x"},"layer":"ask"`)
			}, ""},
		{"no done event", FormatJSON, context.Background, replay{}, ExitFailed,
			func(s string) bool { return strings.Contains(s, `"is_error":true`) }, "without a result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, tt.ctx(), tt.format, tt.evs)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if !tt.stdout(out) {
				t.Errorf("stdout = %q", out)
			}
			if tt.stderrIn != "" && !strings.Contains(errOut, tt.stderrIn) {
				t.Errorf("stderr = %q, want %q in it", errOut, tt.stderrIn)
			}
			if tt.format == FormatJSON {
				var m map[string]any
				if err := json.Unmarshal([]byte(out), &m); err != nil {
					t.Errorf("stdout is not one JSON object: %v", err)
				}
				for _, k := range []string{"type", "subtype", "is_error", "result", "session_id", "num_turns", "duration_ms", "usage", "permission_denials"} {
					if _, ok := m[k]; !ok {
						t.Errorf("result lacks %q", k)
					}
				}
			}
		})
	}
}

func TestStreamJSON(t *testing.T) {
	out, errOut, code := run(t, context.Background(), FormatStreamJSON, replay{
		{Type: agent.EventTurnStart, Turn: 1},
		{Type: agent.EventRetry, Text: "rate limited, retrying in 1s (2/5)"},
		{Type: agent.EventTextDelta, Turn: 1, Text: "hi"},
		done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "hi"}),
	})
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{"system/init", "system/api_retry", "assistant", "result"}
	if len(lines) != len(want) {
		t.Fatalf("lines = %d: %s", len(lines), out)
	}
	for i, l := range lines {
		if got := kindOf(t, l); got != want[i] {
			t.Errorf("line %d = %s, want %s", i, l, want[i])
		}
	}
	if !strings.Contains(lines[0], `"tools":["Read"]`) || !strings.Contains(lines[0], `"permissionMode":"default"`) {
		t.Errorf("init line = %s", lines[0])
	}
	if !strings.Contains(lines[2], `"content":[{"type":"text","text":"hi"}]`) {
		t.Errorf("assistant line = %s", lines[2])
	}
}

// kindOf is a message's type, with its subtype for system messages.
func kindOf(t *testing.T, line string) string {
	t.Helper()
	var m struct{ Type, Subtype string }
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("line %q: %v", line, err)
	}
	if m.Type == "system" {
		return m.Type + "/" + m.Subtype
	}
	return m.Type
}

func TestTextModeReportsOnStderr(t *testing.T) {
	_, errOut, _ := run(t, context.Background(), FormatText, replay{
		{Type: agent.EventRetry, Text: "rate limited, retrying in 4s (2/5)"},
		{Type: agent.EventToolResult, Result: &agent.ToolResult{Name: "Bash", Denied: true, Decision: permission.Decision{Layer: permission.LayerDangerous, Reason: "deletes your home"}}},
		done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "x"}),
	})
	for _, want := range []string{"rate limited, retrying in 4s (2/5)", "denied Bash (dangerous): deletes your home"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %s", want, errOut)
		}
	}
}

func TestIgnoredProjectSettings(t *testing.T) {
	evs := replay{done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "ok"})}
	for _, format := range []string{FormatJSON, FormatStreamJSON} {
		for _, ignored := range [][]IgnoredSetting{nil, {{File: ".nova/settings.json", Setting: "permissions.allow"}}} {
			var out bytes.Buffer
			Run(context.Background(), evs, Options{Prompt: "p", Format: format, IgnoredProjectSettings: ignored, Stdout: &out, Stderr: &bytes.Buffer{}})
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			var res struct {
				Ignored []IgnoredSetting `json:"ignored_project_settings"`
			}
			last := lines[len(lines)-1]
			if err := json.Unmarshal([]byte(last), &res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(last, `"ignored_project_settings":[`) || len(res.Ignored) != len(ignored) ||
				(len(ignored) == 1 && res.Ignored[0] != ignored[0]) {
				t.Errorf("%s: result %s, want %+v", format, last, ignored)
			}
		}
	}
}
