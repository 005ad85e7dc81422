package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// hostAsker is a tool that asks the network question a sandboxed command
// asks through its call (tools/shellhosts.go) and reports the answer, so
// the dialog's handling of it is seen without a sandbox and a proxy.
type hostAsker struct{ host string }

func (hostAsker) Name() string            { return "Reach" }
func (hostAsker) Description() string     { return "reaches a host" }
func (hostAsker) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (hostAsker) Kind() permission.Kind   { return permission.KindRead }

func (h hostAsker) Run(ctx context.Context, input json.RawMessage, env *tools.Env) (tools.Result, error) {
	ans := env.Ask.AskPermission(ctx, tools.PermissionAsk{CallID: "call_1", Tool: "Bash", Input: input, Host: h.host,
		Decision: permission.Decision{Behavior: permission.Ask, Reason: "Network request outside the sandbox: " + h.host}})
	if ans.Allow {
		return tools.Result{Output: "reached " + h.host}, nil
	}
	return tools.Result{Output: "refused " + h.host + "; the command went on"}, nil
}

// TestTUINetworkQuestionNoGoesOn: "No" on the network question refuses the
// host and lets the command and the turn go on (the model reads the
// refusal and answers), where "No" on a call's own ask stops the turn.
func TestTUINetworkQuestionNoGoesOn(t *testing.T) {
	b := newAgentBackendWith(t, []tools.Tool{hostAsker{host: "telemetry.example.com"}},
		toolTurn("call_1", "Reach", map[string]any{}),
		textTurn("The telemetry host was refused; the build passed."))
	h := newAgentHarness(t, b)
	h.typeText("build it")
	h.press("enter")
	h.waitFor(func() bool { return len(h.m.dialogs) > 0 })
	h.contains("Network request outside the sandbox: telemetry.example.com")
	h.contains("No, refuse telemetry.example.com")
	h.press("n")
	h.waitFor(func() bool { return h.m.run == nil })
	h.contains("The telemetry host was refused; the build passed.")
	if strings.Contains(h.screen(), "Interrupted") {
		t.Errorf("the network question's no stopped the turn:\n%s", h.screen())
	}
	var result string
	for _, m := range b.a.History() {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				for _, c := range p.ToolResult.Content {
					result += c.Text
				}
			}
		}
	}
	if !strings.Contains(result, "refused telemetry.example.com") {
		t.Errorf("the tool was not told the host was refused; results: %q", result)
	}
}
