package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitEnv is the environment for git in these tests, inside the sandbox and
// out: a temp home with no config, no system config, a fixed identity.
func gitEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "GIT_") && name != "HOME" && name != "XDG_CONFIG_HOME" {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
}

// gitRun runs git outside the sandbox, as the user later would.
func gitRun(t *testing.T, home, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v: %s", strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// gitRepo is a test repository: ws is its working tree, inside home, with
// a submodule-style git directory at .git/modules/x for the working tree
// ws/x, and the main repository's hooks directory missing.
type gitRepo struct {
	root, home, ws string
}

func newGitRepo(t *testing.T) gitRepo {
	t.Helper()
	return copyGitRepo(t, "")
}

// copyGitRepo makes a gitRepo as a copy of the one at template, or from
// scratch when template is "".
func copyGitRepo(t *testing.T, template string) gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	root := realTempDir(t)
	r := gitRepo{root: root, home: mkdir(t, root, "home")}
	r.ws = filepath.Join(r.home, "proj")
	if template != "" {
		if err := os.CopyFS(r.ws, os.DirFS(template)); err != nil {
			t.Fatal(err)
		}
		return r
	}
	gitRun(t, r.home, root, "init", "-q", r.ws)
	gitRun(t, r.home, r.ws, "commit", "-q", "--allow-empty", "-m", "init")
	mkdir(t, r.ws, ".git", "modules")
	gitRun(t, r.home, r.ws, "init", "-q", "--separate-git-dir="+filepath.Join(r.ws, ".git", "modules", "x"), filepath.Join(r.ws, "x"))
	gitRun(t, r.home, filepath.Join(r.ws, "x"), "commit", "-q", "--allow-empty", "-m", "init")
	// Relative, as git submodule writes it, so that copies stand alone.
	writeFile(t, filepath.Join(r.ws, "x", ".git"), "gitdir: ../.git/modules/x\n")
	mkdir(t, r.ws, ".git", "modules", "x", "hooks")
	if err := os.RemoveAll(filepath.Join(r.ws, ".git", "hooks")); err != nil {
		t.Fatal(err)
	}
	return r
}

// gitAttack is a sandboxed command that tries to plant code that git runs
// outside the sandbox later, when the user runs git status, diff and commit
// in dir.
type gitAttack struct {
	name  string
	setup func(t *testing.T, r gitRepo) // optional, outside the sandbox
	// script runs in the workspace with the sentinel's path as $1; the
	// code it plants creates the sentinel.
	script string
	dir    string // where the user runs git afterwards, relative to ws
}

const plantHook = `printf '#!/bin/sh\ntouch "%s"\n' "$1" > "$2" && chmod +x "$2"`

