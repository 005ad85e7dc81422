package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Git runs, outside the sandbox and later, what some files of a git
// directory name: its hooks, commands in its config (core.fsmonitor,
// core.pager, filters, ...), and whatever commondir, a .git file or an
// include points it at instead. A sandboxed command that could write one of
// those could run code outside the sandbox, so gitPlan keeps them read-only
// in every git directory a writable directory leads to, while the rest of
// the git directory (objects, refs, logs, index, HEAD, locks) stays writable
// so that git works inside the sandbox too.

// gitEntryState says what a protected path is now, which decides how the
// bwrap backend protects it. sandbox-exec denies writes by path and so
// treats every state alike.
type gitEntryState int

const (
	// entryPresent exists: it is bound read-only.
	entryPresent gitEntryState = iota
	// entryEmptyDir is a missing directory git would read (hooks): an
	// empty read-only directory is mounted there, which leaves an empty
	// directory on the host.
	entryEmptyDir
	// entryPlaceholder is a missing file git would read: nova writes a
	// placeholder with the content git takes to mean "absent", binds it
	// read-only and removes it when the Sandbox is closed.
	entryPlaceholder
	// entryUnread is missing and git does not read it there (the hooks
	// of a linked worktree's git directory are the common directory's).
	entryUnread
	// entryPlaceholderDir is a missing path that runs later (.vscode,
	// .mcp.json): nova makes an empty placeholder directory there, binds
	// it read-only and removes it when the Sandbox is closed
	// (placeholder_dir.go).
	entryPlaceholderDir
)

// gitEntry is one protected path.
type gitEntry struct {
	path        string
	state       gitEntryState
	placeholder string // content, for entryPlaceholder
}

// gitPlan is what has to hold for the git metadata of the writable
// directories as they are now. Every path is absolute and real.
type gitPlan struct {
	// pins are directories bound onto themselves, parents first: a mount
	// point cannot be renamed or removed, so a command cannot move a git
	// directory aside (taking the read-only binds inside it along) and
	// make a new one in its place.
	pins []string
	// roWhole are existing paths read-only as a whole: git directories
	// with a symlinked hooks or config (a bind lands on the link's target;
	// the link itself is only held by its directory), directories holding
	// a symlink git follows, core.hooksPath directories, and what could
	// not be inspected.
	roWhole []string
	entries []gitEntry
	// links are the symbolic links inside writable directories that git
	// follows to its metadata. bwrap holds them by roWhole where it can;
	// sandbox-exec denies them by name.
	links []string
}

// placeholders returns the entries that need a placeholder on the host.
func (g gitPlan) placeholders() []gitEntry {
	var out []gitEntry
	for _, e := range g.entries {
		if e.state == entryPlaceholder || e.state == entryPlaceholderDir {
			out = append(out, e)
		}
	}
	return out
}

const (
	// gitWalkBudget bounds how many directory entries one plan looks at
	// under .git/modules; past it the rest is made read-only whole.
	gitWalkBudget = 20000
	// gitMaxPointer is the most of a .git file, commondir or config that
	// is read; git does not follow a .git file larger than this either.
	gitMaxPointer = 1 << 20
	// gitMaxIncludes bounds include depth, as git does (MAX_INCLUDE_DEPTH).
	gitMaxIncludes = 10
	// commondirPlaceholder makes git take the git directory as its own
	// common directory, which is what it does when commondir is absent. An
	// empty commondir (or /dev/null, which a bind makes unreadable) makes
	// git refuse to run.
	commondirPlaceholder = ".\n"
)

