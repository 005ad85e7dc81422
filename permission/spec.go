package permission

import (
	"fmt"
	"strconv"
	"strings"
)

// What a program's command line means is written once per program in the
// table of commands.go, as an accept-list: every option nova knows, what
// its value is (a file read or written, a program run, a place on the
// network), what the positional words are. parseArgs reads a command line
// the way the program's own option parser does (GNU getopt_long, git's
// parse-options): long options may be abbreviated to any unique prefix, a
// short option's value may be glued on, and an option nova does not know
// makes the command one that asks.

// argKind says what an option's value or a positional word is.
type argKind byte

// The kinds, as the table spells them after '=' (or in pos=).
const (
	argVal   argKind = 'v' // a value that names nothing outside (a count, a pattern, a format)
	argRead  argKind = 'r' // a file or directory the program reads
	argWrite argKind = 'w' // a file or directory the program creates, changes or deletes
	argExec  argKind = 'x' // a program or command line the program runs
	argNet   argKind = 'n' // a place on the network the program reaches
	argPat   argKind = 'p' // the pattern, given as an option (grep -e): no positional is the pattern
	argPatF  argKind = 'P' // a file holding the pattern (grep -f): read, and no positional is the pattern
	argList  argKind = 'L' // a file listing the files the program reads (--files0-from)
)

// option is one option of a program.
type option struct {
	name     string    // "-o" or "--output"
	vals     []argKind // the values it takes, in order; none for a flag
	optional bool      // --color[=WHEN]: a value only when glued with '='
	// mark is what a flag does beyond reading: "rec" (recursive), "tree"
	// (reads everything below its files), "inplace" (writes its files),
	// "x" (runs something), "n" (reaches the network), "w" (writes
	// something), "noindex" (git: compares files outside the repository).
	mark string
}

// spec is how one program (or one subcommand: "git diff") reads its
// command line.
type spec struct {
	name  string
	long  map[string]*option
	short map[byte]*option
	// pos is what positional words are; skip leading ones are not files
	// (grep's pattern) unless a pattern option was given.
	pos  argKind
	skip int
	max  int // most positional words accepted; 0 means any
	// readOnly: with only listed options the program only reads. edit: a
	// file-editing command acceptEdits runs inside the workspace.
	readOnly, edit bool
	readsCwd       bool // reads the current directory when given no file
	tree           bool // always reads everything below its files (rg)
	num            bool // -NUM is an option (head -5)
	negatable      bool // --no-X is the negation of --X (git)
	// risky: some option writes, runs a program or reaches the network,
	// so a word only known at run time may turn into one of them.
	risky bool
	// exact: the program takes long options only spelled in full (its
	// parser is not getopt_long's, which accepts any unique prefix).
	exact     bool
	dashLong  bool    // options are whole words after one dash (find, go)
	stop      bool    // options end at the first positional word (xargs: the rest is its command)
	anyArgs   bool    // every argument is harmless (ps aux)
	lastAdded *option // while parsing: the option addOption made last
	// check reads what the table cannot say (sed scripts, find
	// expressions); it may add to inv.
	check func(c *Checker, inv *invocation, args []word)
}

// invocation is what parseArgs found in one command line.
type invocation struct {
	spec    *spec
	reads   []word // files read
	writes  []word // files written
	execs   []word // programs run
	net     string // why it reaches the network, or ""
	effect  string // why it does more than read, or ""
	unknown string // the first option nova does not know, or ""
	// cfgs are the values of options that set configuration (git -c,
	// git clone --config): KEY=VALUE words.
	cfgs []word
	// writeOpt is the first option that writes or deletes files (sort
	// -o, find -delete, find -fprint): a rule for a reader allows what it
	// reads, not these.
	writeOpt string
	tree     bool // reads recursively
	rec      bool // a recursive write (rm -r, cp -r)
	inplace  bool
	noIndex  bool
	pos      []word // positional words, files or not
	// patterns are the values of pattern options (grep -e, sed -e): the
	// program text when it is not the first positional word.
	patterns []word
	// files are the positional words taken as files; listed are files
	// that list more files to read (sort --files0-from=F).
	files, listed []word
	// follow says a recursive read follows symlinks (grep -R, rg -L).
	follow bool
	marks  map[string]bool
	// opts are the options given, by identity (aliases share one).
	opts map[*option]bool
	// repo and gitDir are, for git, the directory it runs in (-C or .)
	// and the git directory --git-dir names.
	repo, gitDir *word
}

