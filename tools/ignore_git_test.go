package tools

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// An ignore case is one file of testdata/ignore: a tree of ignore files
// and the paths to ask about, in sections headed "-- name --" (txtar's
// layout). A section named after a file (".gitignore", "sub/.gitignore",
// ".git/info/exclude") is that file's text, in which "{SP}" stands for a
// space so trailing spaces survive editors, "{CR}" for a carriage return
// and "{BOM}" for a UTF-8 byte-order mark. The "paths" section lists one
// path a line: a directory ends with "/", a path with odd characters may be
// Go-quoted. The "symlinks" section has lines "link -> target". Text before
// the first section says what the case is about.
type ignoreCase struct {
	name  string
	files map[string]string // ignore files: path -> content
	paths []string          // files and directories to create ("/" ends a directory)
	links map[string]string // symbolic links: path -> target
}

func loadIgnoreCase(t *testing.T, path string) ignoreCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := ignoreCase{name: strings.TrimSuffix(filepath.Base(path), ".txtar"), files: map[string]string{}, links: map[string]string{}}
	section := ""
	var body strings.Builder
	flush := func() {
		switch section {
		case "":
		case "paths":
			for _, l := range strings.Split(body.String(), "\n") {
				if l == "" {
					continue
				}
				if strings.HasPrefix(l, `"`) {
					u, err := strconv.Unquote(l)
					if err != nil {
						t.Fatalf("%s: path %s: %v", path, l, err)
					}
					l = u
				}
				c.paths = append(c.paths, l)
			}
		case "symlinks":
			for _, l := range strings.Split(body.String(), "\n") {
				if link, target, ok := strings.Cut(l, " -> "); ok {
					c.links[link] = target
				}
			}
		default:
			r := strings.NewReplacer("{SP}", " ", "{CR}", "\r", "{BOM}", utf8BOM)
			c.files[section] = r.Replace(body.String())
		}
		body.Reset()
	}
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "-- "); ok && strings.HasSuffix(name, " --") {
			flush()
			section = strings.TrimSuffix(name, " --")
			continue
		}
		if section != "" {
			body.WriteString(l)
		}
	}
	flush()
	if len(c.paths) == 0 {
		t.Fatalf("%s: no paths section", path)
	}
	return c
}

// gitEnv keeps the user's and the system's git configuration (and so any
// core.excludesFile) out of the comparison: nova reads neither.
func gitEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent", "XDG_CONFIG_HOME=/nonexistent")
}

// gitIgnored asks git check-ignore which of paths (relative to the
// repository root) are ignored.
func gitIgnored(t *testing.T, git, root string, paths []string) map[string]bool {
	t.Helper()
	cmd := exec.Command(git, "check-ignore", "--no-index", "--verbose", "--non-matching", "-z", "--stdin")
	cmd.Dir, cmd.Env = root, gitEnv()
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
	out, err := cmd.Output()
	if err != nil && cmd.ProcessState.ExitCode() != 1 { // 1: nothing ignored
		t.Fatalf("git check-ignore: %v", err)
	}
	// -z -v -n: source NUL line NUL pattern NUL path NUL, for every path.
	f := bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0})
	if len(f) != 4*len(paths) {
		t.Fatalf("git check-ignore gave %d fields for %d paths", len(f), len(paths))
	}
	got := map[string]bool{}
	for i := 0; i < len(f); i += 4 {
		pattern := string(f[i+2])
		got[string(f[i+3])] = pattern != "" && !strings.HasPrefix(pattern, "!")
	}
	return got
}

