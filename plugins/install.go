package plugins

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/gitwork"
)

// AddMarketplace fetches the marketplace at src into nova's store (a git
// source is cloned; a directory is read where it is) and records it under
// the name its catalogue gives, which it returns. Adding one already
// added from the same source fetches it again; another source under the
// same name is refused.
func (m *Manager) AddMarketplace(ctx context.Context, src Source) (string, error) {
	st := m.Nova()
	l, err := st.lock()
	if err != nil {
		return "", err
	}
	defer l.Unlock()
	return m.fetchMarketplace(ctx, st, src, "")
}

// fetchMarketplace does AddMarketplace's work under the lock; want, when
// set, is the name the catalogue must give (an update).
func (m *Manager) fetchMarketplace(ctx context.Context, st Store, src Source, want string) (string, error) {
	known, err := st.Known()
	if err != nil {
		return "", err
	}
	root := src.Path
	var tmp string
	if url := src.GitURL(); url != "" {
		parent := filepath.Join(st.Dir, "marketplaces")
		if err := os.MkdirAll(parent, 0o755); err != nil {
			return "", fmt.Errorf("add marketplace: %w", err)
		}
		if tmp, err = os.MkdirTemp(parent, ".fetch-*"); err != nil {
			return "", fmt.Errorf("add marketplace: %w", err)
		}
		defer os.RemoveAll(tmp)
		root = filepath.Join(tmp, "repo")
		if err := clone(ctx, url, src.Ref, "", root); err != nil {
			return "", fmt.Errorf("add marketplace %s: %w", src, err)
		}
	}
	cat, err := ReadCatalog(root)
	if err != nil {
		return "", err
	}
	if want != "" && cat.Name != want {
		return "", fmt.Errorf("marketplace %s now calls itself %q: remove it (nova plugin marketplace remove %s) and add it again", want, cat.Name, want)
	}
	if k, ok := known[cat.Name]; ok {
		if old, err := DecodeSource(k.Source); err == nil && old != src {
			return "", fmt.Errorf("a marketplace called %s is already added, from %s: remove it first (nova plugin marketplace remove %s)", cat.Name, old, cat.Name)
		}
	}
	if tmp != "" {
		dest := filepath.Join(st.Dir, "marketplaces", cat.Name)
		if err := swapDir(root, dest, tmp); err != nil {
			return "", fmt.Errorf("add marketplace %s: %w", cat.Name, err)
		}
		root = dest
	}
	return cat.Name, st.editKnown(func(k map[string]Known) {
		k[cat.Name] = Known{Source: src.JSON(), InstallLocation: root, LastUpdated: now()}
	})
}

// UpdateMarketplace fetches nova's marketplace name again (a clone is
// replaced by a fresh one, atomically); "" updates every one. It returns
// the names updated.
func (m *Manager) UpdateMarketplace(ctx context.Context, name string) ([]string, error) {
	st := m.Nova()
	l, err := st.lock()
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	return m.updateLocked(ctx, st, name)
}

