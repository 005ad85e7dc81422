package tools

import (
	"bytes"
	"context"
	"io"
	"os"
	"sort"
	"sync"
	"sync/atomic"
)

// grepBuiltin is the backend used when rg is not installed: the shared
// parallel walker plus Go's regexp, matching line by line as rg does.
// complete is false when the search stopped at grepMaxMatchLines.
func grepBuiltin(ctx context.Context, q *grepQuery) (files []grepFile, complete bool, err error) {
	if q.single {
		f, ok, err := grepSearchFile(q, q.root)
		if err != nil || !ok {
			return nil, true, err
		}
		return []grepFile{f}, true, nil
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu      sync.Mutex
		nlines  atomic.Int64
		stopped atomic.Bool
	)
	err = walkTree(wctx, q.root, 0, func(e walkEntry) {
		if !e.Type.IsRegular() || !q.filter.match(e.Rel) {
			return
		}
		f, ok, _ := grepSearchFile(q, e.Path) // unreadable files are skipped, as rg does
		if !ok {
			return
		}
		if nlines.Add(int64(len(f.lines))) > int64(q.maxLines) {
			stopped.Store(true)
			cancel()
		}
		mu.Lock()
		files = append(files, f)
		mu.Unlock()
	})
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if err != nil && !stopped.Load() {
		return nil, false, err
	}
	return files, !stopped.Load(), nil
}

