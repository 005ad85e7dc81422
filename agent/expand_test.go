package agent

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// scopeTool registers with the run's scope what a skill would: an undoing
// at the run's end and a model for the run's later turns.
type scopeTool struct {
	ended *int
	model tools.RunModel
}

func (*scopeTool) Name() string            { return "Scope" }
func (*scopeTool) Description() string     { return "test tool" }
func (*scopeTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (*scopeTool) Kind() permission.Kind   { return permission.KindOther }
func (s *scopeTool) Run(ctx context.Context, _ json.RawMessage, _ *tools.Env) (tools.Result, error) {
	scope := tools.RunScopeOf(ctx)
	if !scope.AtEnd(func() { *s.ended++ }) {
		return tools.Errorf("no run scope"), nil
	}
	scope.SetModel(s.model)
	return tools.Result{Output: "switched"}, nil
}

// The input is expanded inside the run, after the context is built and
// before it enters history; the context stays first.
func TestExpandRewritesTheInput(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	var sawScope, sawSink bool
	h.agent.cfg.Expand = func(ctx context.Context, in llm.Message) (llm.Message, error) {
		sawScope, sawSink = tools.RunScopeOf(ctx) != nil, Notice(ctx, "expanding")
		tools.RunScopeOf(ctx).Denied(tools.Outcome{Call: tools.Call{ID: "cmd_deploy_1", Name: "Bash"}, Denied: true,
			Decision: permission.Decision{Behavior: permission.Deny, Layer: permission.LayerAsk, Reason: "nobody to approve it"}})
		return llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("expanded " + in.Text())}}, nil
	}
	h.client.add(reply("ok"))
	evs := drain(h.agent.Run(context.Background(), llm.UserText("/deploy now")), nil)
	d := last(evs)
	if d.Subtype != SubtypeSuccess {
		t.Fatalf("done = %+v", d)
	}
	if len(d.Denials) != 1 || d.Denials[0].ToolUseID != "cmd_deploy_1" || d.Denials[0].Layer != permission.LayerAsk {
		t.Errorf("denials = %+v, want the expansion's refused call", d.Denials)
	}
	if !sawScope || !sawSink {
		t.Errorf("Expand ran outside the run: scope %v, sink %v", sawScope, sawSink)
	}
	first := h.client.requests()[0].Messages[0]
	if len(first.Parts) != 2 || first.Parts[0].Text != "<environment>ctx</environment>" || first.Parts[1].Text != "expanded /deploy now" {
		t.Errorf("first message = %+v", first)
	}
	var notice bool
	for _, ev := range evs {
		notice = notice || ev.Type == EventNotice && ev.Text == "expanding"
	}
	if !notice {
		t.Error("the notice Expand gave is not an event of the run")
	}
}

// An expansion that fails ends the run before the model is asked, with
// nothing in history.
func TestExpandErrorEndsTheRun(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false)
	h.agent.cfg.Expand = func(context.Context, llm.Message) (llm.Message, error) {
		return llm.Message{}, errors.New("/fork was not run: forked skills come with subagents")
	}
	evs := drain(h.agent.Run(context.Background(), llm.UserText("/fork")), nil)
	if d := last(evs); d.Subtype != SubtypeError || d.Error != "/fork was not run: forked skills come with subagents" {
		t.Errorf("done = %+v", d)
	}
	if n := len(h.client.requests()); n != 0 || len(h.agent.History()) != 0 {
		t.Errorf("%d requests, history %v: want none", n, h.agent.History())
	}
}

// A model a tool switches the run to serves the run's later turns, and
// the next run is back on the session's model; the run's end undoes what
// was registered, once.
func TestRunScopeModelAndEnd(t *testing.T) {
	other := &scripted{}
	ended := 0
	st := &scopeTool{ended: &ended, model: tools.RunModel{ID: "p:fast", Client: other, Model: "fast", MaxTokens: 123}}
	h := newHarness(t, permission.ModeDefault, false, st)
	h.client.add(reply("", call("c1", "Scope", `{}`)))
	other.add(reply("done fast"))
	if d := last(drain(h.agent.Run(context.Background(), llm.UserText("go")), nil)); d.Result != "done fast" {
		t.Fatalf("done = %+v", d)
	}
	if r := other.requests(); len(r) != 1 || r[0].Model != "fast" || r[0].MaxTokens != 123 || r[0].System != "sys" {
		t.Errorf("the switched model's requests: %+v", r)
	}
	if ended != 1 {
		t.Errorf("ended %d times, want once", ended)
	}
	h.client.add(reply("back"))
	drain(h.agent.Run(context.Background(), llm.UserText("again")), nil)
	reqs := h.client.requests()
	if last := reqs[len(reqs)-1]; last.Model != "m" || last.MaxTokens != 4_000 {
		t.Errorf("the next run asked %s (max %d), want the session's model", last.Model, last.MaxTokens)
	}
}