// planGit finds the git metadata of each writable directory and what has to
// be protected. home is where the user's global git config is.
func planGit(writable []string, home string) gitPlan {
	p := &gitPlanner{
		writable: writable,
		home:     home,
		budget:   gitWalkBudget,
		seenDir:  map[string]string{},
		seenCfg:  map[string][]gitVar{},
		pins:     map[string]bool{},
		ro:       map[string]bool{},
		entries:  map[string]gitEntry{},
		links:    map[string]bool{},
	}
	for _, w := range writable {
		p.top = w
		if home != "" {
			// The global config's includes and core.hooksPath may point
			// into the workspace.
			p.config(filepath.Join(home, ".gitconfig"), 0)
			p.config(filepath.Join(home, ".config", "git", "config"), 0)
		}
		git := filepath.Join(w, ".git")
		fi, err := os.Lstat(git)
		switch {
		case err != nil:
			// No repository: `git init` here is a documented limit.
		case fi.Mode().IsRegular():
			// A worktree's or submodule's pointer: rewritten, it would
			// send git to hooks the sandbox wrote.
			p.entry(git, entryPresent, "")
			if target, ok := readGitFile(git); ok {
				p.gitDir(target, w)
			}
		default:
			p.gitDir(git, w)
		}
		if isBareRepo(w) {
			p.gitDir(w, "")
		}
		// Submodules the working tree declares: the .git of each is what
		// git in the parent follows into it. .gitmodules is the command's
		// to write, so it only ever adds protection, and is read as data.
		for _, v := range readGitConfig(filepath.Join(w, ".gitmodules")) {
			if v.section == "submodule" && v.key == "path" && v.value != "" {
				p.worktreeGit(filepath.Join(w, v.value))
			}
		}
		p.laterTops(w)
	}
	return p.finish()
}

// gitPlanner collects a gitPlan.
type gitPlanner struct {
	writable []string
	home     string
	top      string // the writable directory being planned: where hooks run
	budget   int
	seenDir  map[string]string   // git directory -> its common directory
	seenCfg  map[string][]gitVar // config file and top -> its variables
	pins     map[string]bool
	ro       map[string]bool
	entries  map[string]gitEntry
	links    map[string]bool
}

// rootOf returns the writable directory that holds path.
func (p *gitPlanner) rootOf(path string) (string, bool) {
	for _, w := range p.writable {
		if within(path, w) {
			return w, true
		}
	}
	return "", false
}

// follow resolves path as the kernel would and returns its real form. Each
// symbolic link on the way that lies in a writable directory could be
// re-aimed by a command, so the directory holding it is made read-only,
// unless that is a writable directory itself (a documented limit).
func (p *gitPlanner) follow(path string) (string, bool) {
	real, hops, exists := resolvePath(path)
	for _, h := range hops {
		root, inside := p.rootOf(h)
		if !inside {
			continue
		}
		p.links[h] = true
		if holder := filepath.Dir(h); holder != root {
			p.readOnly(holder)
		}
	}
	return real, exists
}

// gitDir plans the git directory at path (symbolic links allowed) and
// returns its real path and its common directory. worktree is its working
// tree when the caller knows it ("" otherwise).
func (p *gitPlanner) gitDir(path, worktree string) (real, common string, ok bool) {
	real, exists := p.follow(path)
	root, inside := p.rootOf(real)
	if !exists {
		// A pointer to a git directory that is not there: the sandbox
		// must not be able to make one.
		if inside {
			p.missing(root, real)
		}
		return "", "", false
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", "", false
	}
	if c, seen := p.seenDir[real]; seen {
		return real, c, true
	}
	p.seenDir[real] = real // a commondir cycle ends here
	if inside {
		p.pinChain(root, real)
	}
	common = p.commonDir(real, inside)
	p.seenDir[real] = common
	own := common == real
	vars := p.config(filepath.Join(common, "config"), 0)
	if inside {
		// hooks and config are read from the common directory only;
		// in a linked worktree's git directory they are never read.
		p.gitEntry(real, "hooks", own, entryEmptyDir, "")
		p.gitEntry(real, "config", own, entryPlaceholder, "")
		// config.worktree is read only with extensions.worktreeConfig,
		// which lives in the common config, itself read-only.
		worktreeConfig := gitBool(vars, "extensions", "worktreeconfig")
		p.gitEntry(real, "config.worktree", worktreeConfig, entryPlaceholder, "")
		if worktreeConfig {
			vars = append(vars, p.config(filepath.Join(real, "config.worktree"), 0)...)
		}
		// A submodule's working tree: git in the parent repository
		// follows its .git, which a command could otherwise re-aim at a
		// git directory of its own making.
		if wt := gitValueOf(vars, "core", "worktree"); wt != "" {
			if !filepath.IsAbs(wt) {
				wt = real + "/" + wt
			}
			worktree = wt
		}
		if worktree != "" && own {
			p.worktreeGit(worktree)
		}
		modules := filepath.Join(real, "modules")
		p.walkModules(modules, modules, worktree)
		p.worktrees(filepath.Join(real, "worktrees"))
	}
	return real, common, true
}

