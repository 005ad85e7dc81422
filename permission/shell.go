package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds nested shells (bash -c "bash -c ..."), so a hostile
// command cannot make the analysis recurse without end.
const maxDepth = 8

// word is one shell word after quote removal, as far as it is known before
// the command runs.
type word struct {
	val string // the value; unknown parts are kept as their source text
	dyn bool   // part of the value is only known at run time
	// download is true when the word comes from a substitution that
	// downloads something (curl, wget): "$(curl ...)" or "<(curl ...)".
	download bool
}

// redirect is a file a redirection reads or writes.
type redirect struct {
	target word
	write  bool
	cwd    string // the shell's directory at that point; "" when unknown
}

// simpleCmd is one simple command the shell would run, after wrappers
// (env, sudo, timeout ...) have been looked through.
type simpleCmd struct {
	argv       []word // argv[0] is the program that really runs
	ruleText   string // what allow rules match: privileged wrappers + argv
	forms      []string
	cwd        string // "" when the directory is only known at run time
	privileged bool   // run through sudo or doas
	piped      bool   // stdin comes from a download earlier in a pipeline
	runtimeArg bool   // xargs or find -exec add arguments at run time
	via        string // how it was reached: "", "bash -c", "eval", "xargs", "find -exec"
	// riskyEnv names a variable set for the command that changes which
	// code runs (PATH, LD_PRELOAD, GIT_PAGER ...); such a command always asks.
	riskyEnv string
}

// name is the base name of the program, or "" when it is only known at
// run time.
func (c *simpleCmd) name() string {
	if len(c.argv) == 0 || c.argv[0].dyn {
		return ""
	}
	return filepath.Base(c.argv[0].val)
}

// analysis is everything a command line would run and touch.
type analysis struct {
	cmds     []*simpleCmd
	redirs   []redirect
	parseErr error
	// opaque lists what could not be seen through (eval of a variable,
	// nesting too deep); such a command is never allowed without asking.
	opaque   []string
	forkBomb string // the self-calling function, when there is one
}

// walker carries the state of one walk through a parsed command.
type walker struct {
	a     *analysis
	home  string
	src   string
	cwd   string
	depth int
	via   string
	piped bool
}

// analyzeShell parses src and collects every simple command it would run,
// starting in cwd.
func analyzeShell(src, cwd, home string) *analysis {
	a := &analysis{}
	w := &walker{a: a, home: home, cwd: cwd}
	w.parseAndWalk(src)
	return a
}

func (w *walker) parseAndWalk(src string) {
	if w.depth > maxDepth {
		w.a.opaque = append(w.a.opaque, "commands nested too deeply to analyse")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if w.depth == 0 {
			w.a.parseErr = err
		} else {
			w.a.opaque = append(w.a.opaque, fmt.Sprintf("a nested command cannot be parsed (%v)", err))
		}
		return
	}
	saved := w.src
	w.src = src
	w.stmts(f.Stmts)
	w.src = saved
}

// nested returns a walker for a nested shell string or substitution.
func (w *walker) nested(via string) *walker {
	n := *w
	n.depth++
	if via != "" {
		n.via = via
	}
	n.piped = false
	return &n
}

func (w *walker) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *walker) stmt(s *syntax.Stmt) {
	if s == nil {
		return
	}
	for _, r := range s.Redirs {
		w.redirect(r)
	}
	if s.Background {
		// A backgrounded command runs beside the rest; cd inside it does
		// not move the shell, so walk it with its own copy of the state.
		n := *w
		n.command(s.Cmd)
		return
	}
	w.command(s.Cmd)
}

