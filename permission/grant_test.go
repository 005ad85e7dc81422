package permission

import (
	"context"
	"testing"
)

// A grant allows what its rules cover until it is revoked, and never
// what a deny rule, the dangerous layer or plan mode refuses.
func TestGrant(t *testing.T) {
	c := newTestChecker(t, Config{Rules: Rules{Deny: []string{"Bash(git push:*)"}}})
	bash := func(cmd string) Request { return Request{Tool: "Bash", Kind: KindExec, Command: cmd} }
	ctx := context.Background()
	if d := c.Check(ctx, bash("touch a.txt")); d.Behavior != Ask {
		t.Fatalf("before the grant: %+v, want ask", d)
	}
	revoke, err := c.Grant("skill deploy (this run)", []string{"Bash(touch:*)", "Bash(git push:*) Bash(rm:*)", "Bad(("})
	if err == nil {
		t.Error("a rule that does not parse was not reported")
	}
	d := c.Check(ctx, bash("touch a.txt"))
	if d.Behavior != Allow || d.Layer != LayerRule || d.Rule != "Bash(touch:*)" {
		t.Errorf("during the grant: %+v, want allowed by Bash(touch:*)", d)
	}
	if d := c.Check(ctx, bash("git push origin main")); d.Behavior != Deny {
		t.Errorf("a deny rule lost to a grant: %+v", d)
	}
	if d := c.Check(ctx, bash("rm -rf /")); d.Behavior != Deny || d.Layer != LayerDangerous {
		t.Errorf("the dangerous layer lost to a grant: %+v", d)
	}
	c.SetMode(ModePlan)
	if d := c.Check(ctx, bash("touch a.txt")); d.Behavior == Allow {
		t.Errorf("plan mode lost to a grant: %+v", d)
	}
	c.SetMode(ModeDefault)

	// Another grant and an "always" rule outlive the first one's revoke.
	revoke2, err := c.Grant("command review (this run)", []string{"Bash(mkdir:*)"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AllowAlways("Bash(mkdir -p:*)"); err != nil {
		t.Fatal(err)
	}
	revoke()
	revoke() // twice is harmless
	if d := c.Check(ctx, bash("touch a.txt")); d.Behavior != Ask {
		t.Errorf("after the revoke: %+v, want ask again", d)
	}
	for _, cmd := range []string{"mkdir d", "mkdir -p e"} {
		if d := c.Check(ctx, bash(cmd)); d.Behavior != Allow {
			t.Errorf("%s after another grant's revoke: %+v, want allowed", cmd, d)
		}
	}
	revoke2()
	if d := c.Check(ctx, bash("mkdir d")); d.Behavior != Ask {
		t.Errorf("mkdir after its own revoke: %+v, want ask", d)
	}
	// Nothing that parses: nothing granted, still a revoke to call.
	r, err := c.Grant("x", nil)
	if err != nil || r == nil {
		t.Errorf("empty grant: revoke nil %v, err %v", r == nil, err)
	}
	r()
}