// TestIgnoreCorpusMatchesGit builds each tree of testdata/ignore in a
// temporary repository and holds nova's ignore engine to git's verdict on
// every path in it: the per-path answer Grep gives rg's results
// (ignoreCache), the files the walker lists from the root, and from each
// directory it enters (which applies the ignore files above it). It is
// skipped where git is not installed.
func TestIgnoreCorpusMatchesGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed: the ignore corpus is checked against git check-ignore")
	}
	cases, err := filepath.Glob(filepath.Join("testdata", "ignore", "*.txtar"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no ignore cases: %v", err)
	}
	for _, file := range cases {
		c := loadIgnoreCase(t, file)
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tr := buildIgnoreTree(t, git, c)
			root, all, dirs, want := tr.root, tr.all, tr.dirs, tr.want

			ic := newIgnoreCache(root)
			for _, p := range all {
				abs := filepath.Join(root, filepath.FromSlash(p))
				var got bool
				if dirs[p] {
					got = ic.dir(abs).ignored
				} else {
					got = ic.fileIgnored(abs)
				}
				if got != want[p] {
					t.Errorf("%s: nova says ignored=%v, git check-ignore says %v", p, got, want[p])
				}
			}
			// The walker, from the root and from every directory git does
			// not ignore, lists exactly the files git does not ignore.
			for _, base := range append([]string{"."}, all...) {
				if base != "." && (!dirs[base] || want[base]) {
					continue
				}
				var wantFiles []string
				for _, p := range all {
					if !dirs[p] && !want[p] && (base == "." || strings.HasPrefix(p, base+"/")) {
						wantFiles = append(wantFiles, strings.TrimPrefix(p, base+"/"))
					}
				}
				got := ftWalk(t, filepath.Join(root, filepath.FromSlash(base)))
				if strings.Join(got, "\n") != strings.Join(wantFiles, "\n") {
					t.Errorf("walk of %s:\n got %q\nwant %q", base, got, wantFiles)
				}
			}
		})
	}
}

// ignoreTree is an ignore case written into a git repository, with git's
// verdict on each of its paths.
type ignoreTree struct {
	root string
	all  []string        // every file and directory but .git's, sorted
	dirs map[string]bool // path -> is a directory
	want map[string]bool // path -> git ignores it
}

func buildIgnoreTree(t *testing.T, git string, c ignoreCase) ignoreTree {
	t.Helper()
	root := t.TempDir()
	cmd := exec.Command(git, "init", "-q", root)
	cmd.Env = gitEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	ftTree(t, root, c.files)
	dirs := map[string]bool{}
	var all []string // every file and directory of the tree but .git's
	add := func(p string, dir bool) {
		if _, seen := dirs[p]; seen || p == "." || p == ".git" || strings.HasPrefix(p, ".git/") {
			return
		}
		dirs[p] = dir
		all = append(all, p)
	}
	for p := range c.files {
		add(p, false)
	}
	for link, target := range c.links {
		abs := filepath.Join(root, filepath.FromSlash(link))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, abs); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		add(link, false) // git and the walker take a link for a file
	}
	for _, p := range c.paths {
		if d, ok := strings.CutSuffix(p, "/"); ok {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				t.Fatal(err)
			}
			add(d, true)
			continue
		}
		ftTree(t, root, map[string]string{p: "x"})
		add(p, false)
	}
	for _, p := range append([]string(nil), all...) { // the directories on the way
		for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
			add(filepath.ToSlash(d), true)
		}
	}
	sort.Strings(all)
	want := gitIgnored(t, git, root, all)
	return ignoreTree{root: root, all: all, dirs: dirs, want: want}
}

// TestIgnoreGlobalExcludesNotRead pins a deliberate difference from git:
// core.excludesFile, which git reads, is one person's configuration, and
// nova leaves it out so every machine sees the same files.
func TestIgnoreGlobalExcludesNotRead(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	excludes := filepath.Join(t.TempDir(), "global-ignore")
	ftTree(t, root, map[string]string{"a.glob": "x", "b.txt": "x"})
	if err := os.WriteFile(excludes, []byte("*.glob\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", root}, {"-C", root, "config", "core.excludesFile", excludes}} {
		cmd := exec.Command(git, args...)
		cmd.Env = gitEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	if !gitIgnored(t, git, root, []string{"a.glob"})["a.glob"] {
		t.Fatal("git does not honour core.excludesFile here; the test proves nothing")
	}
	if got := strings.Join(ftWalk(t, root), " "); got != "a.glob b.txt" {
		t.Errorf("walk = %q, want a.glob listed: global excludes are not read", got)
	}
}
