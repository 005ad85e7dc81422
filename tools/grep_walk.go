package tools

import (
	"bytes"
	"context"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// grepSniff is how much of a file is read first to tell binary from text,
// so a binary file costs one small read, not a whole one.
const grepSniff = 8 << 10

// grepBuiltin is the backend used when rg is not installed: the shared
// parallel walker plus Go's regexp, matching line by line as rg does.
func grepBuiltin(ctx context.Context, q *grepQuery) (*grepResult, error) {
	res := &grepResult{complete: true}
	s := &grepSearcher{q: q}
	if q.single {
		f, ok, size, err := s.file(q.root)
		if size > grepMaxFileSize {
			res.large = append(res.large, grepLarge{path: q.root, size: size})
		}
		if err == nil && ok {
			res.files = append(res.files, f)
		}
		return res, err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu      sync.Mutex
		nlines  atomic.Int64
		denied  atomic.Int64
		stopped atomic.Bool
	)
	deniedDirs, err := walkTree(wctx, q.root, walkOptions{deniedDir: q.denied}, func(e walkEntry) {
		if !e.Type.IsRegular() || !q.filter.match(e.Rel) {
			return
		}
		if q.denied != nil && q.denied(e.Path) {
			denied.Add(1)
			return
		}
		f, ok, size, _ := s.file(e.Path) // unreadable files are skipped, as rg does
		if size > grepMaxFileSize {
			mu.Lock()
			res.large = append(res.large, grepLarge{path: e.Path, size: size})
			mu.Unlock()
		}
		if !ok {
			return
		}
		if nlines.Add(int64(len(f.lines))) > int64(q.maxLines) {
			stopped.Store(true)
			cancel()
		}
		mu.Lock()
		res.files = append(res.files, f)
		mu.Unlock()
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil && !stopped.Load() {
		return nil, err
	}
	res.complete = !stopped.Load()
	res.denied, res.deniedDirs = int(denied.Load()), deniedDirs
	return res, nil
}

// grepSearcher searches files for one query, reusing read buffers across
// the walker's goroutines.
type grepSearcher struct {
	q    *grepQuery
	bufs sync.Pool // of *[]byte
}

// file searches one file; ok is false when it has no match or is skipped
// (binary, or larger than grepMaxFileSize: then size says how large).
func (s *grepSearcher) file(path string) (f grepFile, ok bool, size int64, err error) {
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer s.bufs.Put(bp)
	data, size, err := grepRead(path, bp, s.q.confine)
	if err != nil || data == nil {
		return grepFile{}, false, size, err
	}
	f, ok = s.q.search(path, data)
	return f, ok, size, nil
}

// grepRead reads the file at path into *buf (grown as needed) and returns
// its content, or nil when the file is binary (a NUL byte) or over
// grepMaxFileSize. The first grepSniff bytes are read and checked before
// the rest, so most binary files are never read whole.
func grepRead(path string, buf *[]byte, confine string) (data []byte, size int64, err error) {
	fh, size, regular, err := grepOpen(path)
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	if confine != "" {
		// The file must be where the checked root leads: a directory on
		// the way swapped for a link since would lead elsewhere.
		if got := fdNumPath(int(fh)); got != "" && got != confine && !strings.HasPrefix(got, strings.TrimSuffix(confine, "/")+"/") {
			return nil, 0, nil
		}
	}
	if !regular { // a FIFO or device named as the path: nothing to search
		return nil, 0, nil
	}
	if size > grepMaxFileSize {
		return nil, size, nil
	}
	// The size is a hint: a file that grew is read to the limit, one that
	// shrank (or a special file that says 0) to its end.
	if want := int(size) + 1; cap(*buf) < want {
		*buf = make([]byte, 0, max(want, grepSniff))
	}
	b := (*buf)[:cap(*buf)]
	n, err := fh.Read(b[:min(len(b), grepSniff)])
	if bytes.IndexByte(b[:n], 0) >= 0 {
		return nil, size, nil
	}
	for err == nil && (size == 0 || int64(n) < size) {
		if n == len(b) {
			if n > grepMaxFileSize {
				return nil, int64(n), nil
			}
			nb := make([]byte, 2*len(b))
			copy(nb, b)
			b = nb
			*buf = b[:0]
		}
		var m int
		m, err = fh.Read(b[n:])
		if bytes.IndexByte(b[n:n+m], 0) >= 0 {
			return nil, size, nil
		}
		n += m
	}
	if err != nil && err != io.EOF {
		return nil, size, err
	}
	if n > grepMaxFileSize {
		return nil, int64(n), nil
	}
	return b[:n:n], size, nil
}

// search matches q against data, the content of the file at path; data is
// not kept (it is a reused buffer).
func (q *grepQuery) search(path string, data []byte) (grepFile, bool) {
	var blocks []grepBlock
	var count int
	first := q.mode == "files_with_matches"
	switch {
	case q.lit != nil && !q.lit.in(data):
		return grepFile{}, false
	case q.lit != nil && !q.multiline:
		blocks, count = grepScanCandidates(q, data, first, q.lit.scanner(data).at)
	case q.run != nil && q.run.find(data, 0) < 0:
		return grepFile{}, false
	case q.run != nil && !q.multiline:
		blocks, count = grepScanCandidates(q, data, first, func(pos int) int { return q.run.find(data, pos) })
	case !q.multiline && q.chunk > 0 && len(data) > q.chunk:
		blocks, count = grepScanChunks(q, data, first)
	default:
		// Any match within a line is also a match of the whole buffer, so
		// one pass over it rules out most files cheaply.
		if !q.re.Match(data) {
			return grepFile{}, false
		}
		blocks, count = grepScan(q, data, first)
	}
	if len(blocks) == 0 {
		return grepFile{}, false
	}
	f := grepFile{path: path, count: count}
	if q.mode == "content" {
		f.lines = grepContent(data, blocks, q.before, q.after)
	}
	return f, true
}

// grepScanCandidates is grepScan outside multiline mode when a prefilter
// knows where matches can be: next(pos) is the offset of the first place
// at or after pos a match can hold (the literal's occurrence, the run's
// start), or -1, and only the lines holding one are given to the regexp.
func grepScanCandidates(q *grepQuery, data []byte, first bool, next func(pos int) int) (blocks []grepBlock, count int) {
	// pos is always the start of a line not yet looked at.
	for pos := 0; pos < len(data); {
		at := next(pos)
		if at < 0 {
			break
		}
		ls := pos + bytes.LastIndexByte(data[pos:at], '\n') + 1
		le := grepLineEnd(data, at)
		line := data[ls:le]
		line = line[:len(line)-grepNewline(line)]
		if q.re.Match(line) {
			blocks = append(blocks, grepBlock{ls, le})
			if q.mode == "count" {
				count += len(q.re.FindAllIndex(line, -1))
			}
			if first {
				break
			}
		}
		pos = le
	}
	return blocks, count
}

// grepScanChunks is grepScan outside multiline mode, over pieces of data of
// at most q.chunk bytes of whole lines (a longer line is a piece of its
// own), so that Go's regexp can use its backtracker on each. A line matches
// within its piece exactly as within the file.
func grepScanChunks(q *grepQuery, data []byte, first bool) (blocks []grepBlock, count int) {
	for start := 0; start < len(data); {
		end := len(data)
		if end-start > q.chunk {
			if i := bytes.LastIndexByte(data[start:start+q.chunk], '\n'); i >= 0 {
				end = start + i + 1
			} else {
				end = grepLineEnd(data, start+q.chunk)
			}
		}
		piece := data[start:end]
		if q.re.Match(piece) {
			b, c := grepScan(q, piece, first)
			for _, bl := range b {
				blocks = append(blocks, grepBlock{start + bl.start, start + bl.end})
			}
			count += c
			if first && len(b) > 0 {
				break
			}
		}
		start = end
	}
	return blocks, count
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
			if q.mode == "count" {
				count += len(q.re.FindAllIndex(data[ls:le], -1))
			}
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
			if q.mode == "count" {
				count += len(q.re.FindAllIndex(line, -1))
			}
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