func gitAttacks() []gitAttack {
	hook := func(path string) string { return "set -- \"$1\" " + path + "; " + plantHook }
	fsmonitor := `printf '[core]\n\tfsmonitor = "touch %s; false"\n' "$1"`
	return []gitAttack{
		{name: "hooks missing", script: `mkdir -p .git/hooks && ` + hook(".git/hooks/pre-commit")},
		{name: "hooks present", script: hook(".git/modules/x/hooks/pre-commit"), dir: "x"},
		{name: "config", script: fsmonitor + ` >> .git/config`},
		{name: "git config", script: `mkdir -p evil && ` + hook("evil/pre-commit") + ` && git config core.hooksPath "$PWD/evil"`},
		{name: "submodule config", script: fsmonitor + ` >> .git/modules/x/config`, dir: "x"},
		{
			name: "commondir",
			script: `mkdir -p evil/hooks && cp -R .git/objects .git/refs .git/config evil/ && ` +
				hook("evil/hooks/pre-commit") + ` && printf '%s\n' "$PWD/evil" > .git/commondir`,
		},
		{
			name: "submodule commondir",
			script: `g=.git/modules/x && mkdir -p evil/hooks && cp -R $g/objects $g/refs $g/config evil/ && ` +
				hook("evil/hooks/pre-commit") + ` && printf '%s\n' "$PWD/evil" > $g/commondir`,
			dir: "x",
		},
		{
			name:   "rename modules",
			script: `mv .git/modules .git/m && mkdir .git/modules && cp -R .git/m/x .git/modules/x && ` + hook(".git/modules/x/hooks/pre-commit"),
			dir:    "x",
		},
		{
			name:   "rename submodule git dir",
			script: `mv .git/modules/x .git/modules/y && cp -R .git/modules/y .git/modules/x && ` + hook(".git/modules/x/hooks/pre-commit"),
			dir:    "x",
		},
		{
			name: "submodule .git file",
			script: `cp -R .git/modules/x evil && mkdir -p evil/hooks && ` + hook("evil/hooks/pre-commit") +
				` && printf 'gitdir: ../evil\n' > x/.git`,
			dir: "x",
		},
		{
			name: "submodule working tree renamed",
			script: `cp -R .git/modules/x evil && mkdir -p evil/hooks && ` + hook("evil/hooks/pre-commit") +
				` && mv x x-old && mkdir x && printf 'gitdir: ../evil\n' > x/.git`,
			dir: "x",
		},
		{
			name: "symlinked hook",
			setup: func(t *testing.T, r gitRepo) {
				mkdir(t, r.ws, "scripts")
				writeFile(t, filepath.Join(r.ws, "scripts", "pre-commit"), "#!/bin/sh\nexit 0\n")
				os.Chmod(filepath.Join(r.ws, "scripts", "pre-commit"), 0o755)
				mkdir(t, r.ws, ".git", "hooks")
				if err := os.Symlink("../../scripts/pre-commit", filepath.Join(r.ws, ".git", "hooks", "pre-commit")); err != nil {
					t.Fatal(err)
				}
			},
			script: hook("scripts/pre-commit"),
		},
		{
			name: "config.worktree",
			setup: func(t *testing.T, r gitRepo) {
				gitRun(t, r.home, r.ws, "config", "core.repositoryformatversion", "1")
				gitRun(t, r.home, r.ws, "config", "extensions.worktreeConfig", "true")
			},
			script: fsmonitor + ` > .git/config.worktree`,
		},
		{
			name: "core.hooksPath directory",
			setup: func(t *testing.T, r gitRepo) {
				mkdir(t, r.ws, ".githooks")
				gitRun(t, r.home, r.ws, "config", "core.hooksPath", ".githooks")
			},
			script: hook(".githooks/pre-commit"),
		},
		{
			name: "core.hooksPath renamed",
			setup: func(t *testing.T, r gitRepo) {
				mkdir(t, r.ws, "tools", "hooks")
				gitRun(t, r.home, r.ws, "config", "core.hooksPath", "tools/hooks")
			},
			script: `mv tools tools-old && mkdir -p tools/hooks && ` + hook("tools/hooks/pre-commit"),
		},
		{
			name: "fsmonitor script in the tree",
			setup: func(t *testing.T, r gitRepo) {
				mkdir(t, r.ws, "tools")
				writeFile(t, filepath.Join(r.ws, "tools", "fsmon.sh"), "#!/bin/sh\nexit 1\n")
				os.Chmod(filepath.Join(r.ws, "tools", "fsmon.sh"), 0o755)
				gitRun(t, r.home, r.ws, "config", "core.fsmonitor", "./tools/fsmon.sh")
			},
			script: hook("tools/fsmon.sh"),
		},
		{
			name: "filter script in the tree",
			setup: func(t *testing.T, r gitRepo) {
				mkdir(t, r.ws, "tools")
				writeFile(t, filepath.Join(r.ws, "tools", "clean.sh"), "#!/bin/sh\ncat\n")
				os.Chmod(filepath.Join(r.ws, "tools", "clean.sh"), 0o755)
				writeFile(t, filepath.Join(r.ws, ".gitattributes"), "*.md filter=x\n")
				writeFile(t, filepath.Join(r.ws, "a.md"), "a\n")
				gitRun(t, r.home, r.ws, "config", "filter.x.clean", "sh ./tools/clean.sh %f")
				gitRun(t, r.home, r.ws, "add", "a.md", ".gitattributes")
				gitRun(t, r.home, r.ws, "commit", "-q", "-m", "md")
			},
			script: `printf '#!/bin/sh\ntouch "%s"\ncat\n' "$1" > tools/clean.sh && echo b >> a.md`,
		},
		{
			name: "included config",
			setup: func(t *testing.T, r gitRepo) {
				writeFile(t, filepath.Join(r.ws, ".gitconfig-project"), "")
				gitRun(t, r.home, r.ws, "config", "include.path", "../.gitconfig-project")
			},
			script: fsmonitor + ` >> .gitconfig-project`,
		},
		{
			name: "included config missing",
			setup: func(t *testing.T, r gitRepo) {
				gitRun(t, r.home, r.ws, "config", "include.path", "../.gitconfig-local")
			},
			script: fsmonitor + ` > .gitconfig-local`,
		},
	}
}