// worktreeGit protects the .git of the working tree wt, if it has one: a
// .git file is kept read-only and in place, a .git directory is planned as
// a git directory.
func (p *gitPlanner) worktreeGit(wt string) {
	git := filepath.Join(wt, ".git")
	real, exists := p.follow(git)
	root, inside := p.rootOf(real)
	if !exists || !inside {
		return
	}
	fi, err := os.Lstat(real)
	switch {
	case err != nil:
	case fi.Mode().IsRegular():
		p.pinParents(root, real)
		p.entry(real, entryPresent, "")
		if target, ok := readGitFile(real); ok {
			p.gitDir(target, wt)
		}
	case fi.IsDir():
		p.gitDir(real, wt)
	}
}

// commonDir protects the commondir file of the git directory real and
// returns the common directory it names (real itself when there is none).
func (p *gitPlanner) commonDir(real string, inside bool) string {
	path := filepath.Join(real, "commondir")
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist),
		err == nil && fi.Mode().IsRegular() && isPlaceholderPath(path, commondirPlaceholder):
		// Absent, or a placeholder (ours, another Sandbox's, or a killed
		// nova's): claimed, and removed with the Sandbox.
		if inside {
			p.entry(path, entryPlaceholder, commondirPlaceholder)
		}
		return real
	case err != nil:
		if inside {
			p.readOnly(real)
		}
		return real
	}
	if inside {
		p.gitEntry(real, "commondir", true, entryPlaceholder, commondirPlaceholder)
	}
	data, err := readSmall(path)
	if err != nil {
		return real // git refuses to run too
	}
	target := strings.TrimRight(string(data), "\r\n")
	if target == "" {
		return real
	}
	if !filepath.IsAbs(target) {
		target = real + "/" + target // resolvePath reads ".." as the kernel does
	}
	if c, _, ok := p.gitDir(target, ""); ok {
		return c
	}
	return real
}

// gitEntry protects the entry name of the git directory dir. read says git
// reads it there, so a missing one gets missingState.
func (p *gitPlanner) gitEntry(dir, name string, read bool, missingState gitEntryState, content string) {
	path := filepath.Join(dir, name)
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if read {
			p.entry(path, missingState, content)
		} else {
			p.entry(path, entryUnread, "")
		}
	case err != nil:
		p.readOnly(dir)
	case fi.Mode()&fs.ModeSymlink != 0:
		// A bind would land on the target and leave the link to be
		// replaced, so the git directory holding it is read-only whole;
		// the target must not be writable either.
		p.links[path] = true
		p.readOnly(dir)
		target, exists := p.follow(path)
		root, inside := p.rootOf(target)
		switch {
		case !inside:
		case exists:
			p.readOnly(target)
		case read:
			p.missing(root, target)
		}
	default:
		p.entry(path, entryPresent, "")
		if fi.IsDir() && name == "hooks" {
			p.hookLinks(path)
		}
	}
}

// hookLinks protects what the symbolic links in the hooks directory dir
// lead to: a hook linked to a script in the workspace is that script.
func (p *gitPlanner) hookLinks(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		target, exists := p.follow(filepath.Join(dir, e.Name()))
		if root, inside := p.rootOf(target); inside && exists && target != root {
			p.pinParents(root, target)
			p.readOnly(target)
		}
	}
}

// missing protects a path that does not exist in writable directory root
// from being created: an empty read-only directory at the highest missing
// directory on its way.
func (p *gitPlanner) missing(root, path string) { p.missingAs(root, path, entryEmptyDir) }

