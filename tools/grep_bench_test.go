package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/permission"
)

// benchTree is a generated project and what a search for benchNeedle must
// find in it.
type benchTree struct {
	root    string
	files   int // files written, ignored ones included
	bytes   int64
	needles int // searchable text files holding the needle
}

// benchNeedle is the line the benchmark searches for; benchPattern finds it.
const (
	benchNeedle  = "// NEEDLE: the line the benchmark looks for"
	benchPattern = `NEEDLE:\s+\w+`
)

// grepBenchTree writes a deterministic tree shaped like a real repository
// rather than a grid of equal files: about 26,000 files and 130 MB in
// nested packages of 3 to 40 files, text sizes spread log-normally (median
// about 2.5 KB, a tail into hundreds of KB, a few MB-sized data files and a
// minified one-line bundle), checked-in binaries (images, fonts, archives,
// up to 8 MB) whose NUL bytes come early, a 24 MB dump over the size limit,
// nested .gitignore files, and ignored node_modules, build and vendor trees
// that a good walker never enters. One text file in about 60 holds the
// needle, and so do some ignored, binary and oversized files, which must
// not count.
func grepBenchTree(b *testing.B) benchTree {
	b.Helper()
	t := benchTree{root: b.TempDir()}
	rng := rand.New(rand.NewPCG(1, 2))
	corpus := benchCorpus(rng)
	write := func(rel string, data []byte) {
		abs := filepath.Join(t.root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(abs, data, 0o644); err != nil {
			b.Fatal(err)
		}
		t.files++
		t.bytes += int64(len(data))
	}
	// text returns about size bytes of code-like lines, with the needle
	// when needle is set.
	text := func(size int, needle bool) []byte {
		start := rng.IntN(len(corpus) - 1)
		var buf []byte
		for i := start; len(buf) < size; i = (i + 1) % len(corpus) {
			buf = append(buf, corpus[i]...)
			buf = append(buf, '\n')
		}
		if needle {
			at := rng.IntN(len(buf))
			for at > 0 && buf[at-1] != '\n' {
				at--
			}
			buf = append(buf[:at], append([]byte(benchNeedle+"\n"), buf[at:]...)...)
		}
		return buf
	}
	binary := func(size int, needle bool) []byte {
		buf := make([]byte, size)
		for i := range buf {
			buf[i] = byte(rng.UintN(256))
		}
		copy(buf, "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
		if needle && size > 100 {
			copy(buf[size/2:], benchNeedle)
		}
		return buf
	}
	// logNormal draws a size with the given median and spread, capped.
	logNormal := func(median, sigma float64, hi int) int {
		return min(hi, max(16, int(median*math.Exp(sigma*rng.NormFloat64()))))
	}

	write(".gitignore", []byte("node_modules/\n/build/\n*.log\n*.o\n.cache/\n"))
	write(".git/HEAD", []byte("ref: refs/heads/main\n"))
	write(".env", []byte("API_KEY=not-for-the-model\n"))
	write(".git/config", []byte("[core]\n\trepositoryformatversion = 0\n"))
	exts := []string{".go", ".go", ".go", ".ts", ".ts", ".py", ".js", ".md", ".c", ".h", ".rs", ".java", ".yaml", ".json", ".sql"}
	// Source: 48 modules, each a tree of packages two to five levels deep.
	for m := 0; m < 40; m++ {
		mod := fmt.Sprintf("services/svc%02d", m)
		if m%3 == 0 {
			mod = fmt.Sprintf("libs/lib%02d", m)
		}
		if m%7 == 0 {
			write(mod+"/.gitignore", []byte("*.gen.go\n/tmp/\n"))
			write(mod+"/tmp/scratch.txt", text(4000, true))
			write(mod+"/zz.gen.go", text(20000, true))
		}
		for p, np := 0, 12+rng.IntN(30); p < np; p++ {
			dir := mod
			for d, nd := 0, rng.IntN(4); d < nd; d++ {
				dir += "/" + []string{"pkg", "internal", "api", "util", "core", "handlers"}[rng.IntN(6)]
			}
			dir += fmt.Sprintf("/%s%02d", []string{"store", "auth", "http", "model", "queue", "metrics"}[rng.IntN(6)], p)
			for f, nf := 0, 3+rng.IntN(38); f < nf; f++ {
				ext := exts[rng.IntN(len(exts))]
				needle := rng.IntN(60) == 0
				if needle {
					t.needles++
				}
				write(fmt.Sprintf("%s/file%02d%s", dir, f, ext), text(logNormal(2000, 1.1, 400_000), needle))
			}
			switch rng.IntN(12) {
			case 0:
				write(dir+"/testdata/golden.json", text(logNormal(60_000, 1, 1_000_000), false))
			case 1:
				write(dir+"/assets/logo.png", binary(logNormal(20_000, 1.2, 2_000_000), rng.IntN(4) == 0))
			case 2:
				write(dir+"/assets/font.woff2", binary(logNormal(60_000, 0.8, 1_000_000), false))
			}
		}
	}
	// A web front end with a minified bundle, large data and media.
	write("web/dist/app.min.js", []byte(strings.ReplaceAll(string(text(900_000, false)), "\n", ";")))
	write("web/public/data/cities.csv", text(4_000_000, false))
	for i := 0; i < 3; i++ {
		write(fmt.Sprintf("web/public/media/clip%d.mp4", i), binary(1_000_000+rng.IntN(7_000_000), i == 0))
	}
	write("third_party/archive.tar.gz", binary(5_000_000, true))
	// Over grepMaxFileSize: skipped by both backends, named in the note.
	write("db/dump.sql", text(24<<20, true))
	// Ignored trees: many small files neither backend should open.
	for i := 0; i < 3000; i++ {
		write(fmt.Sprintf("node_modules/dep%03d/lib/index%d.js", i/12, i%12), text(logNormal(1500, 1, 50_000), i%50 == 0))
	}
	for i := 0; i < 600; i++ {
		write(fmt.Sprintf("build/obj/unit%03d.o", i), binary(logNormal(8000, 1, 200_000), i%30 == 0))
	}
	return t
}

// benchCorpus returns lines of varied code-like text for grepBenchTree.
func benchCorpus(rng *rand.Rand) []string {
	idents := []string{"ctx", "req", "resp", "cfg", "err", "buf", "items", "user", "session", "cache", "handler", "value", "index", "result"}
	tpl := []string{
		"func %s%d(%s context.Context, %s *Request) (*Response, error) {",
		"\tif %s != nil {",
		"\t\treturn nil, fmt.Errorf(\"%s %d: %%w\", %s)",
		"\t}",
		"}",
		"",
		"// %s%d handles the %s and keeps the %s in step with the %s.",
		"\t%s := make([]string, 0, %d)",
		"\tfor i, %s := range %s {",
		"import { %s, %s } from './%s%d';",
		"export const %s%d = (%s) => %s.map((x) => x * %d);",
		"def %s_%d(self, %s, %s=None):",
		"    return self.%s.get(%s, %d)",
		"    \"\"\"Return the %s of the %s.\"\"\"",
		"#include \"%s%d.h\"",
		"static int %s_%d(struct %s *%s) { return %s->n + %d; }",
		"  %s: %d  # %s of %s",
		"SELECT %s, %s FROM %s%d WHERE %s > %d;",
		"\tlog.Printf(\"%s=%%v %s=%%d\", %s, %d)",
		"\t\t%s.%s = append(%s.%s, %s%d)",
		"    let %s = %s.iter().filter(|x| x.%s > %d).count();",
		"| %s | %s | %d |",
	}
	lines := make([]string, 4000)
	for i := range lines {
		t := tpl[rng.IntN(len(tpl))]
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			switch {
			case strings.HasPrefix(t[j:], "%%"):
				b.WriteByte('%')
				j++
			case strings.HasPrefix(t[j:], "%s"):
				b.WriteString(idents[rng.IntN(len(idents))])
				j++
			case strings.HasPrefix(t[j:], "%d"):
				fmt.Fprint(&b, rng.IntN(1000))
				j++
			default:
				b.WriteByte(t[j])
			}
		}
		lines[i] = b.String()
	}
	return lines
}

// BenchmarkGrep compares the built-in search with rg on grepBenchTree. Each
// iteration runs both backends three times (once for the slow noliteral
// case), alternately so they see the same page cache and the same load, and
// reports the median of each and their ratio: the target is builtin/rg <= 2.
// The denyrule case wires the permission checker in as cmd/nova does.
func BenchmarkGrep(b *testing.B) {
	tree := grepBenchTree(b)
	env := NewEnv(tree.root)
	// As cmd/nova wires it: the permission checker answers for every file.
	checker, err := permission.NewChecker(permission.Config{Workspace: tree.root, Home: b.TempDir(), Rules: permission.Rules{Deny: []string{"Read(.env)"}}})
	if err != nil {
		b.Fatal(err)
	}
	denyEnv := NewEnv(tree.root)
	denyEnv.DeniedRead = checker.ReadDenied
	_, rgErr := exec.LookPath("rg")
	b.Logf("tree: %d files, %.0f MB, %d files with the needle", tree.files, float64(tree.bytes)/1e6, tree.needles)
	for _, c := range []struct {
		name string
		in   map[string]any
		want string
		env  *Env
		reps int // runs of each backend; 0 means 3
	}{
		{"files_with_matches", map[string]any{"pattern": benchPattern}, fmt.Sprintf("Found %d files", tree.needles), nil, 0},
		{"content", map[string]any{"pattern": benchPattern, "output_mode": "content"}, "NEEDLE: the line", nil, 0},
		{"count", map[string]any{"pattern": benchPattern, "output_mode": "count"}, ":1\n", nil, 0},
		{"literal", map[string]any{"pattern": "NEEDLE"}, fmt.Sprintf("Found %d files", tree.needles), nil, 0},
		{"ignorecase", map[string]any{"pattern": "needle: the", "-i": true}, fmt.Sprintf("Found %d files", tree.needles), nil, 0},
		{"alternation", map[string]any{"pattern": "NEEDLE: the|HAYSTACK: the"}, fmt.Sprintf("Found %d files", tree.needles), nil, 0},
		// No literal to look for: Go's regexp alone, which has no DFA.
		{"noliteral", map[string]any{"pattern": `[0-9a-f]{40}`}, "No files found", nil, 1},
		{"denyrule", map[string]any{"pattern": benchPattern}, fmt.Sprintf("Found %d files", tree.needles), denyEnv, 0},
	} {
		if c.reps == 0 {
			c.reps = 3
		}
		if c.env == nil {
			c.env = env
		}
		raw, _ := json.Marshal(c.in)
		b.Run(c.name, func(b *testing.B) {
			run := func(backend string) time.Duration {
				start := time.Now()
				res, err := (&Grep{Backend: backend}).Run(context.Background(), raw, c.env)
				d := time.Since(start)
				if err != nil || res.IsError || !strings.Contains(res.Output, c.want) || !strings.Contains(res.Output, "dump.sql") {
					b.Fatalf("%s: %v, want %q and the skipped dump.sql in:\n%s", backend, err, c.want, ftHead(res.Output))
				}
				return d
			}
			// rg alone is the bare rg command line of the rg backend: what
			// Grep with rg cost before it scanned for deny rules and large
			// files, and what the built-in search was measured against.
			q, err := newGrepQuery(grepInputOf(b, raw), c.env)
			if err != nil {
				b.Fatal(err)
			}
			alone := func() time.Duration {
				cmd := exec.Command("rg", rgArgs(q, nil)...)
				cmd.Dir = tree.root
				cmd.Stdout = io.Discard // a pipe, as the backend reads it; rg treats /dev/null specially
				start := time.Now()
				if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 1 {
					b.Fatalf("rg: %v", err)
				}
				return time.Since(start)
			}
			var built, rg, rgAlone []time.Duration
			for i := 0; i < b.N; i++ {
				for r := 0; r < c.reps; r++ {
					built = append(built, run("builtin"))
					if rgErr == nil {
						rg = append(rg, run("rg"))
						rgAlone = append(rgAlone, alone())
					}
				}
			}
			b.ReportMetric(benchMedianMS(built), "builtin-ms")
			if rgErr == nil {
				b.ReportMetric(benchMedianMS(rg), "rg-ms")
				b.ReportMetric(benchMedianMS(rgAlone), "rg-alone-ms")
				b.ReportMetric(benchMedianMS(built)/benchMedianMS(rg), "builtin/rg")
				b.ReportMetric(benchMedianMS(built)/benchMedianMS(rgAlone), "builtin/rg-alone")
			}
		})
	}
}

func grepInputOf(b *testing.B, raw []byte) grepInput {
	var in grepInput
	if err := json.Unmarshal(raw, &in); err != nil {
		b.Fatal(err)
	}
	return in
}

func benchMedianMS(ds []time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}
