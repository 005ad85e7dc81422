package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Rule is one parsed permission rule: Tool or Tool(specifier).
type Rule struct {
	Raw    string // as written
	Tool   string // Bash, Read, Edit, WebFetch, mcp__server__tool ...
	Spec   string // the specifier; "" means the whole tool
	Source string // the settings file or "--allowedTools" it came from
	Base   string // the project directory ./ patterns are relative to
}

// RuleSet is the allow, ask and deny lists of one source.
type RuleSet struct {
	Source string // e.g. /p/.nova/settings.json, --allowedTools
	Base   string // directory ./ and bare path patterns are relative to
	Allow  []string
	Ask    []string
	Deny   []string
}

// ParseRule parses "Tool" or "Tool(specifier)" and checks the specifier
// fits the tool.
func ParseRule(s string) (Rule, error) {
	raw := s
	s = strings.TrimSpace(s)
	r := Rule{Raw: s}
	name, spec, hasSpec := strings.Cut(s, "(")
	name = strings.TrimSpace(name)
	if name == "" {
		return r, fmt.Errorf("rule %q: no tool name", raw)
	}
	for i, ch := range name {
		ok := ch == '_' || ch == '-' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9' ||
			ch == '*' && i == len(name)-1 && strings.HasPrefix(name, "mcp__")
		if !ok {
			return r, fmt.Errorf("rule %q: tool name %q may hold only letters, digits, _ and -", raw, name)
		}
	}
	r.Tool = name
	if !hasSpec {
		return r, nil
	}
	if !strings.HasSuffix(spec, ")") {
		return r, fmt.Errorf("rule %q: missing closing parenthesis", raw)
	}
	spec = strings.TrimSpace(strings.TrimSuffix(spec, ")"))
	if spec == "" {
		return r, fmt.Errorf("rule %q: empty specifier; write %s alone for the whole tool", raw, name)
	}
	if spec == "*" || spec == "**" {
		return r, nil
	}
	r.Spec = spec
	switch {
	case name == "Bash":
		if i := strings.Index(spec, ":*"); i >= 0 && i != len(spec)-2 {
			return r, fmt.Errorf("rule %q: \":*\" may only end a Bash prefix rule", raw)
		}
	case name == "WebFetch":
		d, ok := strings.CutPrefix(spec, "domain:")
		if !ok || strings.TrimSpace(d) == "" || strings.ContainsAny(d, "/ ") {
			return r, fmt.Errorf("rule %q: WebFetch rules look like WebFetch(domain:example.com)", raw)
		}
	case pathTool(name):
		if !doublestar.ValidatePattern(strings.TrimPrefix(spec, "/")) {
			return r, fmt.Errorf("rule %q: bad path pattern %q", raw, spec)
		}
	case strings.HasPrefix(name, "mcp__"):
		return r, fmt.Errorf("rule %q: MCP rules take no specifier; use mcp__server or mcp__server__tool", raw)
	}
	return r, nil
}

// editTools are covered by Edit rules; readTools by Read rules.
func editTools() []string {
	return []string{"Edit", "Write", "MultiEdit", "NotebookEdit", "ApplyPatch"}
}
func readTools() []string { return []string{"Read", "Glob", "Grep", "LS", "NotebookRead"} }

// pathTool reports whether a tool's specifier is a path pattern.
func pathTool(name string) bool {
	return contains(editTools(), name) || contains(readTools(), name)
}

// appliesTo reports whether the rule names tool.
func (r Rule) appliesTo(tool string) bool {
	switch {
	case r.Tool == tool:
		return true
	case r.Tool == "Edit":
		return contains(editTools(), tool)
	case r.Tool == "Read":
		return contains(readTools(), tool)
	case strings.HasPrefix(r.Tool, "mcp__") && strings.HasPrefix(tool, "mcp__"):
		if p, ok := strings.CutSuffix(r.Tool, "*"); ok {
			return strings.HasPrefix(tool, p)
		}
		return strings.HasPrefix(tool, r.Tool+"__")
	}
	return false
}

// matchBash reports whether a Bash rule matches the text of one simple
// command.
func (r Rule) matchBash(text string) bool {
	if r.Spec == "" {
		return true
	}
	text = strings.Join(strings.Fields(text), " ")
	spec := strings.Join(strings.Fields(r.Spec), " ")
	if p, ok := strings.CutSuffix(spec, ":*"); ok {
		p = strings.TrimSpace(p)
		return text == p || strings.HasPrefix(text, p+" ")
	}
	if strings.Contains(spec, "*") {
		return wildcard(spec, text)
	}
	return text == spec
}

// wildcard matches s against pattern where * stands for any text.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}

// pattern turns a path specifier into an absolute doublestar pattern:
// //abs, ~/home, ./ or / relative to the rule's project, and bare names
// matching at any depth below it, like .gitignore.
func (r Rule) pattern(home string) string {
	s := r.Spec
	var p string
	switch {
	case strings.HasPrefix(s, "//"):
		p = s[1:]
	case s == "~" || strings.HasPrefix(s, "~/"):
		p = home + s[1:]
	case strings.HasPrefix(s, "./"), strings.HasPrefix(s, "/"):
		p = r.Base + "/" + strings.TrimPrefix(strings.TrimPrefix(s, "."), "/")
	case strings.Contains(strings.TrimSuffix(s, "/"), "/"):
		p = r.Base + "/" + s
	default:
		p = r.Base + "/**/" + s
	}
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	return filepath.ToSlash(p)
}

// matchPath reports whether a path rule covers p or a directory above it.
func (r Rule) matchPath(p, home string) bool {
	if r.Spec == "" {
		return true
	}
	if p == "" {
		return false
	}
	pat := r.pattern(home)
	for q := p; ; q = filepath.Dir(q) {
		if ok, _ := doublestar.Match(pat, filepath.ToSlash(q)); ok {
			return true
		}
		if q == filepath.Dir(q) {
			return false
		}
	}
}

// matchDomain reports whether a WebFetch rule covers host.
func (r Rule) matchDomain(host string) bool {
	if r.Spec == "" {
		return true
	}
	d := strings.ToLower(strings.TrimPrefix(r.Spec, "domain:"))
	host = strings.ToLower(host)
	if s, ok := strings.CutPrefix(d, "*."); ok {
		return strings.HasSuffix(host, "."+s)
	}
	return host == d
}

// parseRules parses the lists of every source, naming the source of a bad
// rule.
func parseRules(sets []RuleSet) (allow, ask, deny []Rule, err error) {
	for _, set := range sets {
		for _, l := range []struct {
			in  []string
			out *[]Rule
		}{{set.Allow, &allow}, {set.Ask, &ask}, {set.Deny, &deny}} {
			for _, s := range l.in {
				r, perr := ParseRule(s)
				if perr != nil {
					return nil, nil, nil, fmt.Errorf("%s: %w", set.Source, perr)
				}
				r.Source, r.Base = set.Source, filepath.Clean(set.Base)
				*l.out = append(*l.out, r)
			}
		}
	}
	return allow, ask, deny, nil
}

// SplitToolList splits a --allowedTools / --disallowedTools value on commas
// and spaces outside parentheses: "Bash(git log:*),Edit Read".
func SplitToolList(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
	}
	for i, ch := range s {
		switch {
		case ch == '(':
			depth++
		case ch == ')' && depth > 0:
			depth--
		case (ch == ',' || ch == ' ') && depth == 0:
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}
