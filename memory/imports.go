package memory

import (
	"strings"
)

// findImports returns the paths of the @imports in an instruction file, in
// order: whitespace-separated tokens "@path" outside fenced code blocks and
// inline code, so that examples in code ("@Override", "npm i @scope/pkg")
// are not read as imports.
func findImports(content string) []string {
	var out []string
	fence := "" // the opening fence while inside a fenced code block
	for _, line := range strings.Split(content, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if isClosingFence(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if f := openingFence(trimmed); f != "" {
			fence = f
			continue
		}
		for _, tok := range strings.Fields(stripInlineCode(line)) {
			if p, ok := importPath(tok); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// openingFence returns the run of three or more backticks or tildes a
// trimmed line starts with, or "" when it opens no code block.
func openingFence(line string) string {
	if !strings.HasPrefix(line, "```") && !strings.HasPrefix(line, "~~~") {
		return ""
	}
	n := len(line) - len(strings.TrimLeft(line, line[:1]))
	return line[:n]
}

// isClosingFence reports whether a trimmed line closes a block opened with
// fence: the same character, at least as many, nothing after.
func isClosingFence(line, fence string) bool {
	return strings.HasPrefix(line, fence) && strings.TrimLeft(line, fence[:1]) == ""
}

// stripInlineCode removes code spans (text between matching runs of
// backticks) from one line; an unmatched run is kept as literal text.
func stripInlineCode(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:i])
		n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		run := line[i : i+n]
		rest := line[i+len(run):]
		end := closingRun(rest, len(run))
		if end < 0 {
			b.WriteString(run)
			line = rest
			continue
		}
		b.WriteByte(' ')
		line = rest[end+len(run):]
	}
}

// closingRun finds a run of exactly n backticks in s and returns its index,
// or -1.
func closingRun(s string, n int) int {
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// importPath reads a token as an import: "@" then a path starting with a
// letter, digit, '.', '_', '-', '~' or '/'. Punctuation that ends a
// sentence or closes a bracket is not part of the path.
func importPath(tok string) (string, bool) {
	if len(tok) < 2 || tok[0] != '@' {
		return "", false
	}
	p := strings.TrimRight(tok[1:], ".,;:!?)]}>'\"")
	if p == "" {
		return "", false
	}
	c := p[0]
	ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("._-~/", c) >= 0
	return p, ok
}
