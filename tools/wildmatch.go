package tools

import "strings"

// wildmatch reports whether text matches the glob pattern as git matches
// .gitignore patterns (wildmatch.c with WM_PATHNAME): byte by byte, so "?"
// and a bracket expression match one byte, not one UTF-8 character; "*",
// "?" and brackets never match "/"; "**" between slashes, or at either end
// next to one, matches any number of directories, and elsewhere is "*".
// A malformed pattern (an unclosed bracket, an unknown [:class:], a
// trailing backslash) matches nothing, as in git.
//
// It is a Go rendering of git's algorithm rather than a translation to a
// regexp: Go's regexp works on runes, cannot keep brackets and POSIX
// classes off "/", and costs several times more on the walker's hot path.
func wildmatch(pattern, text string) bool {
	return doWild(pattern, text) == wmMatch
}

// Results of doWild. The two aborts cut the backtracking short: nothing
// later in text can match (wmAbortAll), or nothing can until the next
// "**" (wmAbortToStarStar).
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

func doWild(p, text string) int {
	t := 0
	for i := 0; i < len(p); i, t = i+1, t+1 {
		pc := p[i]
		if t >= len(text) && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// A backslash quotes the next byte; at the end it quotes
			// nothing, and nothing matches.
			i++
			if i >= len(p) || text[t] != p[i] {
				return wmNoMatch
			}
		case '?':
			if text[t] == '/' {
				return wmNoMatch
			}
		case '*':
			return starMatch(p, i, text, t)
		case '[':
			next, ok := classMatch(p, i, text[t])
			switch {
			case next < 0:
				return wmAbortAll
			case !ok:
				return wmNoMatch
			}
			i = next
		default:
			if text[t] != pc {
				return wmNoMatch
			}
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// starMatch matches the rest of text from t against p from the star(s) at
// p[i].
func starMatch(p string, i int, text string, t int) int {
	start := i
	for i < len(p) && p[i] == '*' {
		i++
	}
	matchSlash := false
	if i-start >= 2 {
		// "**" is special only as a whole path component.
		before := start == 0 || p[start-1] == '/'
		after := i == len(p) || p[i] == '/' || (p[i] == '\\' && i+1 < len(p) && p[i+1] == '/')
		if before && after {
			// "a/**/b" also matches "a/b": try "**/" as nothing first.
			if i < len(p) && p[i] == '/' && doWild(p[i+1:], text[t:]) == wmMatch {
				return wmMatch
			}
			matchSlash = true
		}
	}
	rest := p[i:]
	if rest == "" {
		// A trailing "**" matches everything, a trailing "*" the rest
		// of one path component.
		if !matchSlash && strings.IndexByte(text[t:], '/') >= 0 {
			return wmNoMatch
		}
		return wmMatch
	}
	if !matchSlash && rest[0] == '/' {
		// "*/": the rest of this component, then the slash.
		slash := strings.IndexByte(text[t:], '/')
		if slash < 0 {
			return wmNoMatch
		}
		return doWild(rest[1:], text[t+slash+1:])
	}
	for ; t < len(text); t++ {
		m := doWild(rest, text[t:])
		if m != wmNoMatch && (!matchSlash || m != wmAbortToStarStar) {
			return m
		}
		if !matchSlash && text[t] == '/' {
			return wmAbortToStarStar
		}
	}
	return wmAbortAll
}

// classMatch matches the byte c against the bracket expression opening at
// p[i]. It returns the index of the closing ']' and whether c is in the
// set, or next < 0 when the expression is malformed.
func classMatch(p string, i int, c byte) (next int, ok bool) {
	i++
	negated := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negated {
		i++
	}
	matched := false
	var prev byte // the last single byte, which a "-" may range from; 0 after a range or class
	for first := true; first || i >= len(p) || p[i] != ']'; first = false {
		if i >= len(p) {
			return -1, false
		}
		pc := p[i]
		switch {
		case pc == '\\':
			i++
			if i >= len(p) {
				return -1, false
			}
			pc = p[i]
			if c == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && i+1 < len(p) && p[i+1] != ']':
			i++
			hi := p[i]
			if hi == '\\' {
				i++
				if i >= len(p) {
					return -1, false
				}
				hi = p[i]
			}
			if prev <= c && c <= hi {
				matched = true
			}
			pc = 0
		case pc == '[' && i+1 < len(p) && p[i+1] == ':':
			end := strings.IndexByte(p[i+2:], ']')
			if end < 0 {
				return -1, false
			}
			name := p[i+2 : i+2+end]
			if !strings.HasSuffix(name, ":") {
				// No ":]": the "[" is an ordinary member.
				if c == '[' {
					matched = true
				}
				break
			}
			in, known := posixClass(name[:len(name)-1], c)
			if !known {
				return -1, false
			}
			if in {
				matched = true
			}
			i += 2 + end
			pc = 0
		default:
			if c == pc {
				matched = true
			}
		}
		prev = pc
		i++
	}
	if matched == negated || c == '/' {
		return i, false
	}
	return i, true
}

// posixClass reports whether c is in the [:name:] class, and whether git
// knows the name.
func posixClass(name string, c byte) (in, known bool) {
	isUpper := 'A' <= c && c <= 'Z'
	isLower := 'a' <= c && c <= 'z'
	isDigit := '0' <= c && c <= '9'
	isPrint := 0x20 <= c && c <= 0x7e
	isSpace := c == ' ' || c == '\t' || c == '\n' || c == '\r' // git's isspace
	switch name {
	case "alnum":
		return isUpper || isLower || isDigit, true
	case "alpha":
		return isUpper || isLower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return isPrint && !isSpace, true
	case "lower":
		return isLower, true
	case "print":
		return isPrint, true
	case "punct":
		return isPrint && !isSpace && !isUpper && !isLower && !isDigit, true
	case "space":
		return isSpace, true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F'), true
	}
	return false, false
}