// missingAs is missing with the state the highest missing directory gets
// (entryEmptyDir in git directories, entryPlaceholderDir elsewhere).
func (p *gitPlanner) missingAs(root, path string, state gitEntryState) {
	top := path
	for d := filepath.Dir(path); d != root && within(d, root); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		top = d
	}
	p.pinParents(root, top)
	p.entry(top, state, "")
}

// protectFile keeps a file git reads (an included config) from being
// written or, when missing, created.
func (p *gitPlanner) protectFile(path string) {
	real, exists := p.follow(path)
	root, inside := p.rootOf(real)
	if !inside {
		return
	}
	p.pinParents(root, real)
	switch {
	case exists:
		p.entry(real, entryPresent, "")
	case dirExists(filepath.Dir(real)):
		p.entry(real, entryPlaceholder, "")
	default:
		p.missing(root, real)
	}
}

// protectHooksDir keeps a core.hooksPath directory and all in it read-only.
func (p *gitPlanner) protectHooksDir(path string) {
	real, exists := p.follow(path)
	root, inside := p.rootOf(real)
	switch {
	case !inside:
	case real == root:
		// A hooks path naming the workspace itself cannot be protected
		// without making the workspace read-only.
	case exists:
		p.pinParents(root, real)
		p.readOnly(real)
		p.hookLinks(real)
	default:
		p.missing(root, real)
	}
}

// walkModules plans the git directories of submodules under dir (part of
// the .git/modules tree rooted at top, of the repository whose working
// tree is worktree, "" when unknown). Submodule names may contain slashes,
// so git directories sit at any depth; a submodule's working tree is by
// default at its name.
func (p *gitPlanner) walkModules(dir, top, worktree string) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		p.readOnly(dir)
		return
	}
	for _, e := range ents {
		if p.budget--; p.budget < 0 {
			p.readOnly(top)
			return
		}
		child := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			p.links[child] = true
			p.readOnly(dir)
			if real, _, ok := p.gitDir(child, moduleWorktree(worktree, top, child)); ok {
				p.walkModules(real, top, worktree)
			}
		case e.IsDir():
			if looksLikeGitDir(child) {
				p.gitDir(child, moduleWorktree(worktree, top, child))
				p.walkGitDirChildren(child, top, worktree)
			} else {
				p.walkModules(child, top, worktree)
			}
		}
	}
}

// moduleWorktree is where the submodule whose git directory is gitDir
// (under the modules tree top) has its working tree by default.
func moduleWorktree(worktree, top, gitDir string) string {
	name, err := filepath.Rel(top, gitDir)
	if worktree == "" || err != nil || strings.HasPrefix(name, "..") {
		return ""
	}
	return filepath.Join(worktree, name)
}

// walkGitDirChildren walks the directories of a submodule's git directory
// that are not git's own, where a submodule whose name extends this one's
// would live.
func (p *gitPlanner) walkGitDirChildren(dir, top, worktree string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		p.readOnly(dir)
		return
	}
	for _, e := range ents {
		if !e.IsDir() || isGitInternal(e.Name()) {
			continue
		}
		if p.budget--; p.budget < 0 {
			p.readOnly(top)
			return
		}
		child := filepath.Join(dir, e.Name())
		if looksLikeGitDir(child) {
			p.gitDir(child, moduleWorktree(worktree, top, child))
			p.walkGitDirChildren(child, top, worktree)
		} else {
			p.walkModules(child, top, worktree)
		}
	}
}

// worktrees plans the git directories of linked worktrees under dir.
func (p *gitPlanner) worktrees(dir string) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		p.readOnly(dir)
		return
	}
	for _, e := range ents {
		child := filepath.Join(dir, e.Name())
		if e.Type()&fs.ModeSymlink != 0 {
			p.links[child] = true
			p.readOnly(dir)
		}
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			p.gitDir(child, "")
		}
	}
}

