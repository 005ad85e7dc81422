package permission

import (
	"context"
	"testing"
)

// Skill rules name skills: deny beats ask beats allow as for any rule,
// Skill(prefix:*) covers the names that start so, and a bare Skill
// every skill. With no rule a Skill call is allowed, as other tools that
// change nothing are.
func TestSkillRules(t *testing.T) {
	dir := t.TempDir()
	c, err := NewChecker(Config{Workspace: dir, Home: t.TempDir(), Rules: Rules{
		Deny:  []string{"Skill(deploy)", "Skill(ops:*)"},
		Ask:   []string{"Skill(/release *)"},
		Allow: []string{"Skill(deploy)", "Skill(ops:read)"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		target string
		want   Behavior
		rule   string
	}{
		{"deploy", Deny, "Skill(deploy)"},
		{"/deploy", Deny, "Skill(deploy)"},
		{"ops:read", Deny, "Skill(ops:*)"},
		{"ops:", Deny, "Skill(ops:*)"},
		{"release", Ask, "Skill(/release *)"},
		{"releases", Allow, ""},
		{"deployer", Allow, ""},
		{"explain-code", Allow, ""},
	} {
		d := c.Check(context.Background(), Request{Tool: "Skill", Kind: KindOther, Target: tt.target, Workdir: dir})
		if d.Behavior != tt.want || d.Rule != tt.rule {
			t.Errorf("Skill %q: %s by %q (%s), want %s by %q", tt.target, d.Behavior, d.Rule, d.Reason, tt.want, tt.rule)
		}
	}

	all, err := NewChecker(Config{Workspace: dir, Home: t.TempDir(), Rules: Rules{Deny: []string{"Skill"}, Allow: []string{"Skill(safe)"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := all.Check(context.Background(), Request{Tool: "Skill", Kind: KindOther, Target: "safe", Workdir: dir}); d.Behavior != Deny {
		t.Errorf("a bare Skill deny did not cover every skill: %+v", d)
	}

	asks, err := NewChecker(Config{Workspace: dir, Home: t.TempDir(), Rules: Rules{Ask: []string{"Skill(deploy)"}}})
	if err != nil {
		t.Fatal(err)
	}
	d := asks.Check(context.Background(), Request{Tool: "Skill", Kind: KindOther, Target: "deploy", Workdir: dir})
	if err := asks.AllowAlways("Skill(deploy)"); err != nil || d.Behavior != Ask {
		t.Fatalf("ask = %+v; allow always: %v", d, err)
	}
	if d := asks.Check(context.Background(), Request{Tool: "Skill", Kind: KindOther, Target: "deploy", Workdir: dir}); d.Behavior != Ask {
		t.Errorf("an allow rule beat an ask rule: %+v", d)
	}
}
