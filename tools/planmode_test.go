package tools

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// pmAsker answers the approval question from a script and records it.
type pmAsker struct {
	answers []string
	err     error
	asked   [][]Question
}

func (f *pmAsker) AskPermission(context.Context, PermissionAsk) Approval {
	return Approval{}
}

func (f *pmAsker) AskQuestions(_ context.Context, qs []Question) ([]string, error) {
	f.asked = append(f.asked, qs)
	return f.answers, f.err
}

// pmSession is a session with a real checker as its mode switch, run
// through the real pipeline, so a test sees what the model would.
type pmSession struct {
	checker *permission.Checker
	env     *Env
	pipe    *Pipeline
	ws      string
}

func newPMSession(t *testing.T, mode permission.Mode) *pmSession {
	t.Helper()
	ws := t.TempDir()
	checker, err := permission.NewChecker(permission.Config{Mode: mode, Workspace: ws, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	for _, tl := range []Tool{&EnterPlanMode{}, &ExitPlanMode{}} {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	env := NewEnv(ws)
	env.Modes = checker
	return &pmSession{checker: checker, env: env, pipe: &Pipeline{Registry: reg, Checker: checker}, ws: ws}
}

func (s *pmSession) call(t *testing.T, name string, input any) Outcome {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return s.pipe.Run(context.Background(), Call{ID: "c1", Name: name, Input: raw}, s.env)
}

// editDecision is what the checker says about writing a file in the
// workspace: the observable meaning of the mode.
func (s *pmSession) editDecision() permission.Behavior {
	req := permission.Request{Tool: "Edit", Kind: permission.KindEdit,
		Paths: []permission.Access{{Path: filepath.Join(s.ws, "main.go"), Write: true}}}
	return s.checker.Check(context.Background(), req).Behavior
}

func TestEnterPlanMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		mode     permission.Mode
		noModes  bool
		want     []string
		isError  bool
		wantMode permission.Mode
	}{
		{name: "from default", mode: permission.ModeDefault, want: []string{"Entered plan mode", "ExitPlanMode"}, wantMode: permission.ModePlan},
		{name: "from acceptEdits", mode: permission.ModeAcceptEdits, want: []string{"Entered plan mode"}, wantMode: permission.ModePlan},
		{name: "already planning", mode: permission.ModePlan, want: []string{"already in plan mode", "ExitPlanMode"}, wantMode: permission.ModePlan},
		{name: "no mode switch", mode: permission.ModeDefault, noModes: true, want: []string{"not available"}, isError: true, wantMode: permission.ModeDefault},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newPMSession(t, tt.mode)
			if tt.noModes {
				s.env.Modes = nil
			}
			out := s.call(t, "EnterPlanMode", map[string]any{})
			if out.Denied || out.Result.IsError != tt.isError {
				t.Fatalf("outcome = %+v", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.Result.Output, w) {
					t.Errorf("output %q lacks %q", out.Result.Output, w)
				}
			}
			if got := s.checker.Mode(); got != tt.wantMode {
				t.Errorf("mode = %s, want %s", got, tt.wantMode)
			}
			if tt.wantMode == permission.ModePlan && s.editDecision() != permission.Deny {
				t.Errorf("an edit is %s in plan mode, want deny", s.editDecision())
			}
		})
	}
}

