package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBwrapCredentialsMasked reads credentials from a fake home inside the
// sandbox, with cat, python3 and the shell, and looks for the secret in the
// output. A file in the same home that is not a credential stays readable.
func TestBwrapCredentialsMasked(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, home, "proj")
	secret := "SECRET-" + uniqueName()
	public := "PUBLIC-" + uniqueName()

	mkdir(t, home, ".ssh")
	writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), secret)
	mkdir(t, home, ".aws")
	writeFile(t, filepath.Join(home, ".aws", "credentials"), "[default]\naws_secret_access_key = "+secret+"\n")
	writeFile(t, filepath.Join(home, ".netrc"), "machine example.com password "+secret+"\n")
	mkdir(t, home, ".nova")
	writeFile(t, filepath.Join(home, ".nova", "config.json"), `{"providers":[{"api_key":"`+secret+`"}]}`)
	// MCP servers' headers and env, in Claude Code's file and nova's, and
	// nova's stored OAuth logins.
	writeFile(t, filepath.Join(home, ".claude.json"), `{"mcpServers":{"api":{"headers":{"Authorization":"Bearer `+secret+`"}}}}`)
	writeFile(t, filepath.Join(home, ".nova", "settings.json"), `{"mcpServers":{"api":{"env":{"API_KEY":"`+secret+`"}}}}`)
	mkdir(t, home, ".nova/mcp-auth")
	writeFile(t, filepath.Join(home, ".nova", "mcp-auth", "api.json"), `{"token":{"access_token":"`+secret+`"}}`)
	// A credential that is a link elsewhere: what it points to is hidden
	// too, however it is named. Outside /tmp where possible, since the
	// private /tmp would hide it anyway.
	elsewhere := outsideTmp(t, root, "elsewhere")
	writeFile(t, filepath.Join(elsewhere, "git-credentials"), "https://u:"+secret+"@example.com\n")
	if err := os.Symlink(filepath.Join(elsewhere, "git-credentials"), filepath.Join(home, ".git-credentials")); err != nil {
		t.Fatal(err)
	}
	// A path the settings add.
	vault := outsideTmp(t, root, "vault")
	writeFile(t, filepath.Join(vault, "token"), secret)
	// The positive control.
	writeFile(t, filepath.Join(home, "notes.txt"), public)

	sb := realSandbox(t, Config{Workspace: ws, Home: home, Mask: []string{vault}})
	paths := []string{
		filepath.Join(home, ".ssh", "id_rsa"),
		filepath.Join(home, ".aws", "credentials"),
		filepath.Join(home, ".netrc"),
		filepath.Join(home, ".nova", "config.json"),
		filepath.Join(home, ".claude.json"),
		filepath.Join(home, ".nova", "settings.json"),
		filepath.Join(home, ".nova", "mcp-auth", "api.json"),
		filepath.Join(home, ".git-credentials"),
		filepath.Join(elsewhere, "git-credentials"),
		filepath.Join(vault, "token"),
	}
	readers := [][]string{
		{"cat"},
		{"sh", "-c", `while IFS= read -r l || [ -n "$l" ]; do echo "$l"; done < "$1"`, "sh"},
	}
	if _, err := exec.LookPath("python3"); err == nil {
		readers = append(readers, []string{"python3", "-c", "import sys; print(open(sys.argv[1]).read())"})
	}
	for _, p := range paths {
		for _, r := range readers {
			out, _ := run(t, sb, "", append(r, p)...)
			if strings.Contains(out, secret) {
				t.Errorf("%s %s printed the secret: %s", r[0], p, out)
			}
		}
	}
	// Files read as empty, not as an error: tools that find a credential
	// file carry on as if it held nothing.
	for _, p := range []string{filepath.Join(home, ".netrc"), filepath.Join(home, ".nova", "config.json"), filepath.Join(home, ".claude.json")} {
		out, err := run(t, sb, "", "sh", "-c", `test -f "$1" && test ! -s "$1" && cat "$1"`, "sh", p)
		if err != nil || out != "" {
			t.Errorf("%s: want an empty readable file, got %v: %q", p, err, out)
		}
	}
	// Directories read as empty.
	out, err := run(t, sb, "", "ls", "-A", filepath.Join(home, ".ssh"), filepath.Join(vault), filepath.Join(home, ".nova", "mcp-auth"))
	if err != nil || strings.Contains(out, "id_rsa") || strings.Contains(out, "token") || strings.Contains(out, "api.json") {
		t.Errorf("masked directories list %v: %q", err, out)
	}
	// Nor can anything be written there.
	if out, err := run(t, sb, "", "sh", "-c", `echo x > "$1"/authorized_keys`, "sh", filepath.Join(home, ".ssh")); err == nil {
		t.Errorf("wrote into the masked ~/.ssh: %s", out)
	}

	// Positive control: a file in the same home is readable, and the
	// workspace is as usual.
	out, err = run(t, sb, "", "cat", filepath.Join(home, "notes.txt"))
	if err != nil || !strings.Contains(out, public) {
		t.Errorf("notes.txt: %v: %q, want %s", err, out, public)
	}
	if out, err := run(t, sb, "", "sh", "-c", "echo written > out.txt && cat out.txt"); err != nil || !strings.Contains(out, "written") {
		t.Errorf("workspace: %v: %s", err, out)
	}
	// The host is untouched.
	if b, _ := os.ReadFile(filepath.Join(home, ".netrc")); !strings.Contains(string(b), secret) {
		t.Error("the host's .netrc changed")
	}
}

// TestBwrapWorkspaceInsideMask checks a workspace inside a credential
// directory: the user's choice, so that directory is not hidden.
func TestBwrapWorkspaceInsideMask(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, home, ".config", "gh", "proj")
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	sb := realSandbox(t, Config{Workspace: ws, Home: home})
	if len(sb.Warnings()) == 0 {
		t.Error("no warning for the mask left off")
	}
	out, err := run(t, sb, "", "sh", "-c", "cat main.go && echo written > out.txt")
	if err != nil || !strings.Contains(out, "package main") || !hostHasWrite(filepath.Join(ws, "out.txt")) {
		t.Errorf("workspace inside ~/.config/gh: %v: %s", err, out)
	}
}

// outsideTmp makes a directory outside /tmp (in /var/tmp) when it can, so
// the sandbox's private /tmp does not hide it; otherwise one in the home.
func outsideTmp(t *testing.T, root, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "nova-sandbox-test-")
	if err != nil {
		return mkdir(t, root, "home", name)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}
