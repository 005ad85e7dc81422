package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/permission"
)

// Limits of Grep's output. Lines are cut like rg --max-columns so one
// minified file cannot fill the answer.
const (
	grepMaxOutput    = 30_000
	grepMaxLineChars = 500
	// grepMaxMatchLines stops a runaway content search ("." over a huge
	// tree) from holding every line of the tree in memory.
	grepMaxMatchLines = 100_000
	// grepMaxFileSize skips huge files (logs, dumps) in both backends.
	grepMaxFileSize = 20 << 20
)

// Grep searches file contents with a regular expression, through ripgrep
// when it is installed and a built-in parallel walker otherwise. Both
// backends give the same output.
type Grep struct {
	Input[grepInput]
	// Backend is "auto" (or empty: rg when on PATH), "rg" or "builtin".
	Backend string
	// maxLines overrides grepMaxMatchLines in tests.
	maxLines int
	// plain makes tests search without the literal prefilter and the
	// chunking, each line of the built-in search checked the simple way;
	// chunk, when set, overrides the chunk size.
	plain bool
	chunk int
}

// grepInput's fields are in the order the model sees them.
type grepInput struct {
	Pattern    string   `json:"pattern" jsonschema:"The regular expression pattern to search for in file contents"`
	Path       string   `json:"path,omitempty" nova:"path,default=." jsonschema:"File or directory to search in (rg PATH), absolute or relative to the working directory. Defaults to the working directory."`
	Glob       string   `json:"glob,omitempty" jsonschema:"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\") - maps to rg --glob"`
	Type       string   `json:"type,omitempty" jsonschema:"File type to search (rg --type), e.g. js, py, rust, go, java. More efficient than glob for standard file types."`
	OutputMode string   `json:"output_mode,omitempty" jsonschema:"\"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\"."`
	Before     *float64 `json:"-B,omitempty" jsonschema:"Number of lines to show before each match (rg -B). Requires output_mode: \"content\", ignored otherwise."`
	After      *float64 `json:"-A,omitempty" jsonschema:"Number of lines to show after each match (rg -A). Requires output_mode: \"content\", ignored otherwise."`
	Context    *float64 `json:"-C,omitempty" jsonschema:"Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise."`
	LineNums   *bool    `json:"-n,omitempty" jsonschema:"Show line numbers in output (rg -n). Requires output_mode: \"content\", ignored otherwise. Defaults to true."`
	IgnoreCase bool     `json:"-i,omitempty" jsonschema:"Case insensitive search (rg -i)"`
	HeadLimit  *float64 `json:"head_limit,omitempty" jsonschema:"Limit output to first N lines/entries, equivalent to \"| head -N\". Works across all output modes. 0 or absent means no limit beyond the 30,000-character cap."`
	Multiline  bool     `json:"multiline,omitempty" jsonschema:"Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false."`
}

// tuneSchema lists the output modes and makes the counts whole numbers:
// they are decoded as float64 so that grepCount can say what is wrong
// with 2.5 or -1.
func (grepInput) tuneSchema(s *jsonschema.Schema) {
	prop(s, "output_mode").Enum = enum("content", "files_with_matches", "count")
	for _, n := range []string{"-B", "-A", "-C", "head_limit"} {
		prop(s, n).Type, prop(s, n).Minimum = "integer", jsonschema.Ptr(0.0)
	}
}

// Name implements Tool.
func (*Grep) Name() string { return "Grep" }

// Kind implements Tool: Grep only reads files.
func (*Grep) Kind() permission.Kind { return permission.KindRead }

