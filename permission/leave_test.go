package permission

import (
	"context"
	"strings"
	"testing"
)

// TestLeaveSandbox: a rule given for a command inside the sandbox does not
// let it run outside; sandbox.excludedCommands names the commands allow
// rules may let run outside; the ask says the call leaves the sandbox and
// what it hit there.
func TestLeaveSandbox(t *testing.T) {
	excluded := []string{"docker:*", "kubectl get *"}
	bash := func(cmd string, leaves bool, excl string) Request {
		return Request{Tool: "Bash", Kind: KindExec, Command: cmd, Workdir: "/work/ws", Sandboxed: !leaves, LeavesSandbox: leaves, Excluded: excl}
	}
	tests := []struct {
		name  string
		allow []string
		mode  Mode
		req   Request
		want  Behavior
		says  string
	}{
		{"rule, inside", []string{"Bash(go test:*)"}, "", bash("go test ./...", false, ""), Allow, ""},
		{"same rule, outside", []string{"Bash(go test:*)"}, "", bash("go test ./...", true, ""), Ask, "outside the sandbox (dangerouslyDisableSandbox)"},
		{"whole Bash, outside", []string{"Bash"}, "", bash("touch x", true, ""), Ask, "outside the sandbox"},
		{"whole Bash, inside", []string{"Bash"}, "", bash("touch x", false, ""), Allow, ""},
		{"read-only, outside", nil, "", bash("ls", true, ""), Allow, ""},
		{"excluded, no rule", nil, "", bash("docker ps", true, "docker:*"), Ask, "sandbox.excludedCommands docker:*"},
		{"excluded, rule", []string{"Bash(docker:*)"}, "", bash("docker ps", true, "docker:*"), Allow, ""},
		{"excluded, whole Bash", []string{"Bash"}, "", bash("docker ps", true, "docker:*"), Allow, ""},
		{"excluded beside one that is not", []string{"Bash"}, "", bash("docker ps && touch x", true, "docker:*"), Ask, "outside the sandbox"},
		{"excluded beside a ruled one", []string{"Bash(docker:*)", "Bash(touch:*)"}, "", bash("docker ps; touch x", true, "docker:*"), Ask, "touch writes files"},
		{"excluded beside a read-only one", []string{"Bash(docker:*)"}, "", bash("docker ps | grep web", true, "docker:*"), Allow, ""},
		{"bypass, outside", nil, ModeBypass, bash("touch x", true, ""), Allow, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestChecker(t, Config{Mode: tt.mode, Rules: Rules{Allow: tt.allow}, SandboxExcluded: excluded})
			d := c.Check(context.Background(), tt.req)
			if d.Behavior != tt.want || !strings.Contains(d.Reason, tt.says) {
				t.Errorf("got %s (%s: %s), want %s saying %q", d.Behavior, d.Layer, d.Reason, tt.want, tt.says)
			}
			if d.Behavior == Ask && tt.req.Excluded == "" && tt.req.LeavesSandbox && len(d.Suggestions) > 0 {
				t.Errorf("suggests %v for a call no rule would let leave", d.Suggestions)
			}
		})
	}
	c := newTestChecker(t, Config{Rules: Rules{Allow: []string{"Bash(go test:*)"}}})
	req := bash("go test ./...", true, "")
	req.SandboxFailure = "failed to initialize build cache: read-only file system"
	if d := c.Check(context.Background(), req); d.Behavior != Ask || !strings.Contains(d.Reason, "inside the sandbox it failed with: "+req.SandboxFailure) {
		t.Errorf("the ask does not say what the sandbox hit: %s %s", d.Behavior, d.Reason)
	}
}

func TestExcludedCommand(t *testing.T) {
	pats := []string{"docker:*", "kubectl get *", "make build"}
	for cmd, want := range map[string]string{
		"docker ps":               "docker:*",
		"docker":                  "docker:*",
		"ls && docker compose up": "docker:*",
		"echo $(docker ps -q)":    "docker:*",
		"kubectl get pods":        "kubectl get *",
		"kubectl delete pod x":    "",
		"make build":              "make build",
		"make test":               "",
		"dockerd":                 "",
		"echo docker":             "",
		"sudo docker ps":          "docker:*",
		"":                        "",
	} {
		if got := ExcludedCommand(pats, cmd); got != want {
			t.Errorf("ExcludedCommand(%q) = %q, want %q", cmd, got, want)
		}
	}
}
