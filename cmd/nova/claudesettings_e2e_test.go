package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// sentinelServer counts the requests a loopback server got: a command
// that reached it ran.
func sentinelServer(t *testing.T) (url string, hits *atomic.Int64) {
	t.Helper()
	hits = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintln(w, "sentinel")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, hits
}

// TestClaudeSettingsDenyE2E: a project's .claude/settings.json deny
// ["Bash(curl:*)"] holds in an untrusted and in a trusted folder, over
// --allowedTools Bash: the model's curl never reaches the loopback
// server. The control, without the file, reaches it. The user's own
// ~/.claude/settings.json deny holds too, over a trusted project's allow.
func TestClaudeSettingsDenyE2E(t *testing.T) {
	url, hits := sentinelServer(t)
	e := newE2E(t)
	curl := func(label string) runResult {
		e.t.Helper()
		e.srv.Push(bashTurns("toolu_curl", "curl -s "+url+"/"+label)...)
		return e.run("", "-p", "--output-format", "json", "--no-sandbox", "--allowedTools", "Bash", "fetch it")
	}
	if r := curl("control"); hits.Load() != 1 || r.code != 0 {
		t.Fatalf("control: curl did not reach the server (%d hits): exit %d %s %s", hits.Load(), r.code, r.stdout, r.stderr)
	}

	e.write(".claude/settings.json", `{"permissions": {"deny": ["Bash(curl:*)"]}}`)
	r := curl("untrusted")
	if hits.Load() != 1 || strings.Join(denials(t, r), ",") != "Bash" {
		t.Errorf("untrusted: %d hits, denials %v; the project's deny did not hold", hits.Load()-1, denials(t, r))
	}
	if tr := e.run("", "trust"); tr.code != 0 {
		t.Fatalf("nova trust: %d %s", tr.code, tr.stderr)
	}
	r = curl("trusted")
	if hits.Load() != 1 || strings.Join(denials(t, r), ",") != "Bash" {
		t.Errorf("trusted: %d hits, denials %v; the project's deny did not hold", hits.Load()-1, denials(t, r))
	}

	// The user's file: its deny beats the trusted project's allow.
	e.write(".claude/settings.json", `{"permissions": {"allow": ["Bash(curl:*)"]}}`)
	e.writeHome(".claude/settings.json", `{"permissions": {"deny": ["Bash(curl:*)"]}}`)
	r = curl("user-deny")
	if hits.Load() != 1 || strings.Join(denials(t, r), ",") != "Bash" {
		t.Errorf("user deny: %d hits, denials %v", hits.Load()-1, denials(t, r))
	}
}

// TestClaudeSettingsAllowE2E: an allow rule in a project's
// .claude/settings.json applies only once the folder is trusted (before,
// nobody is there to ask, so the call is denied and the notice names the
// file); the user's own ~/.claude/settings.json allows anywhere.
func TestClaudeSettingsAllowE2E(t *testing.T) {
	e := newE2E(t)
	e.write(".claude/settings.json", `{"permissions": {"allow": ["Bash(touch project*)"]}}`)
	e.writeHome(".claude/settings.json", `{"permissions": {"allow": ["Bash(touch user*)"]}}`)
	touch := func(name string) runResult {
		e.t.Helper()
		e.srv.Push(touchTurns(name)...)
		return e.run("", "-p", "--output-format", "json", "--no-sandbox", "make the file")
	}
	r := touch("project-untrusted")
	if e.exists("project-untrusted") || strings.Join(denials(t, r), ",") != "Bash" {
		t.Errorf("untrusted: the project's allow applied (denials %v)", denials(t, r))
	}
	if !strings.Contains(r.stderr, "ignoring permissions.allow in .claude/settings.json") {
		t.Errorf("untrusted: no notice of the ignored allow in stderr %q", r.stderr)
	}
	if r := touch("user-untrusted"); !e.exists("user-untrusted") {
		t.Errorf("untrusted: the user's own allow did not apply: %s %s", r.stdout, r.stderr)
	}
	if tr := e.run("", "trust"); tr.code != 0 {
		t.Fatalf("nova trust: %d %s", tr.code, tr.stderr)
	}
	if r := touch("project-trusted"); !e.exists("project-trusted") {
		t.Errorf("trusted: the project's allow did not apply: %s %s", r.stdout, r.stderr)
	}
}

// TestClaudeSettingsEnvE2E: the "env" of ~/.claude/settings.json reaches
// the commands the model runs; a project's only when trusted.
func TestClaudeSettingsEnvE2E(t *testing.T) {
	e := newE2E(t)
	e.writeHome(".claude/settings.json", `{"env": {"CC_USER_VAR": "from-user-file"}}`)
	e.write(".claude/settings.json", `{"env": {"CC_PROJECT_VAR": "from-project-file"}}`)
	echo := func(out string) string {
		e.t.Helper()
		e.srv.Push(bashTurns("toolu_env", `echo "u=$CC_USER_VAR p=$CC_PROJECT_VAR" > `+out)...)
		r := e.run("", "-p", "--output-format", "json", "--no-sandbox", "--allowedTools", "Bash", "show the env")
		b, err := os.ReadFile(filepath.Join(e.ws, out))
		if err != nil {
			t.Fatalf("the command did not run: %v; %s %s", err, r.stdout, r.stderr)
		}
		return strings.TrimSpace(string(b))
	}
	if got := echo("untrusted.txt"); got != "u=from-user-file p=" {
		t.Errorf("untrusted: the command saw %q", got)
	}
	if tr := e.run("", "trust"); tr.code != 0 {
		t.Fatalf("nova trust: %d %s", tr.code, tr.stderr)
	}
	if got := echo("trusted.txt"); got != "u=from-user-file p=from-project-file" {
		t.Errorf("trusted: the command saw %q", got)
	}
}

