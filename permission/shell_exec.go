package permission

// shell_exec.go: what one simple command runs in turn — wrappers, nested shells, scripts, payloads of xargs and find -exec, cd.

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"mvdan.cc/sh/v3/syntax"
)

// exec records argv as a simple command, looking through wrappers and into
// the commands it runs in turn (bash -c, eval, xargs, find -exec).
func (w *walker) exec(argv []word) {
	if len(argv) > 0 && !argv[0].dyn {
		if body, ok := w.funcs[argv[0].val]; ok {
			w.add(argv, nil, w.cwd)
			w.a.cmds[len(w.a.cmds)-1].decl = true
			w.callFunc(body)
			return
		}
	}
	inner, prefix, privileged, cwd, envSet, ok := unwrap(argv, w.cwd)
	if !ok {
		w.opaque("a wrapper's options could not be read: " + joinWords(argv))
	}
	w.add(inner, prefix, cwd)
	last := w.a.cmds[len(w.a.cmds)-1]
	last.privileged = privileged
	for _, kv := range envSet {
		name, val, _ := strings.Cut(kv.val, "=")
		if !safeExport(name, val, kv.dyn) {
			last.asks = name + " is set for the command"
			break
		}
	}
	if len(inner) == 0 || inner[0].dyn {
		return
	}
	name := filepath.Base(inner[0].val)
	args := inner[1:]
	if strings.Contains(inner[0].val, "/") {
		if p := joinPath(inner[0].val, cwd, w.home); p != "" && shellScript(p) {
			w.script(inner[0], last, false)
			return
		}
	}
	switch {
	case name == "git":
		w.gitConfigArgs(args, last)
	case name == "cd" || name == "pushd":
		w.cd(args)
	case name == "popd":
		w.cwd = ""
	case isDeclBuiltin(name):
		w.declArgs(name, args, last)
	case name == "read" || name == "mapfile" || name == "readarray" || name == "getopts" || name == "printf" || name == "wait" || name == "test" || name == "[" || name == "unset":
		w.varNameArgs(name, args, last)
	case name == "set":
		w.setBuiltin(args, last)
	case name == "source" || name == ".":
		// source runs the file in this shell: its cd and exports hold after.
		if len(args) == 0 || args[0].dyn {
			w.opaque(name + " runs a file only known at run time")
			return
		}
		w.script(args[0], last, true)
	case name == "script":
		// script -c CMD runs CMD through a shell (with a terminal).
		if c, found := scriptCString(args); found {
			if c.dyn {
				w.opaque("script -c runs a string only known at run time")
				return
			}
			w.nested("script -c").parseAndWalk(c.val)
		}
	case isShell(name):
		if s, found := shellCString(args); found {
			if s.dyn {
				w.opaque(name + " -c runs a string only known at run time")
				return
			}
			w.nested(name + " -c").parseAndWalk(s.val)
		} else if f, found := shellScriptArg(args); found {
			w.script(f, last, false)
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
				w.opaque(name + " runs a string only known at run time")
				return
			}
		}
		w.nested(name).parseAndWalk(joinWords(args))
	case name == "xargs":
		payload, ok := xargsPayload(args)
		if !ok {
			w.opaque("xargs options could not be read")
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
					w.opaque("env -S runs a string only known at run time")
					return
				}
				w.nested("env -S").parseAndWalk(args[i+1].val)
			}
		}
	}
}

