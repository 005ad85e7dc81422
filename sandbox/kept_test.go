package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBwrapKeptPlaceholderChanged changes, from outside and between two
// sandboxed commands, what the Sandbox keeps on the disk for the next
// command: a placeholder removed, a placeholder replaced by a directory of
// the user's, another written into by nova or the user's editor, and a
// repository made with git init where there was none. Each next command
// plans for what is there now: it runs, and its attack on what runs later
// outside the sandbox changes nothing on the disk.
func TestBwrapKeptPlaceholderChanged(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	home := mkdir(t, root, "home")
	sb := realSandbox(t, Config{Workspace: ws, Home: home})
	mustRun := func(script string) {
		t.Helper()
		if out, err := run(t, sb, "", "sh", "-c", script); err != nil {
			t.Fatalf("%s: %v: %s", script, err, out)
		}
	}
	attack := func(script string, paths ...string) {
		t.Helper()
		if out, err := run(t, sb, "", "sh", "-c", script); err == nil {
			t.Errorf("%s: succeeded: %s", script, out)
		}
		for _, p := range paths {
			if b, err := os.ReadFile(filepath.Join(ws, p)); err == nil && string(b) == "attack\n" {
				t.Errorf("%s: %s written on the host", script, p)
			}
		}
	}
	vscode, nova := filepath.Join(ws, ".vscode"), filepath.Join(ws, ".nova")

	mustRun("true")
	if !isPlaceholderDirPath(vscode) {
		t.Fatal("no .vscode placeholder kept after the first command")
	}
	if fi, err := os.Stat(vscode); err != nil || fi.Mode().Perm()&0o200 == 0 {
		// Outside, nova and the user's editor must be able to write in it.
		t.Errorf("kept placeholder not writable by its owner outside: %v, %v", fi.Mode(), err)
	}

	// Removed outside: made again for the next command, which would fail
	// (nothing to bind) if the one kept were trusted blindly.
	if err := os.Remove(vscode); err != nil {
		t.Fatal(err)
	}
	mustRun("true")
	attack(`mkdir -p .vscode && echo attack > .vscode/settings.json`, ".vscode/settings.json")
	if !isPlaceholderDirPath(vscode) {
		t.Error("the removed placeholder was not made again")
	}

	// The user's own .vscode in its place, and nova's always-allow rule
	// written into the kept .nova: both are protected as they are now.
	if err := os.Remove(vscode); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mkdir(t, vscode), "settings.json"), "{}\n")
	writeFile(t, filepath.Join(nova, "settings.local.json"), "{}\n")
	attack(`echo attack > .vscode/settings.json`, ".vscode/settings.json")
	attack(`echo attack > .vscode/tasks.json`, ".vscode/tasks.json")
	attack(`echo attack > .nova/settings.local.json`, ".nova/settings.local.json")
	attack(`mv .nova .nova-old && mkdir .nova && echo attack > .nova/settings.json`, ".nova/settings.json")
	attack(`echo attack > .nova/settings.json`, ".nova/settings.json")

	// A repository made outside where there was none.
	gitRun(t, home, ws, "init", "-q")
	hook := filepath.Join(".git", "hooks", "pre-commit")
	attack(`mkdir -p .git/hooks && echo attack > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, hook)
	attack(`echo attack > .git/commondir`, ".git/commondir")
	if _, err := os.Lstat(filepath.Join(ws, hook)); err == nil {
		t.Error("a pre-commit hook was planted")
	}
	gitRun(t, home, ws, "status")

	// Close takes the placeholders and leaves the user's files.
	sb.Close()
	for _, p := range []string{".idea", ".mcp.json", ".git/commondir", ".vscode/tasks.json"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("placeholder %s outlived the Sandbox", p)
		}
	}
	for _, p := range []string{".vscode/settings.json", ".nova/settings.local.json"} {
		if b, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(b) != "{}\n" {
			t.Errorf("%s = %q, %v: the user's file changed", p, b, err)
		}
	}
	// The kept .nova that nova wrote its rules in is an ordinary
	// directory now.
	if fi, err := os.Stat(nova); err != nil || isPlaceholderDirMode(fi.Mode()) {
		t.Errorf(".nova after Close: %v, %v: still marked as a placeholder", fi.Mode(), err)
	}
}
