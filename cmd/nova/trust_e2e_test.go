package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// trustResult is the part of the JSON result these tests read.
type trustResult struct {
	Subtype string `json:"subtype"`
	Ignored []struct {
		File    string `json:"file"`
		Setting string `json:"setting"`
	} `json:"ignored_project_settings"`
	Denials []e2eDenial `json:"permission_denials"`
}

func parseTrustResult(t *testing.T, stdout string) trustResult {
	t.Helper()
	var res trustResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not one JSON result: %v\n%s", err, stdout)
	}
	return res
}

// bashTurns scripts one Bash call and an answer.
func bashTurns(id, command string) []llmtest.Turn {
	return []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{ID: id, Name: "Bash", Input: jsonInput(map[string]any{"command": command})}}},
		{Text: "Done."},
	}
}

func (e *e2e) exists(name string) bool {
	_, err := os.Lstat(filepath.Join(e.ws, name))
	return err == nil
}

// userSettings writes NOVA_HOME/settings.json.
func (e *e2e) userSettings(content string) {
	e.t.Helper()
	p := filepath.Join(e.home, ".nova", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

const allowTouch = `{"permissions": {"allow": ["Bash(touch:*)"]}}`

const ignoredAllowLine = "nova: ignoring permissions.allow in .nova/settings.json: this folder is not trusted (run `nova trust` or pass --trust)\n"

func TestTrustProjectAllowNeedsTrust(t *testing.T) {
	t.Run("untrusted", func(t *testing.T) {
		e := newE2E(t, bashTurns("toolu_touch", "touch x")...)
		e.write(".nova/settings.json", allowTouch)
		r := e.run("", "-p", "--output-format", "json", "make x")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if e.exists("x") {
			t.Error("x was created: the untrusted project's allow rule applied")
		}
		if strings.Count(r.stderr, ignoredAllowLine) != 1 {
			t.Errorf("stderr does not name the ignored rule once:\n%s", r.stderr)
		}
		res := parseTrustResult(t, r.stdout)
		if len(res.Ignored) != 1 || res.Ignored[0].File != ".nova/settings.json" || res.Ignored[0].Setting != "permissions.allow" {
			t.Errorf("ignored_project_settings = %+v", res.Ignored)
		}
		if len(res.Denials) != 1 || res.Denials[0].ToolUseID != "toolu_touch" {
			t.Errorf("denials %s, want the touch", denialList(res.Denials))
		}
		if _, err := os.Stat(filepath.Join(e.home, ".nova", "trusted.json")); err == nil {
			t.Error("an untrusted run wrote the trust store")
		}
	})

	t.Run("told once per folder", func(t *testing.T) {
		e := newE2E(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"}, llmtest.Turn{Text: "three"})
		e.write(".nova/settings.json", allowTouch)
		first := e.run("", "-p", "hi")
		second := e.run("", "-p", "--output-format", "json", "hi")
		if first.code != 0 || second.code != 0 {
			t.Fatalf("exit %d, %d\n%s%s", first.code, second.code, first.stderr, second.stderr)
		}
		if !strings.Contains(first.stderr, ignoredAllowLine) || !strings.Contains(first.stderr, "nova trust") {
			t.Errorf("the first run does not say what is ignored and how to trust:\n%s", first.stderr)
		}
		if strings.Contains(second.stderr, "ignoring") {
			t.Errorf("the second run in the same folder says it again:\n%s", second.stderr)
		}
		if res := parseTrustResult(t, second.stdout); len(res.Ignored) != 1 {
			t.Errorf("the json result stopped listing the ignored setting: %+v", res.Ignored)
		}
		// A new grant in the folder is told of.
		e.write(".nova/settings.json", `{"permissions": {"allow": ["Bash(touch:*)"]}, "env": {"X": "1"}}`)
		third := e.run("", "-p", "hi")
		if !strings.Contains(third.stderr, "ignoring env") || strings.Count(third.stderr, "ignoring") != 1 {
			t.Errorf("a new grant is not told of alone:\n%s", third.stderr)
		}
	})

	t.Run("--trust", func(t *testing.T) {
		e := newE2E(t, bashTurns("toolu_touch", "touch x")...)
		e.write(".nova/settings.json", allowTouch)
		r := e.run("", "-p", "--output-format", "json", "--trust", "make x")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if !e.exists("x") {
			t.Errorf("x was not created with --trust; stderr:\n%s", r.stderr)
		}
		res := parseTrustResult(t, r.stdout)
		if res.Ignored == nil || len(res.Ignored) != 0 || len(res.Denials) != 0 || strings.Contains(r.stderr, "ignoring") {
			t.Errorf("trusted run: ignored %+v, denials %s, stderr %s", res.Ignored, denialList(res.Denials), r.stderr)
		}
		// --trust is for one run: nothing is stored.
		if _, err := os.Stat(filepath.Join(e.home, ".nova", "trusted.json")); err == nil {
			t.Error("--trust wrote the trust store")
		}
	})

	t.Run("nova trust", func(t *testing.T) {
		e := newE2E(t, bashTurns("toolu_touch", "touch x")...)
		e.write(".nova/settings.json", allowTouch)
		r := e.run("", "trust")
		if r.code != 0 || !strings.Contains(r.stdout, "Trusted: "+e.ws) || !strings.Contains(r.stdout, "permissions.allow in .nova/settings.json: Bash(touch:*)") {
			t.Fatalf("nova trust: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		r = e.run("", "-p", "--output-format", "json", "make x")
		if r.code != 0 || !e.exists("x") {
			t.Errorf("after nova trust x was not created: exit %d\n%s", r.code, r.stderr)
		}
	})

	t.Run("stream-json", func(t *testing.T) {
		e := newE2E(t, bashTurns("toolu_touch", "touch x")...)
		e.write(".nova/settings.json", allowTouch)
		r := e.run("", "-p", "--output-format", "stream-json", "make x")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		res := parseTrustResult(t, lines[len(lines)-1])
		if len(res.Ignored) != 1 || res.Ignored[0].Setting != "permissions.allow" || e.exists("x") {
			t.Errorf("result line %s", lines[len(lines)-1])
		}
	})
}

// TestTrustProjectDenyAppliesUntrusted checks a project's deny rule holds
// in a folder nobody trusted; the allowed neighbour call is the control.
func TestTrustProjectDenyAppliesUntrusted(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{
			{ID: "toolu_x", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch x"})},
			{ID: "toolu_y", Name: "Bash", Input: jsonInput(map[string]any{"command": "touch y"})},
		}},
		llmtest.Turn{Text: "Done."},
	)
	e.write(".nova/settings.json", `{"permissions": {"deny": ["Bash(touch x)"]}}`)
	r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Bash", "make x and y")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if e.exists("x") {
		t.Error("x was created: the project's deny rule did not apply untrusted")
	}
	if !e.exists("y") {
		t.Errorf("y was not created (the control); stderr:\n%s", r.stderr)
	}
	res := parseTrustResult(t, r.stdout)
	if len(res.Denials) != 1 || res.Denials[0].ToolUseID != "toolu_x" || res.Denials[0].Layer != "rule" {
		t.Errorf("denials %s", denialList(res.Denials))
	}
	if len(res.Ignored) != 0 {
		t.Errorf("a deny rule was reported as an ignored grant: %+v", res.Ignored)
	}
}

// TestTrustLocalBypassIgnoredUntrusted: settings.local.json is in the
// repository's tree too, so an attacker can commit it.
func TestTrustLocalBypassIgnoredUntrusted(t *testing.T) {
	e := newE2E(t, bashTurns("toolu_touch", "touch x")...)
	e.write(".nova/settings.local.json", `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	r := e.run("", "-p", "--output-format", "stream-json", "make x")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var init struct {
		Mode string `json:"permissionMode"`
	}
	_ = json.Unmarshal([]byte(lines[0]), &init)
	if init.Mode != "default" || e.exists("x") {
		t.Errorf("untrusted: mode %q, x created %v", init.Mode, e.exists("x"))
	}
	want := "nova: ignoring permissions.defaultMode in .nova/settings.local.json: this folder is not trusted"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}

	// Trusted, the mode applies (as root only with a working sandbox,
	// which is on by default).
	e.srv.Push(bashTurns("toolu_touch2", "touch x")...)
	r = e.run("", "-p", "--output-format", "stream-json", "--trust", "make x")
	if r.code == 2 && strings.Contains(r.stderr, "root") {
		t.Skipf("bypassPermissions as root needs the sandbox, which cannot run here: %s", r.stderr)
	}
	lines = strings.Split(strings.TrimSpace(r.stdout), "\n")
	_ = json.Unmarshal([]byte(lines[0]), &init)
	if init.Mode != "bypassPermissions" || !e.exists("x") {
		t.Errorf("trusted: mode %q, x created %v\n%s", init.Mode, e.exists("x"), r.stderr)
	}
}

func TestTrustProjectEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"untrusted", nil, "p= u=from-user\n"},
		{"trusted", []string{"--trust"}, "p=from-project u=from-user\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, bashTurns("toolu_env", `echo "p=$NOVA_PROBE u=$NOVA_USER" > env.txt`)...)
			e.userSettings(`{"env": {"NOVA_USER": "from-user"}}`)
			e.write(".nova/settings.json", `{"env": {"NOVA_PROBE": "from-project"}}`)
			args := append([]string{"-p", "--output-format", "json", "--allowedTools", "Bash,Edit"}, tc.args...)
			r := e.run("", append(args, "print the env")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if got := e.read("env.txt"); got != tc.want {
				t.Errorf("env.txt = %q, want %q", got, tc.want)
			}
			if ignored := strings.Contains(r.stderr, "ignoring env in .nova/settings.json"); ignored != (tc.args == nil) {
				t.Errorf("stderr:\n%s", r.stderr)
			}
		})
	}
}

func TestTrustCommand(t *testing.T) {
	e := newE2E(t)
	sub := filepath.Join(e.ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := e.run("", "trust", "--list"); r.code != 0 || !strings.Contains(r.stdout, "No trusted folders") {
		t.Errorf("empty list: %d %q", r.code, r.stdout)
	}
	if r := e.run("", "trust"); r.code != 0 || !strings.Contains(r.stdout, "Trusted: "+e.ws) || !strings.Contains(r.stdout, "grant nothing yet") {
		t.Errorf("trust: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := e.run("", "trust", sub); r.code != 0 || !strings.Contains(r.stdout, "through "+e.ws) {
		t.Errorf("trust of a trusted subdirectory: %d %q", r.code, r.stdout)
	}
	r := e.run("", "trust", "--list")
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], e.ws+"\t") {
		t.Errorf("list: %q", r.stdout)
	}
	if r := e.run("", "trust", "--revoke", sub); r.code != 1 || !strings.Contains(r.stderr, "through "+e.ws) {
		t.Errorf("revoking a subdirectory: %d %q", r.code, r.stderr)
	}
	if r := e.run("", "trust", "--revoke"); r.code != 0 || !strings.Contains(r.stdout, "No longer trusted: "+e.ws) {
		t.Errorf("revoke: %d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := e.run("", "trust", "--revoke"); r.code != 1 || !strings.Contains(r.stderr, "not trusted") {
		t.Errorf("second revoke: %d %q", r.code, r.stderr)
	}
	if r := e.run("", "trust", filepath.Join(e.ws, "missing")); r.code == 0 {
		t.Errorf("trusting a missing directory: %q", r.stdout)
	}
	if r := e.run("", "trust", e.home); r.code != 0 || !strings.Contains(r.stdout, "every project in your home directory") {
		t.Errorf("trusting the home directory gives no warning: %d %q", r.code, r.stdout)
	}
	if r := e.run("", "trust", "--revoke", e.home); r.code != 0 {
		t.Errorf("revoke home: %d %q", r.code, r.stderr)
	}
	var doc struct {
		Trusted []struct{ Path string } `json:"trusted"`
	}
	data, err := os.ReadFile(filepath.Join(e.home, ".nova", "trusted.json"))
	if err != nil || json.Unmarshal(data, &doc) != nil || len(doc.Trusted) != 0 {
		t.Errorf("trusted.json after revoke: %s %v", data, err)
	}
}

func TestDoctorTrust(t *testing.T) {
	e := newE2E(t)
	e.write(".nova/settings.json", `{"permissions": {"allow": ["Bash(touch:*)"]}, "sandbox": {"enabled": false}}`)
	r := e.run("", "doctor")
	for _, want := range []string{
		e.ws + ": not trusted",
		"permissions.allow in .nova/settings.json: Bash(touch:*)",
		"sandbox.enabled in .nova/settings.json: false",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("untrusted doctor lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "in force: on by default") {
		t.Errorf("the untrusted project turned the sandbox off:\n%s", r.stdout)
	}
	e.run("", "trust")
	r = e.run("", "doctor")
	if !strings.Contains(r.stdout, e.ws+": trusted (nova trust)") || !strings.Contains(r.stdout, "in force: off by setting (sandbox.enabled in .nova/settings.json)") {
		t.Errorf("trusted doctor:\n%s", r.stdout)
	}
	sub := filepath.Join(e.ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	e.ws = sub
	r = e.run("", "doctor", "--no-sandbox")
	if !strings.Contains(r.stdout, "trusted by an ancestor: "+filepath.Dir(sub)) || !strings.Contains(r.stdout, "in force: off for this run (--no-sandbox)") {
		t.Errorf("doctor in a subdirectory:\n%s", r.stdout)
	}
}

// TestFlagsContradict: --sandbox and --no-sandbox together is bad usage.
func TestFlagsContradict(t *testing.T) {
	e := newE2E(t)
	r := e.run("", "-p", "--sandbox", "--no-sandbox", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "contradict") || len(e.srv.Requests()) != 0 {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
}

// ignoredSettings lists a JSON result's ignored settings as file:setting.
func ignoredSettings(res trustResult) []string {
	var out []string
	for _, ig := range res.Ignored {
		out = append(out, ig.File+":"+ig.Setting)
	}
	slices.Sort(out)
	return out
}