func (m *Manager) updateLocked(ctx context.Context, st Store, name string) ([]string, error) {
	known, err := st.Known()
	if err != nil {
		return nil, err
	}
	names := sortedKeys(known)
	if name != "" {
		if _, ok := known[name]; !ok {
			return nil, m.notNova(name)
		}
		names = []string{name}
	}
	for _, n := range names {
		src, err := DecodeSource(known[n].Source)
		if err != nil {
			return nil, fmt.Errorf("marketplace %s: %w", n, err)
		}
		if _, err := m.fetchMarketplace(ctx, st, src, n); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// notNova is the error for a marketplace nova did not add.
func (m *Manager) notNova(name string) error {
	if mk, err := m.Find(name); err == nil && mk.Claude {
		return fmt.Errorf("marketplace %s is Claude Code's: nova installs from it but does not change it (claude plugin marketplace update %s / remove %s)", name, name, name)
	}
	return fmt.Errorf("nova has no marketplace %s (nova plugin marketplace list shows them)", name)
}

// RemoveMarketplace forgets nova's marketplace name, deletes its clone
// and uninstalls the plugins nova installed from it, which it returns.
func (m *Manager) RemoveMarketplace(ctx context.Context, name string) ([]string, error) {
	st := m.Nova()
	l, err := st.lock()
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	known, err := st.Known()
	if err != nil {
		return nil, err
	}
	k, ok := known[name]
	if !ok {
		return nil, m.notNova(name)
	}
	installed, err := st.Installed()
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, id := range sortedKeys(installed) {
		if _, market := SplitID(id); market == name {
			if err := m.uninstallLocked(st, id); err != nil {
				return removed, err
			}
			removed = append(removed, id)
		}
	}
	if err := st.editKnown(func(k map[string]Known) { delete(k, name) }); err != nil {
		return removed, err
	}
	if within(filepath.Join(st.Dir, "marketplaces"), k.InstallLocation) {
		if err := os.RemoveAll(k.InstallLocation); err != nil {
			return removed, fmt.Errorf("remove marketplace %s: %w", name, err)
		}
	}
	return removed, nil
}

// Install installs id (NAME@MARKETPLACE) into nova's store from its
// marketplace and turns it on in the settings file of scope. A
// marketplace a user settings file declares is added first; one only a
// project names is refused with what to run (ErrProjectMarketplace).
func (m *Manager) Install(ctx context.Context, id string, sc Scope) (Install, error) {
	name, market, err := ParseID(id)
	if err != nil {
		return Install{}, err
	}
	st := m.Nova()
	l, err := st.lock()
	if err != nil {
		return Install{}, err
	}
	defer l.Unlock()
	mk, err := m.Find(market)
	if err != nil {
		return Install{}, err
	}
	if mk.Root == "" {
		if mk.Project {
			return Install{}, ProjectMarketplaceError(mk, name)
		}
		if _, err := m.fetchMarketplace(ctx, st, mk.Source, market); err != nil {
			return Install{}, err
		}
		if mk, err = m.Find(market); err != nil {
			return Install{}, err
		}
	}
	rec, err := m.installLocked(ctx, st, mk, name, sc)
	if err != nil {
		return Install{}, err
	}
	on := true
	if err := config.SetEnabledPlugin(m.SettingsFile(sc), id, &on); err != nil {
		return rec, err
	}
	return rec, nil
}

// Update fetches id's marketplace again (when it is nova's) and installs
// the plugin as the marketplace has it now. It returns the record before
// and after.
func (m *Manager) Update(ctx context.Context, id string) (before, after Install, err error) {
	name, market, err := ParseID(id)
	if err != nil {
		return before, after, err
	}
	st := m.Nova()
	l, err := st.lock()
	if err != nil {
		return before, after, err
	}
	defer l.Unlock()
	before, ok, err := st.InstalledAt(id)
	if err != nil {
		return before, after, err
	}
	if !ok {
		return before, after, m.notInstalled(id)
	}
	known, err := st.Known()
	if err != nil {
		return before, after, err
	}
	if _, ours := known[market]; ours {
		if _, err := m.updateLocked(ctx, st, market); err != nil {
			return before, after, err
		}
	}
	mk, err := m.Find(market)
	if err != nil {
		return before, after, err
	}
	after, err = m.installLocked(ctx, st, mk, name, Scope(before.Scope))
	return before, after, err
}

// notInstalled is the error for a plugin nova did not install.
func (m *Manager) notInstalled(id string) error {
	if cs, ok := m.Claude(); ok {
		if _, has, _ := cs.InstalledAt(id); has {
			return fmt.Errorf("%s was installed by Claude Code: nova loads it as it is (claude plugin update/uninstall %s changes it; nova plugin disable %s keeps it off in nova)", id, id, id)
		}
	}
	return fmt.Errorf("%s is not installed (nova plugin list shows what is)", id)
}

// Uninstall removes nova's install of id and its enabledPlugins entry in
// the user's settings.
func (m *Manager) Uninstall(ctx context.Context, id string) error {
	if _, _, err := ParseID(id); err != nil {
		return err
	}
	st := m.Nova()
	l, err := st.lock()
	if err != nil {
		return err
	}
	defer l.Unlock()
	if _, ok, err := st.InstalledAt(id); err != nil {
		return err
	} else if !ok {
		return m.notInstalled(id)
	}
	return m.uninstallLocked(st, id)
}

func (m *Manager) uninstallLocked(st Store, id string) error {
	installed, err := st.Installed()
	if err != nil {
		return err
	}
	for _, rec := range installed[id] {
		if within(filepath.Join(st.Dir, "cache"), rec.InstallPath) {
			if err := os.RemoveAll(rec.InstallPath); err != nil {
				return fmt.Errorf("uninstall %s: %w", id, err)
			}
		}
	}
	if err := st.editInstalled(func(all map[string][]Install) { delete(all, id) }); err != nil {
		return err
	}
	return config.SetEnabledPlugin(m.SettingsFile(ScopeUser), id, nil)
}

// SetEnabled turns id on or off in the settings file of scope. Turning on
// a plugin that is not installed is refused.
func (m *Manager) SetEnabled(id string, sc Scope, on bool) error {
	if _, _, err := ParseID(id); err != nil {
		return err
	}
	if on {
		installs, _, err := m.Installs()
		if err != nil {
			return err
		}
		found := false
		for _, in := range installs {
			found = found || in.ID == id
		}
		if !found {
			return fmt.Errorf("%s is not installed: nova plugin install %s", id, id)
		}
	}
	return config.SetEnabledPlugin(m.SettingsFile(sc), id, &on)
}

// installLocked copies (or clones) the plugin name of mk into a fresh
// directory of nova's cache and records it; the caller holds the lock.
// The copy is made in a temporary directory and renamed into place, so
// a failed install leaves what was there.
func (m *Manager) installLocked(ctx context.Context, st Store, mk Marketplace, name string, sc Scope) (Install, error) {
	id := name + "@" + mk.Name
	cat, err := ReadCatalog(mk.Root)
	if err != nil {
		return Install{}, err
	}
	e, ok := cat.Find(name)
	if !ok {
		var names []string
		for _, p := range cat.Plugins {
			names = append(names, p.Name)
		}
		return Install{}, fmt.Errorf("marketplace %s has no plugin %s (it has: %s); if it was added lately, nova plugin marketplace update %s", mk.Name, name, strings.Join(names, ", "), mk.Name)
	}
	ps, err := resolveSource(cat, e, mk.Root)
	if err != nil {
		return Install{}, err
	}
	parent := filepath.Join(st.Dir, "cache", mk.Name, name)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return Install{}, fmt.Errorf("install %s: %w", id, err)
	}
	tmp, err := os.MkdirTemp(parent, ".install-*")
	if err != nil {
		return Install{}, fmt.Errorf("install %s: %w", id, err)
	}
	defer os.RemoveAll(tmp)
	dir, sha, err := materialize(ctx, ps, mk.Root, tmp)
	if err != nil {
		return Install{}, fmt.Errorf("install %s: %w", id, err)
	}
	man, has, err := ReadManifest(dir)
	if err != nil {
		return Install{}, fmt.Errorf("install %s: %w", id, err)
	}
	if !has && e.Strict != nil && !*e.Strict {
		// The entry is the manifest: written where the loader reads one.
		if err := os.MkdirAll(filepath.Join(dir, ".claude-plugin"), 0o755); err != nil {
			return Install{}, err
		}
		if err := atomicfile.Write(filepath.Join(dir, filepath.FromSlash(ManifestPath)), e.Raw, 0o644); err != nil {
			return Install{}, err
		}
		man.Version = e.Version
	} else if has && man.Name != name {
		return Install{}, fmt.Errorf("install %s: the plugin's %s calls it %q, not %q as marketplace %s does", id, ManifestPath, man.Name, name, mk.Name)
	}
	version := firstOf(man.Version, e.Version, short(sha), "unknown")
	if err := checkName("version", version); err != nil {
		return Install{}, fmt.Errorf("install %s: %w", id, err)
	}
	dest := filepath.Join(parent, version)
	if err := swapDir(dir, dest, tmp); err != nil {
		return Install{}, fmt.Errorf("install %s: %w", id, err)
	}
	before, had, err := st.InstalledAt(id)
	if err != nil {
		return Install{}, err
	}
	rec := Install{Scope: string(sc), InstallPath: dest, Version: version, InstalledAt: now(), GitCommitSha: sha}
	rec.LastUpdated = rec.InstalledAt
	if had {
		rec.InstalledAt = before.InstalledAt
	}
	if sc != ScopeUser {
		rec.ProjectPath = m.Workdir
	}
	if err := st.editInstalled(func(all map[string][]Install) { all[id] = []Install{rec} }); err != nil {
		return Install{}, err
	}
	if had && before.InstallPath != dest && within(filepath.Join(st.Dir, "cache"), before.InstallPath) {
		// A session still running the old copy has its hooks fail
		// closed (a guard that cannot start blocks) until it restarts.
		_ = os.RemoveAll(before.InstallPath)
	}
	return rec, nil
}

// materialize puts the plugin's files in a directory under tmp and
// returns it, with the commit it came from ("" when not from git).
func materialize(ctx context.Context, ps pluginSource, marketRoot, tmp string) (string, string, error) {
	if ps.dir != "" {
		if st, err := os.Stat(ps.dir); err != nil || !st.IsDir() {
			return "", "", fmt.Errorf("the marketplace has no directory %s", ps.dir)
		}
		dest := filepath.Join(tmp, "plugin")
		if err := copyTree(ps.dir, dest); err != nil {
			return "", "", err
		}
		sha, _ := gitwork.Run(ctx, marketRoot, "rev-parse", "HEAD")
		if _, err := os.Stat(filepath.Join(marketRoot, ".git")); err != nil {
			sha = "" // a directory that is not a repository's top
		}
		return dest, sha, nil
	}
	repo := filepath.Join(tmp, "repo")
	if err := clone(ctx, ps.url, ps.ref, ps.sha, repo); err != nil {
		return "", "", err
	}
	sha, err := gitwork.Run(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		return "", "", err
	}
	if err := os.RemoveAll(filepath.Join(repo, ".git")); err != nil {
		return "", "", err
	}
	dir := repo
	if ps.sub != "" {
		dir = filepath.Join(repo, filepath.FromSlash(ps.sub))
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return "", "", fmt.Errorf("%s has no directory %s", ps.url, ps.sub)
		}
	}
	return dir, sha, nil
}