// config protects what the git config file at path makes git read or run
// from a writable directory (included files, a core.hooksPath directory)
// and returns its variables followed by those of the files it includes.
func (p *gitPlanner) config(path string, depth int) []gitVar {
	key := path + "\x00" + p.top
	if vars, seen := p.seenCfg[key]; seen || depth > gitMaxIncludes {
		return vars
	}
	p.seenCfg[key] = nil // an include cycle ends here
	data, err := readSmall(path)
	if err != nil {
		return nil
	}
	var vars []gitVar
	for _, v := range parseGitConfig(data) {
		vars = append(vars, v)
		switch {
		case (v.section == "include" || v.section == "includeif") && v.key == "path":
			// includeIf conditions are not evaluated: every file that
			// might be included is protected.
			inc := p.expand(v.value, filepath.Dir(path))
			p.protectFile(inc)
			vars = append(vars, p.config(inc, depth+1)...)
		case v.section == "core" && v.key == "hookspath":
			// Relative to where hooks run: the top of the working tree,
			// or the git directory of a bare repository.
			p.protectHooksDir(p.expand(v.value, p.top))
		case isGitCommand(v):
			// A program git runs (core.fsmonitor, a filter, a diff
			// driver, ...) that is a file in the workspace is as good as
			// a hook. Git runs it from the top of the working tree.
			for _, word := range commandPaths(v.value) {
				p.protectFile(p.expand(word, p.top))
			}
		}
	}
	p.seenCfg[key] = vars
	return vars
}

// expand turns a path from a git config into an absolute one.
func (p *gitPlanner) expand(v, base string) string {
	switch {
	case v == "~" && p.home != "":
		return p.home
	case strings.HasPrefix(v, "~/") && p.home != "":
		return filepath.Join(p.home, v[2:])
	case filepath.IsAbs(v):
		return filepath.Clean(v)
	}
	return filepath.Join(base, v)
}

func (p *gitPlanner) pinChain(root, dir string) {
	for d := dir; d != root && within(d, root); d = filepath.Dir(d) {
		p.pins[d] = true
	}
}

func (p *gitPlanner) pinParents(root, path string) {
	p.pinChain(root, filepath.Dir(path))
}

// readOnly makes an existing path inside a writable directory read-only
// as a whole.
func (p *gitPlanner) readOnly(path string) {
	if _, inside := p.rootOf(path); inside {
		p.ro[path] = true
	}
}

// entry records a protected path; a stronger state wins over entryUnread.
func (p *gitPlanner) entry(path string, state gitEntryState, content string) {
	if old, ok := p.entries[path]; ok && old.state != entryUnread {
		return
	}
	p.entries[path] = gitEntry{path: path, state: state, placeholder: content}
}

// finish orders the plan: parents before children, nothing inside what is
// read-only whole (bwrap cannot make a mount point in a read-only directory,
// and it would protect nothing more).
func (p *gitPlanner) finish() gitPlan {
	var g gitPlan
	for path := range p.ro {
		if _, err := os.Lstat(path); err == nil {
			g.roWhole = append(g.roWhole, path)
		}
	}
	g.roWhole = outermost(g.roWhole)
	covered := func(path string) bool {
		return slices.ContainsFunc(g.roWhole, func(r string) bool { return within(path, r) })
	}
	for path := range p.pins {
		if !covered(path) {
			g.pins = append(g.pins, path)
		}
	}
	slices.SortFunc(g.pins, func(a, b string) int {
		if d := strings.Count(a, "/") - strings.Count(b, "/"); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for _, e := range p.entries {
		if !covered(e.path) {
			g.entries = append(g.entries, e)
		}
	}
	slices.SortFunc(g.entries, func(a, b gitEntry) int { return strings.Compare(a.path, b.path) })
	for l := range p.links {
		g.links = append(g.links, l)
	}
	slices.Sort(g.links)
	return g
}

// outermost sorts paths and drops those inside another.
func outermost(paths []string) []string {
	slices.Sort(paths)
	var out []string
	for _, path := range paths {
		if len(out) == 0 || !within(path, out[len(out)-1]) {
			out = append(out, path)
		}
	}
	return out
}