// TestBwrapGitAttacks runs each attack twice: unsandboxed, where the user's
// next git command must run the planted code (so the attack is real), and
// sandboxed, where the planting must fail and git must run nothing.
func TestBwrapGitAttacks(t *testing.T) {
	t.Parallel()
	template := newGitRepo(t).ws
	for _, a := range gitAttacks() {
		t.Run(a.name, func(t *testing.T) {
			for _, sandboxed := range []bool{false, true} {
				r := copyGitRepo(t, template)
				if a.setup != nil {
					a.setup(t, r)
				}
				sentinel := filepath.Join(r.root, "SENTINEL")
				var out string
				var err error
				var sb *Sandbox
				if sandboxed {
					sb = realSandbox(t, Config{Workspace: r.ws, Home: r.home})
					out, err = runEnv(t, sb, "", gitEnv(r.home), "sh", "-c", a.script, "sh", sentinel)
				} else {
					cmd := exec.Command("sh", "-c", a.script, "sh", sentinel)
					cmd.Dir, cmd.Env = r.ws, gitEnv(r.home)
					b, e := cmd.CombinedOutput()
					out, err = string(b), e
				}
				if sandboxed == (err == nil) {
					t.Fatalf("sandboxed=%v: script err = %v: %s", sandboxed, err, out)
				}
				dir := filepath.Join(r.ws, a.dir)
				gitRun(t, r.home, dir, "status")
				gitRun(t, r.home, dir, "diff")
				gitRun(t, r.home, dir, "commit", "-q", "--allow-empty", "-m", "after")
				_, statErr := os.Stat(sentinel)
				if ran := statErr == nil; ran != !sandboxed {
					t.Fatalf("sandboxed=%v: planted code ran = %v (script: %s)", sandboxed, ran, out)
				}
				if sandboxed {
					// git ran outside above with the placeholders the
					// Sandbox keeps between commands; Close removes them.
					sb.Close()
					assertNoPlaceholders(t, r)
				}
			}
		})
	}
}

