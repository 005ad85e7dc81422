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
	if r.code != 0 || !strings.Contains(r.stdout, "default model: anthropic:claude-sonnet-4-5") ||
		!strings.Contains(r.stdout, "prices: $3 input, $15 output, $3.75 cache write, $0.30 cache read per million tokens") {
		t.Errorf("with a provider: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	e.env = append(e.env, "NOVA_MODEL=claude-sonet")
	r = e.run("", "doctor", "--no-sandbox")
	if r.code != 2 || !strings.Contains(r.stdout, "default model: NOVA_MODEL claude-sonet: no configured provider has this model") ||
		!strings.Contains(r.stderr, "Known models:") {
		t.Errorf("unknown default model: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}
