package tools

// The regexp-based glob matching that wildmatch.go replaced, kept here only
// so BenchmarkIgnoreMatch can compare the two; it goes with the comparison.

import (
	"regexp"
	"strings"
)

// regexpRule is one pattern line of an ignore file. Most lines are a
// plain name or "*.ext", which are compared directly: the walker checks
// every entry against every rule, so regexps are kept for the rest.
type regexpRule struct {
	re       *regexp.Regexp // nil when literal or suffix decides
	literal  string         // the subject must equal it
	suffix   string         // the subject must end with it ("*.log")
	anchored bool           // the subject is the relative path, not the name
	negate   bool           // "!pattern" re-includes
	dirOnly  bool           // "pattern/" matches directories only
}

// matches reports whether rel (relative to the ignore file's directory)
// matches the pattern. An unanchored pattern has no "/" and none of its
// wildcards match "/", so matching the last path element is the same as
// matching at any depth.
func (r *regexpRule) matches(rel string) bool {
	subject := rel
	if !r.anchored {
		subject = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	switch {
	case r.re != nil:
		return r.re.MatchString(subject)
	case r.suffix != "":
		return strings.HasSuffix(subject, r.suffix)
	}
	return subject == r.literal
}

func regexpParseLine(line string) (regexpRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if line == "" || strings.HasPrefix(line, "#") {
		return regexpRule{}, false
	}
	var r regexpRule
	if strings.HasPrefix(line, "!") {
		r.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return regexpRule{}, false
	}
	// A slash at the start or in the middle anchors the pattern to the
	// ignore file's directory; otherwise it matches at any depth.
	r.anchored = strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	const meta = `*?[\`
	switch {
	case !strings.ContainsAny(line, meta):
		r.literal = line
	case !r.anchored && line[0] == '*' && len(line) > 1 && !strings.ContainsAny(line[1:], meta):
		r.suffix = line[1:]
	default:
		re, err := regexp.Compile("^" + regexpGlob(line) + "$")
		if err != nil {
			return regexpRule{}, false
		}
		r.re = re
	}
	return r, true
}

// regexpGlob translates a gitignore glob to a regular expression.
func regexpGlob(pat string) string {
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '*' && strings.HasPrefix(pat[i:], "**"):
			atStart := i == 0 || pat[i-1] == '/'
			j := i + 2
			for j < len(pat) && pat[j] == '*' {
				j++
			}
			switch {
			case atStart && j == len(pat): // trailing "/**" or a lone "**": everything below
				b.WriteString(".*")
			case atStart && pat[j] == '/': // "**/": zero or more directories
				b.WriteString("(?:.*/)?")
				j++
			default: // "a**b" is two plain stars
				b.WriteString("[^/]*")
			}
			i = j - 1
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := regexpClassEnd(pat, i)
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(regexpClass(pat[i+1 : end]))
			i = end
		case c == '\\' && i+1 < len(pat):
			i++
			b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		}
	}
	return b.String()
}

// regexpClassEnd returns the index of the ']' closing the bracket expression that
// starts at pat[start], or -1 when it is not closed.
func regexpClassEnd(pat string, start int) int {
	i := start + 1
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		i++
	}
	if i < len(pat) && pat[i] == ']' {
		i++
	}
	for ; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case ']':
			return i
		}
	}
	return -1
}

// regexpClass turns the inside of a glob bracket expression into a regexp
// character class that never matches '/'.
func regexpClass(body string) string {
	var b strings.Builder
	b.WriteString("[")
	if strings.HasPrefix(body, "!") || strings.HasPrefix(body, "^") {
		b.WriteString("^/")
		body = body[1:]
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body):
			i++
			b.WriteString(`\` + body[i:i+1])
		case c == '[' || c == ']' || c == '\\' || c == '^':
			b.WriteString(`\` + string(c))
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString("]")
	return b.String()
}
