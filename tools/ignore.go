package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// This file holds the .gitignore matching and the parallel file walker that
// Glob, Grep and LS share, so the three agree on what "the files of the
// project" are and Grep's built-in backend agrees with ripgrep.
//
// Semantics, chosen to match `rg --no-require-git` and git itself:
//   - .gitignore files apply whether or not the tree is a git repository;
//   - the .gitignore files of the directories above the walked root apply,
//     up to and including the nearest directory holding .git (the repository
//     root), and .git/info/exclude of that repository applies below them all;
//   - deeper files override shallower ones, later lines override earlier ones;
//   - a file under an ignored directory cannot be re-included;
//   - patterns match as git's wildmatch does (wildmatch.go), and a line is
//     read as git reads it (trailing spaces, escapes, a byte-order mark);
//   - a .gitignore that is a symbolic link is not read, as git refuses it;
//   - entries named .git are never listed; other dotfiles are.
//
// What is deliberately not read: the user's global excludes
// (core.excludesFile, $XDG_CONFIG_HOME/git/ignore) and the system's, so
// the model sees the same files on every machine and in CI whatever one
// person's git configuration says (rg is run with --no-ignore-global for
// the same reason); and the index, so a tracked file that a pattern
// matches is left out, where git would still list it (rg does the same).
// TestIgnoreCorpusMatchesGit holds all the rest to git check-ignore on the
// trees in testdata/ignore.

// gitignoreRule is one pattern line of an ignore file. Most lines are a
// plain name or "*.ext", which are compared directly (as git does): the
// walker checks every entry against every rule, so wildmatch is kept for
// the rest.
type gitignoreRule struct {
	glob     string // matched with wildmatch; "" when literal or suffix decides
	literal  string // the subject must equal it
	suffix   string // the subject must end with it ("*.log")
	anchored bool   // the subject is the relative path, not the name
	negate   bool   // "!pattern" re-includes
	dirOnly  bool   // "pattern/" matches directories only
}

// matches reports whether rel (relative to the ignore file's directory),
// whose last element is name, matches the pattern. An unanchored pattern
// has no "/" and none of its wildcards match "/", so matching the last path
// element is the same as matching at any depth.
func (r *gitignoreRule) matches(rel, name string) bool {
	subject := rel
	if !r.anchored {
		subject = name
	}
	switch {
	case r.glob != "":
		return wildmatch(r.glob, subject)
	case r.suffix != "":
		return strings.HasSuffix(subject, r.suffix)
	}
	return subject == r.literal
}

// gitignoreFile is the parsed rules of one ignore file; base is the
// directory its patterns are relative to.
type gitignoreFile struct {
	base  string
	rules []gitignoreRule
}

// parseGitignore reads the rules of data, an ignore file whose patterns are
// relative to base. Unparseable lines are skipped, as git does.
func parseGitignore(base string, data []byte) *gitignoreFile {
	f := &gitignoreFile{base: base}
	data = bytes.TrimPrefix(data, []byte(utf8BOM)) // git skips one
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if r, ok := parseGitignoreLine(sc.Text()); ok {
			f.rules = append(f.rules, r)
		}
	}
	return f
}