func (w *walker) redirect(r *syntax.Redirect) {
	if r == nil {
		return
	}
	if r.Hdoc != nil {
		w.word(r.Hdoc)
	}
	if r.Word == nil {
		return
	}
	target := w.word(r.Word)
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		w.a.redirs = append(w.a.redirs, redirect{target: target, write: true, cwd: w.cwd})
	case syntax.RdrIn:
		w.a.redirs = append(w.a.redirs, redirect{target: target, cwd: w.cwd})
	case syntax.DplOut, syntax.DplIn:
		// >&2 duplicates a descriptor; >&file (no digits) writes a file.
		if !isFD(target.val) || target.dyn {
			w.a.redirs = append(w.a.redirs, redirect{target: target, write: r.Op == syntax.DplOut, cwd: w.cwd})
		}
	}
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (w *walker) command(c syntax.Command) {
	switch c := c.(type) {
	case nil:
	case *syntax.CallExpr:
		w.call(c)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			start := len(w.a.cmds)
			left := *w
			left.stmt(c.X)
			down := w.piped
			for _, sc := range w.a.cmds[start:] {
				if isDownloader(sc.name()) {
					down = true
				}
			}
			right := *w
			right.piped = down
			right.stmt(c.Y)
			return
		}
		w.stmt(c.X)
		w.stmt(c.Y)
	case *syntax.Subshell:
		n := *w
		n.stmts(c.Stmts)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond)
			w.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond)
		w.stmts(c.Do)
	case *syntax.ForClause:
		w.walkWords(c.Loop)
		if it, ok := c.Loop.(*syntax.WordIter); ok && it.Name != nil && riskyVar(it.Name.Value) {
			w.a.opaque = append(w.a.opaque, "the loop sets "+it.Name.Value+", which changes what later commands run")
		}
		w.stmts(c.Do)
	case *syntax.CaseClause:
		if c.Word != nil {
			w.word(c.Word)
		}
		for _, it := range c.Items {
			if it == nil {
				continue
			}
			for _, p := range it.Patterns {
				w.word(p)
			}
			w.stmts(it.Stmts)
		}
	case *syntax.FuncDecl:
		w.funcDecl(c)
	case *syntax.DeclClause:
		w.declClause(c)
	case *syntax.TimeClause:
		w.stmt(c.Stmt)
	case *syntax.CoprocClause:
		w.stmt(c.Stmt)
	case *syntax.TestDecl:
		w.stmt(c.Body)
	default:
		// [[ ]], (( )), let: only substitutions inside them run commands.
		w.walkWords(c)
	}
}

// funcDecl walks a function body as if it ran, and spots a function that
// calls itself: the shape of a fork bomb.
func (w *walker) funcDecl(c *syntax.FuncDecl) {
	name := ""
	if c.Name != nil {
		name = c.Name.Value
	}
	start := len(w.a.cmds)
	n := *w
	n.stmt(c.Body)
	for _, sc := range w.a.cmds[start:] {
		if name != "" && sc.name() == name {
			w.a.forkBomb = name
		}
	}
}

func (w *walker) declClause(c *syntax.DeclClause) {
	argv := []word{{val: "declare"}}
	if c.Variant != nil {
		argv[0].val = c.Variant.Value
	}
	var names []string
	for _, as := range c.Args {
		if as == nil {
			continue
		}
		v := word{}
		if as.Name != nil {
			v.val = as.Name.Value + "="
			names = append(names, as.Name.Value)
		}
		if as.Value != nil {
			x := w.word(as.Value)
			v.val += x.val
			v.dyn = v.dyn || x.dyn
			if as.Name != nil && as.Name.Value == "HOME" {
				w.assign("HOME", x)
			}
		}
		if as.Array != nil {
			w.walkWords(as.Array)
		}
		argv = append(argv, v)
	}
	w.add(argv, nil, w.cwd)
	risky := firstRisky(names)
	for _, a := range argv[1:] {
		if strings.HasPrefix(a.val, "-") && strings.Contains(a.val, "n") || argv[0].val == "nameref" {
			risky = "a name reference" // declare -n can alias PATH
		}
	}
	w.a.cmds[len(w.a.cmds)-1].riskyEnv = risky
}

func (w *walker) call(c *syntax.CallExpr) {
	var names []string
	for _, as := range c.Assigns {
		if as == nil {
			continue
		}
		var val word
		if as.Value != nil {
			val = w.word(as.Value)
		}
		if as.Array != nil {
			w.walkWords(as.Array)
		}
		w.walkWords(as.Index)
		if as.Name != nil {
			names = append(names, as.Name.Value)
			if len(c.Args) == 0 {
				w.assign(as.Name.Value, val)
			}
		}
	}
	if len(c.Args) == 0 {
		return // assignments only
	}
	argv := make([]word, 0, len(c.Args))
	for _, a := range c.Args {
		argv = append(argv, w.word(a))
	}
	start := len(w.a.cmds)
	w.exec(argv)
	if start < len(w.a.cmds) && w.a.cmds[start].riskyEnv == "" {
		w.a.cmds[start].riskyEnv = firstRisky(names)
	}
}

// assign follows a shell variable assignment that outlives one command:
// HOME moves ~, and risky variables are recorded as a command that asks.
func (w *walker) assign(name string, val word) {
	if name == "HOME" {
		if val.dyn || !filepath.IsAbs(val.val) {
			w.a.opaque = append(w.a.opaque, "HOME is set to "+val.val+", so ~ is only known at run time")
			w.home = ""
		} else {
			w.home = filepath.Clean(val.val)
		}
	}
	if riskyVar(name) {
		w.add([]word{{val: "export"}, {val: name + "=" + val.val, dyn: val.dyn}}, nil, w.cwd)
		w.a.cmds[len(w.a.cmds)-1].riskyEnv = name
	}
}

