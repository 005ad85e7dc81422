package sandbox

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// listTree returns every path under dir (relative, with a trailing / for
// directories), for comparing a workspace before and after commands.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// laterAttacks are sandboxed shell lines that try to write a path that
// runs later, each creating or changing the file named by its second
// field, relative to the workspace.
func laterAttacks() [][2]string {
	return [][2]string{
		{`mkdir -p .claude && printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch ../ran"}]}]}}' > .claude/settings.json`, ".claude/settings.json"},
		{`mkdir -p .claude/skills/x && printf -- '---\nallowed-tools: Bash\n---\n' > .claude/skills/x/SKILL.md`, ".claude/skills/x/SKILL.md"},
		{`printf '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json`, ".mcp.json"},
		{`rmdir .mcp.json; printf '{}' > .mcp.json`, ".mcp.json"},
		{`mv .mcp.json gone; printf '{}' > .mcp.json`, ".mcp.json"},
		{`echo '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json`, ".vscode/tasks.json"},
		{`mv .vscode v2 && mkdir .vscode && echo x > .vscode/tasks.json`, ".vscode/tasks.json"},
		{`echo '{}' > .vscode/settings.json`, ".vscode/settings.json"},
		{`echo 'touch ../ran' > .envrc`, ".envrc"},
		{`mkdir -p .husky && echo 'touch ../ran' > .husky/pre-commit`, ".husky/pre-commit"},
		{`mkdir -p .github/workflows && echo 'on: push' > .github/workflows/x.yml`, ".github/workflows/x.yml"},
		{`mv .github gh && mkdir -p .github/workflows && echo 'on: push' > .github/workflows/x.yml`, ".github/workflows/x.yml"},
		{`mkdir -p x/workflows && echo 'on: push' > x/workflows/ci.yml && rmdir .github/workflows; mv x/workflows .github/`, ".github/workflows/ci.yml"},
		{`echo 'repos: []' > .pre-commit-config.yaml`, ".pre-commit-config.yaml"},
		{`echo 'touch ../ran' >> .bashrc`, ".bashrc"},
		{`mkdir -p .config/fish && echo x > .config/fish/config.fish`, ".config/fish/config.fish"},
		{`python3 -c "import os; os.makedirs('.nova', exist_ok=True); open('.nova/settings.json','w').write('{}')"`, ".nova/settings.json"},
		{`mkdir -p .idea .cursor .devcontainer; echo x > .idea/x.xml; echo x > .cursor/mcp.json; echo x > .devcontainer/devcontainer.json`, ".cursor/mcp.json"},
	}
}

// snapshotTree returns every path under dir with what it holds (a file's
// content, "dir" or a link's target), for comparing a workspace before and
// after commands.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rel := range listTree(t, dir) {
		p := filepath.Join(dir, rel)
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
			t.Fatal(err)
		case fi.IsDir():
			out[rel] = "dir " + fi.Mode().String()
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		default:
			b, _ := os.ReadFile(p)
			out[rel] = "file " + string(b)
		}
	}
	return out
}

// laterWorkspace makes a workspace where some paths that run later exist
// (.vscode with settings, .github/workflows) and most do not.
func laterWorkspace(t *testing.T, parent string) string {
	t.Helper()
	ws := mkdir(t, parent, "ws")
	writeFile(t, filepath.Join(mkdir(t, ws, ".vscode"), "settings.json"), "{}\n")
	mkdir(t, ws, ".github", "workflows")
	return ws
}

