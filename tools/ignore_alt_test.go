package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	lfswild "github.com/git-lfs/wildmatch/v2"
	gogit "github.com/go-git/go-git/v5/plumbing/format/gitignore"
	sabhiram "github.com/sabhiram/go-gitignore"
)

// ignoreEngine answers "is this path ignored?" for one tree, as a walker
// would use it: a path under an ignored directory is ignored.
type ignoreEngine func(root string, ignoreFiles []string) func(rel string, isDir bool) bool

// novaEngine is ignore.go's engine behind ignoreCache.
func novaEngine(root string, _ []string) func(string, bool) bool {
	ic := newIgnoreCache(root)
	return func(rel string, isDir bool) bool {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if isDir {
			return ic.dir(abs).ignored
		}
		return ic.fileIgnored(abs)
	}
}

// goGitEngine is go-git's plumbing/format/gitignore, its patterns read as
// its ReadPatterns reads them (info/exclude first, then each .gitignore
// with its directory as the domain).
func goGitEngine(root string, files []string) func(string, bool) bool {
	var ps []gogit.Pattern
	read := func(file string, domain []string) {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			return
		}
		for _, s := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(s, "#") && len(strings.TrimSpace(s)) > 0 {
				ps = append(ps, gogit.ParsePattern(s, domain))
			}
		}
	}
	read(".git/info/exclude", nil)
	sort.Slice(files, func(i, j int) bool { return strings.Count(files[i], "/") < strings.Count(files[j], "/") })
	for _, f := range files {
		if filepath.Base(f) != ".gitignore" {
			continue
		}
		var domain []string
		if d := filepath.Dir(f); d != "." {
			domain = strings.Split(d, "/")
		}
		read(f, domain)
	}
	m := gogit.NewMatcher(ps)
	return func(rel string, isDir bool) bool {
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			if m.Match(parts[:i], true) {
				return true
			}
		}
		return m.Match(parts, isDir)
	}
}

// sabhiramEngine is sabhiram/go-gitignore, one matcher a file (it knows no
// nesting), asked deepest file first.
func sabhiramEngine(root string, files []string) func(string, bool) bool {
	one := sabhiramOne(root, files)
	return func(rel string, isDir bool) bool {
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			if one(strings.Join(parts[:i], "/"), true) {
				return true
			}
		}
		return one(rel, isDir)
	}
}

// sabhiramOne asks sabhiram's matchers about rel alone, not its directories.
func sabhiramOne(root string, files []string) func(string, bool) bool {
	type scoped struct {
		dir string
		gi  *sabhiram.GitIgnore
	}
	var chain []scoped
	if gi, err := sabhiram.CompileIgnoreFile(filepath.Join(root, ".git/info/exclude")); err == nil {
		chain = append(chain, scoped{"", gi})
	}
	sort.Slice(files, func(i, j int) bool { return strings.Count(files[i], "/") < strings.Count(files[j], "/") })
	for _, f := range files {
		if filepath.Base(f) != ".gitignore" {
			continue
		}
		if gi, err := sabhiram.CompileIgnoreFile(filepath.Join(root, f)); err == nil {
			d := filepath.Dir(f)
			if d == "." {
				d = ""
			}
			chain = append(chain, scoped{d, gi})
		}
	}
	one := func(rel string, isDir bool) bool {
		for i := len(chain) - 1; i >= 0; i-- {
			c := chain[i]
			sub := rel
			if c.dir != "" {
				var ok bool
				if sub, ok = strings.CutPrefix(rel, c.dir+"/"); !ok {
					continue
				}
			}
			if isDir {
				sub += "/"
			}
			if ign, how := c.gi.MatchesPathHow(sub); how != nil {
				return ign
			}
		}
		return false
	}
	return one
}

// TestIgnoreAlternatives counts, for nova's engine and the libraries that
// could replace it, the corpus paths on which each disagrees with git.
func TestIgnoreAlternatives(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	cases, _ := filepath.Glob(filepath.Join("testdata", "ignore", "*.txtar"))
	engines := []struct {
		name string
		e    ignoreEngine
	}{{"nova", novaEngine}, {"go-git", goGitEngine}, {"sabhiram", sabhiramEngine}, {"wildmatch", wildmatchEngine}}
	total := 0
	bad := map[string]int{}
	for _, file := range cases {
		c := loadIgnoreCase(t, file)
		tr := buildIgnoreTree(t, git, c)
		var files []string
		for f := range c.files {
			files = append(files, f)
		}
		total += len(tr.all)
		for _, e := range engines {
			ignored := e.e(tr.root, files)
			var wrong []string
			for _, p := range tr.all {
				if ignored(p, tr.dirs[p]) != tr.want[p] {
					wrong = append(wrong, p)
				}
			}
			bad[e.name] += len(wrong)
			t.Logf("%-10s %-9s %2d wrong: %q", c.name, e.name, len(wrong), wrong)
		}
	}
	for _, e := range engines {
		t.Logf("%s: %d of %d paths disagree with git", e.name, bad[e.name], total)
	}
}