// assertNoPlaceholders checks that nothing the sandbox wrote on the host
// for git outlives the Sandbox.
func assertNoPlaceholders(t *testing.T, r gitRepo) {
	t.Helper()
	for _, p := range []string{".git/commondir", ".git/modules/x/commondir", ".git/config.worktree"} {
		if _, err := os.Lstat(filepath.Join(r.ws, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left on the host (%v)", p, err)
		}
	}
}

// TestBwrapGitWorks is the positive control: git that only writes a git
// directory's data works inside the sandbox, and the result is there for
// the git outside.
func TestBwrapGitWorks(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	sb := realSandbox(t, Config{Workspace: r.ws, Home: r.home})
	script := `echo hello > f.txt && git add f.txt && git commit -q -m inside && git status --short && ` +
		`git rev-parse --git-common-dir && cd x && git commit -q --allow-empty -m sub-inside && git log -1 --format=%s`
	out, err := runEnv(t, sb, "", gitEnv(r.home), "sh", "-c", script)
	if err != nil {
		t.Fatalf("git inside the sandbox: %v: %s", err, out)
	}
	if !strings.Contains(out, "sub-inside") {
		t.Errorf("submodule commit: %s", out)
	}
	if got := strings.TrimSpace(gitRun(t, r.home, r.ws, "log", "-1", "--format=%s")); got != "inside" {
		t.Errorf("outside, the last commit is %q, want the one made inside", got)
	}
	if got := gitRun(t, r.home, r.ws, "show", "HEAD:f.txt"); got != "hello\n" {
		t.Errorf("committed f.txt = %q", got)
	}
	if got := strings.TrimSpace(gitRun(t, r.home, filepath.Join(r.ws, "x"), "log", "-1", "--format=%s")); got != "sub-inside" {
		t.Errorf("outside, the submodule's last commit is %q", got)
	}
	sb.Close()
	assertNoPlaceholders(t, r)
	// The empty hooks directory the sandbox mounted is left behind, and is
	// harmless.
	if ents, err := os.ReadDir(filepath.Join(r.ws, ".git", "hooks")); err != nil || len(ents) != 0 {
		t.Errorf(".git/hooks after the command: %v, %v", ents, err)
	}
}

// TestBwrapGitWorktree protects a linked worktree whose main repository is
// an added directory: the worktree's git directory, and the common
// directory its commondir names.
func TestBwrapGitWorktree(t *testing.T) {
	t.Parallel()
	r := newGitRepo(t)
	wt := filepath.Join(r.root, "wt")
	gitRun(t, r.home, r.ws, "worktree", "add", "-q", wt)
	sb := realSandbox(t, Config{Workspace: wt, AddDirs: []string{r.ws}, Home: r.home})
	sentinel := filepath.Join(r.root, "SENTINEL")
	gd := strings.TrimSpace(gitRun(t, r.home, wt, "rev-parse", "--absolute-git-dir"))
	for _, script := range []string{
		`printf '%s\n' "$PWD" > "$2/commondir"`,
		`printf 'gitdir: /elsewhere\n' > .git`,
		`mkdir -p "$3/hooks" && printf '#!/bin/sh\ntouch "%s"\n' "$1" > "$3/hooks/pre-commit" && chmod +x "$3/hooks/pre-commit"`,
		`mv "$2" "$2-old"`,
	} {
		out, err := runEnv(t, sb, "", gitEnv(r.home), "sh", "-c", script, "sh", sentinel, gd, filepath.Join(r.ws, ".git"))
		if err == nil {
			t.Errorf("%s: succeeded: %s", script, out)
		}
	}
	out, err := runEnv(t, sb, "", gitEnv(r.home), "sh", "-c", "echo a > a.txt && git add a.txt && git commit -q -m wt")
	if err != nil {
		t.Fatalf("commit in the worktree: %v: %s", err, out)
	}
	gitRun(t, r.home, wt, "commit", "-q", "--allow-empty", "-m", "after")
	if _, err := os.Stat(sentinel); err == nil {
		t.Error("planted hook ran")
	}
	if b, err := os.ReadFile(filepath.Join(gd, "commondir")); err != nil || strings.TrimSpace(string(b)) != "../.." {
		t.Errorf("worktree commondir = %q, %v", b, err)
	}
	sb.Close()
	assertNoPlaceholders(t, r)
}

// entryState returns the state of path in the plan, or -1.
func entryState(g gitPlan, path string) gitEntryState {
	for _, e := range g.entries {
		if e.path == path {
			return e.state
		}
	}
	return -1
}

func TestPlanGit(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	home := mkdir(t, root, "home")
	ws := mkdir(t, root, "ws")
	git := func(p ...string) string { return filepath.Join(append([]string{ws, ".git"}, p...)...) }
	mkdir(t, git("objects"))
	mkdir(t, git("hooks"))
	writeFile(t, git("HEAD"), "ref: refs/heads/main\n")
	writeFile(t, git("config"), "[core]\n\thooksPath = tools/hooks\n[include]\n\tpath = ../shared.cfg\n[extensions]\n\tworktreeConfig\n")
	writeFile(t, filepath.Join(ws, "shared.cfg"), "[includeIf \"gitdir:~/x\"]\n\tpath = ~/inc.cfg\n")
	mkdir(t, ws, "tools", "hooks")
	// A submodule named a/b: its git directory sits two levels down, and
	// one whose config is a symlink.
	mkdir(t, git("modules", "a", "b", "objects"))
	writeFile(t, git("modules", "a", "b", "HEAD"), "ref: refs/heads/main\n")
	mkdir(t, git("modules", "s", "hooks"))
	writeFile(t, filepath.Join(ws, "s.cfg"), "")
	if err := os.Symlink("../../../s.cfg", git("modules", "s", "config")); err != nil {
		t.Fatal(err)
	}
	// A linked worktree's git directory: commondir present, hooks unread.
	mkdir(t, git("worktrees", "w"))
	writeFile(t, git("worktrees", "w", "commondir"), "../..\n")
	writeFile(t, git("worktrees", "w", "HEAD"), "ref: refs/heads/w\n")
	// An added directory that is a bare repository.
	bare := mkdir(t, root, "bare.git")
	mkdir(t, bare, "objects")
	mkdir(t, bare, "refs")
	writeFile(t, filepath.Join(bare, "HEAD"), "ref: refs/heads/main\n")

	g := planGit([]string{ws, bare}, home)
	for _, want := range []string{git(), git("modules"), git("modules", "a"), git("modules", "a", "b"), git("worktrees"), git("worktrees", "w"), filepath.Join(ws, "tools")} {
		if !slices.Contains(g.pins, want) {
			t.Errorf("not pinned: %s (pins %q)", want, g.pins)
		}
	}
	if i, j := slices.Index(g.pins, git()), slices.Index(g.pins, git("modules", "a", "b")); i > j {
		t.Errorf("pins not parents first: %q", g.pins)
	}
	states := map[string]gitEntryState{
		git("config"):                            entryPresent,
		git("hooks"):                             entryPresent,
		git("commondir"):                         entryPlaceholder,
		git("config.worktree"):                   entryPlaceholder, // the extension is on
		git("modules", "a", "b", "commondir"):    entryPlaceholder,
		git("modules", "a", "b", "hooks"):        entryEmptyDir,
		git("modules", "a", "b", "config"):       entryPlaceholder,
		git("worktrees", "w", "commondir"):       entryPresent,
		git("worktrees", "w", "hooks"):           entryUnread,
		git("worktrees", "w", "config.worktree"): entryPlaceholder,
		filepath.Join(ws, "shared.cfg"):          entryPresent,
		filepath.Join(bare, "commondir"):         entryPlaceholder,
		filepath.Join(bare, "hooks"):             entryEmptyDir,
		filepath.Join(bare, "config"):            entryPlaceholder,
		filepath.Join(home, "inc.cfg"):           -1, // outside the writable directories
		git("modules", "s", "config"):            -1, // inside a directory read-only whole
	}
	for path, want := range states {
		if got := entryState(g, path); got != want {
			t.Errorf("%s: state %d, want %d", path, got, want)
		}
	}
	for _, want := range []string{filepath.Join(ws, "tools", "hooks"), git("modules", "s"), filepath.Join(ws, "s.cfg")} {
		if !slices.Contains(g.roWhole, want) {
			t.Errorf("not read-only whole: %s (%q)", want, g.roWhole)
		}
	}
	if !slices.Contains(g.links, git("modules", "s", "config")) {
		t.Errorf("symlinked config not among the links: %q", g.links)
	}
}

func TestPlanGitPointers(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	main := mkdir(t, root, "main")
	// A .git file going through a symlink in the workspace to a git
	// directory in another writable directory.
	mkdir(t, main, ".git", "worktrees", "ws")
	writeFile(t, filepath.Join(main, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(main, ".git", "worktrees", "ws", "commondir"), "../..\n")
	mkdir(t, ws, "links")
	if err := os.Symlink(main, filepath.Join(ws, "links", "main")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, ".git"), "gitdir: links/main/.git/worktrees/ws\n")
	// A pointer to a git directory that does not exist yet.
	other := mkdir(t, root, "other")
	writeFile(t, filepath.Join(other, ".git"), "gitdir: ./gitdata/repo\n")

	g := planGit([]string{ws, main, other}, "")
	if entryState(g, filepath.Join(ws, ".git")) != entryPresent {
		t.Errorf(".git file not read-only: %+v", g.entries)
	}
	if !slices.Contains(g.roWhole, filepath.Join(ws, "links")) || !slices.Contains(g.links, filepath.Join(ws, "links", "main")) {
		t.Errorf("the symlink on the way is not held: roWhole %q links %q", g.roWhole, g.links)
	}
	for path, want := range map[string]gitEntryState{
		filepath.Join(main, ".git", "worktrees", "ws", "commondir"): entryPresent,
		filepath.Join(main, ".git", "commondir"):                    entryPlaceholder,
		filepath.Join(main, ".git", "hooks"):                        entryEmptyDir,
		filepath.Join(other, "gitdata"):                             entryEmptyDir,
	} {
		if got := entryState(g, path); got != want {
			t.Errorf("%s: state %d, want %d", path, got, want)
		}
	}
}

func TestParseGitConfig(t *testing.T) {
	t.Parallel()
	data := "# comment\n[Core]\n\tHooksPath = \"my hooks\" ; note\n\tbare\n[include]path=a.cfg\n" +
		"[includeIf \"gitdir:~/w/\"]\n\tpath = ~/w.cfg\n[extensions]\n\tworktreeConfig = yes\n[core.sub]\nk = v\\\n continued\n"
	want := []gitVar{
		{"core", "hookspath", "my hooks"},
		{"core", "bare", "true"},
		{"include", "path", "a.cfg"},
		{"includeif", "path", "~/w.cfg"},
		{"extensions", "worktreeconfig", "yes"},
		{"core", "k", "v continued"},
	}
	if got := parseGitConfig([]byte(data)); !slices.Equal(got, want) {
		t.Errorf("parseGitConfig =\n%q\nwant\n%q", got, want)
	}
	if !gitBool(want, "extensions", "worktreeconfig") || gitBool(want, "core", "hookspath") {
		t.Error("gitBool wrong")
	}
}

func TestResolvePath(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	mkdir(t, root, "a", "b")
	if err := os.Symlink("a", filepath.Join(root, "l1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "l1", "b"), filepath.Join(root, "l2")); err != nil {
		t.Fatal(err)
	}
	real, hops, exists := resolvePath(root + "/l2/../b/missing/x") // not Join, which would drop "l2/.."
	if want := filepath.Join(root, "a", "b", "missing", "x"); real != want || exists {
		t.Errorf("resolvePath = %s, %v; want %s, false", real, exists, want)
	}
	if want := []string{filepath.Join(root, "l2"), filepath.Join(root, "l1")}; !slices.Equal(hops, want) {
		t.Errorf("hops = %q, want %q", hops, want)
	}
}

func TestIsBareRepo(t *testing.T) {
	t.Parallel()
	root := realTempDir(t)
	bare := mkdir(t, root, "bare")
	mkdir(t, bare, "objects")
	mkdir(t, bare, "refs")
	writeFile(t, filepath.Join(bare, "HEAD"), "ref: refs/heads/main\n")
	detached := mkdir(t, root, "detached")
	writeFile(t, filepath.Join(detached, "HEAD"), strings.Repeat("ab", 20)+"\n")
	writeFile(t, filepath.Join(detached, "config"), "[core]\n")
	project := mkdir(t, root, "project") // a HEAD file and a config directory
	writeFile(t, filepath.Join(project, "HEAD"), "see CHANGES\n")
	mkdir(t, project, "config")
	mkdir(t, project, "objects")
	mkdir(t, project, "refs")
	for dir, want := range map[string]bool{bare: true, detached: true, project: false, root: false} {
		if got := isBareRepo(dir); got != want {
			t.Errorf("isBareRepo(%s) = %v, want %v", dir, got, want)
		}
	}
}

func TestGitCommandPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v     gitVar
		cmd   bool
		paths []string
	}{
		{gitVar{"core", "fsmonitor", "./tools/fsmon.sh"}, true, []string{"./tools/fsmon.sh"}},
		{gitVar{"core", "fsmonitor", "true"}, true, nil},
		{gitVar{"filter", "clean", `sh "scripts/clean.sh" %f`}, true, []string{"scripts/clean.sh"}},
		{gitVar{"alias", "lint", "!./bin/lint && make"}, true, []string{"./bin/lint"}},
		{gitVar{"alias", "st", "status -s"}, false, nil},
		{gitVar{"remote", "url", "https://example.com/x.git"}, false, nil},
		{gitVar{"credential", "helper", "store --file ~/.cred"}, true, []string{"~/.cred"}},
		{gitVar{"remote", "uploadpack", "https://x/y"}, true, nil},
	}
	for _, tt := range tests {
		if got := isGitCommand(tt.v); got != tt.cmd {
			t.Errorf("isGitCommand(%v) = %v", tt.v, got)
		}
		if got := commandPaths(tt.v.value); !slices.Equal(got, tt.paths) {
			t.Errorf("commandPaths(%q) = %q, want %q", tt.v.value, got, tt.paths)
		}
	}
}