// TestBwrapLaterPaths runs each attack in a workspace where some paths
// that run later exist and most do not: none may change the workspace,
// and none may leave a placeholder behind. The positive control: each
// attack, run without the sandbox in a copy of the workspace, writes its
// file, so the sandbox is what stops it. The placeholders the Sandbox
// keeps from one command to the next are part of the workspace the
// attacks must not change, and go with Close.
func TestBwrapLaterPaths(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	ws := laterWorkspace(t, root)
	sb := realSandbox(t, Config{Workspace: ws, Home: mkdir(t, root, "home")})
	pristine := snapshotTree(t, ws)
	if out, err := run(t, sb, "", "true"); err != nil {
		t.Fatalf("true: %v: %s", err, out)
	}
	before := snapshotTree(t, ws)
	for i, a := range laterAttacks() {
		if strings.Contains(a[0], "python3") && !hasProgram("python3") {
			continue
		}
		out, _ := run(t, sb, "", "sh", "-c", a[0])
		// Leftovers of a failed attack (v2, gh, x) are the command's own.
		for _, own := range []string{"v2", "gh", "x", "gone"} {
			os.RemoveAll(filepath.Join(ws, own))
		}
		if after := snapshotTree(t, ws); !maps.Equal(after, before) {
			t.Fatalf("%s: the workspace changed (%s):\nbefore %q\nafter  %q", a[0], out, before, after)
		}
		control := laterWorkspace(t, mkdir(t, root, "control"+strconv.Itoa(i)))
		cmd := exec.Command("sh", "-c", a[0])
		cmd.Dir = control
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("control %s: %v: %s", a[0], err, out)
		}
		if _, err := os.Lstat(filepath.Join(control, a[1])); err != nil {
			t.Errorf("control %s: unsandboxed, %s was not written: %v", a[0], a[1], err)
		}
	}
	if out, err := run(t, sb, "", "sh", "-c", "mkdir -p src/.cache && echo written > src/out.txt"); err != nil || !hostHasWrite(filepath.Join(ws, "src", "out.txt")) {
		t.Errorf("an ordinary write failed: %v: %s", err, out)
	}
	os.RemoveAll(filepath.Join(ws, "src"))
	sb.Close()
	if after := snapshotTree(t, ws); !maps.Equal(after, pristine) {
		t.Errorf("after Close, the workspace is not as it was:\nbefore %q\nafter  %q", pristine, after)
	}
}

// TestBwrapLaterRepoRoot protects the top of a repository that a writable
// directory holds when the workspace is one of its folders: the editor
// opens the repository.
func TestBwrapLaterRepoRoot(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	repo := mkdir(t, root, "repo")
	mkdir(t, repo, ".git")
	sub := mkdir(t, repo, "sub")
	sb := realSandbox(t, Config{Workspace: sub, AddDirs: []string{repo}, Home: mkdir(t, root, "home")})
	out, err := run(t, sb, "", "sh", "-c", `mkdir -p ../.vscode && echo x > ../.vscode/tasks.json`)
	if _, statErr := os.Lstat(filepath.Join(repo, ".vscode", "tasks.json")); err == nil || statErr == nil {
		t.Errorf("wrote the repository's .vscode: %v: %s", err, out)
	}
	if out, err := run(t, sb, "", "sh", "-c", `echo x > ../top.txt`); err != nil {
		t.Errorf("the repository's top is not writable: %v: %s", err, out)
	}
	sb.Close()
	if _, err := os.Lstat(filepath.Join(repo, ".vscode")); err == nil {
		t.Error("a placeholder outlived the Sandbox")
	}
}

