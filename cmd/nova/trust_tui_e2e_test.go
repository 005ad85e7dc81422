package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// waitRequests waits until the provider has seen n requests (the title
// call runs in the background after a first answer).
func (e *e2e) waitRequests(n int) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(e.srv.Requests()) < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := len(e.srv.Requests()); got != n {
		e.t.Fatalf("the provider saw %d requests, want %d", got, n)
	}
}

// sessionCount is how many sessions NOVA_HOME holds.
func (e *e2e) sessionCount() int {
	entries, _ := os.ReadDir(filepath.Join(e.home, ".nova", "sessions"))
	return len(entries)
}

// TestTUITrustDialog drives the trust dialog of the real binary: quitting
// changes nothing, continuing ignores the project's allow rule, trusting
// stores the folder and applies it.
func TestTUITrustDialog(t *testing.T) {
	touch := llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_touch", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch x"})}}}
	e := newE2E(t,
		touch, llmtest.Turn{Text: "Touching"},
		touch, llmtest.Turn{Text: "Created x."}, llmtest.Turn{Text: "Touching again"},
	)
	e.write(".nova/settings.json", allowTouch)
	store := filepath.Join(e.home, ".nova", "trusted.json")

	// Esc: nova exits, and nothing is trusted or started.
	tm := startTmux(t, e.ws, e.env)
	screen := tm.waitFor("Do you trust the files in this folder?")
	for _, want := range []string{e.ws, ".nova/settings.json", "permissions.allow: Bash(touch:*)", "1. Yes, trust this folder", "2. No, continue without trusting it"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("Escape")
	tm.waitExit()
	if _, err := os.Stat(store); err == nil {
		t.Error("esc wrote the trust store")
	}
	if n := e.sessionCount(); n != 0 || len(e.srv.Requests()) != 0 {
		t.Errorf("esc started a session (%d) or reached the provider (%d requests)", n, len(e.srv.Requests()))
	}

	// Continue without trusting: the project's allow rule does not apply,
	// so the touch asks.
	tm = startTmux(t, e.ws, e.env)
	tm.waitFor("Do you trust the files in this folder?")
	tm.keys("2")
	tm.waitFor("Ask nova anything")
	tm.waitFor("This folder is not trusted: ignoring permissions.allow in .nova/settings.json")
	tm.typeText("make x")
	tm.keys("Enter")
	tm.waitFor("Allow Bash?")
	// "No, deny" stops the turn: the model is not asked again (the
	// second request is the session's title).
	tm.keys("n")
	tm.waitFor("Interrupted")
	e.waitRequests(2)
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
	if e.exists("x") {
		t.Error("x was created in a folder the person did not trust")
	}
	if _, err := os.Stat(store); err == nil {
		t.Error("continuing without trust wrote the trust store")
	}

	// Trust this folder: stored, and the allow rule applies at once.
	tm = startTmux(t, e.ws, e.env)
	tm.waitFor("Do you trust the files in this folder?")
	tm.keys("Enter")
	tm.waitFor("Ask nova anything")
	tm.typeText("make x")
	tm.keys("Enter")
	tm.waitFor("Created x.")
	if strings.Contains(tm.screen(), "Allow Bash?") || !e.exists("x") {
		t.Errorf("the trusted allow rule did not apply: x created %v\n%s", e.exists("x"), tm.screen())
	}
	e.waitRequests(5)
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
	if data, err := os.ReadFile(store); err != nil || !strings.Contains(string(data), `"`+e.ws+`"`) {
		t.Errorf("trust store %s: %s %v", store, data, err)
	}

	// Trusted now: no dialog.
	tm = startTmux(t, e.ws, e.env)
	screen = tm.waitFor("Ask nova anything")
	if strings.Contains(screen, "Do you trust") {
		t.Errorf("asked again in a trusted folder:\n%s", screen)
	}
	tm.keys("C-c")
	tm.keys("C-c")
	tm.waitExit()
}

// TestTUINoProviderBeforeTrust: with no provider, nova says so and how to
// set one before it asks whether to trust the folder (it could not work
// there either way); with one, the question comes first (the positive
// control is TestTUITrustDialog).
func TestTUINoProviderBeforeTrust(t *testing.T) {
	e := newE2E(t)
	e.write(".nova/settings.json", allowTouch)
	tm := startTmux(t, e.ws, e.baseEnv())
	tm.waitExit()
	screen := tm.scrollback()
	if !strings.Contains(screen, "no model provider configured") || !strings.Contains(screen, "ANTHROPIC_API_KEY") {
		t.Errorf("nova does not say there is no provider:\n%s", screen)
	}
	if strings.Contains(screen, "Do you trust") {
		t.Errorf("the trust dialog came first:\n%s", screen)
	}
}