// Description implements Tool.
func (*Grep) Description() string {
	return `A powerful search tool built on ripgrep.

Usage:
- ALWAYS use Grep for search tasks. NEVER invoke ` + "`grep` or `rg`" + ` as a Bash command: Grep is faster, respects .gitignore and shapes its output for you.
- Supports full regex syntax (RE2, e.g. "log.*Error", "function\s+\w+"). Literal braces need escaping: use ` + "`interface\\{\\}`" + ` to find ` + "`interface{}`" + `. \w, \d and \s are ASCII-only.
- Filter files with glob (e.g. "*.js", "*.{ts,tsx}", "src/**/*.go"; a glob without "/" matches file names at any depth, a leading "!" excludes) or type (e.g. "js", "py", "rust", "go").
- output_mode: "files_with_matches" (default) lists matching files, newest first; "content" shows matching lines as path:line:text, context lines (-A/-B/-C) as path-line-text and "--" between groups; "count" shows matches per file.
- -n (line numbers, default true), -A/-B/-C and head_limit work as in rg; head_limit keeps the first N lines or entries of the output.
- By default a pattern matches within one line. For patterns that span lines, like ` + "`struct \\{[\\s\\S]*?field`" + `, set multiline: true (then "." also matches newlines).
- Files ignored by .gitignore, binary files and the .git directory are skipped. Files over 20 MB are not searched: the result names them, and you can search them with Bash (grep) or Read them in parts. Files a Read deny rule covers are never searched; the result says how many were left out. Paths in the output are absolute.
- Output is capped at 30,000 characters; narrow the search when it says it was cut.
- Use Glob to find files by name. You can run several searches in parallel.`
}

// grepQuery is a validated search, the same for both backends.
type grepQuery struct {
	root      string // absolute directory (or file, when single)
	single    bool   // root is one file: search it whatever the filters say
	re        *regexp.Regexp
	rgPattern string // the same regexp spelled so ripgrep reads it as Go does
	multiline bool
	mode      string
	before    int
	after     int
	filter    grepFilter
	userGlob  string // the glob parameter as given, for rg --glob
	lineNums  bool
	headLimit int
	maxLines  int                   // content lines held before the search stops
	lit       *grepLiteral          // literals one of which every match holds, or nil
	run       *grepRun              // without lit: the run of bytes every match is, or nil
	chunk     int                   // bytes of whole lines given to the regexp at once, 0 for a whole file
	denied    func(abs string) bool // Env.DeniedRead: such files are never read
	// confine is where the permission check resolved the root: a file the
	// search opens must lie there, or a directory swapped for a link since
	// would carry the search out (see openApproved).
	confine string
}

// grepResult is what a backend found, and what it left out.
type grepResult struct {
	files      []grepFile
	complete   bool        // false when the search stopped at maxLines
	denied     int         // files left out by a Read deny rule, unread
	deniedDirs int         // directories not entered for the same reason
	large      []grepLarge // files over grepMaxFileSize, not searched
}

// grepLarge is a file skipped for its size.
type grepLarge struct {
	path string // absolute
	size int64
}

// grepFile is one file's findings, whichever backend found them.
type grepFile struct {
	path  string // absolute
	count int    // matches, in count mode
	lines []grepLine
}

// grepLine is a matching or context line in content mode.
type grepLine struct {
	n     int
	text  string
	match bool
}

// grepFilter selects files by the glob and type parameters.
type grepFilter struct {
	glob      string // without a leading "!"
	negate    bool
	globPath  bool // the glob has a "/": match the relative path, not the name
	typeGlobs []string
}

// match reports whether the file at rel (slash-separated, relative to the
// searched directory) passes the filters.
func (f grepFilter) match(rel string) bool {
	name := path.Base(rel)
	if f.glob != "" {
		subject := name
		if f.globPath {
			subject = rel
		}
		ok, _ := doublestar.Match(f.glob, subject)
		if ok == f.negate {
			return false
		}
	}
	if len(f.typeGlobs) == 0 {
		return true
	}
	for _, g := range f.typeGlobs {
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
	}
	return false
}

