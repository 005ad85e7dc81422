package permission

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word resolves a shell word as far as possible without running anything,
// walking the substitutions inside it.
func (w *walker) word(wd *syntax.Word) word {
	var out word
	if wd == nil {
		return out
	}
	var b strings.Builder
	for i, p := range wd.Parts {
		w.part(p, &b, &out, i == 0, false)
	}
	out.val = b.String()
	return out
}

func (w *walker) part(p syntax.WordPart, b *strings.Builder, out *word, first, quoted bool) {
	switch x := p.(type) {
	case *syntax.Lit:
		v := x.Value
		if !quoted && first && (v == "~" || strings.HasPrefix(v, "~/")) && w.home != "" {
			b.WriteString(w.home)
			v = v[1:]
		} else if !quoted && first && strings.HasPrefix(v, "~") {
			out.dyn = true // ~user
		}
		b.WriteString(unescape(v, quoted))
	case *syntax.SglQuoted:
		if x.Dollar {
			b.WriteString(ansiC(x.Value))
		} else {
			b.WriteString(x.Value)
		}
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			w.part(q, b, out, false, true)
		}
	case *syntax.ParamExp:
		if v, ok := w.param(x); ok {
			b.WriteString(v)
			return
		}
		out.dyn = true
		b.WriteString(w.text(x))
		w.walkWords(x)
	case *syntax.CmdSubst:
		out.dyn = true
		b.WriteString(w.text(x))
		if w.substDownloads(x.Stmts) {
			out.download = true
		}
	case *syntax.ProcSubst:
		out.dyn = true
		b.WriteString(w.text(x))
		if w.substDownloads(x.Stmts) {
			out.download = true
		}
	default:
		out.dyn = true
		b.WriteString(w.text(p))
		w.walkWords(p)
	}
}

// substDownloads walks the commands of a substitution and reports whether
// one of them downloads something.
func (w *walker) substDownloads(stmts []*syntax.Stmt) bool {
	start := len(w.a.cmds)
	w.nested("$(...)").stmts(stmts)
	for _, c := range w.a.cmds[start:] {
		if isDownloader(c.name()) {
			return true
		}
	}
	return false
}

// param resolves the few parameters whose value is known: $HOME and $PWD.
func (w *walker) param(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 || p.NestedParam != nil || len(p.Modifiers) > 0 {
		return "", false
	}
	switch p.Param.Value {
	case "HOME":
		return w.home, w.home != ""
	case "PWD":
		return w.cwd, w.cwd != ""
	}
	return "", false
}

// text is the source text of n.
func (w *walker) text(n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(w.src) || s > e {
		return "?"
	}
	return w.src[s:e]
}

// unescape removes the backslashes the shell would remove.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			i++
		case !quoted:
			b.WriteByte(n)
			i++
		case n == '$' || n == '`' || n == '"' || n == '\\':
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ansiC decodes the escapes of a $'...' string that matter for reading a
// command name: \n, \t, \xHH, octal \NNN and escaped characters.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'x':
			v, n := hexVal(s[i+1:], 2)
			b.WriteByte(byte(v))
			i += n
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := octVal(s[i:], 3)
			b.WriteByte(byte(v))
			i += n - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func hexVal(s string, max int) (int, int) {
	v, n := 0, 0
	for n < max && n < len(s) {
		c := s[n]
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v*16 + int(c-'A'+10)
		default:
			return v, n
		}
		n++
	}
	return v, n
}

func octVal(s string, max int) (int, int) {
	v, n := 0, 0
	for n < max && n < len(s) && s[n] >= '0' && s[n] <= '7' {
		v = v*8 + int(s[n]-'0')
		n++
	}
	return v, n
}

func joinWords(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.val
	}
	return strings.Join(parts, " ")
}

// resolvePath makes p absolute against cwd, expanding a leading ~; it
// returns "" when cwd is unknown and p is relative.
func resolvePath(p, cwd, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return ""
		}
		p = home + p[1:]
	}
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return ""
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}