// wildmatchEngine keeps nova's reading of ignore files (the chain of files,
// negation, dir-only, anchoring) and matches the globs with
// git-lfs/wildmatch, a reimplementation of git's wildmatch.c.
func wildmatchEngine(root string, files []string) func(string, bool) bool {
	type rule struct {
		w                         *lfswild.Wildmatch
		negate, dirOnly, anchored bool
	}
	type scoped struct {
		dir   string
		rules []rule
	}
	parse := func(data string) []rule {
		var rs []rule
		for _, line := range strings.Split(data, "\n") {
			line = strings.TrimSuffix(line, "\r")
			for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
				line = line[:len(line)-1]
			}
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			var r rule
			if strings.HasPrefix(line, "!") {
				r.negate, line = true, line[1:]
			} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
				line = line[1:]
			}
			if strings.HasSuffix(line, "/") {
				r.dirOnly, line = true, strings.TrimRight(line, "/")
			}
			if line == "" {
				continue
			}
			r.anchored = strings.Contains(line, "/")
			line = strings.TrimPrefix(line, "/")
			func() {
				defer func() {
					if recover() != nil { // malformed: it panics
						r.w = nil
					}
				}()
				r.w = lfswild.NewWildmatch(line)
			}()
			if r.w != nil {
				rs = append(rs, r)
			}
		}
		return rs
	}
	var chain []scoped
	if data, err := os.ReadFile(filepath.Join(root, ".git/info/exclude")); err == nil {
		chain = append(chain, scoped{"", parse(string(data))})
	}
	sort.Slice(files, func(i, j int) bool { return strings.Count(files[i], "/") < strings.Count(files[j], "/") })
	for _, f := range files {
		if filepath.Base(f) != ".gitignore" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		d := filepath.Dir(f)
		if d == "." {
			d = ""
		}
		chain = append(chain, scoped{d, parse(string(data))})
	}
	one := func(rel string, isDir bool) bool {
		for i := len(chain) - 1; i >= 0; i-- {
			c := chain[i]
			sub := rel
			if c.dir != "" {
				var ok bool
				if sub, ok = strings.CutPrefix(rel, c.dir+"/"); !ok {
					continue
				}
			}
			for j := len(c.rules) - 1; j >= 0; j-- {
				r := c.rules[j]
				if r.dirOnly && !isDir {
					continue
				}
				subject := sub
				if !r.anchored {
					subject = sub[strings.LastIndexByte(sub, '/')+1:]
				}
				if r.w.Match(subject) {
					return !r.negate
				}
			}
		}
		return false
	}
	return func(rel string, isDir bool) bool {
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			if one(strings.Join(parts[:i], "/"), true) {
				return true
			}
		}
		return one(rel, isDir)
	}
}

// nodeGitignore is shaped like GitHub's Node.js template: mostly globs
// ("npm-debug.log*", ".env.*"), which the literal and suffix shortcuts do
// not take.
const nodeGitignore = `logs
*.log
npm-debug.log*
yarn-debug.log*
yarn-error.log*
lerna-debug.log*
report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json
pids
*.pid
*.seed
*.pid.lock
lib-cov
coverage
*.lcov
.nyc_output
.grunt
bower_components
.lock-wscript
build/Release
node_modules/
jspm_packages/
web_modules/
*.tsbuildinfo
.npm
.eslintcache
.stylelintcache
.rpt2_cache/
.node_repl_history
*.tgz
.yarn-integrity
.env
.env.*
!.env.example
.cache
.parcel-cache
.next
out
.nuxt
dist
.vuepress/dist
.temp
.docusaurus
.serverless/
.fusebox/
.dynamodb/
.tern-port
.vscode-test
.yarn/cache
.yarn/unplugged
.pnp.*
[Tt]humbs.db
*~
.#*
**/gen/**/*.tmp
`

