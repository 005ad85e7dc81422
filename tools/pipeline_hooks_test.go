package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// hookChecker asks about every call unless a hook allowed it, or denies
// or asks whatever a hook said when set: it stands for the checker's rule
// that a hook's allow settles only what the mode would ask.
type hookChecker struct {
	unhooked permission.Decision // what it says without a hook's allow
	hooked   permission.Decision // what it says with one; zero: allow

	mu   sync.Mutex
	reqs []permission.Request
}

func (c *hookChecker) Check(_ context.Context, req permission.Request) permission.Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, req)
	switch {
	case !req.HookAllowed:
		return c.unhooked
	case c.hooked.Behavior != "":
		return c.hooked
	}
	return permission.Decision{Behavior: permission.Allow, Layer: permission.LayerHook, Reason: "a hook allowed it"}
}

func (c *hookChecker) AllowAlways(string) error { return nil }

var (
	askMode  = permission.Decision{Behavior: permission.Ask, Layer: permission.LayerMode, Reason: "Fake needs approval"}
	askRule  = permission.Decision{Behavior: permission.Ask, Layer: permission.LayerRule, Reason: "Fake needs approval by rule Fake"}
	allowAll = permission.Decision{Behavior: permission.Allow, Layer: permission.LayerMode, Reason: "read-only"}
)

func TestPipelineHookDecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		checker  *hookChecker
		hooks    *plHooks
		asker    *plAsker
		ran      bool
		layer    permission.Layer
		asked    int
		events   []string
		contains []string
	}{
		{name: "PreToolUse allow settles what the mode asks",
			checker: &hookChecker{unhooked: askMode},
			hooks:   &plHooks{pre: func(Call) HookVerdict { return HookVerdict{Decision: HookAllow} }},
			ran:     true, layer: permission.LayerHook, events: []string{"pre", "post"}},
		{name: "PreToolUse allow does not settle an ask rule: a person is asked",
			checker: &hookChecker{unhooked: askRule, hooked: askRule},
			hooks:   &plHooks{pre: func(Call) HookVerdict { return HookVerdict{Decision: HookAllow} }},
			asker:   &plAsker{answer: Approval{Allow: true}},
			ran:     true, layer: permission.LayerAsk, asked: 1, events: []string{"pre", "perm", "post"}},
		{name: "PreToolUse ask puts an allowed call to a person, without PermissionRequest",
			checker: &hookChecker{unhooked: allowAll},
			hooks:   &plHooks{pre: func(Call) HookVerdict { return HookVerdict{Decision: HookAsk, Reason: "prod database"} }},
			asker:   &plAsker{answer: Approval{Message: "not now"}},
			layer:   permission.LayerAsk, asked: 1, events: []string{"pre"}, contains: []string{"the user denied it", "not now"}},
		{name: "PreToolUse ask with nobody to ask denies, with the hook's reason",
			checker: &hookChecker{unhooked: allowAll},
			hooks:   &plHooks{pre: func(Call) HookVerdict { return HookVerdict{Decision: HookAsk, Reason: "prod database"} }},
			layer:   permission.LayerAsk, events: []string{"pre"}, contains: []string{"prod database", "nobody to approve"}},
		{name: "PreToolUse deny stops before the check",
			checker: &hookChecker{unhooked: allowAll},
			hooks: &plHooks{pre: func(Call) HookVerdict {
				return HookVerdict{Decision: HookDeny, Reason: "PreToolUse:Fake hook error: [guard.sh]: no", Context: "ctx for the model"}
			}},
			layer: permission.LayerHook, events: []string{"pre"}, contains: []string{"denied (hook layer)", "PreToolUse:Fake hook error: [guard.sh]: no", "ctx for the model"}},
		{name: "PermissionRequest allow answers for the person",
			checker: &hookChecker{unhooked: askMode},
			hooks:   &plHooks{perm: func(Call, permission.Decision) HookVerdict { return HookVerdict{Decision: HookAllow} }},
			asker:   &plAsker{answer: Approval{}},
			ran:     true, layer: permission.LayerHook, events: []string{"pre", "perm", "post"}},
		{name: "PermissionRequest allow with nobody to ask",
			checker: &hookChecker{unhooked: askMode},
			hooks:   &plHooks{perm: func(Call, permission.Decision) HookVerdict { return HookVerdict{Decision: HookAllow} }},
			ran:     true, layer: permission.LayerHook, events: []string{"pre", "perm", "post"}},
		{name: "PermissionRequest deny answers for the person",
			checker: &hookChecker{unhooked: askMode},
			hooks: &plHooks{perm: func(Call, permission.Decision) HookVerdict {
				return HookVerdict{Decision: HookDeny, Reason: "not on Fridays"}
			}},
			asker: &plAsker{answer: Approval{Allow: true}},
			layer: permission.LayerHook, events: []string{"pre", "perm"}, contains: []string{"not on Fridays"}},
		{name: "PermissionRequest without a decision leaves it to the person",
			checker: &hookChecker{unhooked: askMode},
			hooks:   &plHooks{},
			asker:   &plAsker{answer: Approval{Allow: true}},
			ran:     true, layer: permission.LayerAsk, asked: 1, events: []string{"pre", "perm", "post"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &plTool{name: "Fake", kind: permission.KindExec}
			p, env := newPlPipeline(t, tt.checker, tool)
			p.Hooks = tt.hooks
			if tt.asker != nil {
				env.Ask = tt.asker
			}
			out := plRun(p, env, "Fake", `{}`)
			if ran := len(tool.runs()) == 1; ran != tt.ran {
				t.Errorf("ran = %v, want %v: %+v", ran, tt.ran, out)
			}
			if out.Decision.Layer != tt.layer {
				t.Errorf("decided by %s (%s), want %s", out.Decision.Layer, out.Decision.Reason, tt.layer)
			}
			if tt.asker != nil && len(tt.asker.asks) != tt.asked {
				t.Errorf("the person was asked %d times, want %d", len(tt.asker.asks), tt.asked)
			}
			var evs []string
			for _, c := range tt.hooks.calls {
				evs = append(evs, strings.SplitN(c, ":", 2)[0])
			}
			if !slices.Equal(evs, tt.events) {
				t.Errorf("hooks ran %v, want %v", evs, tt.events)
			}
			for _, w := range tt.contains {
				if !strings.Contains(out.Result.Output, w) {
					t.Errorf("result %q lacks %q", out.Result.Output, w)
				}
			}
		})
	}
}

