package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorSandbox: nova doctor shows what a sandboxed command may write,
// what stays read-only there and why, its caches, network, excluded
// commands and the environment policy.
func TestDoctorSandbox(t *testing.T) {
	e := newE2E(t)
	e.writeHome(".nova/settings.json", `{"sandbox": {"excludedCommands": ["docker:*"]}, "envPassthrough": ["GITHUB_TOKEN"]}`)
	e.env = append(e.env, "FOO_SECRET=hush-hush-hush", "GITHUB_TOKEN=ghp_passed")
	r := e.run("", "doctor", "--sandbox")
	if strings.Contains(r.stdout, "but unavailable") {
		t.Skipf("the sandbox does not work here:\n%s", r.stdout)
	}
	caches := filepath.Join("~", ".nova", "cache", "sandbox")
	for _, want := range []string{
		"  writable:\n",
		"    .git/hooks, .git/config",
		"    .vscode: VS Code runs its tasks",
		"    .mcp.json: ",
		"    go build: GOCACHE -> " + filepath.Join(caches, "go-build"),
		"    npm: npm_config_cache -> " + filepath.Join(caches, "npm"),
		"    maven: MAVEN_OPTS -> ",
		"  network: through nova's proxy (sandbox.network unset)",
		"(sandbox.excludedCommands): docker:*",
		"left out: ANTHROPIC_API_KEY, FOO_SECRET",
		"envPassthrough: GITHUB_TOKEN",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor does not show %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}
