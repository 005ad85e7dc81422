package permission

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// fsWorld is a real workspace and home on disk, for the checks that look
// at the filesystem as it is: symlinks, globs, git directories.
type fsWorld struct {
	ws, home string
}

func newFSWorld(t *testing.T) fsWorld {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	w := fsWorld{ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home")}
	for _, d := range []string{w.ws, filepath.Join(w.home, ".ssh"), filepath.Join(w.home, "notes"), filepath.Join(w.ws, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.write(t, filepath.Join(w.home, ".ssh", "id_rsa"), "secret")
	w.write(t, filepath.Join(w.ws, "src", "a.go"), "package a")
	return w
}

func (w fsWorld) write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w fsWorld) link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func (w fsWorld) check(t *testing.T, cfg Config, cmd string) Decision {
	t.Helper()
	cfg.Workspace, cfg.Home = w.ws, w.home
	cfg.NovaHome = filepath.Join(w.home, ".nova")
	cfg.LookupEnv = func(string) (string, bool) { return "", false }
	c, err := NewChecker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: cmd, Workdir: w.ws})
}

// TestPathsResolvedAsTheKernelDoes covers class 6: a path is judged where
// it lands after each symlink, so link/.. is the link target's parent.
func TestPathsResolvedAsTheKernelDoes(t *testing.T) {
	w := newFSWorld(t)
	w.link(t, filepath.Join(w.home, "notes"), filepath.Join(w.ws, "link"))
	w.link(t, w.home, filepath.Join(w.ws, "homelink"))
	w.link(t, "src", filepath.Join(w.ws, "inner"))
	tests := []struct {
		cmd  string
		want Behavior
	}{
		{"cat link/../.ssh/id_rsa", Ask},  // lexically ws/.ssh/id_rsa, really ~/.ssh/id_rsa
		{"cat homelink/.ssh/id_rsa", Ask}, // a link out of the workspace
		{"cat homelink/*/id_rsa", Ask},    // a glob whose directory is a link
		{"cat link/../.ss?/id_rsa", Ask},  // a glob after a link and ..
		{"cd -P link/.. && cat .ssh/id_rsa", Ask},
		{"set -P; cd link/..; cat .ssh/id_rsa", Ask},
		{"cd link/.. && cat src/a.go", Allow}, // logical cd: back in the workspace
		{"cat inner/a.go", Allow},             // a link that stays inside
		{"cat src/*.go", Allow},
		{"cat src/*", Allow},
		{"ls homelink", Ask},
	}
	for _, tt := range tests {
		if d := w.check(t, Config{}, tt.cmd); d.Behavior != tt.want {
			t.Errorf("%q: %s (%s: %s), want %s", tt.cmd, d.Behavior, d.Layer, d.Reason, tt.want)
		}
	}
	// An allow rule on a directory does not allow what a link in it reaches.
	if d := w.check(t, Config{Rules: Rules{Allow: []string{"Read(./link/**)"}}}, "cat link/../.ssh/id_rsa"); d.Behavior == Allow {
		t.Errorf("allow rule followed a link out: %+v", d)
	}
}

// TestRecursiveReadsHonourDenyRules covers class 8: a recursive read of a
// directory that holds a denied file asks; one that does not is fine.
func TestRecursiveReadsHonourDenyRules(t *testing.T) {
	w := newFSWorld(t)
	deny := Config{Rules: Rules{Deny: []string{"Read(.env)"}}}
	for _, cmd := range []string{"grep -r TOKEN .", "rg TOKEN", "grep -R TOKEN src", "git grep TOKEN"} {
		if d := w.check(t, deny, cmd); d.Behavior != Allow {
			t.Errorf("%q without a .env: %s (%s), want allow", cmd, d.Behavior, d.Reason)
		}
	}
	w.write(t, filepath.Join(w.ws, "src", "deep", ".env"), "TOKEN=1")
	for _, cmd := range []string{"grep -r TOKEN .", "rg TOKEN", "grep -R TOKEN src", "grep --directories=recurse TOKEN .", "git grep TOKEN", "git log -p", "diff -r src /dev/null"} {
		if d := w.check(t, deny, cmd); d.Behavior == Allow {
			t.Errorf("%q with a denied .env below: allowed", cmd)
		}
	}
	if d := w.check(t, deny, "cat src/deep/.env"); d.Behavior != Deny {
		t.Errorf("cat of the denied file: %s", d.Behavior)
	}
	if d := w.check(t, deny, "grep -r TOKEN docs"); d.Behavior != Allow {
		t.Errorf("a tree without the file: %s (%s)", d.Behavior, d.Reason)
	}
}