// grepSearchFile searches one file; ok is false when it has no match or is
// skipped (binary, too large).
func grepSearchFile(q *grepQuery, path string) (grepFile, bool, error) {
	fh, err := os.Open(path)
	if err != nil {
		return grepFile{}, false, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || st.Size() > grepMaxFileSize {
		return grepFile{}, false, err
	}
	data, err := io.ReadAll(io.LimitReader(fh, grepMaxFileSize+1))
	if err != nil {
		return grepFile{}, false, err
	}
	// Any match within a line is also a match of the whole buffer, so one
	// pass over it rules out most files cheaply.
	if bytes.IndexByte(data, 0) >= 0 || !q.re.Match(data) {
		return grepFile{}, false, nil
	}
	blocks, count := grepScan(q, data, q.mode == "files_with_matches")
	if len(blocks) == 0 {
		return grepFile{}, false, nil
	}
	f := grepFile{path: path, count: count}
	if q.mode == "content" {
		f.lines = grepContent(data, blocks, q.before, q.after)
	}
	return f, true, nil
}

// grepBlock is a run of matched lines, as byte offsets: [start, end) covers
// whole lines, end just past the last line's "\n" (or at EOF).
type grepBlock struct{ start, end int }

// grepScan finds the matched lines of data. Outside multiline mode a line
// matches when the regexp matches within it; in multiline mode every line
// a match touches is matched, and the search goes on after the last such
// line, as rg's does. count is the number of matches (rg --count-matches).
// first stops at the first match.
func grepScan(q *grepQuery, data []byte, first bool) (blocks []grepBlock, count int) {
	for pos := 0; pos <= len(data); {
		loc := q.re.FindIndex(data[pos:])
		if loc == nil {
			break
		}
		s, e := pos+loc[0], pos+loc[1]
		if s == len(data) && (s == 0 || data[s-1] == '\n') {
			break // an empty match after the last line is on no line
		}
		ls := bytes.LastIndexByte(data[:s], '\n') + 1
		if q.multiline {
			le := grepLineEnd(data, e)
			if e > ls && data[e-1] == '\n' {
				le = e
			}
			blocks = append(blocks, grepBlock{ls, le})
			count += len(q.re.FindAllIndex(data[ls:le], -1))
			if first || le <= pos {
				break
			}
			pos = le
			continue
		}
		le := grepLineEnd(data, s)
		line := data[ls:le]
		line = line[:len(line)-grepNewline(line)]
		// A match that crossed a newline says nothing about this line alone.
		if bytes.IndexByte(data[s:e], '\n') < 0 || q.re.Match(line) {
			blocks = append(blocks, grepBlock{ls, le})
			count += len(q.re.FindAllIndex(line, -1))
			if first {
				break
			}
		}
		if le >= len(data) {
			break
		}
		pos = le
	}
	return blocks, count
}

// grepLineEnd returns the offset just past the "\n" ending the line that
// holds offset i, or len(data).
func grepLineEnd(data []byte, i int) int {
	if i >= len(data) {
		return len(data)
	}
	if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(data)
}

func grepNewline(line []byte) int {
	if len(line) > 0 && line[len(line)-1] == '\n' {
		return 1
	}
	return 0
}

// grepContent turns matched blocks into numbered lines with before/after
// context lines.
func grepContent(data []byte, blocks []grepBlock, before, after int) []grepLine {
	var starts []int // offset of each line
	for i := 0; i < len(data); {
		starts = append(starts, i)
		i = grepLineEnd(data, i)
	}
	lineAt := func(off int) int { // 0-based index of the line holding off
		return sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	}
	matched := make([]bool, len(starts))
	for _, b := range blocks {
		for l := lineAt(b.start); l < len(starts) && starts[l] < b.end; l++ {
			matched[l] = true
		}
	}
	// A line is shown when a match is at most after lines above it or
	// before lines below it; one pass carries the distance to the last match.
	show := make([]bool, len(starts))
	last := -1
	for l := range starts {
		if matched[l] {
			last = l
			for c := max(0, l-before); c <= l; c++ {
				show[c] = true
			}
		} else if last >= 0 && l-last <= after {
			show[l] = true
		}
	}
	var out []grepLine
	for l := range starts {
		if !show[l] {
			continue
		}
		end := len(data)
		if l+1 < len(starts) {
			end = starts[l+1]
		}
		text := data[starts[l]:end]
		text = text[:len(text)-grepNewline(text)]
		out = append(out, grepLine{n: l + 1, text: string(text), match: matched[l]})
	}
	return out
}

// grepTypes is the table of the type parameter: rg's names and globs.
// Both backends use this table (rg through --type-add) so they agree
// whatever rg version is installed.
func grepTypes() map[string][]string {
	return map[string][]string{
		"asm":        {"*.S", "*.asm", "*.s"},
		"bazel":      {"*.BUILD", "*.bazel", "*.bazelrc", "*.bzl", "BUILD", "WORKSPACE"},
		"c":          {"*.[chH]", "*.[chH].in", "*.cats"},
		"clojure":    {"*.clj", "*.cljc", "*.cljs", "*.cljx"},
		"cmake":      {"*.cmake", "CMakeLists.txt"},
		"config":     {"*.cfg", "*.conf", "*.config", "*.ini"},
		"cpp":        {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"},
		"cs":         {"*.cs"},
		"csharp":     {"*.cs"},
		"css":        {"*.css", "*.scss"},
		"csv":        {"*.csv"},
		"dart":       {"*.dart"},
		"docker":     {"*Dockerfile*"},
		"elixir":     {"*.eex", "*.ex", "*.exs", "*.heex"},
		"erlang":     {"*.erl", "*.hrl"},
		"fish":       {"*.fish"},
		"go":         {"*.go"},
		"graphql":    {"*.graphql", "*.graphqls"},
		"groovy":     {"*.gradle", "*.groovy"},
		"haskell":    {"*.c2hs", "*.cpphs", "*.hs", "*.hsc", "*.lhs"},
		"html":       {"*.ejs", "*.htm", "*.html"},
		"java":       {"*.java", "*.jsp", "*.jspx", "*.properties"},
		"js":         {"*.js", "*.jsx", "*.mjs", "*.cjs", "*.vue"},
		"json":       {"*.json", "composer.lock"},
		"jsonl":      {"*.jsonl"},
		"julia":      {"*.jl"},
		"kotlin":     {"*.kt", "*.kts"},
		"less":       {"*.less"},
		"lua":        {"*.lua"},
		"make":       {"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"},
		"markdown":   {"*.markdown", "*.md", "*.mdown", "*.mkdn", "*.mdx"},
		"md":         {"*.markdown", "*.md", "*.mdown", "*.mkdn", "*.mdx"},
		"nix":        {"*.nix"},
		"objc":       {"*.h", "*.m"},
		"ocaml":      {"*.ml", "*.mli", "*.mll", "*.mly"},
		"perl":       {"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"},
		"php":        {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
		"protobuf":   {"*.proto"},
		"ps":         {"*.cdxml", "*.ps1", "*.ps1xml", "*.psd1", "*.psm1"},
		"py":         {"*.py", "*.pyi"},
		"python":     {"*.py", "*.pyi"},
		"r":          {"*.R", "*.Rmd", "*.Rnw", "*.r"},
		"rst":        {"*.rst"},
		"ruby":       {"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"},
		"rust":       {"*.rs"},
		"sass":       {"*.sass", "*.scss"},
		"scala":      {"*.sbt", "*.scala"},
		"sh":         {"*.bash", "*.bashrc", "*.csh", "*.ksh", "*.sh", "*.tcsh", "*.zsh", ".bash_profile", ".bashrc", ".profile", ".zshrc"},
		"sql":        {"*.psql", "*.sql"},
		"svelte":     {"*.svelte"},
		"swift":      {"*.swift"},
		"tex":        {"*.bib", "*.cls", "*.dtx", "*.ins", "*.ltx", "*.sty", "*.tex"},
		"tf":         {"*.tf", "*.tfvars"},
		"toml":       {"*.toml", "Cargo.lock"},
		"ts":         {"*.ts", "*.tsx", "*.mts", "*.cts"},
		"typescript": {"*.ts", "*.tsx", "*.mts", "*.cts"},
		"txt":        {"*.txt"},
		"vue":        {"*.vue"},
		"xml":        {"*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"},
		"yaml":       {"*.yaml", "*.yml"},
		"zig":        {"*.zig"},
	}
}

// grepTypeNames lists the known types, sorted, for error messages.
func grepTypeNames() []string {
	var names []string
	for n := range grepTypes() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
