package tools

import (
	"strings"
)

// carried returns the variables the session's shell will give the next
// command that differ from what nova itself would give it (exported by an
// earlier command), as NAME=value, for the permission check.
func (m *shellManager) carried(env *Env) []string {
	m.mu.Lock()
	vars := m.vars
	m.mu.Unlock()
	if vars == nil {
		return nil
	}
	base := map[string]string{}
	for _, kv := range commandEnv(env) {
		k, v, _ := strings.Cut(kv, "=")
		base[k] = v
	}
	var out []string
	for _, d := range vars {
		switch {
		case d.name == "PWD", d.name == "OLDPWD", d.name == "SHLVL", d.name == "_", d.name == runMarkerVar:
			continue
		case d.name == "TMPDIR" && d.val == "/tmp" && env.Sandbox != nil:
			continue // the sandbox's private /tmp, set by bwrap for every command
		case d.hasVal && sandboxSet(env, d.name, d.val):
			continue // the sandbox's caches and temporary directory, set for every command
		case proxyVar(d.name) && proxiedShell(env):
			continue // each command's own, never restored (shellhosts.go)
		}
		if old, inBase := base[d.name]; !inBase || !d.hasVal || old != d.val {
			if d.hasVal {
				out = append(out, d.name+"="+d.val)
			} else {
				out = append(out, d.name)
			}
		}
	}
	return out
}

// declared is one variable of export -p's output.
type declared struct {
	name, val string
	hasVal    bool
}

// parseDeclares reads export -p's output: lines "declare -x NAME" or
// "declare -x NAME="value"", where a value may span lines and escapes
// \, \", \$ and \`.
func parseDeclares(s string) []declared {
	var out []declared
	for len(s) > 0 {
		rest, ok := strings.CutPrefix(s, "declare -")
		if !ok {
			_, s, _ = strings.Cut(s, "\n")
			continue
		}
		_, rest, _ = strings.Cut(rest, " ") // the attribute letters
		end := strings.IndexAny(rest, "=\n")
		if end < 0 || rest[end] == '\n' {
			if end < 0 {
				end = len(rest)
			}
			out = append(out, declared{name: rest[:end]})
			s = rest[min(end+1, len(rest)):]
			continue
		}
		d := declared{name: rest[:end], hasVal: true}
		rest = rest[end+1:]
		if strings.HasPrefix(rest, "$'") {
			// Values with control characters are printed as $'...'.
			var next string
			d.val, next = ansiCQuoted(rest[2:])
			out = append(out, d)
			_, s, _ = strings.Cut(next, "\n")
			continue
		}
		if !strings.HasPrefix(rest, "\"") {
			d.val, s, _ = strings.Cut(rest, "\n")
			out = append(out, d)
			continue
		}
		var b strings.Builder
		i := 1
		for ; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' && i+1 < len(rest) && strings.IndexByte("\\\"$`", rest[i+1]) >= 0 {
				i++
			}
			b.WriteByte(rest[i])
		}
		d.val = b.String()
		out = append(out, d)
		_, s, _ = strings.Cut(rest[min(i+1, len(rest)):], "\n")
	}
	return out
}

// ansiCQuoted decodes the body of a $'...' string up to its closing quote
// and returns the value and what follows the quote.
func ansiCQuoted(s string) (string, string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\'' {
			return b.String(), s[i+1:]
		}
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'x':
			n, k := 0, 0
			for k < 2 && i+1 < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[i+1]) >= 0 {
				n = n*16 + strings.IndexByte("0123456789abcdef", strings.ToLower(s[i+1 : i+2])[0])
				i++
				k++
			}
			b.WriteByte(byte(n))
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n := int(e - '0')
			for k := 0; k < 2 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; k++ {
				n = n*8 + int(s[i+1]-'0')
				i++
			}
			b.WriteByte(byte(n))
		default:
			b.WriteByte(e) // \\ \' \"
		}
	}
	return b.String(), ""
}
