package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// TestPipelineAnswerReplacesInput holds an answer that allows a call with
// another input (the Agent SDK's updatedInput) to the real checker: the
// new input runs when the checker would only have asked about it, and
// what the checker denies outright stays denied whatever the person said.
func TestPipelineAnswerReplacesInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		input    string
		wantRun  string // the input the tool ran with; "" for none
		wantText string // in the result when it did not run
	}{
		{name: "an ordinary command runs in place of the model's", input: `{"command":"touch two.txt"}`, wantRun: `{"command":"touch two.txt"}`},
		{name: "a dangerous command stays denied", input: `{"command":"rm -rf /"}`, wantText: "dangerous layer"},
		{name: "a deny rule still holds", input: `{"command":"git push origin main"}`, wantText: "rule layer"},
		{name: "input the schema refuses does not run", input: `{"cmd":"ls"}`, wantText: "is not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, home := t.TempDir(), t.TempDir()
			checker, err := permission.NewChecker(permission.Config{Workspace: ws, Home: home,
				Rules: permission.Rules{Deny: []string{"Bash(git push:*)"}}})
			if err != nil {
				t.Fatal(err)
			}
			// A stand-in for Bash that is judged as Bash is and records
			// what it was run with instead of running it.
			tool := &plTool{name: "Bash", kind: permission.KindExec,
				schema: `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`,
				perm: func(input json.RawMessage, env *Env) permission.Request {
					var in struct{ Command string }
					_ = json.Unmarshal(input, &in)
					return permission.Request{Tool: "Bash", Kind: permission.KindExec, Command: in.Command, Workdir: env.Workdir}
				}}
			p, env := newPlPipeline(t, checker, tool)
			env.Workdir = ws
			asker := &plAsker{answer: Approval{Allow: true, Input: json.RawMessage(tt.input)}}
			env.Ask = asker
			out := plRun(p, env, "Bash", `{"command":"touch one.txt"}`)
			if len(asker.asks) != 1 || string(asker.asks[0].Input) != `{"command":"touch one.txt"}` {
				t.Fatalf("asks = %+v, want the model's call asked about once", asker.asks)
			}
			ran := tool.runs()
			if tt.wantRun != "" {
				if len(ran) != 1 || ran[0] != tt.wantRun || out.Result.IsError {
					t.Fatalf("ran %v (result %+v), want it run with %s", ran, out.Result, tt.wantRun)
				}
				if string(out.Call.Input) != tt.wantRun || out.Decision.Layer != permission.LayerAsk || !strings.Contains(out.Decision.Reason, "changed input") {
					t.Errorf("outcome call %s decision %+v", out.Call.Input, out.Decision)
				}
				return
			}
			if len(ran) != 0 {
				t.Fatalf("ran %v: the replaced input must not run", ran)
			}
			if !out.Result.IsError || !strings.Contains(out.Result.Output, tt.wantText) {
				t.Errorf("result = %+v, want an error saying %q", out.Result, tt.wantText)
			}
		})
	}
}