// Run implements Tool.
func (g *Grep) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in grepInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for Grep: %v", err), nil
	}
	q, err := newGrepQuery(in, env)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if g.maxLines > 0 {
		q.maxLines = g.maxLines
	}
	switch {
	case g.plain:
		q.lit, q.run, q.chunk = nil, nil, 0
	case g.chunk > 0:
		q.chunk = g.chunk
	}
	q.confine = approvedRoot(ctx)
	// The permission check saw the root; a deny rule may still cover it
	// when the pipeline was bypassed or the rules changed since.
	if q.denied != nil && q.denied(q.root) {
		return Errorf("%s is not searched: a Read deny rule covers it", q.root), nil
	}
	backend := g.Backend
	rgPath, lookErr := exec.LookPath("rg")
	switch backend {
	case "", "auto":
		backend = "builtin"
		if lookErr == nil {
			backend = "rg"
		}
	case "rg":
		if lookErr != nil {
			return Result{}, fmt.Errorf("grep backend rg: %w", lookErr)
		}
	case "builtin":
	default:
		return Result{}, fmt.Errorf("unknown grep backend %q (want auto, rg or builtin)", g.Backend)
	}
	var res *grepResult
	useRG := backend == "rg" && !q.single // one file needs no walk: rg would gain nothing
	if useRG {
		res, err = grepRipgrep(ctx, rgPath, q)
		// An old or odd rg (a flag it lacks, a regex size limit) must not
		// make Grep fail when the built-in search can answer.
		if err != nil && ctx.Err() == nil && g.Backend != "rg" {
			useRG = false
		}
	}
	if !useRG {
		res, err = grepBuiltin(ctx, q)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("grep interrupted: %w", ctx.Err())
		}
		return Result{}, err
	}
	if q.single && len(res.large) == 1 {
		return Errorf("%s was not searched: it is %s, over Grep's %s limit. Search it with Bash (grep -n -E PATTERN FILE), or read it in parts with Read (offset and limit).", q.root, grepSize(res.large[0].size), grepSize(grepMaxFileSize)), nil
	}
	return Result{Output: renderGrep(q, res)}, nil
}

// newGrepQuery validates the input and resolves it against env.
func newGrepQuery(in grepInput, env *Env) (*grepQuery, error) {
	if in.Pattern == "" {
		return nil, fmt.Errorf("pattern is required")
	}
	q := &grepQuery{mode: in.OutputMode, multiline: in.Multiline, lineNums: true, maxLines: grepMaxMatchLines, denied: env.DeniedRead}
	switch q.mode {
	case "":
		q.mode = "files_with_matches"
	case "files_with_matches", "content", "count":
	default:
		return nil, fmt.Errorf("output_mode must be files_with_matches, content or count, not %q", in.OutputMode)
	}
	if in.LineNums != nil {
		q.lineNums = *in.LineNums
	}
	var err error
	if q.before, err = grepCount("-C", in.Context); err != nil {
		return nil, err
	}
	q.after = q.before
	if in.Before != nil {
		if q.before, err = grepCount("-B", in.Before); err != nil {
			return nil, err
		}
	}
	if in.After != nil {
		if q.after, err = grepCount("-A", in.After); err != nil {
			return nil, err
		}
	}
	if q.headLimit, err = grepCount("head_limit", in.HeadLimit); err != nil {
		return nil, err
	}
	if err := q.compile(in); err != nil {
		return nil, err
	}
	if err := q.filters(in); err != nil {
		return nil, err
	}
	p := in.Path
	if p == "" {
		p = "."
	}
	q.root = env.Abs(p)
	st, err := os.Stat(q.root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("path does not exist: %s", q.root)
		}
		return nil, fmt.Errorf("cannot search %s: %w", q.root, err)
	}
	q.single = !st.IsDir()
	return q, nil
}

func grepCount(name string, v *float64) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < 0 || *v != float64(int(*v)) {
		return 0, fmt.Errorf("%s must be a whole number >= 0, not %v", name, *v)
	}
	return int(*v), nil
}

