package permission

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxBraceWords bounds what one word may expand to ({1..9}{1..9}...): past
// it the command is treated as one the checker cannot read.
const maxBraceWords = 1024

// word is one shell word after brace expansion and quote removal, as far as
// it is known before the command runs.
type word struct {
	val string // the value; unknown parts are kept as their source text
	dyn bool   // part of the value is only known at run time
	// glob is true when an unquoted *, ? or [ makes the shell match the word
	// against the filesystem.
	glob bool
	// fd is true for a process substitution <(...), which the command sees
	// as /dev/fd/N: a pipe, not a file of the user's.
	fd bool
	// download is true when the word comes from a substitution that
	// downloads something (curl, wget): "$(curl ...)" or "<(curl ...)".
	download bool
	// splits is true when an unquoted expansion may split the word into
	// several (or glob it): it may stand for a pattern and files at once.
	splits bool
	// fromGlob marks a word a glob produced: the shell's sort order (by
	// locale) may differ from nova's, so it is never taken as a pattern.
	fromGlob bool
}

// words expands the arguments of a command as bash does before it runs:
// brace expansion first, then each resulting word is resolved.
func (w *walker) words(args []*syntax.Word) []word {
	out := make([]word, 0, len(args))
	for _, a := range args {
		if a == nil {
			continue
		}
		if !syntax.SplitBraces(a) {
			out = append(out, w.glob(a, w.word(a))...)
			continue
		}
		n := 0
		for bw, err := range expand.BracesSeq(nil, a) {
			n++
			if err != nil || n > maxBraceWords {
				w.opaque("a brace expansion too large to read")
				return out
			}
			out = append(out, w.glob(bw, w.word(bw))...)
		}
	}
	return out
}

// errGlobBudget stops a glob that reads too many directory entries.
var errGlobBudget = errors.New("glob reads too much")

// glob expands a word with an unquoted glob against the filesystem, as
// the shell will (mvdan.cc/sh's own expansion: bash's rules, with dot
// files matched as well, a superset that only makes the check stricter): the matches, relative as the pattern was, or the word itself
// when nothing matches. Relative to a directory only known at run time,
// or matching too much, it stays a word only known at run time.
func (w *walker) glob(sw *syntax.Word, wd word) []word {
	if !wd.glob || wd.dyn {
		return []word{wd}
	}
	if w.cwd == "" && !filepath.IsAbs(wd.val) {
		wd.dyn = true
		return []word{wd}
	}
	budget := maxGlobMatches * 4 // directory entries read, so /*/*/* cannot walk the disk
	readDir := func(dir string) ([]fs.DirEntry, error) {
		ents, err := os.ReadDir(dir)
		if budget -= len(ents); budget < 0 {
			return nil, errGlobBudget
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil // nothing there to match, as for the shell
		}
		return ents, err
	}
	cfg := &expand.Config{
		Env:      expand.ListEnviron("PWD="+w.cwd, "HOME="+w.home),
		ReadDir2: readDir, DotGlob: true, ExtGlob: true,
	}
	fields, err := expand.Fields(cfg, sw)
	switch {
	case err != nil || len(fields) > maxGlobMatches:
		wd.dyn = true
		return []word{wd}
	case len(fields) == 1 && fields[0] == wd.val:
		wd.glob = false // no match: bash passes the word as it is
		return []word{wd}
	}
	out := make([]word, 0, len(fields))
	for _, f := range fields {
		out = append(out, word{val: f, fromGlob: true})
	}
	return out
}

// word resolves one shell word as far as possible without running
// anything, walking the substitutions inside it.
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
	if out.fd && len(wd.Parts) != 1 {
		// <(...)x is /dev/fd/63x: a path, not the pipe, and only known
		// at run time.
		out.fd = false
	}
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
		if !quoted && hasGlobMeta(v) {
			out.glob = true
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
		w.scan(x)
		if v, ok := w.param(x, quoted); ok {
			b.WriteString(v)
			return
		}
		out.dyn = true
		out.splits = out.splits || !quoted
		b.WriteString(w.text(x))
	case *syntax.CmdSubst:
		out.dyn = true
		out.splits = out.splits || !quoted
		b.WriteString(w.text(x))
		if w.substDownloads(x.Stmts) {
			out.download = true
		}
	case *syntax.ProcSubst:
		out.dyn = true
		out.fd = true
		b.WriteString(w.text(x))
		if w.substDownloads(x.Stmts) {
			out.download = true
		}
	case *syntax.ExtGlob:
		out.glob = true
		out.dyn = true // a pattern Go's matcher cannot read
		b.WriteString(w.text(x))
	default:
		out.dyn = true
		out.splits = out.splits || !quoted
		b.WriteString(w.text(p))
		w.scan(p)
	}
}

