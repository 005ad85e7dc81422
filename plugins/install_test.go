package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/config"
)

// marketRepo makes a git repository holding a marketplace
// (fixture-market) that offers the guard-kit fixture, and returns it.
// HOME is a temporary directory, so no git config of the machine's
// user is read.
func marketRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := filepath.Join(t.TempDir(), "market")
	if err := copyTree(filepath.Join("testdata", "guard-kit"), filepath.Join(repo, "plugins", "guard-kit")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, MarketplacePath), `{"name": "fixture-market", "owner": {"name": "nova tests"},
  "plugins": [{"name": "guard-kit", "source": "./plugins/guard-kit", "description": "A guard", "version": "1.0.0"}]}`)
	git(t, repo, "init", "-q", "-b", "main")
	commit(t, repo, "one")
	return repo
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func commit(t *testing.T, repo, msg string) {
	t.Helper()
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", msg)
}

// bump makes version the plugin's and the marketplace's, in a new commit.
func bump(t *testing.T, repo, version string) {
	t.Helper()
	for _, f := range []string{filepath.Join(repo, MarketplacePath), filepath.Join(repo, "plugins", "guard-kit", ManifestPath)} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, f, strings.Replace(string(b), `"version": "1.0.0"`, `"version": "`+version+`"`, 1))
	}
	commit(t, repo, version)
}

// session loads the settings as a session in m.Workdir would and returns
// the manager that weighs them.
func session(t *testing.T, m *Manager, trusted bool) *Manager {
	t.Helper()
	st, _, err := config.LoadSettings(m.NovaHome, m.Workdir, m.Home, trusted)
	if err != nil {
		t.Fatal(err)
	}
	return &Manager{NovaHome: m.NovaHome, Home: m.Home, ClaudeHome: m.ClaudeHome, Workdir: m.Workdir, Sets: st.PluginSets}
}