func (inv *invocation) markSeen(m string) bool { return inv.marks[m] }

// parseSpec reads one table entry: "name: -a -bc -o=w --long --val= --out=w
// --color[=] -i!inplace ; pos=r skip=1 max=2 ro edit cwd tree num neg any".
func parseSpec(name, def string) (*spec, error) {
	sp := &spec{name: name, long: map[string]*option{}, short: map[byte]*option{}, pos: argRead}
	opts, attrs, _ := strings.Cut(def, ";")
	sp.dashLong = strings.Contains(" "+attrs+" ", " dash ")
	for _, tok := range strings.Fields(opts) {
		if err := sp.addOption(tok); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, o := range sp.long {
		sp.risky = sp.risky || o.risky()
	}
	for _, o := range sp.short {
		sp.risky = sp.risky || o.risky()
	}
	for _, a := range strings.Fields(attrs) {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "pos":
			if len(v) != 1 {
				return nil, fmt.Errorf("%s: pos=%s", name, v)
			}
			sp.pos = argKind(v[0])
		case "skip", "max":
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %s", name, a)
			}
			if k == "skip" {
				sp.skip = n
			} else {
				sp.max = n
			}
		case "ro":
			sp.readOnly = true
		case "edit":
			sp.edit = true
		case "cwd":
			sp.readsCwd = true
		case "tree":
			sp.tree = true
		case "num":
			sp.num = true
		case "neg":
			sp.negatable = true
		case "any":
			sp.anyArgs = true
		case "exact":
			sp.exact = true
		case "stop":
			sp.stop = true
		case "dash":
		default:
			return nil, fmt.Errorf("%s: unknown attribute %q", name, a)
		}
	}
	return sp, nil
}

// addOption adds one option token: -a, -abc (three flags), -o=w, --name,
// --name=v, --name=vr (two values), --name[=] (optional value), !mark, and
// names of one option joined by | (-r|-R|--recursive!rec).
func (sp *spec) addOption(tok string) error {
	if strings.Contains(tok, "|") {
		names, rest, _ := strings.Cut(tok, "!")
		suffix := ""
		if rest != "" {
			suffix = "!" + rest
		}
		parts := strings.Split(names, "|")
		var shared *option
		for _, p := range parts {
			if err := sp.addOption(p + suffix); err != nil {
				return err
			}
			o := sp.lastAdded
			if shared == nil {
				shared = o
				continue
			}
			// Every name points at the first, so a rule and a command
			// that spell it differently hold the same option.
			for k, v := range sp.long {
				if v == o {
					sp.long[k] = shared
				}
			}
			for k, v := range sp.short {
				if v == o {
					sp.short[k] = shared
				}
			}
		}
		return nil
	}
	tok, mark, _ := strings.Cut(tok, "!")
	name, vals, hasVal := strings.Cut(tok, "=")
	optional := false
	if i := strings.Index(tok, "[="); i >= 0 {
		name, vals, optional, hasVal = tok[:i], strings.TrimSuffix(tok[i+2:], "]"), true, true
	}
	o := &option{name: name, optional: optional, mark: mark}
	sp.lastAdded = o
	if hasVal {
		if vals == "" {
			vals = "v"
		}
		for _, k := range vals {
			if !strings.ContainsRune("vrwxnpPL", k) {
				return fmt.Errorf("option %s: unknown value kind %q", name, k)
			}
			o.vals = append(o.vals, argKind(k))
		}
	}
	switch {
	case strings.HasPrefix(name, "--") && len(name) > 2:
		sp.long[name[2:]] = o
	case sp.dashLong && strings.HasPrefix(name, "-") && len(name) > 2:
		sp.long[name] = o // find -name, go test -run: whole words after one dash
	case strings.HasPrefix(name, "-") && len(name) == 2:
		sp.short[name[1]] = o
	case strings.HasPrefix(name, "-") && len(name) > 2 && !hasVal:
		for i := 1; i < len(name); i++ {
			sp.short[name[i]] = &option{name: "-" + name[i:i+1], mark: mark}
		}
	default:
		return fmt.Errorf("bad option %q", tok)
	}
	return nil
}

