package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// TestBashUnaskedGitRunsNoRepositoryCode: a git command nova's read-only
// table allowed unasked (Decision.Auto) runs with the repository's
// core.fsmonitor and hooks switched off; the same command approved by a
// person runs as git would (the control that shows the sentinel works).
func TestBashUnaskedGitRunsNoRepositoryCode(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	env := newShellEnv(t)
	sentinel := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "fsmonitor.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+sentinel+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"git init -q", "git config core.fsmonitor " + script} {
		if out, err := exec.Command("bash", "-c", "cd "+env.Workdir+" && "+c).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v %s", c, err, out)
		}
	}
	auto := withDecision(context.Background(), permission.Decision{Behavior: permission.Allow, Auto: true})
	res := shellCall(t, auto, &Bash{}, env, map[string]any{"command": "git status --short; echo count=${GIT_CONFIG_COUNT:-none}"})
	if _, err := os.Stat(sentinel); err == nil {
		t.Fatalf("fsmonitor ran for an unasked git status: %s", res.Output)
	}
	// The switch is for that command only: the next one does not inherit it.
	res = shellCall(t, context.Background(), &Bash{}, env, map[string]any{"command": "echo count=${GIT_CONFIG_COUNT:-none}"})
	if !strings.Contains(res.Output, "count=none") {
		t.Errorf("GIT_CONFIG_COUNT leaked into the next command: %q", res.Output)
	}
	if carried := shellsOf(env).carried(env); slices.ContainsFunc(carried, func(s string) bool { return strings.HasPrefix(s, "GIT_CONFIG") }) {
		t.Errorf("carried: %v", carried)
	}
	shellCall(t, context.Background(), &Bash{}, env, map[string]any{"command": "git status --short"})
	if _, err := os.Stat(sentinel); err != nil {
		t.Errorf("control: an approved git status did not run fsmonitor, so the test proves nothing")
	}
}

// TestBashReportsCarriedVariables: what an earlier command exported is
// part of the next call's permission request.
func TestBashReportsCarriedVariables(t *testing.T) {
	t.Parallel()
	env := newShellEnv(t)
	runBashTool(t, env, map[string]any{"command": "export GIT_EXTERNAL_DIFF=/tmp/x NOVA_T='a \"b\"\nc'"})
	req := (&Bash{}).Permission([]byte(`{"command":"git diff"}`), env)
	if !slices.Contains(req.ShellEnv, "GIT_EXTERNAL_DIFF=/tmp/x") || !slices.Contains(req.ShellEnv, "NOVA_T=a \"b\"\nc") {
		t.Fatalf("carried = %q", req.ShellEnv)
	}
	runBashTool(t, env, map[string]any{"command": "unset GIT_EXTERNAL_DIFF NOVA_T"})
	if req := (&Bash{}).Permission([]byte(`{"command":"git diff"}`), env); len(req.ShellEnv) != 0 {
		t.Errorf("after unset: %q", req.ShellEnv)
	}
}
