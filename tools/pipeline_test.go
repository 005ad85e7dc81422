package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/permission"
)

// plTool is a fake tool: it records the inputs it ran with and does what
// run says (by default, echoes its input).
type plTool struct {
	name   string
	kind   permission.Kind
	schema string
	run    func(ctx context.Context, input json.RawMessage, env *Env) (Result, error)
	perm   func(input json.RawMessage, env *Env) permission.Request

	mu  sync.Mutex
	ran []string
}

func (f *plTool) Name() string        { return f.name }
func (f *plTool) Description() string { return "fake tool for pipeline tests" }
func (f *plTool) Schema() json.RawMessage {
	if f.schema == "" {
		return json.RawMessage(`{"type":"object"}`)
	}
	return json.RawMessage(f.schema)
}
func (f *plTool) Kind() permission.Kind {
	if f.kind == "" {
		return permission.KindRead
	}
	return f.kind
}
func (f *plTool) Permission(input json.RawMessage, env *Env) permission.Request {
	if f.perm != nil {
		return f.perm(input, env)
	}
	return permission.Request{}
}
func (f *plTool) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	f.mu.Lock()
	f.ran = append(f.ran, string(input))
	f.mu.Unlock()
	if f.run != nil {
		return f.run(ctx, input, env)
	}
	return Result{Output: f.name + " ran " + string(input)}, nil
}

func (f *plTool) runs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ran...)
}

// plChecker decides every request the same way and records what it saw.
type plChecker struct {
	decision permission.Decision
	allowErr error

	mu     sync.Mutex
	reqs   []permission.Request
	always []string
}

func (c *plChecker) Check(_ context.Context, req permission.Request) permission.Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, req)
	if c.decision.Behavior == "" {
		return permission.Decision{Behavior: permission.Allow, Layer: permission.LayerMode, Reason: "test allows"}
	}
	return c.decision
}

func (c *plChecker) AllowAlways(rule string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.allowErr != nil {
		return c.allowErr
	}
	c.always = append(c.always, rule)
	return nil
}

// plHooks is scripted hooks: each nil function decides nothing.
type plHooks struct {
	pre  func(Call) HookVerdict
	perm func(Call, permission.Decision) HookVerdict
	post func(Call, Result) (Result, HookVerdict)

	mu    sync.Mutex
	calls []string // event:tool:input, in order
}

func (h *plHooks) saw(ev string, c Call) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, ev+":"+c.Name+":"+string(c.Input))
}

func (h *plHooks) PreToolUse(_ context.Context, call Call) HookVerdict {
	h.saw("pre", call)
	if h.pre == nil {
		return HookVerdict{}
	}
	return h.pre(call)
}

func (h *plHooks) PermissionRequest(_ context.Context, call Call, d permission.Decision) HookVerdict {
	h.saw("perm", call)
	if h.perm == nil {
		return HookVerdict{}
	}
	return h.perm(call, d)
}

func (h *plHooks) PostToolUse(_ context.Context, call Call, res Result) (Result, HookVerdict) {
	h.saw("post", call)
	if h.post == nil {
		return res, HookVerdict{}
	}
	return h.post(call, res)
}

// plAsker answers permission asks with a fixed answer and records them.
type plAsker struct {
	answer Approval
	asks   []PermissionAsk
}

func (a *plAsker) AskPermission(_ context.Context, ask PermissionAsk) Approval {
	a.asks = append(a.asks, ask)
	return a.answer
}
func (a *plAsker) AskQuestions(context.Context, []Question) ([]string, error) {
	return nil, errors.New("no questions in pipeline tests")
}

