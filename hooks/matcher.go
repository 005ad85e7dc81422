package hooks

import (
	"fmt"
	"regexp"
	"strings"
)

// matcher is a compiled "matcher" value, evaluated as Claude Code does:
// "*", "" or none matches everything; a value of only letters, digits,
// "_", "-", spaces, "," and "|" is a list of exact names separated by "|"
// or ","; anything else is a regular expression, unanchored (so
// "mcp__memory__.*" matches every tool of the memory server, and "Edit.*"
// matches NotebookEdit too).
type matcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

// compileMatcher compiles s. Go's regular expressions are RE2: a
// JavaScript pattern that needs look-around or back-references does not
// compile, and the error says so.
func compileMatcher(s string) (matcher, error) {
	t := strings.TrimSpace(s)
	if t == "" || t == "*" {
		return matcher{all: true}, nil
	}
	if exactOnly(t) {
		var names []string
		for _, n := range strings.FieldsFunc(t, func(r rune) bool { return r == '|' || r == ',' }) {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		return matcher{names: names}, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{}, fmt.Errorf("matcher %q is not a regular expression nova can use (Go RE2 syntax: no look-around or back-references): %v", s, err)
	}
	return matcher{re: re}, nil
}

// exactOnly reports whether s holds only the characters of an exact list.
func exactOnly(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '_' || r == '-' || r == ' ' || r == ',' || r == '|':
		default:
			return false
		}
	}
	return true
}

// match reports whether v (a tool name, a source, a trigger) is matched.
func (m matcher) match(v string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(v)
	}
	for _, n := range m.names {
		if n == v {
			return true
		}
	}
	return false
}
