package main

import (
	"strings"
	"testing"
)

// TestDoctorExitCode: nova doctor prints the whole profile either way, and
// its exit code says whether nova can run here: 2 with no provider, or a
// default model no provider has; 0 otherwise, with the model's prices.
func TestDoctorExitCode(t *testing.T) {
	e := newE2E(t)
	e.env = e.baseEnv()
	r := e.run("", "doctor", "--no-sandbox")
	if r.code != 2 || !strings.Contains(r.stdout, "Providers (0):\n  none") || !strings.Contains(r.stdout, "Set one of:") ||
		!strings.Contains(r.stdout, "Sandbox:") || !strings.Contains(r.stderr, "nova: no model provider configured") {
		t.Errorf("no provider: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	e = newE2E(t)
	r = e.run("", "doctor", "--no-sandbox")
	if r.code != 0 || !strings.Contains(r.stdout, "default model: anthropic:"+defaultModel()) ||
		!strings.Contains(r.stdout, "prices: $2 input, $10 output, $2.50 cache write, $0.20 cache read per million tokens") {
		t.Errorf("with a provider: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	e.env = append(e.env, "NOVA_MODEL=sonet")
	r = e.run("", "doctor", "--no-sandbox")
	if r.code != 2 || !strings.Contains(r.stdout, "default model: NOVA_MODEL sonet: no configured provider has this model") ||
		!strings.Contains(r.stderr, "Known models:") {
		t.Errorf("unknown default model: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// nova doctor shows each entry point's trust profile, from the settings
// in force here: the rules and mode a deny file sets reach the line every
// entry point runs with.
func TestDoctorEntryPoints(t *testing.T) {
	e := newE2E(t)
	e.writeHome(".nova/settings.json", `{"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Read"], "defaultMode": "acceptEdits"}}`)
	r := e.run("", "doctor", "--no-sandbox")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"Entry points (each runs with mode acceptEdits, 1 allow / 0 ask / 1 deny rules, 0 hooks",
		"terminal UI (nova)", "print mode (nova -p)", "remote (nova serve, /remote)", "subagent (Agent tool)", "skill fork (context: fork)", "teammate (nova --team)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestDoctorEnvironment: nova doctor names the variables commands would
// not inherit here (never their values), and what envPassthrough lets
// through.
func TestDoctorEnvironment(t *testing.T) {
	e := newE2E(t)
	withSecrets(e)
	e.userSettings(`{"envPassthrough": ["GITHUB_TOKEN"]}`)
	r := e.run("", "doctor", "--no-sandbox")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"left out: ANTHROPIC_API_KEY, DB_PASSWORD, MY_SERVICE_SECRET, NOVA_SERVER_TOKEN\n", "envPassthrough: GITHUB_TOKEN\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, v := range envSecrets() {
		if strings.Contains(r.stdout, v) {
			t.Errorf("doctor printed a secret's value %s:\n%s", v, r.stdout)
		}
	}
}
