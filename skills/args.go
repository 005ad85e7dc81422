package skills

import (
	"regexp"
	"strconv"
	"strings"
)

// ParseCommand splits "/name args" into the name and the rest as typed.
// ok is false for text that is no command line: no leading slash, or a
// first word that cannot be a name ("/usr/bin/env is missing").
func ParseCommand(text string) (name, args string, ok bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") {
		return "", "", false
	}
	t = t[1:]
	i := strings.IndexAny(t, " \t\n")
	if i < 0 {
		name = t
	} else {
		name, args = t[:i], strings.TrimSpace(t[i+1:])
	}
	if badName(name) != "" {
		return "", "", false
	}
	return name, args, true
}

// SplitArgs splits arguments as a shell would, without expanding
// anything: words at blanks, 'single' and "double" quotes holding blanks,
// a backslash escaping the next character. An unclosed quote runs to the
// end.
func SplitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// argRef matches what a body says to put arguments in: $ARGUMENTS[N]
// and $ARGUMENTS, $N, and $name for names the frontmatter declares.
var argRef = regexp.MustCompile(`\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d+)|\$([A-Za-z_][A-Za-z0-9_-]*)`)

// Substitute puts args into body as Claude Code does: $ARGUMENTS is
// everything as typed, $ARGUMENTS[N] and $N the N-th word counting from
// 0 ($0 is the first), $name a word the frontmatter's arguments names,
// and a missing word is empty. A body that takes its arguments nowhere
// gets "ARGUMENTS: args" appended when there are any, so they are never
// lost. vars are further ${NAME} values (the skill's
// directory, the session).
func Substitute(body, args string, names []string, vars map[string]string) string {
	words := SplitArgs(args)
	word := func(i int) string {
		if i >= 0 && i < len(words) {
			return words[i]
		}
		return ""
	}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	used := false
	out := argRef.ReplaceAllStringFunc(body, func(m string) string {
		sub := argRef.FindStringSubmatch(m)
		switch {
		case sub[1] != "":
			used = true
			n, _ := strconv.Atoi(sub[1])
			return word(n)
		case m == "$ARGUMENTS":
			used = true
			return args
		case sub[2] != "":
			used = true
			n, _ := strconv.Atoi(sub[2])
			return word(n)
		}
		if i, ok := index[sub[3]]; ok {
			used = true
			return word(i)
		}
		// "$issue-fix" says $issue then "-fix" when issue is declared.
		for n := sub[3]; strings.Contains(n, "-"); {
			n = n[:strings.LastIndex(n, "-")]
			if i, ok := index[n]; ok {
				used = true
				return word(i) + sub[3][len(n):]
			}
		}
		return m // $HOME and the like are the shell's
	})
	for k, v := range vars {
		out = strings.ReplaceAll(out, "${"+k+"}", v)
	}
	if !used && strings.TrimSpace(args) != "" {
		out = strings.TrimRight(out, "\n") + "\n\nARGUMENTS: " + args
	}
	return out
}