// BenchmarkIgnoreMatch times the question a walker asks for every file it
// lists: is this name ignored, given the ignore files in force in its
// directory (found once per directory, outside the timing), for nova's
// engine with wildmatch and with the regexps it had before, go-git's
// gitignore and sabhiram/go-gitignore. grep_tree has the Grep benchmark's
// ignore files (names and suffixes only); node_template adds a root file
// of globs.
func BenchmarkIgnoreMatch(b *testing.B) {
	for _, set := range []struct {
		name  string
		extra string
	}{{"grep_tree", ""}, {"node_template", nodeGitignore}} {
		root := b.TempDir()
		files := map[string]string{".gitignore": "node_modules/\n/build/\n*.log\n*.o\n.cache/\n" + set.extra, ".git/HEAD": "ref: refs/heads/main\n"}
		var paths []string
		exts := []string{".go", ".go", ".ts", ".py", ".md", ".log", ".o", ".gen.go", ".json", ".js", ".tgz", ".pid"}
		names := []string{"file", "index", "npm-debug", "report.1.2.3.4", ".env", ".env.local", "Thumbs", "util"}
		for m := 0; m < 40; m++ {
			mod := fmt.Sprintf("services/svc%02d", m)
			if m%7 == 0 {
				files[mod+"/.gitignore"] = "*.gen.go\n/tmp/\n"
			}
			for p := 0; p < 20; p++ {
				for f := 0; f < 20; f++ {
					paths = append(paths, fmt.Sprintf("%s/pkg/store%02d/%s%02d%s", mod, p, names[(m+f)%len(names)], f, exts[(m+p+f)%len(exts)]))
				}
			}
		}
		ftTree(b, root, files)
		var fileNames []string
		for f := range files {
			fileNames = append(fileNames, f)
		}
		for _, p := range paths {
			if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
				b.Fatal(err)
			}
		}

		ic := newIgnoreCache(root)
		chains := make([]*ignoreChain, len(paths))
		abs := make([]string, len(paths))
		for i, p := range paths {
			abs[i] = filepath.Join(root, p)
			chains[i] = ic.dir(filepath.Dir(abs[i])).chain
		}
		// The same chains with the regexp rules.
		type oldFile struct {
			base  string
			rules []regexpRule
		}
		oldChains := make([][]*oldFile, len(paths))
		parsed := map[string]*oldFile{} // shared, as nova's chains are
		for i := range paths {
			for c := chains[i]; c != nil; c = c.parent {
				f := parsed[c.file.base]
				if f == nil {
					rel, _ := filepath.Rel(root, c.file.base)
					f = &oldFile{base: c.file.base}
					for _, l := range strings.Split(files[filepath.ToSlash(filepath.Join(rel, ".gitignore"))], "\n") {
						if r, ok := regexpParseLine(l); ok {
							f.rules = append(f.rules, r)
						}
					}
					parsed[c.file.base] = f
				}
				oldChains[i] = append(oldChains[i], f)
			}
		}
		oldIgnored := func(i int) bool {
			for _, f := range oldChains[i] {
				rel, ok := relUnder(f.base, abs[i])
				if !ok {
					continue
				}
				for j := len(f.rules) - 1; j >= 0; j-- {
					if r := &f.rules[j]; !r.dirOnly && r.matches(rel) {
						return !r.negate
					}
				}
			}
			return false
		}
		parts := make([][]string, len(paths))
		for i, p := range paths {
			parts[i] = strings.Split(p, "/")
		}
		var ps []gogit.Pattern
		sort.Strings(fileNames)
		for _, f := range fileNames {
			if filepath.Base(f) != ".gitignore" {
				continue
			}
			var domain []string
			if d := filepath.Dir(f); d != "." {
				domain = strings.Split(d, "/")
			}
			for _, s := range strings.Split(files[f], "\n") {
				if s != "" {
					ps = append(ps, gogit.ParsePattern(s, domain))
				}
			}
		}
		gm := gogit.NewMatcher(ps)
		sab := sabhiramOne(root, fileNames)

		count := func(b *testing.B, ignored func(i int) bool) {
			n := 0
			for b.Loop() {
				n = 0
				for i := range paths {
					if ignored(i) {
						n++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(paths)), "ns/path")
			b.ReportMetric(float64(n), "ignored")
		}
		b.Run(set.name+"/nova", func(b *testing.B) { count(b, func(i int) bool { return chains[i].ignored(abs[i], false) }) })
		b.Run(set.name+"/nova_regexp", func(b *testing.B) { count(b, oldIgnored) })
		b.Run(set.name+"/go-git", func(b *testing.B) { count(b, func(i int) bool { return gm.Match(parts[i], false) }) })
		b.Run(set.name+"/sabhiram", func(b *testing.B) { count(b, func(i int) bool { return sab(paths[i], false) }) })
	}
}
