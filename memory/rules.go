package memory

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// Claude Code's memory locations (issue 24), read beside nova's own so a
// Claude Code user's memory works unchanged.
const (
	// ClaudeDir is Claude Code's directory, in the home and in a project.
	ClaudeDir = ".claude"
	// ClaudeLocalFile holds a person's own instructions for one project
	// in Claude Code's naming.
	ClaudeLocalFile = "CLAUDE.local.md"
	// RulesDir is where Claude Code's rules live inside ClaudeDir: every
	// .md file under it, in subfolders too.
	RulesDir = "rules"
)

// loadRules includes the rules under dir/.claude/rules, in path order. A
// rule without `paths:` frontmatter is included like any instruction
// file; one with it is included with its globs (File.Paths, relative to
// dir), to be given to the model only when a tool touches a match.
func (l *loader) loadRules(dir string) {
	l.loadRulesIn(filepath.Join(dir, ClaudeDir, RulesDir), dir)
}

// loadRulesIn includes the rules under root, their globs relative to base.
func (l *loader) loadRulesIn(root, base string) {
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != root {
				l.warnf("rule skipped: %v", err)
			}
			return nil
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".md") {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		l.warnf("rules in %s skipped: %v", root, err)
	}
	slices.Sort(found)
	for _, p := range found {
		content, err := readCapped(p, MaxFileBytes)
		if err != nil {
			l.warnf("rule skipped: %v", err)
			continue
		}
		globs, body, err := rulePaths(content)
		if err != nil {
			l.warnf("%s: the paths: frontmatter is not valid YAML (%v); the rule applies everywhere", p, err)
		}
		if len(globs) == 0 {
			n := len(l.files)
			l.load(p)
			if n < len(l.files) && l.files[n].Path == p {
				l.files[n].Content = body // the frontmatter is not for the model
			}
			continue
		}
		key := fileKey(p)
		if l.seen[key] {
			continue
		}
		l.seen[key] = true
		l.files = append(l.files, File{Path: p, Content: body, Paths: globs, base: base})
	}
}

// rulePaths reads a rule's `paths:` frontmatter (a list of globs, or one
// string of comma-separated globs) and returns the globs and the body
// without the frontmatter. A rule without frontmatter has no globs and is
// returned whole.
func rulePaths(content string) ([]string, string, error) {
	norm := strings.ReplaceAll(content, "\r\n", "\n")
	if !strings.HasPrefix(norm, "---\n") {
		return nil, content, nil
	}
	rest := norm[len("---\n"):]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		return nil, content, nil
	}
	header, body := rest[:end], rest[end+len("\n---"):]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	var fm struct {
		Paths yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal([]byte(header), &fm); err != nil {
		return nil, body, err
	}
	var raw []string
	switch fm.Paths.Kind {
	case yaml.ScalarNode:
		raw = strings.Split(fm.Paths.Value, ",")
	case yaml.SequenceNode:
		for _, n := range fm.Paths.Content {
			raw = append(raw, n.Value)
		}
	}
	var globs []string
	for _, g := range raw {
		if g = strings.TrimSpace(g); g != "" {
			globs = append(globs, filepath.ToSlash(g))
		}
	}
	return globs, body, nil
}

// Conditional reports whether f is a rule given to the model only when a
// tool touches a file matching its paths.
func (f File) Conditional() bool { return len(f.Paths) > 0 }

// Unconditional returns the files that go to the model at the start of
// a session: all but the conditional rules.
func Unconditional(files []File) []File {
	var out []File
	for _, f := range files {
		if !f.Conditional() {
			out = append(out, f)
		}
	}
	return out
}

// matches reports whether path (absolute) is one of the files rule f
// applies to: inside its project directory and matching one of its globs.
func (f File) matches(path string) bool {
	rel, err := filepath.Rel(f.base, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, g := range f.Paths {
		if ok, _ := doublestar.Match(strings.TrimPrefix(g, "./"), rel); ok {
			return true
		}
	}
	return false
}

// claudeUser reads the user's own Claude Code memory in claudeHome
// (~/.claude, or CLAUDE_CONFIG_DIR): CLAUDE.md and rules/, whose
// conditional rules match paths below any project, relative to the
// working directory's repository root.
func (l *loader) claudeUser(claudeHome, root string) {
	if claudeHome == "" {
		return
	}
	l.load(filepath.Join(claudeHome, ClaudeFile))
	l.loadRulesIn(filepath.Join(claudeHome, RulesDir), root)
}
