package permission

import (
	"context"
	"testing"
)

// TestHookAllowed: a hook's allow settles what only the mode would ask,
// and nothing before it. Each case runs once without the hook's allow
// (the baseline the hook meets) and once with it.
func TestHookAllowed(t *testing.T) {
	rules := Rules{Deny: []string{"Bash(git push:*)", "Read(./secrets/**)"}, Ask: []string{"Bash(npm publish:*)"}}
	bash := func(cmd string) Request { return Request{Tool: "Bash", Kind: KindExec, Command: cmd} }
	tests := []struct {
		name          string
		mode          Mode
		req           Request
		without, with Behavior
		layer         Layer // with the hook's allow
		unlessSandbox bool
	}{
		{name: "a command the mode asks about", req: bash("touch made.txt"), without: Ask, with: Allow, layer: LayerHook},
		{name: "an edit the mode asks about", req: Request{Tool: "Edit", Kind: KindEdit, Paths: []Access{{Path: "/work/ws/a.go", Write: true}}}, without: Ask, with: Allow, layer: LayerHook},
		{name: "an MCP tool", req: Request{Tool: "mcp__db__drop", Kind: KindOther}, without: Ask, with: Allow, layer: LayerHook},
		{name: "a read outside the workspace", req: Request{Tool: "Read", Kind: KindRead, Paths: []Access{{Path: "/etc/hosts"}}}, without: Ask, with: Allow, layer: LayerHook},
		{name: "a deny rule", req: bash("git push origin main"), without: Deny, with: Deny, layer: LayerRule},
		{name: "a deny path rule", req: Request{Tool: "Read", Kind: KindRead, Paths: []Access{{Path: "/work/ws/secrets/key"}}}, without: Deny, with: Deny, layer: LayerRule},
		{name: "an ask rule", req: bash("npm publish"), without: Ask, with: Ask, layer: LayerRule},
		{name: "a dangerous command", req: bash("rm -rf /"), without: Deny, with: Deny, layer: LayerDangerous},
		{name: "a system file", req: Request{Tool: "Write", Kind: KindEdit, Paths: []Access{{Path: "/etc/passwd", Write: true}}}, without: Deny, with: Deny, layer: LayerPath},
		{name: "a sensitive file", req: Request{Tool: "Read", Kind: KindRead, Paths: []Access{{Path: "/home/u/.ssh/id_ed25519"}}}, without: Ask, with: Ask, layer: LayerPath},
		{name: "a git hook written by a command", req: bash("echo x > .git/hooks/pre-commit"), without: Ask, with: Ask, layer: LayerPath},
		{name: "plan mode stays read-only", mode: ModePlan, req: bash("touch made.txt"), without: Deny, with: Deny, layer: LayerMode},
		{name: "already allowed", req: bash("ls"), without: Allow, with: Allow, layer: LayerMode},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestChecker(t, Config{Mode: tt.mode, Rules: rules})
			if d := c.Check(context.Background(), tt.req); d.Behavior != tt.without {
				t.Fatalf("without the hook: %s/%s (%s), want %s", d.Behavior, d.Layer, d.Reason, tt.without)
			}
			req := tt.req
			req.HookAllowed = true
			d := c.Check(context.Background(), req)
			if d.Behavior != tt.with || d.Layer != tt.layer {
				t.Errorf("with the hook's allow: %s/%s (%s), want %s/%s", d.Behavior, d.Layer, d.Reason, tt.with, tt.layer)
			}
		})
	}
}
