package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

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

// BenchmarkIgnoreMatch times the question the walker asks for every file
// it lists: is this name ignored, given the ignore files in force in its
// directory (found once per directory, outside the timing). grep_tree has
// the Grep benchmark's ignore files (names and suffixes only);
// node_template adds a root file of globs. The libraries it was compared
// with are in the commit that compared them; see docs/benchmarks.md.
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
		b.Run(set.name, func(b *testing.B) { count(b, func(i int) bool { return chains[i].ignored(abs[i], false) }) })
	}
}
