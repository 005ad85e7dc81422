package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// globMaxResults caps Glob's answer; a model that needs more should narrow
// the pattern rather than read thousands of paths.
const globMaxResults = 100

// Glob finds files whose paths match a glob pattern, newest first.
type Glob struct{ Input[globInput] }

type globInput struct {
	Pattern string `json:"pattern" jsonschema:"The glob pattern to match files against"`
	Path    string `json:"path,omitempty" jsonschema:"The directory to search in, absolute or relative to the working directory. Omit it to search the working directory."`
}

// Name implements Tool.
func (*Glob) Name() string { return "Glob" }

// Kind implements Tool: Glob only reads the file tree.
func (*Glob) Kind() permission.Kind { return permission.KindRead }

// Description implements Tool.
func (*Glob) Description() string {
	return `Fast file pattern matching tool that works with any codebase size.

- Supports glob patterns like "**/*.js" or "src/**/*.ts": "*" matches within one path segment, "**" matches any number of directories, "?" one character, "[abc]" a class, "{a,b}" alternatives.
- The pattern is matched against paths relative to path (default: the working directory): "*.go" matches only files directly in it, "**/*.go" at any depth. An absolute pattern is allowed.
- Returns absolute file paths sorted by modification time, newest first, at most 100; narrow the pattern or path when the result says it was cut.
- Files ignored by .gitignore (and .git/info/exclude) and the .git directory are skipped. Paths a Read deny rule covers are left out; the result says how many.
- Use this tool when you need to find files by name patterns. To search file contents use Grep.
- You can call several Glob and Grep searches in parallel.`
}

// Permission implements Permissioner: Glob reads the directory it
// searches, which an absolute pattern names as much as path does.
func (*Glob) Permission(input json.RawMessage, env *Env) permission.Request {
	req := permission.Request{Tool: "Glob", Kind: permission.KindRead}
	var in globInput
	if json.Unmarshal(input, &in) != nil {
		return req
	}
	root, _ := globRoot(in, env)
	req.Paths = []permission.Access{{Path: root}}
	return req
}

// globRoot returns the directory to walk and the pattern relative to it.
// The fixed leading part of the pattern ("src/" of "src/**/*.go") moves
// into the root so the walk stays small.
func globRoot(in globInput, env *Env) (string, string) {
	pattern := filepath.ToSlash(in.Pattern)
	for strings.HasPrefix(pattern, "./") {
		pattern = pattern[2:]
	}
	root := env.Abs(".")
	if in.Path != "" {
		root = env.Abs(in.Path)
	}
	if filepath.IsAbs(in.Pattern) {
		root = "/"
		pattern = strings.TrimPrefix(pattern, "/")
	}
	base, rest := doublestar.SplitPattern(pattern)
	if base != "." && base != "" && !strings.Contains(base, `\`) {
		root = filepath.Join(root, filepath.FromSlash(base))
		pattern = rest
	}
	return root, pattern
}

type globHit struct {
	path  string
	mtime time.Time
}

// Run implements Tool.
func (*Glob) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in globInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for Glob: %v", err), nil
	}
	if strings.TrimSpace(in.Pattern) == "" {
		return Errorf("pattern is required, e.g. \"**/*.go\""), nil
	}
	if !doublestar.ValidatePattern(filepath.ToSlash(in.Pattern)) {
		return Errorf("invalid glob pattern %q (check its brackets and braces)", in.Pattern), nil
	}
	root, pattern := globRoot(in, env)
	st, err := os.Stat(root)
	switch {
	case os.IsNotExist(err):
		if in.Path != "" && os.IsNotExist(statErr(env.Abs(in.Path))) {
			return Errorf("directory does not exist: %s", env.Abs(in.Path)), nil
		}
		return Result{Output: "No files found"}, nil // the pattern's fixed prefix names no directory
	case err != nil:
		return Errorf("cannot search %s: %v", root, err), nil
	case !st.IsDir():
		return Errorf("%s is not a directory; Glob searches directories (use Read for a file)", root), nil
	}

	// Without "**" a pattern cannot match deeper than its segment count.
	maxDepth := 0
	if !strings.Contains(pattern, "**") {
		maxDepth = strings.Count(pattern, "/") + 1
	}
	denied := env.DeniedRead
	if denied != nil && denied(root) {
		return Errorf("%s is not searched: a Read deny rule covers it", root), nil
	}
	var (
		mu      sync.Mutex
		hits    []globHit
		nDenied int
	)
	deniedDirs, err := walkTree(ctx, root, walkOptions{maxDepth: maxDepth, deniedDir: denied}, func(e walkEntry) {
		if ok, _ := doublestar.Match(pattern, e.Rel); !ok {
			return
		}
		if denied != nil && denied(e.Path) {
			mu.Lock()
			nDenied++
			mu.Unlock()
			return
		}
		fi, err := os.Stat(e.Path)
		if err != nil {
			fi, err = os.Lstat(e.Path) // a dangling symlink is still a name that matched
		}
		if err != nil || fi.IsDir() {
			return
		}
		mu.Lock()
		hits = append(hits, globHit{path: e.Path, mtime: fi.ModTime()})
		mu.Unlock()
	})
	if err != nil {
		return Result{}, fmt.Errorf("glob %s: %w", in.Pattern, err)
	}
	note := deniedSummary(nDenied, deniedDirs)
	if note != "" {
		note = "(" + note + ")"
	}
	if len(hits) == 0 {
		return Result{Output: strings.TrimSuffix("No files found\n"+note, "\n")}, nil
	}
	sort.Slice(hits, func(i, j int) bool {
		if !hits[i].mtime.Equal(hits[j].mtime) {
			return hits[i].mtime.After(hits[j].mtime)
		}
		return hits[i].path < hits[j].path
	})
	shown := hits[:min(len(hits), globMaxResults)]
	var b strings.Builder
	for _, h := range shown {
		b.WriteString(h.path)
		b.WriteByte('\n')
	}
	if len(hits) > len(shown) {
		fmt.Fprintf(&b, "(Results are truncated: showing the %d most recently modified of %d files. Use a more specific path or pattern.)\n", len(shown), len(hits))
	}
	if note != "" {
		b.WriteString(note + "\n")
	}
	return Result{
		Output:  strings.TrimSuffix(b.String(), "\n"),
		Display: display.OfSearch(display.Search{Count: len(hits), Unit: "files", Truncated: len(hits) > len(shown), Denied: nDenied + deniedDirs}),
	}, nil
}

func statErr(p string) error {
	_, err := os.Stat(p)
	return err
}
