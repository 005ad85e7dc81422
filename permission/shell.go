package permission

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds nested shells (bash -c "bash -c ..."), so a hostile
// command cannot make the analysis recurse without end.
const maxDepth = 8

// redirect is a file a redirection reads or writes.
type redirect struct {
	target word
	write  bool
	cwd    string // the shell's directory at that point; "" when unknown
	// covered: a redirection of a script a rule allows (see simpleCmd).
	covered bool
}

// simpleCmd is one simple command the shell would run, after brace
// expansion and after wrappers (env, sudo, timeout ...) have been looked
// through.
type simpleCmd struct {
	argv       []word // argv[0] is the program that really runs
	ruleText   string // what allow rules match: privileged wrappers + argv
	forms      []string
	cwd        string // "" when the directory is only known at run time
	privileged bool   // run through sudo or doas
	piped      bool   // stdin comes from a download earlier in a pipeline
	runtimeArg bool   // xargs or find -exec add arguments at run time
	via        string // how it was reached: "", "bash -c", "eval", "xargs", "find -exec"
	// asks says why the command needs a question whatever the rules say:
	// a variable set for it that changes what runs (PATH, LD_PRELOAD,
	// GIT_CONFIG_COUNT ...), or a shell option that changes what later
	// commands do (set -a).
	asks string
	// decl marks a declaration builtin (export, declare ...), a call of a
	// function this command defines, or a script it runs: their effects
	// were walked as commands of their own.
	decl bool
	// sub is what the script this command runs (sh build.sh, ./run.sh)
	// would run and touch, read from the file as it is now.
	sub *analysis
	// covered marks a command of a script whose runner a rule allows: the
	// rule covers it, but not its writes outside nor what is denied.
	covered bool
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
	// arithmetic on a variable, nesting too deep); such a command is never
	// allowed without asking.
	opaque   []string
	forkBomb string // the self-calling function, when there is one
	// assigned names every variable the command sets anywhere; carried the
	// variables the session's shell brings from earlier commands.
	assigned map[string]bool
	carried  map[string]bool
	// argsKnown, for a script's analysis, says every word its caller gave
	// it is known: what it cannot see into comes from the script alone.
	argsKnown bool
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
	// known names variables that hold an integer at this point, so
	// arithmetic on them evaluates nothing.
	known map[string]bool
	// vals holds variables whose value is a known literal at this point
	// (f=.git/hooks/x), so $f is read as what it holds.
	vals  map[string]string
	inEnv func(string) bool
	// funcs are the functions this command defines: a call runs the body
	// in the calling shell (a cd inside it moves the shell).
	funcs map[string]*syntax.Stmt
	// physicalCd is set by set -P: cd then follows symlinks as -P does.
	physicalCd bool
}

// shellInput is what the analysis starts from.
type shellInput struct {
	src, cwd, home string
	carried        []string          // variables the session's shell carries
	inEnv          func(string) bool // whether nova's environment holds a variable
}

// analyzeShell parses src and collects every simple command it would run,
// starting in cwd.
func analyzeShell(in shellInput) *analysis {
	a := &analysis{assigned: map[string]bool{}, carried: map[string]bool{}}
	for _, n := range in.carried {
		a.carried[n] = true
	}
	inEnv := in.inEnv
	if inEnv == nil {
		inEnv = func(string) bool { return false }
	}
	w := &walker{a: a, home: in.home, cwd: in.cwd, known: map[string]bool{}, vals: map[string]string{}, funcs: map[string]*syntax.Stmt{}}
	w.inEnv = func(n string) bool { return inEnv(n) || a.carried[n] }
	w.parseAndWalk(in.src)
	return a
}

func (w *walker) opaque(why string) { w.a.opaque = append(w.a.opaque, why) }

func (w *walker) parseAndWalk(src string) {
	if w.depth > maxDepth {
		w.opaque("commands nested too deeply to analyse")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		if w.depth == 0 {
			w.a.parseErr = err
		} else {
			w.opaque(fmt.Sprintf("a nested command cannot be parsed (%v)", err))
		}
		return
	}
	collectAssigned(f, w.a.assigned)
	saved := w.src
	w.src = src
	w.stmts(f.Stmts)
	w.src = saved
}

// fork returns a copy of w for a part of the command that runs beside the
// rest (a subshell, a background job, a function body): what it changes
// (the directory, known variables) does not flow back.
func (w *walker) fork() *walker {
	n := *w
	n.known = maps.Clone(w.known)
	n.vals = maps.Clone(w.vals)
	n.funcs = maps.Clone(w.funcs)
	return &n
}