func TestExitPlanMode(t *testing.T) {
	t.Parallel()
	const plan = "## Plan\n1. Add the flag\n2. Test it"
	tests := []struct {
		name     string
		mode     permission.Mode
		asker    *pmAsker // nil: nobody can approve (print mode)
		noModes  bool
		want     []string
		isError  bool
		approved bool
		wantMode permission.Mode
		wantEdit permission.Behavior
	}{
		{name: "approved, accept edits", mode: permission.ModePlan, asker: &pmAsker{answers: []string{"Yes, and accept edits"}},
			want: []string{"approved; you may now edit", "acceptEdits"}, approved: true, wantMode: permission.ModeAcceptEdits, wantEdit: permission.Allow},
		{name: "approved, ask before each edit", mode: permission.ModePlan, asker: &pmAsker{answers: []string{"Yes, ask before each edit"}},
			want: []string{"approved; you may now edit", "default"}, approved: true, wantMode: permission.ModeDefault, wantEdit: permission.Ask},
		{name: "keep planning", mode: permission.ModePlan, asker: &pmAsker{answers: []string{"No, keep planning"}},
			want: []string{"did not approve", "still in plan mode", "ExitPlanMode"}, wantMode: permission.ModePlan, wantEdit: permission.Deny},
		{name: "feedback in own words", mode: permission.ModePlan, asker: &pmAsker{answers: []string{"Use a config file, not a flag"}},
			want: []string{"did not approve", "Use a config file, not a flag", "still in plan mode"}, wantMode: permission.ModePlan, wantEdit: permission.Deny},
		{name: "dismissed", mode: permission.ModePlan, asker: &pmAsker{err: errors.New("dismissed")},
			want: []string{"not approved", "dismissed", "still in plan mode"}, wantMode: permission.ModePlan, wantEdit: permission.Deny},
		{name: "nobody to approve", mode: permission.ModePlan,
			want: []string{"not approved", "nobody can approve", "final answer"}, wantMode: permission.ModePlan, wantEdit: permission.Deny},
		{name: "not in plan mode", mode: permission.ModeDefault, asker: &pmAsker{answers: []string{"Yes, and accept edits"}},
			want: []string{"not in plan mode"}, wantMode: permission.ModeDefault, wantEdit: permission.Ask},
		{name: "no mode switch", mode: permission.ModePlan, asker: &pmAsker{answers: []string{"Yes, and accept edits"}}, noModes: true,
			want: []string{"not available"}, isError: true, wantMode: permission.ModePlan, wantEdit: permission.Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newPMSession(t, tt.mode)
			if tt.asker != nil {
				s.env.Ask = tt.asker
			}
			if tt.noModes {
				s.env.Modes = nil
			}
			out := s.call(t, "ExitPlanMode", map[string]any{"plan": plan})
			// ExitPlanMode must be allowed in plan mode, where it is used.
			if out.Denied || out.Result.IsError != tt.isError {
				t.Fatalf("outcome = %+v", out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.Result.Output, w) {
					t.Errorf("output %q lacks %q", out.Result.Output, w)
				}
			}
			if got := s.checker.Mode(); got != tt.wantMode {
				t.Errorf("mode = %s, want %s", got, tt.wantMode)
			}
			if got := s.editDecision(); got != tt.wantEdit {
				t.Errorf("an edit is now %s, want %s", got, tt.wantEdit)
			}
			if d := out.Result.Display; !tt.isError && (d == nil || d.Plan == nil || d.Plan.Approved != tt.approved || d.Plan.Mode != string(tt.wantMode) || d.Plan.Plan != plan) {
				t.Errorf("display = %#v", out.Result.Display)
			}
			asked := tt.asker != nil && len(tt.asker.asked) > 0
			if wantAsk := tt.asker != nil && tt.mode == permission.ModePlan && !tt.noModes; asked != wantAsk {
				t.Fatalf("person asked = %v, want %v", asked, wantAsk)
			}
			if asked {
				q := tt.asker.asked[0]
				if len(q) != 1 || q[0].Header != "Plan" || q[0].Question != "Approve this plan and start editing?\n\n"+plan {
					t.Errorf("question = %+v", q)
				}
				var labels []string
				for _, o := range q[0].Options {
					labels = append(labels, o.Label)
				}
				if got := strings.Join(labels, "|"); got != "Yes, and accept edits|Yes, ask before each edit|No, keep planning" {
					t.Errorf("options = %s", got)
				}
			}
		})
	}
}

func TestExitPlanModeRejectsAnEmptyPlan(t *testing.T) {
	t.Parallel()
	for _, in := range []map[string]any{{}, {"plan": ""}, {"plan": "   \n"}} {
		s := newPMSession(t, permission.ModePlan)
		asker := &pmAsker{answers: []string{"Yes, and accept edits"}}
		s.env.Ask = asker
		out := s.call(t, "ExitPlanMode", in)
		if !out.Result.IsError || !strings.Contains(out.Result.Output, "plan") {
			t.Errorf("%v: outcome = %+v", in, out.Result)
		}
		if len(asker.asked) != 0 || s.checker.Mode() != permission.ModePlan {
			t.Errorf("%v: asked %d times, mode %s", in, len(asker.asked), s.checker.Mode())
		}
	}
}

func TestExitPlanModeInterrupted(t *testing.T) {
	t.Parallel()
	s := newPMSession(t, permission.ModePlan)
	s.env.Ask = &pmAsker{err: context.Canceled}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := s.pipe.Run(ctx, Call{ID: "c1", Name: "ExitPlanMode", Input: json.RawMessage(`{"plan":"do it"}`)}, s.env)
	if !out.Result.IsError || !strings.Contains(out.Result.Output, "canceled") {
		t.Errorf("result = %+v", out.Result)
	}
	if s.checker.Mode() != permission.ModePlan {
		t.Errorf("mode = %s after an interrupted approval", s.checker.Mode())
	}
}

func TestPlanModeRoundTrip(t *testing.T) {
	t.Parallel()
	// Enter, try to write (denied by the checker), get approval, write.
	s := newPMSession(t, permission.ModeDefault)
	s.env.Ask = &pmAsker{answers: []string{"Yes, and accept edits"}}
	if out := s.call(t, "EnterPlanMode", map[string]any{}); out.Result.IsError {
		t.Fatalf("enter: %+v", out.Result)
	}
	if d := s.checker.Check(context.Background(), permission.Request{Tool: "Bash", Kind: permission.KindExec, Command: "touch x", Workdir: s.ws}); d.Behavior != permission.Deny || !strings.Contains(d.Reason, "ExitPlanMode") {
		t.Errorf("a write command in plan mode: %+v", d)
	}
	if out := s.call(t, "ExitPlanMode", map[string]any{"plan": "touch x"}); !strings.Contains(out.Result.Output, "approved") {
		t.Fatalf("exit: %+v", out.Result)
	}
	if s.editDecision() != permission.Allow {
		t.Errorf("edit after approval with accept edits = %s", s.editDecision())
	}
}

func TestPlanModeToolsAreBuiltin(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, tl := range Builtin() {
		names[tl.Name()] = true
	}
	if !names["EnterPlanMode"] || !names["ExitPlanMode"] {
		t.Errorf("builtin tools lack plan mode: %v", names)
	}
}