// gitConfigArgs reads the configuration git is given on its command line
// before the subcommand: an alias that starts with ! is a shell command
// (walked as one), and keys that name programs (core.pager, core.sshCommand
// ...) make the command one nova cannot see into.
func (w *walker) gitConfigArgs(args []word, sc *simpleCmd) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dyn || !strings.HasPrefix(a.val, "-") {
			return // the subcommand
		}
		var kv word
		switch {
		case a.val == "-c" && i+1 < len(args):
			kv = args[i+1]
			i++
		case strings.HasPrefix(a.val, "-c") && len(a.val) > 2:
			kv = word{val: a.val[2:], dyn: a.dyn}
		case a.val == "--config-env" || strings.HasPrefix(a.val, "--config-env="):
			w.opaque("git --config-env sets configuration from a variable nova cannot read")
			continue
		case a.val == "-C" || a.val == "--git-dir" || a.val == "--work-tree" || a.val == "--namespace":
			i++
			continue
		default:
			continue
		}
		if kv.dyn {
			w.opaque("git -c sets configuration only known at run time")
			continue
		}
		key, val, _ := strings.Cut(kv.val, "=")
		lower := strings.ToLower(key)
		if strings.HasPrefix(lower, "alias.") {
			if cmd, ok := strings.CutPrefix(val, "!"); ok {
				w.nested("git alias").parseAndWalk(cmd)
			}
			continue
		}
		section, rest, _ := strings.Cut(lower, ".")
		sub, name := "", rest
		if j := strings.LastIndex(rest, "."); j >= 0 {
			sub, name = rest[:j], rest[j+1:]
		}
		if why := gitKeyHazard(section, sub, name); why != "" || lower == "core.fsmonitor" || lower == "core.hookspath" {
			w.opaque("git -c " + key + " names a program git would run")
			continue
		}
		if !plainGitKey(key, val) && sc.asks == "" {
			// Not known to be plain data: it may name a program or a path
			// git runs or reads (init.templateDir, credential.helper), which
			// no rule for the git command covers.
			sc.asks = "git -c " + key + " is a setting that may name a program or a path git runs or reads"
		}
	}
}

// maxScript bounds the size of a script nova reads to check what it runs.
const maxScript = 256 << 10