// TestGitMetadataAndConfig covers class 9: writes into any git directory
// except its data ask; a repository whose config runs programs makes its
// git commands ask.
func TestGitMetadataAndConfig(t *testing.T) {
	w := newFSWorld(t)
	for _, d := range []string{".git/objects", ".git/refs/heads", "bare.git/objects", "bare.git/refs"} {
		if err := os.MkdirAll(filepath.Join(w.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.write(t, filepath.Join(w.ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	w.write(t, filepath.Join(w.ws, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = x\n[branch \"main\"]\n\tmerge = refs/heads/main\n")
	w.write(t, filepath.Join(w.ws, "bare.git", "HEAD"), "ref: refs/heads/main\n")
	edits := Config{Mode: ModeAcceptEdits}
	for _, cmd := range []string{"echo x > bare.git/config", "mkdir -p bare.git/hooks", "echo x > .git/commondir", "cp x .git/config.worktree", "touch .git/info/attributes"} {
		if d := w.check(t, edits, cmd); d.Behavior != Ask || d.Layer != LayerPath {
			t.Errorf("%q: %s/%s (%s), want ask/path", cmd, d.Behavior, d.Layer, d.Reason)
		}
	}
	if d := w.check(t, edits, "echo x > bare.git/refs/x"); d.Behavior != Allow {
		t.Errorf("a ref in a bare repository: %s (%s)", d.Behavior, d.Reason)
	}
	if d := w.check(t, Config{}, "git status && git log --oneline -3"); d.Behavior != Allow || !d.Auto {
		t.Errorf("git status in a plain repository: %+v", d)
	}
	for _, cfg := range []string{"[core]\n\tpager = sh -c 'touch x'\n", "[diff]\n\texternal = /tmp/x\n", "[diff \"py\"]\n\ttextconv = /tmp/x\n",
		"[filter \"lfs\"]\n\tclean = /tmp/x %f\n", "[include]\n\tpath = ../x.cfg\n", "[core]\n\tfsmonitor = false\n[gpg]\n\tprogram = /tmp/x\n", "[core \"x\"]\n[includeIf \"gitdir:~/\"]\n\tpath = x\n"} {
		w.write(t, filepath.Join(w.ws, ".git", "config"), cfg)
		if d := w.check(t, Config{}, "git status"); d.Behavior == Allow {
			t.Errorf("git status with config %q: allowed", cfg)
		}
	}
	// fsmonitor and hooks are switched off for the commands nova runs
	// unasked, so they do not make them ask.
	w.write(t, filepath.Join(w.ws, ".git", "config"), "[core]\n\tfsmonitor = /tmp/x\n\thooksPath = /tmp\n")
	if d := w.check(t, Config{}, "git status"); d.Behavior != Allow || !d.Auto {
		t.Errorf("git status with fsmonitor: %+v", d)
	}
	// A submodule's config counts too.
	w.write(t, filepath.Join(w.ws, ".git", "modules", "sub", "config"), "[core]\n\tpager = /tmp/x\n")
	if d := w.check(t, Config{}, "git status"); d.Behavior == Allow {
		t.Errorf("git status with a submodule pager: allowed")
	}
}

// TestSpillDirReadable: the session's spilled results can be read back
// in every mode, without a rule.
func TestSpillDirReadable(t *testing.T) {
	w := newFSWorld(t)
	spill := filepath.Join(w.home, ".nova", "sessions", "s1", "tool-results")
	w.write(t, filepath.Join(spill, "call_1.txt"), "big output")
	for _, mode := range []Mode{ModeDefault, ModePlan} {
		cfg := Config{Mode: mode, ReadDirs: []string{spill}, Workspace: w.ws, Home: w.home}
		c, err := NewChecker(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, req := range []Request{
			{Tool: "Read", Kind: KindRead, Paths: []Access{{Path: filepath.Join(spill, "call_1.txt")}}},
			{Tool: "Grep", Kind: KindRead, Paths: []Access{{Path: spill}}},
			{Tool: "Bash", Kind: KindExec, Command: "grep big " + filepath.Join(spill, "call_1.txt"), Workdir: w.ws},
		} {
			if d := c.Check(context.Background(), req); d.Behavior != Allow {
				t.Errorf("%s in %s mode: %s (%s)", req.Tool, mode, d.Behavior, d.Reason)
			}
		}
		if d := c.Check(context.Background(), Request{Tool: "Write", Kind: KindEdit, Paths: []Access{{Path: filepath.Join(spill, "x"), Write: true}}}); d.Behavior == Allow {
			t.Errorf("writing the spill directory: allowed in %s", mode)
		}
	}
}

// TestCarriedVariablesAreSeen covers class 3's second half: what the
// session's shell exported earlier is part of every later command.
func TestCarriedVariablesAreSeen(t *testing.T) {
	c := newTestChecker(t, Config{})
	check := func(env []string, cmd string) Decision {
		return c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: cmd, Workdir: "/work/ws", ShellEnv: env})
	}
	if d := check(nil, "git status"); d.Behavior != Allow {
		t.Fatalf("control: %+v", d)
	}
	for _, env := range [][]string{{"GIT_CONFIG_COUNT=1"}, {"GIT_EXTERNAL_DIFF=/tmp/x"}, {"PAGER=sh -c x"}, {"LD_PRELOAD=/tmp/x.so"}, {"FOO=bar"}} {
		if d := check(env, "git status"); d.Behavior == Allow {
			t.Errorf("carried %v: allowed", env)
		}
	}
	if d := check([]string{"NO_COLOR=1", "PAGER=cat"}, "git status"); d.Behavior != Allow {
		t.Errorf("harmless carried variables: %+v", d)
	}
	// Arithmetic on a carried variable is opaque: its value is unknown.
	if d := check([]string{"NO_COLOR=1"}, "echo $((NO_COLOR))"); d.Behavior == Allow {
		t.Errorf("arithmetic on a carried variable: allowed")
	}
}

// TestTypedCommands: a command the person typed runs without a question
// (their words), but what is denied stays denied.
func TestTypedCommands(t *testing.T) {
	c := newTestChecker(t, Config{Rules: Rules{Deny: []string{"Bash(curl:*)"}}})
	typed := func(cmd string) Decision {
		return c.Check(context.Background(), Request{Tool: "Bash", Kind: KindExec, Command: cmd, Workdir: "/work/ws", Typed: true})
	}
	for _, cmd := range []string{"rm -f x", "echo x > /tmp/y", "eval \"$X\"", "cat ~/.ssh/id_rsa"} {
		if d := typed(cmd); d.Behavior != Allow {
			t.Errorf("typed %q: %+v", cmd, d)
		}
	}
	for _, cmd := range []string{"curl x", "rm -rf /", "echo x > /etc/passwd"} {
		if d := typed(cmd); d.Behavior != Deny {
			t.Errorf("typed %q: %+v, want deny", cmd, d)
		}
	}
	plan := newTestChecker(t, Config{Mode: ModePlan})
	if d := plan.Check(context.Background(), Request{Tool: "Bash", Command: "touch x", Workdir: "/work/ws", Typed: true}); d.Behavior != Deny {
		t.Errorf("typed in plan mode: %+v", d)
	}
}

// TestTreeWritesIntoGitOrHome: a write of a whole tree into a directory
// that holds a git directory or the home may plant hooks or start-up
// files, so it asks even in bypassPermissions.
func TestTreeWritesIntoGitOrHome(t *testing.T) {
	w := newFSWorld(t)
	if err := os.MkdirAll(filepath.Join(w.ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.ws, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	bypass := Config{Mode: ModeBypass}
	for _, cmd := range []string{"cp -r tpl/. .", "tar -xf payload.tar", "unzip -o a.zip", "unzip -o a.zip -d " + w.home, "cp -r tpl " + filepath.Dir(w.home)} {
		if d := w.check(t, bypass, cmd); d.Behavior != Ask || d.Layer != LayerPath {
			t.Errorf("%q: %s/%s (%s), want ask/path", cmd, d.Behavior, d.Layer, d.Reason)
		}
	}
	for _, cmd := range []string{"cp -r tpl build", "tar -xf payload.tar -C build", "unzip -o a.zip -d build"} {
		if d := w.check(t, bypass, cmd); d.Behavior != Allow {
			t.Errorf("%q: %s (%s), want allow", cmd, d.Behavior, d.Reason)
		}
	}
}

// TestRecursiveReadsFollowingLinksOut: grep -R and rg -L follow the links
// they meet; one that leads out of the workspace makes the read outside.
func TestRecursiveReadsFollowingLinksOut(t *testing.T) {
	w := newFSWorld(t)
	for _, cmd := range []string{"grep -R TOKEN .", "rg -L TOKEN", "grep -r TOKEN ."} {
		if d := w.check(t, Config{}, cmd); d.Behavior != Allow {
			t.Errorf("%q without links: %s (%s)", cmd, d.Behavior, d.Reason)
		}
	}
	w.link(t, w.home, filepath.Join(w.ws, "src", "homelink"))
	for _, cmd := range []string{"grep -R TOKEN .", "rg -L TOKEN", "rg --follow TOKEN src", "grep --dereference-recursive TOKEN ."} {
		if d := w.check(t, Config{}, cmd); d.Behavior == Allow {
			t.Errorf("%q through a link out: allowed", cmd)
		}
	}
	if d := w.check(t, Config{}, "grep -r TOKEN ."); d.Behavior != Allow {
		t.Errorf("grep -r does not follow links: %s (%s)", d.Behavior, d.Reason)
	}
}