// hasGlobMeta reports whether an unquoted literal holds a glob character
// the shell would expand (a backslash-escaped one does not count).
func hasGlobMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
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

// param resolves the parameters whose value is known: $HOME, $PWD, and
// variables this command set to a literal (f=x; cat $f). Unquoted, a value
// that would split into words, glob or vanish stays unknown.
func (w *walker) param(p *syntax.ParamExp, quoted bool) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 || p.NestedParam != nil || len(p.Modifiers) > 0 {
		return "", false
	}
	var v string
	switch name := p.Param.Value; {
	case name == "HOME":
		v = w.home
	case name == "PWD":
		v = w.cwd
	default:
		val, ok := w.vals[name]
		if !ok {
			return "", false
		}
		v = val
	}
	if !quoted && (v == "" || strings.ContainsAny(v, " \t\n*?[")) {
		return "", false
	}
	return v, v != "" || quoted
}

// scan walks the syntax below n for what runs or evaluates there: the
// commands of substitutions, and the expansions that can run a command
// hidden in a variable's value — arithmetic on variables (bash evaluates
// a value such as a[$(cmd)] as an expression), indirection ${!x}, prompt
// expansion ${x@P}, array subscripts and substring offsets.
func (w *walker) scan(n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.CmdSubst:
			w.nested("$(...)").stmts(x.Stmts)
			return false
		case *syntax.ProcSubst:
			w.nested("<(...)").stmts(x.Stmts)
			return false
		case *syntax.ArithmExp:
			w.arith(x.X)
			return false
		case *syntax.ArithmCmd:
			w.arith(x.X)
			return false
		case *syntax.ParamExp:
			w.paramScan(x)
			return true
		}
		return true
	})
}

// paramScan flags the parameter expansions whose result the checker
// cannot foresee because bash evaluates something in them.
func (w *walker) paramScan(p *syntax.ParamExp) {
	switch {
	case p.Excl && p.Names == 0 && p.Index == nil:
		w.opaque("${!" + paramName(p) + "} names a variable only known at run time")
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.Contains(w.text(p.Exp.Word), "P"):
		w.opaque("${" + paramName(p) + "@P} expands a prompt string, which can run commands")
	}
	if p.Index != nil {
		w.arith(p.Index)
	}
	if p.Slice != nil {
		w.arith(p.Slice.Offset)
		w.arith(p.Slice.Length)
	}
	if p.Exp != nil && p.Exp.Op == syntax.AssignUnset || p.Exp != nil && p.Exp.Op == syntax.AssignUnsetOrNull {
		w.a.assigned[paramName(p)] = true
		delete(w.known, paramName(p))
	}
}

func paramName(p *syntax.ParamExp) string {
	if p.Param == nil {
		return "?"
	}
	return p.Param.Value
}

// arith checks an arithmetic expression: bash evaluates the value of every
// variable it names as an expression in turn, so a variable holding
// a[$(cmd)] runs cmd. Literal numbers, variables known to hold integers
// and variables this command never sets (nova's own environment) are fine;
// anything else makes the command one the checker cannot read.
func (w *walker) arith(e syntax.ArithmExpr) {
	if e == nil {
		return
	}
	switch x := e.(type) {
	case *syntax.BinaryArithm:
		w.arith(x.X)
		w.arith(x.Y)
		if isArithAssign(x.Op) {
			if name := arithName(x.X); name != "" {
				w.known[name] = true // an arithmetic assignment stores an integer
			}
		}
	case *syntax.UnaryArithm:
		w.arith(x.X)
	case *syntax.ParenArithm:
		w.arith(x.X)
	case *syntax.FlagsArithm:
		w.arith(x.X)
	case *syntax.Word:
		w.arithWord(x)
	default:
		w.opaque("an arithmetic expression the checker cannot read")
	}
}

func isArithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

// arithName is the variable an arithmetic operand names, or "".
func arithName(e syntax.ArithmExpr) string {
	wd, ok := e.(*syntax.Word)
	if !ok || len(wd.Parts) != 1 {
		return ""
	}
	switch p := wd.Parts[0].(type) {
	case *syntax.Lit:
		if isName(p.Value) {
			return p.Value
		}
	case *syntax.ParamExp:
		if p.Param != nil && p.Index == nil && !p.Excl && p.Exp == nil && p.Slice == nil && p.Repl == nil {
			return p.Param.Value
		}
	}
	return ""
}

// arithWord checks one operand of an arithmetic expression.
func (w *walker) arithWord(wd *syntax.Word) {
	if len(wd.Parts) != 1 {
		w.scan(wd)
		w.opaque("an arithmetic operand built from several parts")
		return
	}
	switch p := wd.Parts[0].(type) {
	case *syntax.Lit:
		v := p.Value
		if isArithNumber(v) {
			return
		}
		if isName(v) {
			w.arithVar(v)
			return
		}
		w.opaque("the arithmetic operand " + v + " is not a plain number")
	case *syntax.ParamExp:
		w.paramScan(p)
		if p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Excl || p.Length {
			if p.Length && p.Index == nil {
				return // ${#x} is a number
			}
			w.opaque("an arithmetic operand with an expansion the checker cannot read")
			return
		}
		w.arithVar(paramName(p))
	default:
		w.scan(p)
		w.opaque("an arithmetic operand only known at run time")
	}
}

// arithVar checks a variable used in arithmetic.
func (w *walker) arithVar(name string) {
	switch name {
	case "#", "?", "$", "!", "RANDOM", "LINENO", "SECONDS", "EPOCHSECONDS", "BASHPID", "PPID", "UID", "EUID", "SRANDOM":
		return // always integers
	}
	if w.known[name] {
		return
	}
	if !w.a.assigned[name] && !w.a.carried[name] && !isPositional(name) {
		return // from nova's own environment, untouched by this command
	}
	w.opaque("arithmetic on $" + name + ", whose value is only known at run time (bash evaluates it as an expression, which can run commands)")
}

func isPositional(name string) bool {
	if name == "@" || name == "*" {
		return true
	}
	_, err := strconv.Atoi(name)
	return err == nil
}

// isArithNumber reports whether s is an integer literal bash arithmetic
// reads without evaluating anything: 42, 0x1f, 0755, 2#101.
func isArithNumber(s string) bool {
	if s == "" {
		return false
	}
	if base, digits, ok := strings.Cut(s, "#"); ok {
		if _, err := strconv.Atoi(base); err != nil || digits == "" {
			return false
		}
		for _, c := range digits {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '@' || c == '_') {
				return false
			}
		}
		return true
	}
	_, err := strconv.ParseInt(s, 0, 64)
	return err == nil
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isVarRef reports whether s, given to a builtin that takes a variable name
// (read, printf -v, test -v, declare), is a name bash uses as it is: a
// plain name, or name[N] with a literal number. Anything else has its
// subscript evaluated, which can run a command.
func isVarRef(s string) bool {
	name, sub, ok := strings.Cut(s, "[")
	if !ok {
		return isName(s)
	}
	idx, ok := strings.CutSuffix(sub, "]")
	return ok && isName(name) && (isArithNumber(idx) || idx == "@" || idx == "*")
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

// resolvePath makes p absolute against cwd, expanding a leading ~, and
// cleans it lexically; it returns "" when cwd is unknown and p is relative.
// Where the kernel would go is physicalPath's business.
func resolvePath(p, cwd, home string) string {
	j := joinPath(p, cwd, home)
	if j == "" {
		return ""
	}
	return filepath.Clean(j)
}

// joinPath makes p absolute against cwd without cleaning it, so that a ..
// after a symlink can still be resolved the way the kernel does.
func joinPath(p, cwd, home string) string {
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
		p = cwd + "/" + p
	}
	return p
}
