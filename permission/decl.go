package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// declItem is one argument of a declaration builtin (export, declare,
// typeset, local, readonly): an option word or a variable with its value.
type declItem struct {
	opt    string // "-x", "+x"; "" for a variable
	name   string // the variable, maybe with a [subscript]
	val    word
	hasVal bool
	dyn    bool // the name itself is only known at run time
}

// isDeclBuiltin names the builtins that declare variables.
func isDeclBuiltin(name string) bool {
	switch name {
	case "export", "declare", "typeset", "local", "readonly", "nameref":
		return true
	}
	return false
}

// declClause walks a declaration the parser recognised (declare -x X=1).
func (w *walker) declClause(c *syntax.DeclClause) {
	variant := "declare"
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	argv := []word{{val: variant}}
	var items []declItem
	for _, as := range c.Args {
		if as == nil {
			continue
		}
		if as.Name == nil {
			// An option, or a word whose name is only known at run time.
			v := w.word(as.Value)
			argv = append(argv, v)
			if !v.dyn && (strings.HasPrefix(v.val, "-") || strings.HasPrefix(v.val, "+")) {
				items = append(items, declItem{opt: v.val})
				continue
			}
			items = append(items, textDeclItem(v))
			continue
		}
		val := w.assignValue(as)
		it := declItem{name: as.Name.Value, val: val, hasVal: as.Value != nil || as.Array != nil}
		argv = append(argv, word{val: as.Name.Value + "=" + val.val, dyn: val.dyn})
		items = append(items, it)
	}
	w.add(argv, nil, w.cwd)
	w.decl(variant, items, w.a.cmds[len(w.a.cmds)-1])
}

// declArgs walks a declaration reached as a plain command (builtin export
// X=1, command declare -x X): the same rules from the words.
func (w *walker) declArgs(variant string, args []word, sc *simpleCmd) {
	var items []declItem
	for _, a := range args {
		if !a.dyn && (strings.HasPrefix(a.val, "-") || strings.HasPrefix(a.val, "+")) {
			items = append(items, declItem{opt: a.val})
			continue
		}
		items = append(items, textDeclItem(a))
	}
	w.decl(variant, items, sc)
}

// textDeclItem reads NAME=value from one word.
func textDeclItem(v word) declItem {
	name, val, has := strings.Cut(v.val, "=")
	it := declItem{name: name, val: word{val: val, dyn: v.dyn}, hasVal: has}
	if v.dyn && (!has || strings.ContainsAny(name, "$`")) {
		it.dyn = true
	}
	return it
}

// decl judges a declaration: options that change how later assignments
// are evaluated (-i, -n) or export functions ask; every variable is
// judged like an assignment, exported or not.
func (w *walker) decl(variant string, items []declItem, sc *simpleCmd) {
	sc.decl = true
	exported := variant == "export"
	for _, it := range items {
		if it.opt == "" {
			continue
		}
		on := strings.HasPrefix(it.opt, "-")
		for _, f := range it.opt[1:] {
			switch {
			case f == 'x' && variant != "export":
				exported = exported || on
			case f == 'i' && on && variant != "export":
				w.opaque(variant + " -i makes bash evaluate later values as arithmetic, which can run commands")
			case f == 'n' && variant == "export":
				exported = false
			case f == 'n' && on, variant == "nameref":
				sc.asks = variant + " -n makes a variable a reference to another (it can alias PATH)"
			case f == 'f' && variant == "export", f == 'f' && exported:
				sc.asks = "exporting a function changes what every later bash runs"
			case strings.ContainsRune("aAgrtlupfFI", f), f == 'p':
			default:
				sc.asks = variant + " -" + string(f) + " is an option nova does not know"
			}
		}
	}
	if variant == "nameref" {
		sc.asks = "nameref makes a variable a reference to another (it can alias PATH)"
	}
	for _, it := range items {
		if it.opt != "" {
			continue
		}
		if it.dyn || !isVarRef(it.name) {
			w.opaque(variant + " of a variable named " + it.name + ", which bash evaluates (it can run commands)")
			continue
		}
		base, _, _ := strings.Cut(it.name, "[")
		val := it.val
		if !it.hasVal {
			val = word{dyn: true} // the variable's current value
			if !exported {
				delete(w.known, base)
				continue
			}
		}
		w.setVar(base, val, nil, exported)
	}
}

