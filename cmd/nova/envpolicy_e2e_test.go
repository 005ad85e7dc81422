package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// The environment policy end to end (issue 22, docs/sandbox.md#environment):
// nova runs with its provider key, the remote's token and secret-named
// variables in its environment, and what each program it starts was given
// is read back from where a user would see it: the tool result the
// provider received, a file a hook wrote, the process table.

// envSecrets are the secrets nova's environment holds, by name, with
// values no other text contains: a value found in a program's output is a
// leak. ANTHROPIC_API_KEY is the key nova itself uses (newE2E's provider).
func envSecrets() map[string]string {
	return map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-e2e-sentinel-key",
		"GITHUB_TOKEN":      "ghp_e2e_sentinel_token",
		"MY_SERVICE_SECRET": "svc-e2e-sentinel-secret",
		"NOVA_SERVER_TOKEN": "remote-e2e-sentinel-token",
		"DB_PASSWORD":       "db-e2e-sentinel-password",
	}
}

// plainVar is the ordinary variable every program must still get: the
// positive control, which a policy that drops everything fails.
const plainVar = "NOVA_PLAIN=visible"

// withSecrets puts envSecrets and plainVar into e's environment, the
// provider's key replaced by the sentinel one.
func withSecrets(e *e2e) {
	secrets := envSecrets()
	env := e.env[:0:0]
	for _, kv := range e.env {
		if !strings.HasPrefix(kv, "ANTHROPIC_API_KEY=") {
			env = append(env, kv)
		}
	}
	for k, v := range secrets {
		env = append(env, k+"="+v)
	}
	e.env = append(env, plainVar)
}

// checkEnv fails the test when out (a program's environment, as text)
// holds a secret other than those named in pass, or lacks one of want.
func checkEnv(t *testing.T, what, out string, pass []string, want ...string) {
	t.Helper()
	for name, value := range envSecrets() {
		passed := slices.Contains(pass, name)
		if got := strings.Contains(out, value); got != passed {
			t.Errorf("%s: %s reached it = %v, want %v\n%s", what, name, got, passed, out)
		}
	}
	for _, w := range append(want, plainVar) {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %s:\n%s", what, w, out)
		}
	}
}

// TestEnvPolicyBashE2E: a Bash env, inside the sandbox and outside it,
// shows none of nova's secrets and does show the ordinary variable; the
// settings' env passes (the user's words), and envPassthrough brings
// GITHUB_TOKEN back, but not the provider key a glob would match.
func TestEnvPolicyBashE2E(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sandbox  bool
		settings string
		pass     []string
		want     []string
	}{
		{name: "sandboxed", sandbox: true},
		{name: "--no-sandbox"},
		{name: "settings env", settings: `{"env": {"SETTINGS_API_KEY": "from-settings"}}`, want: []string{"SETTINGS_API_KEY=from-settings"}},
		{name: "passthrough", settings: `{"envPassthrough": ["GITHUB_TOKEN", "*_API_KEY"]}`, pass: []string{"GITHUB_TOKEN"}},
		{name: "passthrough, sandboxed", sandbox: true, settings: `{"envPassthrough": ["GITHUB_TOKEN"]}`, pass: []string{"GITHUB_TOKEN"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sandbox {
				sandboxWorks(t)
			}
			e := newE2E(t, bashTurns("toolu_env", "env")...)
			withSecrets(e)
			if tc.settings != "" {
				e.userSettings(tc.settings)
			}
			args := []string{"-p", "--allowedTools", "Bash(env)"}
			if tc.sandbox {
				args = append(args, "--sandbox")
			} else {
				args = append(args, "--no-sandbox")
			}
			if r := e.run("", append(args, "show the environment")...); r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			checkEnv(t, "Bash's env", toolResultOf(e.srv.Requests(), "toolu_env"), tc.pass, tc.want...)
		})
	}
}

// TestEnvPolicyCommandLineE2E: a command's ! line runs env through the
// same Bash: the expanded prompt the provider receives holds no secret.
func TestEnvPolicyCommandLineE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Seen."})
	withSecrets(e)
	e.writeHome(".nova/commands/showenv.md", "---\ndescription: Show the environment\nallowed-tools: Bash(env)\n---\nThe environment:\n!`env`\n")
	if r := e.run("", "-p", "/showenv"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the provider got no request")
	}
	got := lastUserText(t, reqs[0])
	if !strings.Contains(got, "PATH=") {
		t.Fatalf("the ! line's output is not in the prompt:\n%s", got)
	}
	checkEnv(t, "the ! line's env", got, nil)
}

