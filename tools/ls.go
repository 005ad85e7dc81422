package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// lsMaxEntries caps LS's tree; a model needing more should list a
// subdirectory or use Glob.
const lsMaxEntries = 1000

// LS lists a directory as an indented tree.
type LS struct{ Input[lsInput] }

type lsInput struct {
	Path   string   `json:"path,omitempty" nova:"path,default=." jsonschema:"The directory to list, absolute or relative to the working directory (default: the working directory)"`
	Ignore []string `json:"ignore,omitempty" jsonschema:"List of glob patterns to ignore"`
}

// Name implements Tool.
func (*LS) Name() string { return "LS" }

// Kind implements Tool: LS only reads the file tree.
func (*LS) Kind() permission.Kind { return permission.KindRead }

// Description implements Tool.
func (*LS) Description() string {
	return `Lists files and directories under a path as an indented tree (directories end in "/").

- path is absolute or relative to the working directory; it defaults to the working directory.
- ignore is an optional list of glob patterns to leave out (e.g. ["*.log", "testdata/**"]); a pattern without "/" matches names at any depth.
- Entries ignored by .gitignore (and .git/info/exclude) and the .git directory are not listed.
- Entries a Read deny rule covers are listed with "(read denied)": they cannot be read or searched, and a denied directory's contents are not listed.
- The tree is listed breadth-first and cut after 1000 entries, with a note; list a subdirectory to see more.
- Prefer Glob and Grep when you know what you are looking for.`
}

func lsRoot(in lsInput, env *Env) string {
	if in.Path == "" {
		return env.Abs(".")
	}
	return env.Abs(in.Path)
}

// lsNode is one listed entry; children are filled for directories that
// were expanded before the cap.
type lsNode struct {
	name     string
	dir      bool
	denied   bool // a Read deny rule covers it: listed, never opened
	children []*lsNode
}

// Run implements Tool.
func (*LS) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in lsInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for LS: %v", err), nil
	}
	for _, p := range in.Ignore {
		if !doublestar.ValidatePattern(p) {
			return Errorf("invalid ignore pattern %q", p), nil
		}
	}
	root := lsRoot(in, env)
	if env.DeniedRead != nil && env.DeniedRead(root) {
		return Errorf("%s is not listed: a Read deny rule covers it", root), nil
	}
	st, err := os.Stat(root)
	switch {
	case os.IsNotExist(err):
		return Errorf("directory does not exist: %s", root), nil
	case err != nil:
		return Errorf("cannot list %s: %v", root, err), nil
	case !st.IsDir():
		return Errorf("%s is a file, not a directory; use Read to see it", root), nil
	}

	// Breadth-first, so the cap cuts the deep end of the tree and the top
	// levels stay complete.
	type pending struct {
		node  *lsNode
		abs   string
		rel   string
		chain *ignoreChain
	}
	top := &lsNode{dir: true}
	queue := []pending{{node: top, abs: root, chain: rootIgnoreChain(root)}}
	count, cut, nDenied := 0, false, 0
	for len(queue) > 0 && !cut {
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("list %s: %w", root, err)
		}
		d := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(d.abs)
		if err != nil {
			if d.node == top {
				return Errorf("cannot list %s: %v", root, err), nil
			}
			continue
		}
		for _, e := range entries {
			name := e.Name()
			abs := filepath.Join(d.abs, name)
			rel := name
			if d.rel != "" {
				rel = d.rel + "/" + name
			}
			isDir := e.IsDir()
			if name == ".git" || d.chain.ignored(abs, isDir) || lsIgnored(in.Ignore, name, rel) {
				continue
			}
			if count == lsMaxEntries {
				cut = true
				break
			}
			count++
			n := &lsNode{name: name, dir: isDir}
			d.node.children = append(d.node.children, n)
			// A name is not content, so a denied entry is still listed (the
			// model should not think it absent and write over it), marked
			// so it does not try to Read it; a denied directory is not
			// opened, as Grep and Glob do not enter it.
			if env.DeniedRead != nil && env.DeniedRead(abs) {
				n.denied = true
				nDenied++
				continue
			}
			if isDir {
				queue = append(queue, pending{node: n, abs: abs, rel: rel, chain: d.chain.withDir(abs)})
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "- %s/\n", strings.TrimSuffix(root, "/"))
	lsWrite(&b, top.children, 1)
	if count == 0 {
		b.WriteString("  (empty)\n")
	}
	if cut {
		fmt.Fprintf(&b, "\n[Listing cut at %d entries: there are more files and directories than shown. List a subdirectory, or use Glob or Grep to find specific files.]\n", lsMaxEntries)
	}
	if nDenied > 0 {
		fmt.Fprintf(&b, "\n[%d %s marked (read denied): a Read deny rule covers %s; %s cannot be read or searched, and a denied directory's contents are not listed.]\n",
			nDenied, grepPlural(nDenied, "entry", "entries"), grepPlural(nDenied, "it", "them"), grepPlural(nDenied, "it", "they"))
	}
	return Result{
		Output:  strings.TrimSuffix(b.String(), "\n"),
		Display: display.OfSearch(display.Search{Count: count, Unit: "entries", Truncated: cut, Denied: nDenied}),
	}, nil
}

// lsIgnored reports whether an entry matches one of the ignore globs, by
// name or by path relative to the listed directory.
func lsIgnored(globs []string, name, rel string) bool {
	for _, g := range globs {
		g = strings.TrimSuffix(g, "/")
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
		if ok, _ := doublestar.Match(strings.TrimPrefix(g, "/"), rel); ok {
			return true
		}
	}
	return false
}

func lsWrite(b *strings.Builder, nodes []*lsNode, depth int) {
	for _, n := range nodes {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString("- ")
		b.WriteString(n.name)
		if n.dir {
			b.WriteByte('/')
		}
		if n.denied {
			b.WriteString(" (read denied)")
		}
		b.WriteByte('\n')
		lsWrite(b, n.children, depth+1)
	}
}