// TestBwrapNoClutter checks that sandboxed commands, one after another and
// overlapping (one in the background while others come and go), leave no
// empty directory or file in the workspace once the Sandbox is closed,
// and that each command sees the paths that run later as empty read-only
// directories while it runs.
func TestBwrapNoClutter(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	writeFile(t, filepath.Join(ws, "README.md"), "x\n")
	sb := realSandbox(t, Config{Workspace: ws, Home: mkdir(t, root, "home")})
	before := listTree(t, ws)

	// A command holding its placeholders while others start and end.
	fifo := filepath.Join(ws, "fifo")
	if out, err := run(t, sb, "", "mkfifo", fifo); err != nil {
		t.Fatalf("mkfifo: %v: %s", err, out)
	}
	bg := startConfined(t, sb, "sh", "-c", `read x < fifo`)
	for range 3 {
		out, err := run(t, sb, "", "sh", "-c", `test -d .mcp.json && test -d .vscode && ! test -w .vscode && ls -A .vscode | wc -l`)
		if err != nil || strings.TrimSpace(out) != "0" {
			t.Errorf("inside, .mcp.json and .vscode are not empty read-only directories: %v: %s", err, out)
		}
	}
	if err := os.WriteFile(fifo, []byte("go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bg()
	os.Remove(fifo)
	sb.Close()
	if after := listTree(t, ws); !slices.Equal(after, before) {
		t.Errorf("the workspace changed:\nbefore %q\nafter  %q", before, after)
	}
}

// TestPlaceholderDirStale checks that New sweeps the placeholder
// directories a killed nova left, and keeps what only looks like one.
func TestPlaceholderDirStale(t *testing.T) {
	t.Parallel()
	ws := realTempDir(t)
	stale := filepath.Join(ws, ".vscode")
	if err := os.Mkdir(stale, placeholderDirMode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(stale, placeholderDirMode)
	old := filepath.Join(ws, ".envrc") // an earlier nova's, read-only
	if err := os.Mkdir(old, placeholderDirModeOld); err != nil {
		t.Fatal(err)
	}
	os.Chmod(old, placeholderDirModeOld)
	kept := filepath.Join(ws, ".idea") // an empty directory of the user's
	if err := os.Mkdir(kept, 0o755); err != nil {
		t.Fatal(err)
	}
	full := mkdir(t, ws, ".cursor") // the placeholder's mode, but not empty
	writeFile(t, filepath.Join(full, "mcp.json"), "{}")
	os.Chmod(full, placeholderDirMode)
	t.Cleanup(func() { os.Chmod(full, 0o755) })
	fakeSandbox(t, ws)
	for _, p := range []string{stale, old} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("the stale placeholder %s was not swept", p)
		}
	}
	for _, p := range []string{kept, filepath.Join(full, "mcp.json")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
	// One another sandbox binds now is left to it.
	other := fakeSandbox(t, ws)
	release := confineOnly(t, other)
	fakeSandbox(t, ws)
	if !isPlaceholderDirPath(stale) {
		t.Error("a placeholder in use was swept")
	}
	release()
	if !isPlaceholderDirPath(stale) {
		t.Error("the placeholder did not last until Close")
	}
	other.Close()
	if _, err := os.Lstat(stale); err == nil {
		t.Error("the placeholder outlived its Sandbox")
	}
}

// TestPlanLater checks the plan for the paths that run later: present ones
// bound, missing ones placeholders at the highest missing part, parents
// pinned, a git directory left alone.
func TestPlanLater(t *testing.T) {
	t.Parallel()
	ws := realTempDir(t)
	mkdir(t, ws, ".github")
	writeFile(t, filepath.Join(ws, ".mcp.json"), "{}")
	g := planGit([]string{ws}, "")
	for path, want := range map[string]gitEntryState{
		filepath.Join(ws, ".mcp.json"):         entryPresent,
		filepath.Join(ws, ".vscode"):           entryPlaceholderDir,
		filepath.Join(ws, ".github/workflows"): entryPlaceholderDir,
		filepath.Join(ws, ".config"):           entryPlaceholderDir,
	} {
		if got := entryState(g, path); got != want {
			t.Errorf("%s: state %d, want %d", path, got, want)
		}
	}
	if !slices.Contains(g.pins, filepath.Join(ws, ".github")) {
		t.Errorf(".github not pinned: %q", g.pins)
	}
	if n := len(g.entries); n != len(permission.RunsLater()) {
		t.Errorf("%d entries, want one per path: %+v", n, g.entries)
	}
	bare := realTempDir(t)
	mkdir(t, bare, "objects")
	mkdir(t, bare, "refs")
	writeFile(t, filepath.Join(bare, "HEAD"), "ref: refs/heads/main\n")
	if g := planGit([]string{bare}, ""); entryState(g, filepath.Join(bare, ".vscode")) != -1 {
		t.Error("a git directory got placeholders")
	}
}

// hasProgram reports whether name is on PATH.
func hasProgram(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// startConfined starts argv in the sandbox, in the workspace, and returns
// a function that waits for it to end and releases it.
func startConfined(t *testing.T, sb *Sandbox, argv ...string) (wait func()) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	release, err := sb.Confine(cmd)
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	if err := cmd.Start(); err != nil {
		release()
		t.Fatalf("start: %v", err)
	}
	return func() {
		if err := cmd.Wait(); err != nil {
			t.Errorf("%q: %v", argv, err)
		}
		release()
	}
}