// newPlPipeline registers ts in a pipeline with checker c and returns it
// with an Env whose SpillDir is a fresh temp dir.
func newPlPipeline(t testing.TB, c Checker, ts ...Tool) (*Pipeline, *Env) {
	t.Helper()
	reg := NewRegistry()
	for _, tl := range ts {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	env := NewEnv(t.TempDir())
	env.SpillDir = t.TempDir()
	return &Pipeline{Registry: reg, Checker: c}, env
}

func plRun(p *Pipeline, env *Env, name, input string) Outcome {
	return p.Run(context.Background(), Call{ID: "call-1", Name: name, Input: json.RawMessage(input)}, env)
}

func TestPipelineRefusesBeforeRunning(t *testing.T) {
	t.Parallel()
	askDecision := permission.Decision{Behavior: permission.Ask, Layer: permission.LayerMode, Reason: "Fake needs approval in default mode", Suggestions: []string{"Fake"}}
	tests := []struct {
		name       string
		call       string
		disable    bool
		hooks      Hooks
		decision   permission.Decision
		asker      Asker
		wantDenied bool
		wantLayer  permission.Layer
		want       []string
	}{
		{name: "unknown tool", call: "Nope", want: []string{`no tool named "Nope"`, "Fake"}},
		{name: "disabled tool", call: "Fake", disable: true, want: []string{"Fake is disabled"}},
		{name: "hook denies", call: "Fake", hooks: &plHooks{pre: func(Call) HookVerdict { return HookVerdict{Decision: HookDeny, Reason: "blocked by policy.sh"} }},
			wantDenied: true, wantLayer: permission.LayerHook, want: []string{"denied", "blocked by policy.sh"}},
		{name: "checker denies", call: "Fake", decision: permission.Decision{Behavior: permission.Deny, Layer: permission.LayerRule, Reason: "Fake denied by rule Fake"},
			wantDenied: true, wantLayer: permission.LayerRule, want: []string{"denied", "rule Fake"}},
		{name: "ask with nobody to approve", call: "Fake", decision: askDecision,
			wantDenied: true, wantLayer: permission.LayerAsk, want: []string{"nobody to approve", "permissions.allow", "needs approval"}},
		{name: "person says no", call: "Fake", decision: askDecision, asker: &plAsker{answer: Approval{Message: "use the other file"}},
			wantDenied: true, wantLayer: permission.LayerAsk, want: []string{"the user denied it", "use the other file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &plTool{name: "Fake"}
			p, env := newPlPipeline(t, &plChecker{decision: tt.decision}, tool)
			p.Hooks = tt.hooks
			env.Ask = tt.asker
			if tt.disable {
				p.Registry.SetEnabled("Fake", false)
			}
			out := plRun(p, env, tt.call, `{}`)
			if !out.Result.IsError || out.Denied != tt.wantDenied || out.Decision.Layer != tt.wantLayer {
				t.Errorf("outcome = %+v", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.Result.Output, w) {
					t.Errorf("output %q lacks %q", out.Result.Output, w)
				}
			}
			if r := tool.runs(); len(r) != 0 {
				t.Errorf("the tool ran: %v", r)
			}
		})
	}
}

func TestPipelineSchemaErrorNamesTheField(t *testing.T) {
	t.Parallel()
	schema := `{"type":"object","properties":{
		"path":{"type":"string"},
		"opts":{"type":"object","properties":{"count":{"type":"integer","minimum":1}}}},
		"required":["path"],"additionalProperties":false}`
	tests := []struct {
		name, input string
		want        []string
	}{
		{"wrong type", `{"path": 3}`, []string{"/path", "string"}},
		{"missing required", `{}`, []string{"path", "missing"}},
		{"unknown property", `{"path":"a","colour":"red"}`, []string{"colour"}},
		{"nested field", `{"path":"a","opts":{"count":0}}`, []string{"/opts/count"}},
		{"not JSON", `{"path":`, []string{"not valid JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &plTool{name: "Fake", schema: schema}
			p, env := newPlPipeline(t, &plChecker{}, tool)
			out := plRun(p, env, "Fake", tt.input)
			if !out.Result.IsError || out.Denied {
				t.Fatalf("outcome = %+v", out)
			}
			if !strings.Contains(out.Result.Output, "schema of Fake") && tt.name != "not JSON" {
				t.Errorf("output %q does not say which tool's schema", out.Result.Output)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.Result.Output, w) {
					t.Errorf("output %q lacks %q", out.Result.Output, w)
				}
			}
			if r := tool.runs(); len(r) != 0 {
				t.Errorf("the tool ran with invalid input: %v", r)
			}
		})
	}
}