// TestClaudeSettingsDoctorE2E: nova doctor lists which of Claude Code's
// files supplied which keys, what it read but does not apply, and the
// untrusted project's grants among the ignored ones.
func TestClaudeSettingsDoctorE2E(t *testing.T) {
	e := newE2E(t)
	e.writeHome(".claude/settings.json", `{"permissions": {"deny": ["Bash(curl:*)"]}, "env": {"A": "1"}, "theme": "dark"}`)
	e.write(".claude/settings.json", `{"permissions": {"allow": ["Bash(make:*)"]}, "sandbox": {"network": {"allowedDomains": ["github.com"]}}}`)
	r := e.run("", "doctor", "--no-sandbox")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"Claude Code settings read (2):\n",
		"  ~/.claude/settings.json (user): env, permissions.deny\n",
		"  .claude/settings.json (project): permissions.allow, sandbox.network.allowedDomains\n",
		"    permissions.allow in .claude/settings.json: Bash(make:*)\n",
		"    sandbox.network in .claude/settings.json: allowedDomains: github.com\n",
		"rules: 0 allow, 0 ask, 1 deny",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestClaudeSettingsModelE2E: the "model" of ~/.claude/settings.json is
// the model the provider is asked for when neither --model nor
// NOVA_MODEL names one; --model wins; a model no provider here has
// ("opusplan", Claude Code's own mode) is not used, and stderr says so.
func TestClaudeSettingsModelE2E(t *testing.T) {
	e := newE2E(t)
	e.writeHome(".claude/settings.json", `{"model": "haiku"}`)
	lastModel := func() string {
		reqs := e.srv.Requests()
		if len(reqs) == 0 {
			t.Fatal("no request")
		}
		m, _ := reqs[len(reqs)-1].JSON()["model"].(string)
		return m
	}
	ask := func(args ...string) runResult {
		e.srv.Push(llmtest.Turn{Text: "Hi."})
		return e.run("", append([]string{"-p", "--no-sandbox"}, append(args, "hi")...)...)
	}
	if r := ask(); r.code != 0 || lastModel() != "claude-haiku-5-5" {
		t.Errorf("model setting: exit %d, asked for %q; %s", r.code, lastModel(), r.stderr)
	}
	if d := e.run("", "doctor", "--no-sandbox"); !strings.Contains(d.stdout, "default model: anthropic:claude-haiku-5-5\n    (the model setting \"haiku\" of ~/.claude/settings.json)") {
		t.Errorf("doctor:\n%s", d.stdout)
	}
	if r := ask("--model", "opus"); r.code != 0 || lastModel() != "claude-opus-5-5" {
		t.Errorf("--model opus: exit %d, asked for %q", r.code, lastModel())
	}
	e.writeHome(".claude/settings.json", `{"model": "opusplan"}`)
	r := ask()
	if r.code != 0 || lastModel() != defaultModel() || !strings.Contains(r.stderr, `not using the model "opusplan" of `) {
		t.Errorf("unknown model setting: exit %d, asked for %q; stderr %q", r.code, lastModel(), r.stderr)
	}
}

// TestClaudeDisableBypassE2E: a project's .claude/settings.json
// "disableBypassPermissionsMode": "disable" makes
// --permission-mode bypassPermissions (and
// --dangerously-skip-permissions) fail at start with a message naming
// the file, before any request; without it (the control) the run goes.
func TestClaudeDisableBypassE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "done"})
	// As root without the sandbox bypassPermissions is refused for
	// another reason (permission.CheckStartup): the control is then that
	// the refusal is not this one.
	root := os.Geteuid() == 0
	if r := e.run("", "-p", "--no-sandbox", "--permission-mode", "bypassPermissions", "hi"); (r.code != 0 && !root) || strings.Contains(r.stderr, "disableBypassPermissionsMode") {
		t.Fatalf("control: exit %d %s", r.code, r.stderr)
	}
	want := 1
	if root {
		want = 0
	}
	e.write(".claude/settings.json", `{"permissions": {"disableBypassPermissionsMode": "disable"}}`)
	for _, flags := range [][]string{{"--permission-mode", "bypassPermissions"}, {"--dangerously-skip-permissions"}} {
		args := append(append([]string{"-p", "--no-sandbox"}, flags...), "hi")
		r := e.run("", args...)
		if r.code == 0 || !strings.Contains(r.stderr, "disableBypassPermissionsMode") || !strings.Contains(r.stderr, filepath.Join(".claude", "settings.json")) {
			t.Errorf("%v: exit %d, stderr %q; want a refusal naming the file", flags, r.code, r.stderr)
		}
	}
	if n := len(e.srv.Requests()); n != want {
		t.Errorf("%d requests, want %d; the refused runs must send none", n, want)
	}
}
