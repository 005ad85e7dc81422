package tools

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestBashSandboxEnv: the sandbox's variables (private caches, TMPDIR)
// reach every sandboxed command, also after one ran outside the sandbox,
// never a command run outside it, and are not shown to the permission
// check as variables an earlier command exported.
func TestBashSandboxEnv(t *testing.T) {
	t.Setenv("GOCACHE", "/user/go-build")
	userTmp, hasTmp := os.LookupEnv("TMPDIR")
	if !hasTmp {
		userTmp = "unset"
	}
	env := newShellEnv(t)
	env.Sandbox = &prefixSandbox{env: []string{"GOCACHE=/sandbox/go-build", "TMPDIR=/sandbox/tmp"}}
	show := `echo "${GOCACHE-unset}|${TMPDIR-unset}"`
	inside, outside := "/sandbox/go-build|/sandbox/tmp", "/user/go-build|"+userTmp
	for i, step := range []struct {
		unsandboxed bool
		want        string
	}{{false, inside}, {true, outside}, {false, inside}, {true, outside}} {
		res := runBashTool(t, env, map[string]any{"command": show + "; export MINE=1", "dangerouslyDisableSandbox": step.unsandboxed})
		if res.Output != step.want {
			t.Errorf("step %d (unsandboxed %v): %q, want %q", i, step.unsandboxed, res.Output, step.want)
		}
		if i == 0 {
			req := (&Bash{}).Permission(json.RawMessage(`{"command":"ls"}`), env)
			if !slices.Contains(req.ShellEnv, "MINE=1") || slices.ContainsFunc(req.ShellEnv, func(kv string) bool {
				return strings.HasPrefix(kv, "GOCACHE=") || strings.HasPrefix(kv, "TMPDIR=")
			}) {
				t.Errorf("the check is told the shell carries %q", req.ShellEnv)
			}
		}
	}
}

// TestBashLeaveSandbox: a command sandbox.excludedCommands names runs
// outside the sandbox and says so to the check; the retry of a command
// that failed inside tells the check what it hit.
func TestBashLeaveSandbox(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	env.Sandbox = &prefixSandbox{}
	env.SandboxExcluded = []string{"printenv:*"}
	if res := runBashTool(t, env, map[string]any{"command": "printenv SANDBOXED || echo outside"}); res.Output != "outside" {
		t.Errorf("excluded command: %q, want it run outside the sandbox", res.Output)
	}
	req := (&Bash{}).Permission(json.RawMessage(`{"command":"printenv HOME"}`), env)
	if req.Sandboxed || !req.LeavesSandbox || req.Excluded != "printenv:*" {
		t.Errorf("excluded request: %+v", req)
	}
	fail := "echo 'go: failed to initialize build cache: read-only file system'; exit 1"
	runBashTool(t, env, map[string]any{"command": fail})
	in, _ := json.Marshal(map[string]any{"command": fail, "dangerouslyDisableSandbox": true})
	req = (&Bash{}).Permission(in, env)
	if !req.LeavesSandbox || req.SandboxFailure != "go: failed to initialize build cache: read-only file system" {
		t.Errorf("retry request: %+v", req)
	}
	in, _ = json.Marshal(map[string]any{"command": "true", "dangerouslyDisableSandbox": true})
	if req = (&Bash{}).Permission(in, env); req.SandboxFailure != "" {
		t.Errorf("another command is told of the failure: %+v", req)
	}
}