func TestPipelineHookRewritesInput(t *testing.T) {
	t.Parallel()
	var permInput string
	tool := &plTool{name: "Fake", schema: `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`,
		perm: func(in json.RawMessage, _ *Env) permission.Request {
			permInput = string(in)
			return permission.Request{}
		}}
	checker := &plChecker{}
	p, env := newPlPipeline(t, checker, tool)
	p.Hooks = &plHooks{pre: func(c Call) HookVerdict { return HookVerdict{Input: json.RawMessage(`{"n":2}`)} }}
	out := plRun(p, env, "Fake", `{"n":1}`)
	if out.Result.IsError || out.Result.Output != `Fake ran {"n":2}` {
		t.Fatalf("result = %+v", out.Result)
	}
	// The permission check judged the rewritten call, not the original.
	if permInput != `{"n":2}` || string(out.Call.Input) != `{"n":2}` {
		t.Errorf("permission saw %s, outcome records %s", permInput, out.Call.Input)
	}
	if len(checker.reqs) != 1 || checker.reqs[0].Tool != "Fake" || checker.reqs[0].Kind != permission.KindRead || checker.reqs[0].Workdir != env.Workdir {
		t.Errorf("checker requests = %+v", checker.reqs)
	}
}

func TestPipelineToolFailuresBecomeErrorResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		run    func(context.Context, json.RawMessage, *Env) (Result, error)
		cancel bool
		want   string
	}{
		{name: "panic", run: func(context.Context, json.RawMessage, *Env) (Result, error) { panic("kaboom") },
			want: "tool Fake crashed: kaboom"},
		{name: "error", run: func(context.Context, json.RawMessage, *Env) (Result, error) {
			return Result{}, errors.New("disk on fire")
		}, want: "disk on fire"},
		{name: "success after cancel", cancel: true, run: func(context.Context, json.RawMessage, *Env) (Result, error) {
			return Result{Output: "all good"}, nil
		}, want: "interrupted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &plTool{name: "Fake", run: tt.run}
			p, env := newPlPipeline(t, &plChecker{}, tool, &plTool{name: "Other"})
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancel {
				cancel()
			}
			defer cancel()
			out := p.Run(ctx, Call{ID: "c1", Name: "Fake", Input: json.RawMessage(`{}`)}, env)
			if !out.Result.IsError || out.Denied || !strings.Contains(out.Result.Output, tt.want) {
				t.Errorf("outcome = %+v, want an error result with %q", out, tt.want)
			}
			// The session goes on: the next call works.
			if next := plRun(p, env, "Other", `{}`); next.Result.IsError {
				t.Errorf("next call = %+v", next.Result)
			}
		})
	}
}