// compile builds the Go regexp and its spelling for rg. "^" and "$" match
// at line ends in both (rg always works that way).
func (q *grepQuery) compile(in grepInput) error {
	flags := "(?m)"
	if in.IgnoreCase {
		flags += "(?i)"
	}
	if in.Multiline {
		flags += "(?s)"
	}
	parsed, err := syntax.Parse(flags+in.Pattern, syntax.Perl)
	if err != nil {
		return fmt.Errorf("invalid regular expression %q: %w (the syntax is RE2: escape literal braces, brackets and parentheses)", in.Pattern, err)
	}
	if !in.Multiline && grepHasNewline(parsed) {
		return fmt.Errorf("pattern %q contains a literal newline, which never matches within one line; set multiline: true to match across lines", in.Pattern)
	}
	if q.re, err = regexp.Compile(flags + in.Pattern); err != nil {
		return fmt.Errorf("invalid regular expression %q: %w", in.Pattern, err)
	}
	// rg's \w, \d, \s are Unicode-aware; Go prints its parsed classes back
	// as explicit ranges, so rg matches exactly what Go matches.
	q.rgPattern = parsed.String()
	simple := parsed.Simplify()
	q.lit = requiredLiteral(simple)
	if q.lit == nil {
		q.run = requiredRun(simple, in.Multiline)
	}
	// Go's regexp runs its backtracker, several times faster than its NFA,
	// on inputs under 256 Kbit / len(program); a pattern with no literal is
	// given its input in pieces of whole lines that fit.
	if prog, err := syntax.Compile(simple); err == nil && len(prog.Inst) > 0 {
		q.chunk = 256*1024/len(prog.Inst) - 1
	}
	return nil
}

// filters reads the glob and type parameters.
func (q *grepQuery) filters(in grepInput) error {
	if g := strings.TrimSpace(in.Glob); g != "" {
		q.filter.negate = strings.HasPrefix(g, "!")
		glob := strings.TrimPrefix(strings.TrimPrefix(g, "!"), "/")
		if glob == "" || !doublestar.ValidatePattern(glob) {
			return fmt.Errorf("invalid glob %q", in.Glob)
		}
		q.filter.glob = glob
		q.filter.globPath = strings.Contains(glob, "/")
		q.userGlob = g
	}
	if in.Type != "" {
		globs, ok := grepTypes()[strings.ToLower(in.Type)]
		if !ok {
			return fmt.Errorf("unknown file type %q; known types: %s (or use glob)", in.Type, strings.Join(grepTypeNames(), ", "))
		}
		q.filter.typeGlobs = globs
	}
	return nil
}

// grepHasNewline reports whether re has a literal "\n" (or a class of only
// "\n"), which rg refuses outside multiline mode and a line never holds.
func grepHasNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 2 && re.Rune[0] == '\n' && re.Rune[1] == '\n' {
			return true
		}
	}
	for _, s := range re.Sub {
		if grepHasNewline(s) {
			return true
		}
	}
	return false
}

