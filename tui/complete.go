package tui

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// maxFiles bounds the workspace walk for @ completion, so a huge tree
// costs a bounded moment once, not a stall.
const maxFiles = 20_000

// filesMsg carries the workspace's file list, walked in the background.
type filesMsg []string

// listFiles walks root for @ completion, skipping VCS and dependency
// directories nobody means to mention.
func listFiles(root string) tea.Cmd {
	return func() tea.Msg {
		var out []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				switch d.Name() {
				case ".git", "node_modules", ".hg", ".svn", "vendor", ".venv", "__pycache__":
					return filepath.SkipDir
				}
				return nil
			}
			if rel, err := filepath.Rel(root, p); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
			if len(out) >= maxFiles {
				return filepath.SkipAll
			}
			return nil
		})
		sort.Strings(out)
		return filesMsg(out)
	}
}

// completer suggests slash commands at the start of the input, and MCP
// resources and workspace paths after an @.
type completer struct {
	commands []string // "/help", ...
	// about are the commands' arguments and descriptions, shown beside
	// them.
	about map[string]commandAbout
	files []string
	// resources are the MCP servers' resources, offered as @server:uri.
	resources []MCPResource
	loaded    bool // the file walk was started
	items     []string
	sel       int
	// token is the text being completed: the suffix of the input it replaces.
	token string
}

// commandAbout is what completion shows beside a command.
type commandAbout struct{ args, help string }

// refresh recomputes the suggestions for the input value; it returns a
// command that loads the file list the first time @ is typed.
func (c *completer) refresh(value, root string) tea.Cmd {
	c.items, c.sel, c.token = nil, 0, ""
	var cmd tea.Cmd
	switch {
	case strings.HasPrefix(value, "/") && !strings.ContainsAny(value, " \n"):
		c.token = value
		for _, name := range c.commands {
			if strings.HasPrefix(name, value) && name != value {
				c.items = append(c.items, name)
			}
		}
	default:
		i := strings.LastIndexAny(value, " \n\t")
		word := value[i+1:]
		if !strings.HasPrefix(word, "@") {
			return nil
		}
		if !c.loaded && root != "" {
			c.loaded = true
			cmd = listFiles(root)
		}
		c.token = word
		q := strings.ToLower(word[1:])
		for _, r := range c.resources {
			if matchResource(r, q) && len(c.items) < 50 {
				c.items = append(c.items, "@"+r.Server+":"+r.URI)
			}
		}
		for _, f := range c.files {
			if len(c.items) >= 50 {
				break
			}
			if strings.Contains(strings.ToLower(f), q) {
				c.items = append(c.items, "@"+f)
			}
		}
	}
	return cmd
}

// matchResource reports whether a resource is what q (lower case, after
// the @) may be the start of: a server name, then after a colon part of
// its URI or name; or, with no colon, part of any of them.
func matchResource(r MCPResource, q string) bool {
	uri, name := strings.ToLower(r.URI), strings.ToLower(r.Name)
	if server, rest, ok := strings.Cut(q, ":"); ok && strings.HasPrefix(strings.ToLower(r.Server), server) {
		if strings.Contains(uri, rest) || strings.Contains(name, rest) {
			return true
		}
	}
	return strings.Contains(strings.ToLower(r.Server)+":"+uri, q) || strings.Contains(name, q)
}

func (c *completer) active() bool { return len(c.items) > 0 }

func (c *completer) move(d int) {
	if n := len(c.items); n > 0 {
		c.sel = (c.sel + d + n) % n
	}
}

// accept returns value with the token replaced by the highlighted item.
func (c *completer) accept(value string) string {
	if !c.active() {
		return value
	}
	out := strings.TrimSuffix(value, c.token) + c.items[c.sel] + " "
	c.items = nil
	return out
}

// view lists up to five suggestions around the highlighted one; a
// command has its arguments and description beside it, in a column.
func (c *completer) view(width int, st *styles) []string {
	const room = 5
	start := 0
	if c.sel >= room {
		start = c.sel - room + 1
	}
	end := min(len(c.items), start+room)
	label := func(it string) string {
		if a := c.about[it].args; a != "" {
			return it + " " + a
		}
		return it
	}
	// One column for all the matches, so it stays put while the
	// highlight moves through them; a label longer than most (/mcp's
	// arguments) does not push it out, and just has its gap.
	col := 0
	for _, it := range c.items {
		if w := ansi.StringWidth(label(it)); w <= min(28, width/3) {
			col = max(col, w)
		}
	}
	var out []string
	for i, it := range c.items[start:end] {
		l := label(it)
		if help := c.about[it].help; help != "" {
			if pad := col - ansi.StringWidth(l); pad > 0 {
				l += strings.Repeat(" ", pad)
			}
			l += "  " + help
		}
		l = clipLine("  "+l, width)
		if start+i == c.sel {
			l = st.selected.Render(l)
		} else {
			l = st.dim.Render(l)
		}
		out = append(out, l)
	}
	return out
}