func TestPipelineAskAnswered(t *testing.T) {
	t.Parallel()
	askDecision := permission.Decision{Behavior: permission.Ask, Layer: permission.LayerMode, Reason: "Fake needs approval", Suggestions: []string{"Fake(src/**)"}}
	tests := []struct {
		name       string
		answer     Approval
		allowErr   error
		wantAlways []string
		wantRule   string
		wantReason string
	}{
		{name: "allow once", answer: Approval{Allow: true}, wantReason: "the user allowed it"},
		{name: "allow always", answer: Approval{Allow: true, Rule: "Fake(src/**)"},
			wantAlways: []string{"Fake(src/**)"}, wantRule: "Fake(src/**)", wantReason: "always (Fake(src/**))"},
		{name: "allow always, rule not saved", answer: Approval{Allow: true, Rule: "Fake(src/**)"}, allowErr: errors.New("read-only settings"),
			wantReason: "could not save rule Fake(src/**): read-only settings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := &plTool{name: "Fake", kind: permission.KindEdit}
			checker := &plChecker{decision: askDecision, allowErr: tt.allowErr}
			p, env := newPlPipeline(t, checker, tool)
			asker := &plAsker{answer: tt.answer}
			env.Ask = asker
			out := plRun(p, env, "Fake", `{"x":1}`)
			if out.Result.IsError || out.Result.Output != `Fake ran {"x":1}` {
				t.Fatalf("result = %+v", out.Result)
			}
			if len(asker.asks) != 1 || asker.asks[0].CallID != "call-1" || asker.asks[0].Decision.Suggestions[0] != "Fake(src/**)" {
				t.Errorf("asks = %+v", asker.asks)
			}
			if strings.Join(checker.always, ",") != strings.Join(tt.wantAlways, ",") {
				t.Errorf("AllowAlways got %v, want %v", checker.always, tt.wantAlways)
			}
			d := out.Decision
			if d.Behavior != permission.Allow || d.Layer != permission.LayerAsk || d.Rule != tt.wantRule || !strings.Contains(d.Reason, tt.wantReason) {
				t.Errorf("decision = %+v", d)
			}
		})
	}
}

// TestPipelineDurationIsTheRun: a call's duration leaves out the time the
// person took to approve it. The clock moves an hour while the ask waits
// and two seconds while the tool runs.
func TestPipelineDurationIsTheRun(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tool := &plTool{name: "Fake", kind: permission.KindEdit, run: func(context.Context, json.RawMessage, *Env) (Result, error) {
		now = now.Add(2 * time.Second)
		return Result{Output: "done"}, nil
	}}
	checker := &plChecker{decision: permission.Decision{Behavior: permission.Ask, Layer: permission.LayerMode, Reason: "Fake needs approval"}}
	p, env := newPlPipeline(t, checker, tool)
	p.now = func() time.Time { return now }
	env.Ask = askerFunc(func(PermissionAsk) Approval {
		now = now.Add(time.Hour)
		return Approval{Allow: true}
	})
	if out := plRun(p, env, "Fake", `{}`); out.Result.IsError || out.Duration != 2*time.Second {
		t.Errorf("duration = %v (result %+v), want the run's 2s", out.Duration, out.Result)
	}
}

// askerFunc answers permission asks with a function.
type askerFunc func(PermissionAsk) Approval

func (f askerFunc) AskPermission(_ context.Context, ask PermissionAsk) Approval { return f(ask) }
func (f askerFunc) AskQuestions(context.Context, []Question) ([]string, error) {
	return nil, errors.New("no questions in pipeline tests")
}

func TestPreparedConcurrent(t *testing.T) {
	t.Parallel()
	// Only calls allowed without asking and read-only may start early.
	tests := []struct {
		name     string
		kind     permission.Kind
		behavior permission.Behavior
		want     bool
	}{
		{"read allowed", permission.KindRead, permission.Allow, true},
		{"read asks", permission.KindRead, permission.Ask, false},
		{"edit allowed", permission.KindEdit, permission.Allow, false},
		{"exec allowed", permission.KindExec, permission.Allow, false},
		{"read denied", permission.KindRead, permission.Deny, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checker := &plChecker{decision: permission.Decision{Behavior: tt.behavior, Layer: permission.LayerMode, Reason: "test"}}
			p, env := newPlPipeline(t, checker, &plTool{name: "Fake", kind: tt.kind})
			pr := p.Prepare(context.Background(), Call{ID: "c1", Name: "Fake", Input: json.RawMessage(`{}`)}, env)
			if got := pr.Concurrent(); got != tt.want {
				t.Errorf("Concurrent() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestBuiltinSchemasCompile: every built-in tool's schema compiles (they
// are compiled lazily, at a tool's first call).
func TestBuiltinSchemasCompile(t *testing.T) {
	t.Parallel()
	for _, tl := range append(Builtin(), &Remember{}, &Skill{}) {
		if _, err := compileSchema(tl.Name(), tl.Schema()); err != nil {
			t.Errorf("%s: %v", tl.Name(), err)
		}
	}
}
