package main

import (
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// escapeScript is a program the permission checker cannot see into (it
// reads shell scripts, not awk): it writes to the home directory. Only the
// sandbox stops it.
const escapeScript = "BEGIN { system(\"touch \\\"\" ENVIRON[\"HOME\"] \"/escaped\\\"\") }\n"

// sandboxWorks skips the test unless the sandbox runs on this machine.
func sandboxWorks(t *testing.T) {
	t.Helper()
	if goruntime.GOOS != "linux" {
		t.Skip("the e2e sandbox tests drive bwrap")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap not installed")
	}
	e := newE2E(t, llmtest.Turn{Text: "ok"})
	if r := e.run("", "-p", "--sandbox", "probe"); r.code != 0 || strings.Contains(r.stderr, "cannot run") {
		t.Skipf("the sandbox does not work here: exit %d: %s", r.code, r.stderr)
	}
}

func TestSandboxOnByDefault(t *testing.T) {
	sandboxWorks(t)
	for _, tc := range []struct {
		name        string
		user        string // NOVA_HOME/settings.json
		project     string // .nova/settings.json
		args        []string
		escaped     bool
		wantIgnored string
	}{
		{name: "default", escaped: false},
		{name: "--no-sandbox", args: []string{"--no-sandbox"}, escaped: true},
		{name: "user setting off", user: `{"sandbox": {"enabled": false}}`, escaped: true},
		{name: "untrusted project setting off", project: `{"sandbox": {"enabled": false}}`, escaped: false, wantIgnored: "sandbox.enabled"},
		{name: "trusted project setting off", project: `{"sandbox": {"enabled": false}}`, args: []string{"--trust"}, escaped: true},
		{name: "untrusted project network", project: `{"sandbox": {"network": true, "autoAllow": true}}`, escaped: false, wantIgnored: "sandbox.network"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, bashTurns("toolu_sh", "awk -f w.awk")...)
			e.write("w.awk", escapeScript)
			if tc.user != "" {
				e.userSettings(tc.user)
			}
			if tc.project != "" {
				e.write(".nova/settings.json", tc.project)
			}
			args := append([]string{"-p", "--output-format", "json", "--allowedTools", "Bash"}, tc.args...)
			r := e.run("", append(args, "run the script")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			_, err := os.Lstat(filepath.Join(e.home, "escaped"))
			if escaped := err == nil; escaped != tc.escaped {
				t.Errorf("$HOME/escaped written: %v, want %v\nstderr: %s", escaped, tc.escaped, r.stderr)
			}
			res := parseTrustResult(t, r.stdout)
			if len(res.Denials) != 0 {
				t.Errorf("denials %s: the command must run (and be stopped by the sandbox, or not)", denialList(res.Denials))
			}
			if tc.wantIgnored != "" && !strings.Contains(strings.Join(ignoredSettings(res), " "), ".nova/settings.json:"+tc.wantIgnored) {
				t.Errorf("ignored %v, want %s", ignoredSettings(res), tc.wantIgnored)
			}
			if strings.Contains(r.stderr, "cannot run") {
				t.Errorf("a notice about a sandbox that works: %s", r.stderr)
			}
		})
	}
}

// fakeBwrap puts a bwrap first on PATH that fails the way bwrap does
// where user namespaces are disabled.
func fakeBwrap(t *testing.T, e *e2e) {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "PATH=") {
			e.env[i] = "PATH=" + dir + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
}

func TestSandboxDefaultUnavailable(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("the fake sandbox is a bwrap")
	}
	t.Run("on by default: the checker alone, with a notice", func(t *testing.T) {
		e := newE2E(t, bashTurns("toolu_touch", "touch x")...)
		fakeBwrap(t, e)
		r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Bash", "make x")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		const notice = "nova: warning: the Bash sandbox (on by default) cannot run here: "
		if strings.Count(r.stderr, notice) != 1 || !strings.Contains(r.stderr, "user namespaces disabled") || !strings.Contains(r.stderr, `"enabled": false`) {
			t.Errorf("stderr does not give the notice once with the reason and the fix:\n%s", r.stderr)
		}
		if !e.exists("x") {
			t.Error("x was not created: an allowed command must run where the default sandbox cannot")
		}
	})
	t.Run("asked for: refused", func(t *testing.T) {
		e := newE2E(t, bashTurns("toolu_touch", "touch x")...)
		fakeBwrap(t, e)
		r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Bash", "--sandbox", "make x")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "the Bash sandbox is enabled but cannot run") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
		res := parseTrustResult(t, r.stdout)
		// Nobody can approve in print mode: the sandbox's ask is a denial.
		if e.exists("x") || len(res.Denials) != 1 || !strings.Contains(res.Denials[0].Reason, "sandbox") {
			t.Errorf("x created %v, denials %+v", e.exists("x"), res.Denials)
		}
	})
}

// TestSandboxProbeCached checks the probe's trial run happens once, not at
// every start, and again when bwrap changes.
func TestSandboxProbeCached(t *testing.T) {
	sandboxWorks(t)
	real, _ := exec.LookPath("bwrap")
	e := newE2E(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"}, llmtest.Turn{Text: "three"})
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	wrapper := filepath.Join(dir, "bwrap")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "PATH=") {
			e.env[i] = "PATH=" + dir + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	calls := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "\n")
	}
	for i, want := range []int{1, 1} {
		if r := e.run("", "-p", "hi"); r.code != 0 || strings.Contains(r.stderr, "cannot run") {
			t.Fatalf("run %d: exit %d\n%s", i+1, r.code, r.stderr)
		}
		if got := calls(); got != want {
			t.Errorf("after run %d bwrap ran %d times, want %d", i+1, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, ".nova", "cache", "sandbox-probe.json")); err != nil {
		t.Errorf("no probe cache: %v", err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(wrapper, later, later); err != nil {
		t.Fatal(err)
	}
	if r := e.run("", "-p", "hi"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := calls(); got != 2 {
		t.Errorf("after bwrap changed it ran %d times in all, want a new probe (2)", got)
	}
}

// TestSandboxDenyReadFromUntrustedProject: sandbox.denyRead restricts, so
// a project file's list applies in a folder nobody trusted.
func TestSandboxDenyReadFromUntrustedProject(t *testing.T) {
	sandboxWorks(t)
	for _, tc := range []struct {
		name    string
		project string
		leaks   bool
	}{
		{"control: no denyRead", `{}`, true},
		{"denyRead", `{"sandbox": {"denyRead": ["secret.txt"]}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newE2E(t, bashTurns("toolu_cat", "sh r.sh")...)
			e.write("secret.txt", "TOP-SECRET-4711\n")
			e.write("r.sh", "cat secret.txt\n")
			e.write(".nova/settings.json", tc.project)
			r := e.run("", "-p", "--output-format", "json", "--allowedTools", "Bash", "read it")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			reqs := e.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests", len(reqs))
			}
			res := toolResultsOf(t, reqs[1])["toolu_cat"]
			if leaked := strings.Contains(res.Text, "TOP-SECRET-4711"); leaked != tc.leaks {
				t.Errorf("the model saw the secret: %v, want %v (%+v)", leaked, tc.leaks, res)
			}
		})
	}
}