// varNameArgs checks builtins that take the name of a variable to set,
// test or unset (read, mapfile, getopts, printf -v, wait -p, test -v,
// unset): bash
// evaluates a subscript in that name, so it must be a plain name.
func (w *walker) varNameArgs(name string, args []word, sc *simpleCmd) {
	check := func(v word) {
		if v.dyn || !isVarRef(v.val) {
			w.opaque(name + " is given the variable " + v.val + ", whose subscript bash evaluates (it can run commands)")
			return
		}
		base, _, _ := strings.Cut(v.val, "[")
		delete(w.known, base)
		if name == "test" || name == "[" || name == "unset" {
			return
		}
		if why := plainAssignAsks(base, "", true, w.inEnv); why != "" && sc.asks == "" {
			sc.asks = name + " sets " + why
		}
	}
	switch name {
	case "unset":
		// unset a[SUB] evaluates SUB as arithmetic, even quoted: unset
		// 'a[$(cmd)]' runs cmd. Function names (-f) are not evaluated.
		funcs := false
		for _, a := range args {
			if !a.dyn && strings.HasPrefix(a.val, "-") && len(a.val) > 1 && a.val != "--" {
				funcs = strings.ContainsRune(a.val, 'f')
				continue
			}
			if !funcs {
				check(a)
			}
		}
	case "test", "[":
		for i, a := range args {
			if (a.val == "-v" || a.val == "-R") && i+1 < len(args) {
				check(args[i+1])
			}
		}
	case "printf", "wait":
		flag := "-v"
		if name == "wait" {
			flag = "-p"
		}
		for i, a := range args {
			if a.val == flag && i+1 < len(args) {
				check(args[i+1])
			}
		}
	case "read", "getopts", "mapfile", "readarray":
		valued := map[string]string{"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc", "getopts": ""}[name]
		var pos []word
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a.dyn || !strings.HasPrefix(a.val, "-") || a.val == "-" {
				pos = append(pos, args[i:]...)
				break
			}
			if a.val == "--" {
				pos = append(pos, args[i+1:]...)
				break
			}
			flags := a.val[1:]
			for j := 0; j < len(flags); j++ {
				if !strings.ContainsRune(valued, rune(flags[j])) {
					continue
				}
				val := word{val: flags[j+1:]}
				if j+1 == len(flags) && i+1 < len(args) {
					i++
					val = args[i]
				}
				switch flags[j] {
				case 'a':
					check(val)
				case 'C':
					w.opaque(name + " -C runs a callback command")
				}
				break
			}
		}
		if name == "getopts" && len(pos) > 0 {
			pos = pos[1:2] // getopts OPTSTRING NAME [ARGS]
		}
		if (name == "mapfile" || name == "readarray") && len(pos) > 1 {
			pos = pos[:1]
		}
		for _, p := range pos {
			check(p)
		}
	}
}

// setBuiltin judges set: options that make later assignments exported
// (-a, -k) ask; -P makes cd physical; the usual strict-mode options and
// positional arguments are harmless.
func (w *walker) setBuiltin(args []word, sc *simpleCmd) {
	sc.decl = true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dyn {
			sc.asks = "set is given options only known at run time"
			return
		}
		if a.val == "--" || a.val == "-" || !strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "+") {
			return // the rest are positional parameters
		}
		on := a.val[0] == '-'
		for _, f := range a.val[1:] {
			switch {
			case f == 'o':
				if i+1 >= len(args) {
					continue // set -o lists the options
				}
				i++
				switch opt := args[i].val; {
				case args[i].dyn:
					sc.asks = "set -o is given an option only known at run time"
				case opt == "allexport" || opt == "keyword" || opt == "onecmd":
					if on {
						sc.asks = "set -o " + opt + " changes what later commands export or run"
					}
				case opt == "physical":
					w.physicalCd = on
				case contains([]string{"pipefail", "errexit", "nounset", "xtrace", "verbose", "noclobber", "noglob", "noexec", "hashall",
					"monitor", "notify", "errtrace", "functrace", "braceexpand", "histexpand", "ignoreeof", "interactive-comments",
					"emacs", "vi", "posix", "privileged", "history"}, opt):
				default:
					sc.asks = "set -o " + opt + " is an option nova does not know"
				}
			case f == 'a' || f == 'k':
				if on {
					sc.asks = "set -" + string(f) + " exports every later assignment"
				}
			case f == 'P':
				w.physicalCd = on
			case strings.ContainsRune("euxvCfnhmbETBHp", f):
			default:
				sc.asks = "set -" + string(f) + " is an option nova does not know"
			}
		}
	}
}