// merge makes w's state what is certain after one of several paths ran
// (the branches of an if or a case, the right side of && that may not
// run, a loop body that runs or not): a directory or a variable only where
// every path agrees; otherwise it is only known at run time.
func (w *walker) merge(paths ...*walker) {
	if len(paths) == 0 {
		return
	}
	first := paths[0]
	w.cwd, w.home, w.physicalCd = first.cwd, first.home, first.physicalCd
	w.known = maps.Clone(first.known)
	w.vals = maps.Clone(first.vals)
	w.funcs = maps.Clone(first.funcs)
	for _, p := range paths[1:] {
		if p.cwd != w.cwd {
			w.cwd = ""
		}
		if p.home != w.home {
			w.home = ""
		}
		w.physicalCd = w.physicalCd || p.physicalCd
		for k := range w.known {
			if !p.known[k] {
				delete(w.known, k)
			}
		}
		for k, v := range w.vals {
			if pv, ok := p.vals[k]; !ok || pv != v {
				delete(w.vals, k)
			}
		}
		for k, v := range w.funcs {
			if p.funcs[k] != v {
				delete(w.funcs, k)
			}
		}
	}
}

// nested returns a walker for a nested shell string or substitution.
func (w *walker) nested(via string) *walker {
	n := w.fork()
	n.depth++
	if via != "" {
		n.via = via
	}
	n.piped = false
	return n
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
		// not move the shell.
		w.fork().command(s.Cmd)
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
			// Each side of a pipeline runs in a subshell of its own.
			w.fork().stmt(c.X)
			down := w.piped
			for _, sc := range w.a.cmds[start:] {
				if isDownloader(sc.name()) {
					down = true
				}
			}
			right := w.fork()
			right.piped = down
			right.stmt(c.Y)
			return
		}
		// In a chain a && b && c each command runs only if those before it
		// did, so each sees the state they left; the chain may stop after
		// any of them, so after it only what every stopping point agrees
		// on is known.
		var ends []*walker
		for _, part := range chainOf(c) {
			w.stmt(part)
			ends = append(ends, w.fork())
		}
		w.merge(ends...)
	case *syntax.Subshell:
		w.fork().stmts(c.Stmts)
	case *syntax.Block:
		w.stmts(c.Stmts)
	case *syntax.IfClause:
		// Each branch starts where its condition left the shell; after
		// the if, only what every branch agrees on is known.
		var ends []*walker
		cond := w
		for ic := c; ic != nil; ic = ic.Else {
			cond.stmts(ic.Cond)
			if len(ic.Cond) == 0 { // the final else
				cond.stmts(ic.Then)
				ends = append(ends, cond)
				break
			}
			branch := cond.fork()
			branch.stmts(ic.Then)
			ends = append(ends, branch)
			cond = cond.fork()
			if ic.Else == nil {
				ends = append(ends, cond) // no branch ran
			}
		}
		w.merge(ends...)
	case *syntax.WhileClause:
		w.forgetAssignedIn(c)
		before := w.fork()
		w.stmts(c.Cond)
		w.stmts(c.Do)
		w.merge(w.fork(), before)
	case *syntax.ForClause:
		w.forClause(c)
	case *syntax.CaseClause:
		if c.Word != nil {
			w.word(c.Word)
		}
		ends := []*walker{w.fork()} // no pattern matched
		for _, it := range c.Items {
			if it == nil {
				continue
			}
			for _, p := range it.Patterns {
				w.word(p)
			}
			item := w.fork()
			item.stmts(it.Stmts)
			ends = append(ends, item)
		}
		w.merge(ends...)
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
	case *syntax.ArithmCmd:
		w.arith(c.X)
	case *syntax.LetClause:
		for _, e := range c.Exprs {
			w.arith(e)
		}
	case *syntax.TestClause:
		w.testExpr(c.X)
	default:
		w.scan(c)
	}
}

// chainOf flattens a && b && c (or a || b || c) into its commands, left
// to right.
func chainOf(c *syntax.BinaryCmd) []*syntax.Stmt {
	var out []*syntax.Stmt
	if x, ok := c.X.Cmd.(*syntax.BinaryCmd); ok && x.Op == c.Op && len(c.X.Redirs) == 0 && !c.X.Background && !c.X.Negated {
		out = chainOf(x)
	} else {
		out = []*syntax.Stmt{c.X}
	}
	return append(out, c.Y)
}

// forClause walks a for loop; its variable is an integer only when every
// value it takes is one.
func (w *walker) forClause(c *syntax.ForClause) {
	w.forgetAssignedIn(c)
	before := w.fork()
	defer func() { w.merge(w.fork(), before) }()
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		vals := w.words(l.Items)
		if l.Name != nil {
			name := l.Name.Value
			numeric := true
			for _, v := range vals {
				numeric = numeric && !v.dyn && !v.glob && isArithNumber(v.val)
			}
			if numeric && len(l.Items) > 0 {
				w.known[name] = true
			} else {
				delete(w.known, name)
			}
			if why := plainAssignAsks(name, "", true, w.inEnv); why != "" {
				w.opaque("the loop sets " + why)
			}
		}
	case *syntax.CStyleLoop:
		w.arith(l.Init)
		w.arith(l.Cond)
		w.arith(l.Post)
	}
	w.stmts(c.Do)
}