// TestEnvPolicyMCPE2E: a stdio MCP server reports the environment it was
// started with: no secret of nova's, the ordinary variable, and what its
// entry configures (which passes, secret-named or not).
func TestEnvPolicyMCPE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_environ", Name: "mcp__t__environ", Input: jsonInput(map[string]any{})}}},
		llmtest.Turn{Text: "Done."},
	)
	withSecrets(e)
	env := map[string]string{"SERVICE_API_KEY": "configured-for-the-server"}
	for _, kv := range mcptest.StdioEnv(mcptest.Options{}) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"t": map[string]any{"command": os.Args[0], "env": env}}})
	file := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(file, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.run("", "-p", "--mcp-config", file, "--allowedTools", "mcp__t__environ", "show the server's environment"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkEnv(t, "the MCP server's environment", toolResultOf(e.srv.Requests(), "toolu_environ"), nil, "SERVICE_API_KEY=configured-for-the-server")
}

// TestEnvPolicyHookE2E: a hook is the user's own program: it sees the
// user's secret-named variables, GITHUB_TOKEN among them, but not nova's
// provider key nor the remote's token.
func TestEnvPolicyHookE2E(t *testing.T) {
	e := newE2E(t, bashTurns("toolu_true", "true")...)
	withSecrets(e)
	e.userHooks(commandHook("PreToolUse", "Bash", "env > hook-env.txt"))
	if r := e.run("", "-p", "--no-sandbox", "--allowedTools", "Bash(true)", "run true"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	checkEnv(t, "the hook's environment", e.read("hook-env.txt"), []string{"GITHUB_TOKEN", "MY_SERVICE_SECRET", "DB_PASSWORD"})
}

// readClaudeJSON is a program the permission checker cannot see into (it
// reads shell scripts, not awk) that cats ~/.claude.json and then says
// how getline ended: 0 is the end of a file it could read.
const readClaudeJSON = `BEGIN { f = ENVIRON["HOME"] "/.claude.json"; while ((r = (getline l < f)) > 0) print l; print "[read " r "]" }
`

// TestEnvPolicyMaskedClaudeJSON: ~/.claude.json holds Claude Code's MCP
// servers' headers. The checker asks before a command that names it; a
// program it cannot see into reads it anyway, so the sandbox is what
// stops it: inside, the file reads as empty; outside (the positive
// control) the same program prints it.
func TestEnvPolicyMaskedClaudeJSON(t *testing.T) {
	sandboxWorks(t)
	const secret = "claude-json-sentinel-header"
	for _, tc := range []struct {
		name   string
		flag   string
		leaked bool
	}{
		{name: "sandboxed", flag: "--sandbox"},
		{name: "--no-sandbox", flag: "--no-sandbox", leaked: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, bashTurns("toolu_cat", "awk -f read.awk")...)
			e.writeHome(".claude.json", `{"mcpServers": {"api": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer `+secret+`"}}}}`)
			e.write("read.awk", readClaudeJSON)
			if r := e.run("", "-p", tc.flag, "--strict-mcp-config", "--allowedTools", "Bash(awk -f read.awk)", "read it"); r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			out := toolResultOf(e.srv.Requests(), "toolu_cat")
			if !strings.Contains(out, "[read 0]") {
				t.Fatalf("the script did not read the file cleanly: %s", out)
			}
			if got := strings.Contains(out, secret); got != tc.leaked {
				t.Errorf("the header was read = %v, want %v: %s", got, tc.leaked, out)
			}
		})
	}
}

// TestEnvPolicyTeammateE2E: a teammate is a nova: it is started with its
// provider's key (its requests carry it) and the passthrough variable,
// and with no other secret; its own Bash then drops the key again.
func TestEnvPolicyTeammateE2E(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("reads the teammate's environment from /proc")
	}
	e := newE2E(t, bashTurns("toolu_tenv", "env")...)
	withSecrets(e)
	e.userSettings(`{"envPassthrough": ["GITHUB_TOKEN"]}`)
	initRepo(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rt, lead := startLead(ctx, t, e, live.Options{NoSandbox: true, AllowedTools: []string{"Bash(env)"}})
	raw, _ := json.Marshal(map[string]string{"name": "bob", "prompt": "Show your environment."})
	if r := rt.Pipeline.Run(ctx, tools.Call{ID: "c-spawn", Name: "TeamSpawn", Input: raw}, rt.Env).Result; r.IsError {
		t.Fatalf("TeamSpawn: %+v", r)
	}
	// Stopped before the temporary directories it writes in are removed.
	exited := lead.Exited("bob")
	t.Cleanup(func() {
		if err := lead.Shutdown("bob"); err != nil {
			t.Error(err)
		}
		select {
		case <-exited:
		case <-time.After(time.Minute):
			t.Error("bob did not stop on the shutdown message")
		}
	})
	// bob answers once its turn is done, and runs on until told to stop:
	// its process is there to read.
	awaitMessages(ctx, t, lead)
	bob, _, _ := lead.Team.Member("bob")
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", bob.PID))
	if err != nil {
		t.Fatalf("the teammate's environment: %v", err)
	}
	procEnv := strings.ReplaceAll(string(environ), "\x00", "\n")
	checkEnv(t, "the teammate's process", procEnv, []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN"})
	checkEnv(t, "the teammate's Bash env", toolResultOf(e.srv.Requests(), "toolu_tenv"), []string{"GITHUB_TOKEN"})
	for _, r := range e.srv.Requests() {
		if k := r.Header.Get("X-Api-Key"); k != envSecrets()["ANTHROPIC_API_KEY"] {
			t.Errorf("a teammate's request carried x-api-key %q, want the lead's key", k)
		}
	}
}

// TestEnvPolicyTypedShell: !env, typed in the terminal UI, is a Bash call
// through the session's pipeline, in this process's environment: none of
// the secrets in it reaches the command, the ordinary variable does.
func TestEnvPolicyTypedShell(t *testing.T) {
	w := newInteractiveWorld(t)
	for k, v := range envSecrets() {
		t.Setenv(k, v)
	}
	name, value, _ := strings.Cut(plainVar, "=")
	t.Setenv(name, value)
	w.start(t, buildOptions{noSandbox: true})
	out, err := w.b.Shell(context.Background(), "env")
	if err != nil {
		t.Fatal(err)
	}
	checkEnv(t, "!env", out, nil)
}
