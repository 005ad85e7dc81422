package headless

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// garbledRun is a run whose model sent a call with input that is not JSON,
// and that call was denied: what json.RawMessage refuses to marshal.
func garbledRun() replay {
	in := json.RawMessage(`{"command": "rm -rf bui`)
	return replay{
		{Type: agent.EventToolCall, Turn: 1, ToolCall: &llm.ToolCall{ID: "t1", Name: "Bash", Input: in}},
		{Type: agent.EventToolResult, Turn: 1, Result: &agent.ToolResult{ID: "t1", Name: "Bash", Output: "not run", IsError: true}},
		done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "ok", NumTurns: 2, Denials: []agent.Denial{
			{ToolName: "Bash", ToolUseID: "t1", ToolInput: in, Layer: permission.LayerHook, Reason: "a hook said no"},
		}}),
	}
}

func TestGarbledDeniedCallStillPrintsTheResult(t *testing.T) {
	for _, format := range []string{FormatJSON, FormatStreamJSON} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := run(t, context.Background(), format, garbledRun())
			if code != ExitOK {
				t.Errorf("exit %d, want 0: the run succeeded (stderr %q)", code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var res struct {
				Type    string         `json:"type"`
				Result  string         `json:"result"`
				Denials []agent.Denial `json:"permission_denials"`
			}
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Type != "result" || res.Result != "ok" {
				t.Fatalf("last line is not the result (%v): %q", err, out)
			}
			var input string
			if len(res.Denials) != 1 || json.Unmarshal(res.Denials[0].ToolInput, &input) != nil || input != `{"command": "rm -rf bui` {
				t.Errorf("denials = %+v, want the garbled input as a JSON string", res.Denials)
			}
			if format == FormatStreamJSON {
				want := []string{"system/init", "assistant", "system/nova_tool_result", "user", "result"}
				if len(lines) != len(want) {
					t.Fatalf("lines:\n%s\nwant %v", out, want)
				}
				for i, l := range lines {
					if got := kindOf(t, l); got != want[i] {
						t.Errorf("line %d = %s, want %s", i, l, want[i])
					}
				}
				if !strings.Contains(lines[1], `"input":"{\"command\": \"rm -rf bui"`) {
					t.Errorf("tool_use = %s, want the garbled input as a JSON string", lines[1])
				}
			}
		})
	}
}

// TestOutputThatFailsIsAnErrorExit: output that cannot be encoded or
// written makes the exit code an error, and in stream-json the result
// line still comes.
func TestOutputThatFailsIsAnErrorExit(t *testing.T) {
	unencodable := replay{
		{Type: agent.EventToolProgress, Turn: 1, Progress: &display.Progress{CallID: "t1", Progress: math.NaN()}},
		done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "ok"}),
	}
	out, errOut, code := run(t, context.Background(), FormatStreamJSON, unencodable)
	if code != ExitFailed || !strings.Contains(errOut, "could not encode") {
		t.Errorf("exit %d stderr %q, want %d and the reason", code, errOut, ExitFailed)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"type":"result"`) {
		t.Errorf("stdout = %q, want the init line and the result line, no torn line", out)
	}

	for _, format := range []string{FormatText, FormatJSON, FormatStreamJSON} {
		var errOut strings.Builder
		code := Run(context.Background(), replay{done(agent.Done{Subtype: agent.SubtypeSuccess, Result: "ok"})},
			Options{Prompt: "p", Format: format, Stdout: brokenPipe{}, Stderr: &errOut})
		if code != ExitFailed || !strings.Contains(errOut.String(), "could not write the output") {
			t.Errorf("%s to a broken pipe: exit %d stderr %q, want %d", format, code, errOut.String(), ExitFailed)
		}
	}
}

type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, errors.New("write |1: broken pipe") }