// forgetAssignedIn drops from the known integers every variable a loop
// sets to something else: on the next turn of the loop an earlier use sees
// that value.
func (w *walker) forgetAssignedIn(n syntax.Node) {
	set := map[string]bool{}
	collectAssigned(n, set)
	for name := range set {
		delete(w.known, name)
		delete(w.vals, name)
	}
	// A cd anywhere in the loop moves the shell for its next turn.
	syntax.Walk(n, func(node syntax.Node) bool {
		if ce, ok := node.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			if lit := ce.Args[0].Lit(); lit == "cd" || lit == "pushd" || lit == "popd" {
				w.cwd = ""
			}
		}
		return true
	})
}

// testExpr walks [[ ]]: its arithmetic comparisons (-eq, -lt ...) evaluate
// their operands, and -v evaluates a subscript.
func (w *walker) testExpr(e syntax.TestExpr) {
	switch x := e.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if wd, ok := side.(*syntax.Word); ok {
					w.arith(wd)
				} else {
					w.testExpr(side)
				}
			}
			return
		}
		w.testExpr(x.X)
		w.testExpr(x.Y)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			if wd, ok := x.X.(*syntax.Word); ok {
				if v := w.word(wd); v.dyn || !isVarRef(v.val) {
					w.opaque("[[ -v " + v.val + " ]] evaluates a subscript only known at run time")
				}
				return
			}
		}
		w.testExpr(x.X)
	case *syntax.ParenTest:
		w.testExpr(x.X)
	case *syntax.Word:
		w.word(x)
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
	w.fork().stmt(c.Body)
	for _, sc := range w.a.cmds[start:] {
		if name != "" && sc.name() == name {
			w.a.forkBomb = name
		}
	}
	if name != "" {
		w.funcs[name] = c.Body
	}
}

// callFunc runs a function this command defined, in the calling shell:
// what its body changes (the directory, variables) holds after the call.
func (w *walker) callFunc(body *syntax.Stmt) {
	if w.depth >= maxDepth {
		w.opaque("functions that call each other too deeply to analyse")
		return
	}
	w.depth++
	w.stmt(body)
	w.depth--
}

func (w *walker) call(c *syntax.CallExpr) {
	var prefix []string // why each prefix assignment asks
	for _, as := range c.Assigns {
		if as == nil {
			continue
		}
		val := w.assignValue(as)
		if as.Name == nil {
			continue
		}
		name := as.Name.Value
		if len(c.Args) == 0 {
			w.setVar(name, val, as, false)
			continue
		}
		// NAME=v cmd exports NAME to cmd.
		if !safeExport(name, val.val, val.dyn) {
			prefix = append(prefix, name+" is set for the command")
		}
	}
	if len(c.Args) == 0 {
		return // assignments only
	}
	argv := w.words(c.Args)
	start := len(w.a.cmds)
	w.exec(argv)
	if start < len(w.a.cmds) && len(prefix) > 0 && w.a.cmds[start].asks == "" {
		w.a.cmds[start].asks = prefix[0]
	}
}

// assignValue resolves the value of an assignment, checking an array
// subscript (evaluated as arithmetic) and the elements of an array value.
func (w *walker) assignValue(as *syntax.Assign) word {
	if as.Index != nil {
		w.arith(as.Index)
	}
	var val word
	if as.Value != nil {
		val = w.word(as.Value)
	}
	if as.Array != nil {
		val.dyn = true
		for _, el := range as.Array.Elems {
			if el == nil {
				continue
			}
			if el.Index != nil {
				w.arith(el.Index)
			}
			if el.Value != nil {
				w.word(el.Value)
			}
		}
	}
	return val
}

// setVar follows a variable assignment that outlives one command: the
// known integers, HOME (which moves ~), and the names that need a question.
func (w *walker) setVar(name string, val word, as *syntax.Assign, exported bool) {
	if !val.dyn && isArithNumber(val.val) && (as == nil || as.Array == nil) {
		w.known[name] = true
	} else {
		delete(w.known, name)
	}
	if !val.dyn && !val.glob && (as == nil || as.Array == nil && as.Index == nil && !as.Append) {
		w.vals[name] = val.val
	} else {
		delete(w.vals, name)
	}
	if name == "HOME" {
		if val.dyn || !filepath.IsAbs(val.val) {
			w.home = ""
		} else {
			w.home = filepath.Clean(val.val)
		}
	}
	why := ""
	if exported {
		if !safeExport(name, val.val, val.dyn) {
			why = name + " is exported"
		}
	} else {
		why = plainAssignAsks(name, val.val, val.dyn, w.inEnv)
	}
	if why != "" {
		w.add([]word{{val: "export"}, {val: name + "=" + val.val, dyn: val.dyn}}, nil, w.cwd)
		last := w.a.cmds[len(w.a.cmds)-1]
		last.asks, last.decl = why, true
	}
}
