package permission

import (
	"context"
	"testing"
)

// Agent(type) rules name the agent type a call starts, and Task is the
// Agent tool's older name in settings written for Claude Code.
func TestAgentRules(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	c, err := NewChecker(Config{Workspace: ws, Home: home, Rules: Rules{Deny: []string{"Task(Explore)"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Check(context.Background(), Request{Tool: "Agent", Kind: KindOther, Target: "Explore"}); d.Behavior != Deny {
		t.Errorf("Agent(Explore) under Task(Explore) deny: %+v", d)
	}
	if d := c.Check(context.Background(), Request{Tool: "Agent", Kind: KindOther, Target: "general-purpose"}); d.Behavior != Allow {
		t.Errorf("another type is not allowed: %+v", d)
	}
	all, err := NewChecker(Config{Workspace: ws, Home: home, Rules: Rules{Deny: []string{"Task"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := all.Check(context.Background(), Request{Tool: "Agent", Kind: KindOther, Target: "Plan"}); d.Behavior != Deny {
		t.Errorf("a bare Task deny leaves Agent: %+v", d)
	}
	if _, err := ParseRule("Agent(Explore *)"); err == nil {
		t.Error("a pattern Agent rule parsed")
	}
}

// A caller's mode (a subagent's) only narrows the checker's: plan under
// bypassPermissions denies a write; bypassPermissions under default still
// asks.
func TestRequestModeOnlyNarrows(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	write := Request{Tool: "Write", Kind: KindEdit, Paths: []Access{{Path: ws + "/f.txt", Write: true}}}
	bypass, err := NewChecker(Config{Mode: ModeBypass, Workspace: ws, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if d := bypass.Check(context.Background(), write); d.Behavior != Allow {
		t.Fatalf("positive control: bypass does not allow the write: %+v", d)
	}
	plan := write
	plan.Mode = ModePlan
	if d := bypass.Check(context.Background(), plan); d.Behavior == Allow {
		t.Errorf("plan under bypass allowed a write: %+v", d)
	}
	bash := Request{Tool: "Bash", Kind: KindExec, Command: "touch f.txt", Workdir: ws, Mode: ModePlan}
	if d := bypass.Check(context.Background(), bash); d.Behavior == Allow {
		t.Errorf("plan under bypass allowed touch: %+v", d)
	}
	def, err := NewChecker(Config{Workspace: ws, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	wide := write
	wide.Mode = ModeBypass
	if d := def.Check(context.Background(), wide); d.Behavior != Ask {
		t.Errorf("bypass under default did not ask: %+v", d)
	}
	if got := Narrower(ModeAcceptEdits, ModePlan); got != ModePlan {
		t.Errorf("Narrower(acceptEdits, plan) = %s", got)
	}
	if got := Narrower(ModeDefault, ModeBypass); got != ModeDefault {
		t.Errorf("Narrower(default, bypass) = %s", got)
	}
}