// renderGrep sorts the findings and writes them in the output format,
// followed by notes on what was cut or left out.
func renderGrep(q *grepQuery, r *grepResult) string {
	files := r.files
	var lines []string
	var footer, none string
	switch q.mode {
	case "files_with_matches":
		none = "No files found"
		sortGrepByMtime(files)
		for _, f := range files {
			lines = append(lines, f.path)
		}
	case "count":
		none = "No matches found"
		sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
		total := 0
		for _, f := range files {
			lines = append(lines, fmt.Sprintf("%s:%d", f.path, f.count))
			total += f.count
		}
		footer = fmt.Sprintf("Found %d total %s across %d %s.", total, grepPlural(total, "match", "matches"), len(files), grepPlural(len(files), "file", "files"))
	default:
		none = "No matches found"
		sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
		lines = grepContentLines(q, files)
	}
	var b strings.Builder
	var notes []string
	if len(files) == 0 {
		b.WriteString(none + "\n")
	} else {
		total := len(lines)
		if q.headLimit > 0 && total > q.headLimit {
			lines = lines[:q.headLimit]
			notes = append(notes, fmt.Sprintf("[showing the first %d of %d %s (head_limit)]", q.headLimit, total, grepUnit(q.mode)))
		}
		if q.mode == "files_with_matches" {
			fmt.Fprintf(&b, "Found %d %s\n", len(files), grepPlural(len(files), "file", "files"))
		}
		for i, l := range lines {
			if b.Len()+len(l)+1 > grepMaxOutput {
				notes = append(notes, fmt.Sprintf("[output cut at %d characters: %d more %s not shown; narrow the search with path, glob, type or head_limit]", grepMaxOutput, len(lines)-i, grepUnit(q.mode)))
				footer = ""
				break
			}
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if footer != "" {
			b.WriteString("\n" + footer + "\n")
		}
	}
	if !r.complete {
		notes = append(notes, fmt.Sprintf("[the search stopped after %d matching lines, so results are incomplete; use a more specific pattern or path]", q.maxLines))
	}
	if n := grepLargeNote(r.large); n != "" {
		notes = append(notes, n)
	}
	if n := grepDeniedNote(r.denied, r.deniedDirs); n != "" {
		notes = append(notes, n)
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// grepLargeNote tells the model which files were too large to search and
// how to search them anyway; the first few are named, largest first.
func grepLargeNote(large []grepLarge) string {
	if len(large) == 0 {
		return ""
	}
	sort.Slice(large, func(i, j int) bool {
		if large[i].size != large[j].size {
			return large[i].size > large[j].size
		}
		return large[i].path < large[j].path
	})
	const named = 5
	var names []string
	for _, l := range large[:min(len(large), named)] {
		names = append(names, fmt.Sprintf("%s (%s)", l.path, grepSize(l.size)))
	}
	if len(large) > named {
		names = append(names, fmt.Sprintf("and %d more", len(large)-named))
	}
	return fmt.Sprintf("[%d %s over Grep's %s limit %s not searched: %s. Search %s with Bash (grep -n -E PATTERN FILE), or read %s in parts with Read (offset and limit).]",
		len(large), grepPlural(len(large), "file", "files"), grepSize(grepMaxFileSize), grepPlural(len(large), "was", "were"),
		strings.Join(names, ", "), grepPlural(len(large), "it", "them"), grepPlural(len(large), "it", "them"))
}

// grepDeniedNote says how much a Read deny rule kept out of the search.
func grepDeniedNote(files, dirs int) string {
	if d := deniedSummary(files, dirs); d != "" {
		return "[" + d + "]"
	}
	return ""
}

// grepSize spells a byte count for a person: "24.0 MB", "20 MB".
func grepSize(n int64) string {
	const mb = 1 << 20
	if n%mb == 0 {
		return fmt.Sprintf("%d MB", n/mb)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/mb)
}

// sortGrepByMtime puts the most recently modified files first, ties by path.
func sortGrepByMtime(files []grepFile) {
	mt := make(map[string]int64, len(files))
	for _, f := range files {
		if st, err := os.Stat(f.path); err == nil {
			mt[f.path] = st.ModTime().UnixNano()
		}
	}
	sort.Slice(files, func(i, j int) bool {
		a, b := mt[files[i].path], mt[files[j].path]
		if a != b {
			return a > b
		}
		return files[i].path < files[j].path
	})
}

// grepContentLines formats matches like rg: "path:n:text" for matches,
// "path-n-text" for context, "--" between groups that do not touch.
func grepContentLines(q *grepQuery, files []grepFile) []string {
	var out []string
	withContext := q.before > 0 || q.after > 0
	for fi, f := range files {
		prev := -1
		for _, l := range f.lines {
			if withContext && ((prev >= 0 && l.n != prev+1) || (prev < 0 && fi > 0)) {
				out = append(out, "--")
			}
			prev = l.n
			sep := "-"
			if l.match {
				sep = ":"
			}
			text := strings.TrimSuffix(l.text, "\r")
			if len(text) > grepMaxLineChars {
				cut := cutIndex(text, grepMaxLineChars)
				text = fmt.Sprintf("%s [... %d more characters]", text[:cut], len(text)-cut)
			}
			if q.lineNums {
				out = append(out, fmt.Sprintf("%s%s%d%s%s", f.path, sep, l.n, sep, text))
			} else {
				out = append(out, f.path+sep+text)
			}
		}
	}
	return out
}

func grepUnit(mode string) string {
	switch mode {
	case "files_with_matches":
		return "files"
	case "count":
		return "entries"
	}
	return "lines"
}

func grepPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