// clone clones url (at ref, then sha, when given) into dest, with nova's
// git: the repository's hooks and fsmonitor never run.
func clone(ctx context.Context, url, ref, sha, dest string) error {
	args := []string{"clone", "--quiet", "--no-recurse-submodules"}
	if ref != "" {
		args = append(args, "--branch", ref)
	}
	if sha == "" {
		args = append(args, "--depth", "1")
	}
	if _, err := gitwork.Run(ctx, filepath.Dir(dest), append(args, "--", url, dest)...); err != nil {
		return err
	}
	if sha != "" {
		if _, err := gitwork.Run(ctx, dest, "checkout", "--quiet", sha); err != nil {
			return err
		}
	}
	return nil
}

// swapDir puts src at dest by renames: dest, if there, is moved into tmp
// (which the caller removes) first.
func swapDir(src, dest, tmp string) error {
	if _, err := os.Lstat(dest); err == nil {
		if err := os.Rename(dest, filepath.Join(tmp, "old")); err != nil {
			return err
		}
	}
	return os.Rename(src, dest)
}

// copyTree copies a directory (files, directories and links as they
// are), leaving out .git.
func copyTree(src, dest string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dest, rel)
		switch {
		case d.IsDir() && d.Name() == ".git" && path != src:
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case !d.Type().IsRegular():
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return copyFile(path, target, info.Mode().Perm())
	})
}

func copyFile(src, dest string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// within reports whether path is below root.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