func TestMarketplaceLifecycle(t *testing.T) {
	repo := marketRepo(t)
	ctx := context.Background()
	m := &Manager{NovaHome: t.TempDir(), Workdir: t.TempDir()}
	src, err := ParseSource("file://"+repo, m.Workdir)
	if err != nil || src.Source != "git" {
		t.Fatalf("%+v %v", src, err)
	}
	name, err := m.AddMarketplace(ctx, src)
	if err != nil || name != "fixture-market" {
		t.Fatalf("add: %q %v", name, err)
	}
	clone := filepath.Join(m.NovaHome, "plugins", "marketplaces", "fixture-market")
	if _, err := os.Stat(filepath.Join(clone, MarketplacePath)); err != nil {
		t.Fatalf("no clone: %v", err)
	}
	rec, err := m.Install(ctx, "guard-kit@fixture-market", ScopeUser)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(m.NovaHome, "plugins", "cache", "fixture-market", "guard-kit", "1.0.0")
	if rec.InstallPath != want || rec.Version != "1.0.0" || len(rec.GitCommitSha) != 40 {
		t.Errorf("record %+v", rec)
	}
	if _, err := os.Stat(filepath.Join(want, "hooks", "guard.sh")); err != nil {
		t.Errorf("installed copy: %v", err)
	}
	settings, _ := os.ReadFile(filepath.Join(m.NovaHome, "settings.json"))
	if !strings.Contains(string(settings), `"guard-kit@fixture-market": true`) {
		t.Errorf("settings.json = %s", settings)
	}
	loaded, err := session(t, m, false).Load(nil)
	if err != nil || len(loaded.Plugins) != 1 || loaded.Plugins[0].Origin != OriginNova || loaded.Plugins[0].Root != want {
		t.Fatalf("loaded %+v %v", loaded, err)
	}

	bump(t, repo, "1.1.0")
	before, after, err := m.Update(ctx, "guard-kit@fixture-market")
	if err != nil || before.Version != "1.0.0" || after.Version != "1.1.0" || after.GitCommitSha == before.GitCommitSha {
		t.Fatalf("update: %+v -> %+v, %v", before, after, err)
	}
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Errorf("the old version's copy is still there: %v", err)
	}

	if err := m.Uninstall(ctx, "guard-kit@fixture-market"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(after.InstallPath); !os.IsNotExist(err) {
		t.Errorf("uninstalled copy still there: %v", err)
	}
	settings, _ = os.ReadFile(filepath.Join(m.NovaHome, "settings.json"))
	if strings.Contains(string(settings), "guard-kit") {
		t.Errorf("settings.json still names it: %s", settings)
	}
	if _, err := m.Install(ctx, "guard-kit@fixture-market", ScopeUser); err != nil {
		t.Fatal(err)
	}
	removed, err := m.RemoveMarketplace(ctx, "fixture-market")
	if err != nil || len(removed) != 1 {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if _, err := os.Stat(clone); !os.IsNotExist(err) {
		t.Errorf("clone still there")
	}
}

// TestFailedUpdateKeepsInstall: an update whose plugin does not install
// leaves the installed copy and its record as they were.
func TestFailedUpdateKeepsInstall(t *testing.T) {
	repo := marketRepo(t)
	ctx := context.Background()
	m := &Manager{NovaHome: t.TempDir(), Workdir: t.TempDir()}
	if _, err := m.AddMarketplace(ctx, Source{Source: "git", URL: "file://" + repo}); err != nil {
		t.Fatal(err)
	}
	rec, err := m.Install(ctx, "guard-kit@fixture-market", ScopeUser)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "plugins", "guard-kit", ManifestPath), `{"name": "another-name", "version": "2.0.0"}`)
	commit(t, repo, "broken")
	if _, _, err := m.Update(ctx, "guard-kit@fixture-market"); err == nil || !strings.Contains(err.Error(), "another-name") {
		t.Fatalf("update: %v", err)
	}
	now, ok, err := m.Nova().InstalledAt("guard-kit@fixture-market")
	if err != nil || !ok || now != rec {
		t.Errorf("record %+v, was %+v (%v)", now, rec, err)
	}
	if _, err := os.Stat(filepath.Join(rec.InstallPath, ManifestPath)); err != nil {
		t.Errorf("installed copy gone: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(m.NovaHome, "plugins", "cache", "fixture-market", "guard-kit", ".install-*"))
	if len(left) > 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}

// TestConcurrentInstalls: two installs at once (as two nova processes
// would) both land, and the state file names both.
func TestConcurrentInstalls(t *testing.T) {
	repo := marketRepo(t)
	b, _ := os.ReadFile(filepath.Join(repo, MarketplacePath))
	writeFile(t, filepath.Join(repo, MarketplacePath), strings.Replace(string(b), `"plugins": [`,
		`"plugins": [{"name": "twin", "source": "./plugins/twin"}, `, 1))
	writeFile(t, filepath.Join(repo, "plugins", "twin", "commands", "x.md"), "x")
	commit(t, repo, "twin")
	ctx := context.Background()
	home := t.TempDir()
	m := &Manager{NovaHome: home, Workdir: t.TempDir()}
	if _, err := m.AddMarketplace(ctx, Source{Source: "directory", Path: repo}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, id := range []string{"guard-kit@fixture-market", "twin@fixture-market"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := (&Manager{NovaHome: home, Workdir: m.Workdir}).Install(ctx, id, ScopeUser)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	all, err := m.Nova().Installed()
	if err != nil || len(all) != 2 {
		t.Fatalf("installed %v %v", all, err)
	}
	on, _ := session(t, m, false).Enabled()
	if !on["guard-kit@fixture-market"] || !on["twin@fixture-market"] {
		t.Errorf("enabled %v", on)
	}
}

// TestProjectMarketplace: a marketplace only a project's settings name
// is not fetched by an install (the error says what to run), and an
// untrusted project's plugin keys count for nothing.
func TestProjectMarketplace(t *testing.T) {
	repo := marketRepo(t)
	ctx := context.Background()
	m := &Manager{NovaHome: t.TempDir(), Workdir: t.TempDir()}
	writeFile(t, filepath.Join(m.Workdir, ".claude", "settings.json"), `{
  "extraKnownMarketplaces": {"fixture-market": {"source": {"source": "git", "url": "file://`+repo+`"}}},
  "enabledPlugins": {"guard-kit@fixture-market": true}}`)

	untrusted := session(t, m, false)
	if on, _ := untrusted.Enabled(); len(on) != 0 {
		t.Errorf("an untrusted project enables %v", on)
	}
	if _, err := untrusted.Install(ctx, "guard-kit@fixture-market", ScopeUser); err == nil || errors.Is(err, ErrProjectMarketplace) {
		t.Errorf("untrusted: %v, want no such marketplace", err)
	}

	trusted := session(t, m, true)
	loaded, err := trusted.Load(nil)
	if err != nil || len(loaded.Plugins) != 0 || len(loaded.Pending) != 1 {
		t.Fatalf("loaded %+v %v", loaded, err)
	}
	p := loaded.Pending[0]
	if !p.Marketplace.Project || !strings.Contains(p.Command(), "nova plugin marketplace add file://"+repo) {
		t.Errorf("pending %+v: %s", p, p.Command())
	}
	_, err = trusted.Install(ctx, "guard-kit@fixture-market", ScopeUser)
	if !errors.Is(err, ErrProjectMarketplace) || !strings.Contains(err.Error(), "nova plugin marketplace add file://"+repo) {
		t.Fatalf("install: %v", err)
	}
	if _, err := os.Stat(filepath.Join(m.NovaHome, "plugins", "marketplaces", "fixture-market")); !os.IsNotExist(err) {
		t.Errorf("the project's marketplace was fetched: %v", err)
	}
	// Once the person adds it, the project's enabledPlugins turns it on.
	if _, err := trusted.AddMarketplace(ctx, Source{Source: "git", URL: "file://" + repo}); err != nil {
		t.Fatal(err)
	}
	if _, err := trusted.Install(ctx, "guard-kit@fixture-market", ScopeLocal); err != nil {
		t.Fatal(err)
	}
	if loaded, err = session(t, m, true).Load(nil); err != nil || len(loaded.Plugins) != 1 {
		t.Fatalf("after install: %+v %v", loaded, err)
	}
}

// TestClaudeInstalled: a plugin Claude Code installed and turned on in
// ~/.claude/settings.json loads with no step; nova's false overrides it.
func TestClaudeInstalled(t *testing.T) {
	home := t.TempDir()
	m := &Manager{NovaHome: filepath.Join(home, ".nova"), Home: home, ClaudeHome: filepath.Join(home, ".claude"), Workdir: t.TempDir()}
	cache := filepath.Join(home, ".claude", "plugins", "cache", "fixture-market", "guard-kit", "1.0.0")
	if err := copyTree(filepath.Join("testdata", "guard-kit"), cache); err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(installedDoc{Version: 2, Plugins: map[string][]Install{"guard-kit@fixture-market": {{Scope: "user", InstallPath: cache, Version: "1.0.0"}}}})
	writeFile(t, filepath.Join(home, ".claude", "plugins", "installed_plugins.json"), string(rec))
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"enabledPlugins": {"guard-kit@fixture-market": true}}`)
	loaded, err := session(t, m, false).Load(nil)
	if err != nil || len(loaded.Plugins) != 1 || loaded.Plugins[0].Origin != OriginClaude {
		t.Fatalf("loaded %+v %v", loaded, err)
	}
	if err := m.SetEnabled("guard-kit@fixture-market", ScopeUser, false); err != nil {
		t.Fatal(err)
	}
	if loaded, _ = session(t, m, false).Load(nil); len(loaded.Plugins) != 0 {
		t.Errorf("nova's disable did not hold over Claude Code's enable: %+v", loaded.Plugins)
	}
	if err := m.Uninstall(context.Background(), "guard-kit@fixture-market"); err == nil || !strings.Contains(err.Error(), "installed by Claude Code") {
		t.Errorf("uninstall of Claude Code's: %v", err)
	}
}

func TestEnabledLayers(t *testing.T) {
	m := &Manager{Sets: []config.PluginSet{
		{File: "nova-local", Layer: config.SourceLocal, Enabled: map[string]bool{"a@m": false}},
		{File: "claude-user", Layer: config.SourceUser, Claude: true, Enabled: map[string]bool{"a@m": true, "b@m": true, "c@m": true}},
		{File: "nova-user", Layer: config.SourceUser, Enabled: map[string]bool{"b@m": false}},
		{File: "claude-project", Layer: config.SourceProject, Claude: true, Enabled: map[string]bool{"c@m": false}},
	}}
	on, by := m.Enabled()
	for id, want := range map[string]bool{"a@m": false, "b@m": false, "c@m": false} {
		if on[id] != want {
			t.Errorf("%s = %v (by %s), want %v", id, on[id], by[id], want)
		}
	}
	if by["a@m"] != "nova-local" || by["b@m"] != "nova-user" || by["c@m"] != "claude-project" {
		t.Errorf("decided by %v", by)
	}
}