// riskyVar reports whether setting name changes which code later commands
// run: the search path, preloaded libraries, pagers and editors git and
// man start, shell start-up hooks.
func riskyVar(name string) bool {
	switch name {
	case "PATH", "HOME", "BASH_ENV", "ENV", "PAGER", "EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE", "PROMPT_COMMAND",
		"IFS", "SHELLOPTS", "BASHOPTS", "PS4", "CDPATH", "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT",
		"PERL5LIB", "RUBYOPT", "MANPAGER", "SSH_ASKPASS", "SUDO_ASKPASS", "XDG_CONFIG_HOME", "ZDOTDIR":
		return true
	}
	for _, p := range []string{"LD_", "DYLD_", "GIT_", "BASH_FUNC_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return strings.HasSuffix(name, "_PAGER")
}

func firstRisky(names []string) string {
	for _, n := range names {
		if riskyVar(n) {
			return n
		}
	}
	return ""
}

// exec records argv as a simple command, looking through wrappers and into
// the commands it runs in turn (bash -c, eval, xargs, find -exec).
func (w *walker) exec(argv []word) {
	inner, prefix, privileged, cwd, envNames, ok := unwrap(argv, w.cwd)
	if !ok {
		w.a.opaque = append(w.a.opaque, "a wrapper's options could not be read: "+joinWords(argv))
	}
	w.add(inner, prefix, cwd)
	last := w.a.cmds[len(w.a.cmds)-1]
	last.privileged = privileged
	last.riskyEnv = firstRisky(envNames)
	if len(inner) == 0 || inner[0].dyn {
		return
	}
	name := filepath.Base(inner[0].val)
	args := inner[1:]
	switch {
	case name == "cd":
		w.cd(args)
	case isShell(name):
		if s, found := shellCString(args); found {
			if s.dyn {
				w.a.opaque = append(w.a.opaque, name+" -c runs a string only known at run time")
				return
			}
			w.nested(name + " -c").parseAndWalk(s.val)
		}
	case name == "eval" || name == "watch" || name == "trap":
		switch name {
		case "watch":
			args = dropWatchOptions(args)
		case "trap":
			args = trapAction(args)
		}
		if len(args) == 0 {
			return
		}
		for _, a := range args {
			if a.dyn {
				w.a.opaque = append(w.a.opaque, name+" runs a string only known at run time")
				return
			}
		}
		w.nested(name).parseAndWalk(joinWords(args))
	case name == "xargs":
		payload, ok := xargsPayload(args)
		if !ok {
			w.a.opaque = append(w.a.opaque, "xargs options could not be read")
			return
		}
		w.runPayload("xargs", payload)
	case name == "find":
		for _, payload := range findPayloads(args) {
			w.runPayload("find -exec", payload)
		}
	case name == "env":
		// env -S "cmd args" splits a string into a command.
		for i, a := range args {
			if (a.val == "-S" || a.val == "--split-string") && i+1 < len(args) {
				if args[i+1].dyn {
					w.a.opaque = append(w.a.opaque, "env -S runs a string only known at run time")
					return
				}
				w.nested("env -S").parseAndWalk(args[i+1].val)
			}
		}
	}
}

// runPayload records the command xargs or find -exec runs, which gets
// more arguments at run time.
func (w *walker) runPayload(via string, payload []word) {
	n := w.nested(via)
	if n.depth > maxDepth {
		w.a.opaque = append(w.a.opaque, "commands nested too deeply to analyse")
		return
	}
	start := len(w.a.cmds)
	n.exec(payload)
	if start < len(w.a.cmds) {
		w.a.cmds[start].runtimeArg = true
	}
}

// cd moves the shell for the commands that follow it.
func (w *walker) cd(args []word) {
	args = dropOptions(args)
	switch {
	case len(args) == 0:
		w.cwd = w.home
	case args[0].dyn || args[0].val == "-":
		w.cwd = ""
	default:
		w.cwd = resolvePath(args[0].val, w.cwd, w.home)
	}
}

func (w *walker) add(argv, prefix []word, cwd string) {
	sc := &simpleCmd{argv: argv, cwd: cwd, piped: w.piped, via: w.via}
	full := append(append([]word(nil), prefix...), argv...)
	sc.ruleText = joinWords(full)
	sc.forms = []string{sc.ruleText, joinWords(argv)}
	if len(argv) > 0 && !argv[0].dyn && strings.Contains(argv[0].val, "/") {
		// Deny rules name programs, wherever they are run from.
		base := append([]word{{val: filepath.Base(argv[0].val)}}, argv[1:]...)
		sc.forms = append(sc.forms, joinWords(base))
	}
	w.a.cmds = append(w.a.cmds, sc)
}

// walkWords finds the substitutions anywhere below n and walks the
// commands inside them.
func (w *walker) walkWords(n syntax.Node) {
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
		}
		return true
	})
}
