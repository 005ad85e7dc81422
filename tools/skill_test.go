package tools

import (
	"context"
	"encoding/json"
	"testing"
)

type fakeLoader struct{ name, args string }

func (f *fakeLoader) LoadSkill(_ context.Context, name, args string, _ *Env) (Result, error) {
	f.name, f.args = name, args
	return Result{Output: "Base directory for this skill: /s/" + name + "\n\nbody"}, nil
}

func TestSkillTool(t *testing.T) {
	t.Parallel()
	l := &fakeLoader{}
	res := ftRun(t, &Skill{Loader: l}, NewEnv(t.TempDir()), map[string]any{"skill": "deploy", "args": "staging now"})
	if res.IsError || l.name != "deploy" || l.args != "staging now" || res.Output != "Base directory for this skill: /s/deploy\n\nbody" {
		t.Errorf("loader got %q %q; result %+v", l.name, l.args, res)
	}
	if res := ftRun(t, &Skill{}, NewEnv(t.TempDir()), map[string]any{"skill": "x"}); !res.IsError {
		t.Errorf("no loader: %+v, want an error result", res)
	}
	reg := NewRegistry()
	if err := reg.Register(&Skill{}); err != nil {
		t.Fatal(err)
	}
	if err := reg.validate("Skill", json.RawMessage(`{"skill":""}`)); err == nil {
		t.Error("an empty skill name passed the schema")
	}
}

func TestRunScope(t *testing.T) {
	t.Parallel()
	if RunScopeOf(context.Background()).AtEnd(func() {}) {
		t.Error("AtEnd outside a run kept the function")
	}
	ctx, s := WithRunScope(context.Background())
	var order []int
	for i := range 3 {
		if !RunScopeOf(ctx).AtEnd(func() { order = append(order, i) }) {
			t.Fatal("AtEnd refused inside the run")
		}
	}
	RunScopeOf(ctx).SetModel(RunModel{ID: "p:m", Model: "m"})
	RunScopeOf(ctx).Denied(Outcome{Call: Call{ID: "x_1", Name: "Bash"}, Denied: true})
	if d := s.Denials(); len(d) != 1 || d[0].Call.ID != "x_1" {
		t.Errorf("Denials() = %+v", d)
	}
	if m := s.Model(); m == nil || m.Model != "m" {
		t.Errorf("Model() = %+v", m)
	}
	s.End()
	if len(order) != 3 || order[0] != 2 || order[2] != 0 {
		t.Errorf("ends ran in order %v, want last first", order)
	}
	if s.Model() != nil || s.AtEnd(func() {}) {
		t.Error("the scope outlived its end")
	}
	s.End() // twice: nothing more runs
	if len(order) != 3 {
		t.Errorf("ends ran again: %v", order)
	}
}