// risky reports whether the option does more than read.
func (o *option) risky() bool {
	switch o.mark {
	case "x", "n", "w", "inplace", "noindex", "cfg", "xtract":
		return true
	}
	for _, k := range o.vals {
		if k == argWrite || k == argExec || k == argNet {
			return true
		}
	}
	return false
}

// lookupLong resolves a long option the way getopt_long does: an exact
// name, or a prefix of exactly one known option. ok is false when the name
// is unknown or ambiguous.
func (sp *spec) lookupLong(name string) (*option, bool) {
	if o, ok := sp.long[name]; ok {
		return o, true
	}
	if sp.exact {
		return nil, false
	}
	var found *option
	for n, o := range sp.long {
		if strings.HasPrefix(n, name) {
			if found != nil && found != o {
				return nil, false
			}
			found = o
		}
	}
	if found != nil {
		return found, true
	}
	if neg, ok := strings.CutPrefix(name, "no-"); ok && sp.negatable {
		if o, ok := sp.lookupLong(neg); ok && len(o.vals) == 0 || ok && o.optional {
			// Turning an option off does nothing it would do.
			return &option{name: "--no-" + neg}, true
		}
	}
	return nil, false
}

// parseArgs reads args (the words after the program name) against sp.
func (c *Checker) parseArgs(sp *spec, args []word) *invocation {
	inv := &invocation{spec: sp, marks: map[string]bool{}, opts: map[*option]bool{}}
	patternGiven := false
	ended := false
	take := func(o *option, vals []word) {
		inv.opts[o] = true
		for i, k := range o.vals {
			if i >= len(vals) {
				break
			}
			v := vals[i]
			switch k {
			case argRead:
				inv.reads = append(inv.reads, v)
			case argWrite:
				inv.writes = append(inv.writes, v)
				if inv.writeOpt == "" {
					inv.writeOpt = o.name
				}
			case argExec:
				inv.execs = append(inv.execs, v)
			case argNet:
				inv.net = o.name + " reaches " + v.val
			case argPat:
				patternGiven = true
				inv.patterns = append(inv.patterns, v)
			case argPatF:
				patternGiven = true
				inv.marks["patfile"] = true
				inv.reads = append(inv.reads, v)
			case argList:
				inv.reads = append(inv.reads, v)
				inv.listed = append(inv.listed, v)
			}
		}
		if o.mark == "cfg" {
			inv.cfgs = append(inv.cfgs, vals...)
		}
		if o.mark != "" {
			inv.marks[o.mark] = true
			switch o.mark {
			case "tree":
				inv.tree = true
			case "rec":
				inv.rec = true
			case "inplace":
				inv.inplace = true
			case "noindex":
				inv.noIndex = true
			case "x":
				inv.execs = append(inv.execs, word{val: o.name})
			case "follow":
				inv.tree, inv.follow = true, true
			case "n":
				inv.net = o.name + " reaches the network"
			case "w":
				inv.effect = o.name + " writes"
				if inv.writeOpt == "" {
					inv.writeOpt = o.name
				}
			}
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if sp.anyArgs {
			inv.pos = append(inv.pos, a)
			continue
		}
		if a.dyn && !ended && !a.fd {
			// $X may expand to an option. Of a program whose options only
			// read, that is a file only known at run time at best; of one
			// with options that write or run, it may be one of those.
			if sp.risky {
				if inv.unknown == "" {
					inv.unknown = a.val + " (only known at run time, it may be an option that writes or runs)"
				}
				continue
			}
			inv.marks["dynword"] = true
			inv.pos = append(inv.pos, a)
			continue
		}
		if ended || !strings.HasPrefix(a.val, "-") || a.val == "-" {
			inv.pos = append(inv.pos, a)
			ended = ended || sp.stop
			continue
		}
		if a.val == "--" {
			ended = true
			continue
		}
		if sp.num && isNumberFlag(a.val) {
			continue
		}
		if long, ok := strings.CutPrefix(a.val, "--"); ok {
			name, val, glued := strings.Cut(long, "=")
			o, found := sp.lookupLong(name)
			if sp.dashLong {
				o, found = sp.long["-"+name] // go's flags take -- too, without abbreviations
			}
			if !found {
				if inv.unknown == "" {
					inv.unknown = "--" + name
				}
				continue
			}
			var vals []word
			switch {
			case glued && len(o.vals) == 0:
				if inv.unknown == "" {
					inv.unknown = a.val // --flag=value for a flag
				}
				continue
			case glued:
				vals = append(vals, word{val: val})
				for k := 1; k < len(o.vals) && i+1 < len(args); k++ {
					i++
					vals = append(vals, args[i])
				}
			case o.optional:
			default:
				for k := 0; k < len(o.vals) && i+1 < len(args); k++ {
					i++
					vals = append(vals, args[i])
				}
			}
			take(o, vals)
			continue
		}
		if sp.dashLong {
			// A whole word after one dash: find -name x, go test -run=x;
			// a single letter may still be a short option (xxd -c 16).
			name, val, glued := strings.Cut(a.val, "=")
			if o, found := sp.long[name]; found {
				switch {
				case glued && len(o.vals) > 0:
					take(o, []word{{val: val}})
				case glued:
					if inv.unknown == "" {
						inv.unknown = a.val
					}
				default:
					var vals []word
					for k := 0; k < len(o.vals) && i+1 < len(args) && !o.optional; k++ {
						i++
						vals = append(vals, args[i])
					}
					take(o, vals)
				}
				continue
			}
			if len(name) > 2 {
				if inv.unknown == "" {
					inv.unknown = name
				}
				continue
			}
		}
		flags := a.val[1:]
		for j := 0; j < len(flags); j++ {
			o, found := sp.short[flags[j]]
			if !found {
				if inv.unknown == "" {
					inv.unknown = "-" + flags[j:j+1]
				}
				break
			}
			if len(o.vals) == 0 {
				take(o, nil)
				continue
			}
			var vals []word
			if j+1 < len(flags) {
				vals = append(vals, word{val: flags[j+1:]})
			} else if !o.optional && i+1 < len(args) {
				i++
				vals = append(vals, args[i])
			}
			for k := len(vals); k < len(o.vals) && i+1 < len(args) && !o.optional; k++ {
				i++
				vals = append(vals, args[i])
			}
			take(o, vals)
			break
		}
	}
	pos := inv.pos
	if sp.max > 0 && len(pos) > sp.max+sp.skip {
		inv.effect = fmt.Sprintf("%s takes at most %d files", sp.name, sp.max)
	}
	if !patternGiven {
		k := min(sp.skip, len(pos))
		for j := 0; j < k; j++ {
			if pos[j].fromGlob || pos[j].splits {
				// A glob's words, or a word that splits, may be files
				// too, whatever the shell's order.
				k = j
				break
			}
		}
		pos = pos[k:]
	}
	if sp.tree {
		inv.tree = true
	}
	if sp.pos == argRead || sp.pos == argWrite {
		inv.files = pos
	}
	switch {
	case sp.anyArgs:
	case sp.pos == argRead && inv.inplace:
		inv.writes = append(inv.writes, pos...)
	case sp.pos == argRead:
		inv.reads = append(inv.reads, pos...)
	case sp.pos == argWrite:
		inv.writes = append(inv.writes, pos...)
	case sp.pos == argExec && len(pos) > 0:
		inv.execs = append(inv.execs, pos[0])
	}
	if sp.readsCwd && len(pos) == 0 && sp.pos == argRead {
		inv.reads = append(inv.reads, word{val: "."})
	}
	if sp.check != nil {
		sp.check(c, inv, args)
	}
	return inv
}

// readOnly reports whether the invocation only reads: its program is a
// reader, every option was known, and nothing writes, runs or connects.
func (inv *invocation) readOnly() bool {
	return inv.spec.readOnly && inv.unknown == "" && len(inv.writes) == 0 && len(inv.execs) == 0 &&
		inv.net == "" && inv.effect == "" && !inv.inplace
}

// why says, for a person, why the invocation is not read-only.
func (inv *invocation) why() string {
	switch {
	case inv.unknown != "":
		return inv.spec.name + " " + inv.unknown + " is an option nova does not know"
	case len(inv.execs) > 0:
		return inv.spec.name + " runs " + inv.execs[0].val
	case inv.net != "":
		return inv.spec.name + ": " + inv.net
	case inv.effect != "":
		return inv.effect
	case len(inv.writes) > 0 || inv.inplace:
		return inv.spec.name + " writes files"
	}
	return "" // nothing more to say than the command itself
}