// TestPipelinePermissionRequestRewrites: a PermissionRequest allow with
// updatedInput runs the new input, validated and checked again.
func TestPipelinePermissionRequestRewrites(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	for _, tt := range []struct {
		name, input string
		ran         bool
	}{{"valid", `{"n":7}`, true}, {"invalid", `{"n":"seven"}`, false}} {
		t.Run(tt.name, func(t *testing.T) {
			tool := &plTool{name: "Fake", kind: permission.KindExec, schema: schema}
			c := &hookChecker{unhooked: askMode}
			p, env := newPlPipeline(t, c, tool)
			p.Hooks = &plHooks{perm: func(Call, permission.Decision) HookVerdict {
				return HookVerdict{Decision: HookAllow, Input: json.RawMessage(tt.input)}
			}}
			out := plRun(p, env, "Fake", `{"n":1}`)
			runs := tool.runs()
			if tt.ran && (len(runs) != 1 || runs[0] != tt.input) {
				t.Fatalf("ran %v, want the rewritten input; %+v", runs, out)
			}
			if !tt.ran && (len(runs) != 0 || !strings.Contains(out.Result.Output, "rewrote the input")) {
				t.Fatalf("ran %v with invalid rewritten input: %+v", runs, out)
			}
			if tt.ran && !c.reqs[len(c.reqs)-1].HookAllowed {
				t.Errorf("the rewritten call was not checked with the hook's allow")
			}
		})
	}
}

// TestPipelinePostToolUse: what PostToolUse hooks say goes next to the
// result, and their notices and stop reach the outcome, with PreToolUse's.
func TestPipelinePostToolUse(t *testing.T) {
	t.Parallel()
	tool := &plTool{name: "Fake"}
	p, env := newPlPipeline(t, &plChecker{}, tool)
	p.Hooks = &plHooks{
		pre: func(Call) HookVerdict { return HookVerdict{Context: "pre context", Notices: []string{"pre notice"}} },
		post: func(_ Call, res Result) (Result, HookVerdict) {
			res.Output = strings.ToUpper(res.Output)
			return res, HookVerdict{Context: "post context", Notices: []string{"post notice"}, Stop: true, StopReason: "enough"}
		},
	}
	out := plRun(p, env, "Fake", `{}`)
	if want := "FAKE RAN {}\n\npre context\n\npost context"; out.Result.Output != want {
		t.Errorf("result = %q, want %q", out.Result.Output, want)
	}
	if out.Hook == nil || !slices.Equal(out.Hook.Notices, []string{"pre notice", "post notice"}) || !out.Hook.Stop || out.Hook.StopReason != "enough" {
		t.Errorf("hook note = %+v", out.Hook)
	}
}

// TestPipelineHooksSeeAbsolutePaths: a hook guarding paths sees the file a
// relative or ~ spelling names, as Claude Code gives it; the tool still
// runs the call as the model sent it.
func TestPipelineHooksSeeAbsolutePaths(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	if err := reg.Register(&Read{}); err != nil {
		t.Fatal(err)
	}
	env := NewEnv(ws)
	env.Home, env.SpillDir = home, t.TempDir()
	h := &plHooks{}
	p := &Pipeline{Registry: reg, Checker: &plChecker{}, Hooks: h}
	for _, in := range []string{`{"file_path":"a.txt"}`, `{"file_path":"~/x.txt"}`} {
		p.Run(context.Background(), Call{ID: "c", Name: "Read", Input: json.RawMessage(in)}, env)
	}
	want := []string{"pre:Read:" + jsonInput(map[string]any{"file_path": filepath.Join(ws, "a.txt")}),
		"post:Read:" + jsonInput(map[string]any{"file_path": filepath.Join(ws, "a.txt")}),
		"pre:Read:" + jsonInput(map[string]any{"file_path": filepath.Join(home, "x.txt")})}
	if len(h.calls) < 3 || !slices.Equal(h.calls[:3], want) {
		t.Errorf("hooks saw %v, want %v", h.calls, want)
	}
}

func jsonInput(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