func parseGitignoreLine(line string) (gitignoreRule, bool) {
	line = trimTrailingSpaces(strings.TrimSuffix(line, "\r"))
	if line == "" || strings.HasPrefix(line, "#") {
		return gitignoreRule{}, false
	}
	var r gitignoreRule
	if strings.HasPrefix(line, "!") {
		r.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") { // one slash: "a//" is "a/" for directories, which matches none
		r.dirOnly = true
		line = line[:len(line)-1]
	}
	if line == "" {
		return gitignoreRule{}, false
	}
	// A slash at the start or in the middle anchors the pattern to the
	// ignore file's directory; otherwise it matches at any depth.
	r.anchored = strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	const meta = `*?[\`
	switch {
	case !strings.ContainsAny(line, meta):
		r.literal = line
	case !r.anchored && line[0] == '*' && len(line) > 1 && !strings.ContainsAny(line[1:], meta):
		r.suffix = line[1:]
	default:
		r.glob = line
	}
	return r, true
}

// trimTrailingSpaces drops the spaces ending line that no backslash
// escapes, as git does; a line ending in a lone backslash keeps them.
func trimTrailingSpaces(line string) string {
	lastSpace := -1
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(line) {
				return line
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return line[:lastSpace]
	}
	return line
}

// match reports whether the rules decide rel (slash-separated, relative to
// base): decided says a rule matched, ignored is its verdict.
func (f *gitignoreFile) match(rel string, isDir bool) (ignored, decided bool) {
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := &f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.matches(rel, name) {
			return !r.negate, true
		}
	}
	return false, false
}

// ignoreChain is the ignore files in force in one directory, deepest first.
// Chains are immutable and shared by the directories below.
type ignoreChain struct {
	file   *gitignoreFile
	parent *ignoreChain
}

// ignored reports whether abs (a path below every file's base) is ignored.
func (c *ignoreChain) ignored(abs string, isDir bool) bool {
	for ; c != nil; c = c.parent {
		rel, ok := relUnder(c.file.base, abs)
		if !ok {
			continue
		}
		if ign, ok := c.file.match(rel, isDir); ok {
			return ign
		}
	}
	return false
}

// relUnder returns abs relative to base, slash-separated, when abs lies
// strictly below base: a cheap filepath.Rel for the walker's hot path.
func relUnder(base, abs string) (string, bool) {
	if !strings.HasPrefix(abs, base) {
		return "", false
	}
	rest := abs[len(base):]
	if !strings.HasSuffix(base, string(filepath.Separator)) {
		if !strings.HasPrefix(rest, string(filepath.Separator)) {
			return "", false
		}
		rest = rest[1:]
	}
	if rest == "" {
		return "", false
	}
	return filepath.ToSlash(rest), true
}

// withDir returns the chain for dir: c plus dir's own .gitignore, if any.
// A .gitignore that is a symbolic link is not read: git refuses it (it
// could point anywhere), and the walker must list what git would.
func (c *ignoreChain) withDir(dir string) *ignoreChain {
	name := filepath.Join(dir, ".gitignore")
	data, err := os.ReadFile(name)
	if err != nil || len(data) == 0 {
		return c
	}
	// Checked after the read so the common case, no .gitignore, costs
	// one failed open.
	if st, err := os.Lstat(name); err != nil || st.Mode()&fs.ModeSymlink != 0 {
		return c
	}
	return &ignoreChain{file: parseGitignore(dir, data), parent: c}
}

// rootIgnoreChain builds the chain in force at root: the repository's
// info/exclude, the .gitignore files of root's ancestors up to the
// repository root (or the file system root when there is none), and root's.
func rootIgnoreChain(root string) *ignoreChain {
	dirs := []string{root}
	for d := root; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
		dirs = append(dirs, d)
	}
	var c *ignoreChain
	top := dirs[len(dirs)-1]
	if data, err := os.ReadFile(filepath.Join(top, ".git", "info", "exclude")); err == nil {
		c = &ignoreChain{file: parseGitignore(top, data)}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		c = c.withDir(dirs[i])
	}
	return c
}

// ignoreCache answers "is this file ignored?" for paths below root, loading
// each directory's chain once. Grep uses it to hold ripgrep's results to
// the same rules as the built-in walker.
type ignoreCache struct {
	root string
	mu   sync.Mutex
	dirs map[string]dirVerdict
}

type dirVerdict struct {
	chain   *ignoreChain
	ignored bool // the directory or one above it (below root) is ignored
}

func newIgnoreCache(root string) *ignoreCache {
	return &ignoreCache{root: root, dirs: map[string]dirVerdict{root: {chain: rootIgnoreChain(root)}}}
}

// fileIgnored reports whether the file abs under root is ignored or lies in
// an ignored directory.
func (ic *ignoreCache) fileIgnored(abs string) bool {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	v := ic.dir(filepath.Dir(abs))
	return v.ignored || v.chain.ignored(abs, false)
}

func (ic *ignoreCache) dir(d string) dirVerdict {
	if v, ok := ic.dirs[d]; ok {
		return v
	}
	up := filepath.Dir(d)
	if _, below := relUnder(ic.root, d); !below || up == d {
		return dirVerdict{}
	}
	p := ic.dir(up)
	v := p
	if !p.ignored {
		if filepath.Base(d) == ".git" || p.chain.ignored(d, true) {
			v.ignored = true
		} else {
			v.chain = p.chain.withDir(d)
		}
	}
	ic.dirs[d] = v
	return v
}

// walkEntry is a non-directory entry found by walkTree.
type walkEntry struct {
	Path string      // absolute
	Rel  string      // slash-separated, relative to the walked root
	Type fs.FileMode // the entry's type bits: regular file, symlink, ...
}

// walkOptions tunes walkTree.
type walkOptions struct {
	// maxDepth > 0 stops descending below that many levels (1 = the
	// root's own entries).
	maxDepth int
	// deniedDir reports directories a Read deny rule covers; they are not
	// entered (nothing below them may be read) and are counted. nil means
	// none is denied.
	deniedDir func(abs string) bool
}

// walkTree calls visit for every non-directory entry below root that is not
// ignored, from several goroutines at once; visit must be safe for
// concurrent use. Symlinks are reported, never followed. Unreadable
// directories are skipped, as rg does. deniedDirs counts the directories
// left out by opt.deniedDir.
func walkTree(ctx context.Context, root string, opt walkOptions, visit func(walkEntry)) (deniedDirs int, err error) {
	w := &treeWalker{ctx: ctx, opt: opt, visit: visit,
		sem: make(chan struct{}, runtime.GOMAXPROCS(0)*2)}
	w.wg.Add(1)
	w.dir(root, "", 1, rootIgnoreChain(root))
	w.wg.Wait()
	return int(w.denied.Load()), ctx.Err()
}

type treeWalker struct {
	ctx    context.Context
	opt    walkOptions
	visit  func(walkEntry)
	sem    chan struct{}
	wg     sync.WaitGroup
	denied atomic.Int64
}

// dir lists one directory. Subdirectories go to a new goroutine while the
// pool has room and are walked inline otherwise, so the walk never blocks
// on itself.
func (w *treeWalker) dir(abs, rel string, depth int, chain *ignoreChain) {
	defer w.wg.Done()
	if w.ctx.Err() != nil {
		return
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		p := joinPath(abs, name)
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		if e.IsDir() {
			if (w.opt.maxDepth > 0 && depth >= w.opt.maxDepth) || chain.ignored(p, true) {
				continue
			}
			if w.opt.deniedDir != nil && w.opt.deniedDir(p) {
				w.denied.Add(1)
				continue
			}
			sub := chain.withDir(p)
			w.wg.Add(1)
			select {
			case w.sem <- struct{}{}:
				go func() {
					defer func() { <-w.sem }()
					w.dir(p, r, depth+1, sub)
				}()
			default:
				w.dir(p, r, depth+1, sub)
			}
			continue
		}
		if chain.ignored(p, false) {
			continue
		}
		w.visit(walkEntry{Path: p, Rel: r, Type: e.Type()})
	}
}

// joinPath is filepath.Join for a clean directory and a name read from it,
// without Join's cleaning, which the walker would pay for every entry.
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// deniedSummary says how many files and directories a Read deny rule kept
// out of a search ("1 file left out by a Read deny rule"), or "" for none.
// It names nothing: the count is all the model may learn of those files.
func deniedSummary(files, dirs int) string {
	var parts []string
	if files > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", files, grepPlural(files, "file", "files")))
	}
	if dirs > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", dirs, grepPlural(dirs, "directory", "directories")))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, " and ") + " left out by a Read deny rule"
}