// script walks the shell script file f as the commands it runs: sourced
// (in this shell) or run by a shell of its own. The file is read as it is
// now, when the call is checked right before it runs. A script nova cannot
// read is one it cannot see into.
func (w *walker) script(f word, sc *simpleCmd, sourced bool) {
	path := joinPath(f.val, w.cwd, w.home)
	if f.dyn || path == "" {
		w.opaque("runs the script " + f.val + ", only known at run time")
		return
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxScript {
		w.opaque("runs the script " + f.val + ", which nova cannot read")
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		w.opaque("runs the script " + f.val + ", which nova cannot read")
		return
	}
	if w.depth >= maxDepth {
		w.opaque("scripts nested too deeply to analyse")
		return
	}
	sc.decl = true // the script's commands are judged, one by one
	if sourced {
		w.depth++
		w.parseAndWalk(string(data))
		w.depth--
		return
	}
	// A script run by a shell of its own starts afresh and changes
	// nothing here; what it runs is kept apart, for a rule that allows
	// running the script to cover it.
	sub := &analysis{assigned: map[string]bool{}, carried: w.a.carried, argsKnown: true}
	n := &walker{a: sub, home: w.home, cwd: w.cwd, depth: w.depth + 1, via: "script " + f.val,
		known: map[string]bool{}, vals: map[string]string{}, funcs: map[string]*syntax.Stmt{}, inEnv: w.inEnv}
	// The script's $1, $2 ... are the words it was given: eval "$1" runs
	// what the caller wrote.
	for i, a := range scriptArgs(sc, f) {
		if a.dyn {
			sub.argsKnown = false
			continue
		}
		n.vals[strconv.Itoa(i+1)] = a.val
	}
	n.parseAndWalk(string(data))
	if sub.parseErr != nil {
		sub.opaque = append(sub.opaque, fmt.Sprintf("the script %s cannot be parsed (%v)", f.val, sub.parseErr))
		sub.parseErr = nil
	}
	sc.sub = sub
}

// scriptArgs are the words a command gives the script f it runs (the words
// after f).
func scriptArgs(sc *simpleCmd, f word) []word {
	for i, a := range sc.argv {
		if a == f {
			return sc.argv[i+1:]
		}
	}
	return nil
}

// shellScript reports whether the file at path is a shell script: a
// shebang naming a shell, or text with none (which the shell runs itself).
func shellScript(path string) bool {
	// Non-blocking, and regular files only: opening a named pipe (a
	// process substitution's, one a command made) would wait for a writer
	// forever and stall the check.
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 128)
	n, _ := fh.Read(head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	if !strings.HasPrefix(line, "#!") {
		return n > 0 && !strings.ContainsRune(string(head[:n]), 0)
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return false
	}
	prog := filepath.Base(fields[0])
	if prog == "env" && len(fields) > 1 {
		prog = filepath.Base(fields[len(fields)-1])
	}
	return isShell(prog) && prog != "fish"
}

// runPayload records the command xargs or find -exec runs, which gets
// more arguments at run time. A payload that runs its arguments as a
// command in turn (a shell, env, sudo, an interpreter) runs something only
// known at run time.
func (w *walker) runPayload(via string, payload []word) {
	n := w.nested(via)
	if n.depth > maxDepth {
		w.opaque("commands nested too deeply to analyse")
		return
	}
	if len(payload) > 0 && !payload[0].dyn {
		p := filepath.Base(payload[0].val)
		if _, wrapper := wrappers()[p]; wrapper || isInterpreter(p) || p == "eval" || p == "xargs" {
			if _, found := shellCString(payload[1:]); !found || !isShell(p) {
				w.opaque(via + " " + p + " runs a command made of arguments only known at run time")
				return
			}
		}
	}
	start := len(w.a.cmds)
	n.exec(payload)
	if start < len(w.a.cmds) {
		w.a.cmds[start].runtimeArg = true
	}
}

// cd moves the shell for the commands that follow it: logically, as bash's
// cd does (link/.. is where you were), or physically with -P.
func (w *walker) cd(args []word) {
	physical := w.physicalCd
	for _, a := range args {
		if a.val == "--" || !strings.HasPrefix(a.val, "-") || a.val == "-" {
			break
		}
		if strings.Contains(a.val, "P") {
			physical = true
		}
	}
	args = dropOptions(args)
	switch {
	case len(args) == 0:
		w.cwd = w.home
	case args[0].dyn || args[0].glob || args[0].val == "-" || strings.HasPrefix(args[0].val, "+") || strings.HasPrefix(args[0].val, "-"):
		w.cwd = ""
	case !filepath.IsAbs(args[0].val) && !strings.HasPrefix(args[0].val, "~") && w.inEnv("CDPATH"):
		w.cwd = "" // CDPATH may send a relative cd anywhere
	case physical:
		if j := joinPath(args[0].val, w.cwd, w.home); j != "" {
			w.cwd = physicalPath(j)
		} else {
			w.cwd = ""
		}
	default:
		w.cwd = resolvePath(args[0].val, w.cwd, w.home)
	}
}

func (w *walker) add(argv, prefix []word, cwd string) {
	sc := &simpleCmd{argv: argv, cwd: cwd, piped: w.piped, via: w.via}
	full := append(append([]word(nil), prefix...), argv...)
	sc.ruleText = joinWords(full)
	sc.forms = commandForms(argv, prefix)
	w.a.cmds = append(w.a.cmds, sc)
}

// collectAssigned records in set every variable name n assigns anywhere:
// assignments, for-loop variables, and the builtins that take a variable
// to set (read, mapfile, printf -v, getopts, declare ...).
func collectAssigned(n syntax.Node, set map[string]bool) {
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.Assign:
			if x.Name != nil {
				set[x.Name.Value] = true
			}
		case *syntax.ForClause:
			if it, ok := x.Loop.(*syntax.WordIter); ok && it.Name != nil {
				set[it.Name.Value] = true
			}
		case *syntax.CallExpr:
			if len(x.Args) > 0 {
				if lit := x.Args[0].Lit(); lit == "read" || lit == "mapfile" || lit == "readarray" || lit == "getopts" || lit == "printf" || lit == "select" {
					for _, a := range x.Args[1:] {
						if v := a.Lit(); isName(v) {
							set[v] = true
						}
					}
					if lit == "read" || lit == "select" {
						set["REPLY"] = true
					}
				}
			}
		case *syntax.ParamExp:
			if x.Exp != nil && (x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull) && x.Param != nil {
				set[x.Param.Value] = true
			}
		}
		return true
	})
}
