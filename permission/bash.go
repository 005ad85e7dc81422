package permission

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// A Bash check is a straight line:
//
//	parse -> expand (braces, quotes, literal parameters) -> the simple
//	commands with their resolved words -> each command's table entry ->
//	the files it reads and writes, what it runs, where it connects ->
//	the layers decide.

// bashCmd is one simple command of a Bash call and what the table says
// it does.
type bashCmd struct {
	sc  *simpleCmd
	inv *invocation // nil when nova has no entry for the program
	// readOnly: the command only reads (its paths are judged separately).
	readOnly bool
	why      string   // why it is not read-only
	accs     []access // the files it reads and writes
}

// checkBash decides a Bash call, looking at every simple command it runs.
func (c *Checker) checkBash(req Request) Decision {
	carried := make([]string, 0, len(req.ShellEnv))
	for _, kv := range req.ShellEnv {
		name, _, _ := strings.Cut(kv, "=")
		carried = append(carried, name)
	}
	a := analyzeShell(shellInput{src: req.Command, cwd: filepath.Clean(req.Workdir), home: c.home, carried: carried, inEnv: c.inEnv})
	c.flattenScripts(a, false)
	// Layer 1: catastrophic commands, and commands that cannot be seen into.
	if b, why := c.dangerous(a); b != "" && !(b == Ask && req.Typed) {
		return Decision{Behavior: b, Layer: LayerDangerous, Reason: why}
	}
	cmds, redirs := c.bashCommands(a, req)
	accs := allAccesses(cmds, redirs, nil)
	// Layer 2: system files are never written; sensitive files always ask.
	hard := ""
	for _, acc := range accs {
		if acc.write && (systemPath(acc.path) || systemPath(acc.real)) {
			return Decision{Behavior: Deny, Layer: LayerPath, Reason: "writes " + acc.path + ", a system file"}
		}
		if why := c.sensitiveAccess(acc); why != "" && hard == "" {
			hard = why
		}
		if !acc.known() && hard == "" {
			if why := sensitiveWord(word{val: acc.shown, dyn: true}); why != "" {
				hard = "a path only known at run time may be sensitive: " + why
			}
		}
		if acc.write && acc.tree && acc.known() && hard == "" {
			hard = c.treeWriteSensitive(acc)
		}
	}
	for _, bc := range cmds {
		if hard == "" && !bc.readOnly && !bc.sc.decl {
			hard = c.hiddenSensitive(bc)
		}
	}
	// Layer 3: deny beats ask beats allow, for every command and path.
	for _, list := range []struct {
		b     Behavior
		rules []Rule
	}{{Deny, c.deny}, {Ask, c.ask}} {
		if list.b == Ask && hard != "" && !req.Typed {
			return Decision{Behavior: Ask, Layer: LayerPath, Reason: hard + "; it is never used without asking"}
		}
		for _, bc := range cmds {
			if r, ok := firstRule(list.rules, func(r Rule) bool { return r.Tool == "Bash" && (r.matchForms(bc.sc) || c.ruleMeans(r, bc)) }); ok {
				return ruleDecision(list.b, r, "command "+joinWords(bc.sc.argv))
			}
			if r, ok := firstRule(list.rules, func(r Rule) bool { return r.Tool == "Bash" && r.maybeBash(bc.sc) }); ok && !req.Typed && !bc.sc.covered {
				return Decision{Behavior: Ask, Layer: LayerRule, Rule: r.Raw,
					Reason: fmt.Sprintf("command %s may be one rule %s (%s) %s: part of it is only known at run time", joinWords(bc.sc.argv), r.Raw, r.Source, verbRule(list.b))}
			}
		}
		for _, acc := range accs {
			if r, ok := firstRule(list.rules, func(r Rule) bool { return c.bashPathRule(r, acc, false) }); ok {
				return ruleDecision(list.b, r, verbOf(acc)+" "+acc.path)
			}
			if r, ok := firstRule(list.rules, func(r Rule) bool { return acc.tree && c.ruleUnder(r, acc) && c.holdsMatch(r, acc) }); ok && !req.Typed {
				return Decision{Behavior: Ask, Layer: LayerRule, Rule: r.Raw,
					Reason: fmt.Sprintf("reads everything under %s, where rule %s (%s) %s files", acc.path, r.Raw, r.Source, verbRule(list.b))}
			}
		}
	}
	mode := c.baseMode(req)
	if mode == ModePlan {
		for _, bc := range cmds {
			if !bc.readOnly && !bc.sc.decl {
				return Decision{Behavior: Deny, Layer: LayerMode, Reason: "plan mode allows only read-only commands (" + bc.why + "): present the plan with ExitPlanMode first"}
			}
		}
		for _, acc := range accs {
			if acc.write {
				return Decision{Behavior: Deny, Layer: LayerMode, Reason: "plan mode allows no writes: present the plan with ExitPlanMode first"}
			}
		}
	}
	if req.Typed {
		return Decision{Behavior: Allow, Layer: LayerAsk, Reason: "typed by you"}
	}
	if req.SandboxUnavailable && !req.Sandboxed {
		return Decision{Behavior: Ask, Layer: LayerSandbox, Reason: "the Bash sandbox is enabled but not available on this machine, so every command needs approval"}
	}
	// A file that runs later asks whatever allows the command (a rule,
	// acceptEdits, sandbox.autoAllow): only a rule that names it, or
	// bypassPermissions, lets a command write it.
	if d, ok := c.laterAsk(req, "writes", c.laterHits(accs), func(r Rule, h laterHit) bool { return c.bashPathRule(r, h.acc, true) }); ok {
		return d
	}
	d := c.bashAllowed(req, cmds, redirs)
	d.ShellState = changesShell(a)
	return d
}

// changesShell reports whether a command changes what the session's
// shell carries to the next one: its directory, variables or options.
func changesShell(a *analysis) bool {
	for _, sc := range a.cmds {
		switch sc.name() {
		case "cd", "pushd", "popd", "export", "declare", "typeset", "readonly", "unset", "set", "shopt", "source", ".",
			"umask", "alias", "unalias", "hash", "enable", "trap", "ulimit", "local", "read", "mapfile", "readarray", "getopts", "eval":
			return true
		}
	}
	return len(a.assigned) > 0
}

// ruleMeans reports whether a deny or ask rule that spells a command nova
// has a table entry for (Bash(rm -rf build)) means bc: the same program,
// every option the rule gives (however spelled: -fr, -r -f, --recursive
// --force), and every file it names, resolved (./build, build/, the
// absolute path). The command may do more; it still does what the rule
// forbids.
func (c *Checker) ruleMeans(r Rule, bc bashCmd) bool {
	if r.Spec == "" || bc.inv == nil || strings.ContainsAny(r.Spec, "*?") && !strings.HasSuffix(r.Spec, ":*") {
		return false
	}
	text := strings.TrimSuffix(strings.TrimSpace(r.Spec), ":*")
	fields := strings.Fields(text)
	if len(fields) < 2 {
		return false
	}
	argv := make([]word, len(fields))
	for i, f := range fields {
		argv[i] = word{val: f}
	}
	rc := &simpleCmd{argv: argv, cwd: r.Base}
	if rc.name() != bc.sc.name() {
		return false
	}
	ri := c.readCommand(rc).inv
	if ri == nil || ri.spec != bc.inv.spec || ri.unknown != "" {
		return false
	}
	for o := range ri.opts {
		if !bc.inv.opts[o] {
			return false
		}
	}
	cmdPaths := map[string]bool{}
	for _, acc := range c.readCommand(bc.sc).accs {
		cmdPaths[acc.real] = true
	}
	for _, acc := range c.readCommand(rc).accs {
		if !acc.known() || !cmdPaths[acc.real] {
			return false
		}
	}
	for _, p := range ri.pos {
		if ri.spec.pos == argVal && !slices.ContainsFunc(bc.inv.pos, func(w word) bool { return w.val == p.val }) {
			return false
		}
	}
	return true
}

// flattenScripts brings what the scripts a command runs (sh build.sh,
// ./run.sh) would run into a, as commands of their own. When a rule allows
// running the script, its commands are covered by that rule: what is
// denied, sensitive or written outside still counts, what nova cannot see
// into or does not know does not (the person allowed the script).
func (c *Checker) flattenScripts(a *analysis, covered bool) {
	for i := 0; i < len(a.cmds); i++ {
		sc := a.cmds[i]
		if sc.sub == nil {
			continue
		}
		sub := sc.sub
		sc.sub = nil
		cover := covered || sc.covered
		if !cover {
			_, cover = firstRule(c.allow, func(r Rule) bool { return r.Tool == "Bash" && r.Spec != "" && r.matchBash(sc.ruleText) })
		}
		c.flattenScripts(sub, cover)
		for _, s := range sub.cmds {
			s.covered = s.covered || cover
		}
		for j := range sub.redirs {
			sub.redirs[j].covered = sub.redirs[j].covered || cover
		}
		a.cmds = append(a.cmds, sub.cmds...)
		a.redirs = append(a.redirs, sub.redirs...)
		if sub.forkBomb != "" {
			a.forkBomb = sub.forkBomb
		}
		if !cover || !sub.argsKnown {
			// What a script a rule allows cannot be seen into is covered by
			// the rule, unless its caller handed it words nobody can read.
			a.opaque = append(a.opaque, sub.opaque...)
		}
	}
}

// allAccesses lists the redirections' accesses and every command's; the
// accesses of commands in ruled are marked as allowed by a rule.
func allAccesses(cmds []bashCmd, redirs []access, ruled map[*simpleCmd]bool) []access {
	out := append([]access(nil), redirs...)
	for _, bc := range cmds {
		for _, acc := range bc.accs {
			acc.ruled = ruled[bc.sc]
			out = append(out, acc)
		}
	}
	return out
}

// bashAllowed is layers 3 (allow rules) to 5: every command must be allowed
// by a rule, be read-only, or be an edit acceptEdits allows, and every path
// it touches must be allowed.
func (c *Checker) bashAllowed(req Request, cmds []bashCmd, redirs []access) Decision {
	mode := c.modeOf(req)
	used := ""
	var unapproved []bashCmd
	ruled := map[*simpleCmd]bool{}
	// A bare "Bash" allow rule allows every command, the variables it sets
	// included, and lets any command write anywhere in the workspace (cp,
	// tee ...), so a redirection there needs no question either.
	isWhole := func(r Rule) bool { return r.Tool == "Bash" && r.Spec == "" }
	_, wholeBash := firstRule(c.allow, isWhole)
	// A call that leaves the sandbox: rules cover only what
	// sandbox.excludedCommands names (leave.go).
	wholeFor := func(bc bashCmd) bool { _, ok := firstRule(c.allowFor(req, bc.sc), isWhole); return ok }
	if req.LeavesSandbox {
		wholeBash = len(cmds) > 0 && !slices.ContainsFunc(cmds, func(bc bashCmd) bool { return !wholeFor(bc) })
	}
	for _, bc := range cmds {
		switch {
		case bc.sc.covered && req.LeavesSandbox:
			// A script's commands, covered by a rule for the script inside
			// the sandbox: outside, they are asked about.
			unapproved = append(unapproved, bashCmd{sc: bc.sc, why: "runs " + bc.sc.ruleText + " outside the sandbox"})
		case bc.sc.covered:
			// A command of a script a rule allows: the rule covers it,
			// its files are judged below.
			used, ruled[bc.sc] = "the rule that allows the script", true
		case bc.sc.asks != "" && wholeFor(bc):
			used, ruled[bc.sc] = "Bash", true
		case bc.sc.asks != "":
			unapproved = append(unapproved, bc) // no narrower rule may wave through PATH=... cmd
		case bc.readOnly || bc.sc.decl:
		default:
			if r, ok := firstRule(c.allowFor(req, bc.sc), func(r Rule) bool { return r.Tool == "Bash" && r.matchBash(bc.sc.ruleText) }); ok {
				// A rule allows the command, not the programs its options
				// name: those still ask; its files are judged below.
				if bc.inv != nil && len(bc.inv.execs) > 0 {
					unapproved = append(unapproved, bashCmd{sc: bc.sc, why: bc.inv.spec.name + " " + "runs " + bc.inv.execs[0].val + " (a rule allows " + r.Raw + ", not what its options run)"})
					continue
				}
				// A rule for a program that reads (Bash(find:*), Bash(sort:*))
				// allows reading: an option that writes or deletes (find
				// -delete, -fprint, sort -o) asks unless the rule names it.
				if bc.inv != nil && bc.inv.spec.readOnly && bc.inv.writeOpt != "" && !ruleNamesOption(r, bc.inv.writeOpt) {
					unapproved = append(unapproved, bashCmd{sc: bc.sc, why: bc.inv.spec.name + " " + bc.inv.writeOpt + " writes or deletes files (a rule allows " + r.Raw + ", which reads, not its options that write)"})
					continue
				}
				used, ruled[bc.sc] = r.Raw, true
				continue
			}
			if mode == ModeAcceptEdits && c.editInside(bc) {
				continue
			}
			unapproved = append(unapproved, bc)
		}
	}
	accs := allAccesses(cmds, redirs, ruled)
	var pending []access
	runtimeOnly := true // everything pending is a read only known at run time
	for _, acc := range accs {
		if r, ok := firstRule(c.allow, func(r Rule) bool { return c.bashPathRule(r, acc, true) }); ok {
			used = r.Raw
			continue
		}
		switch {
		case c.readable(acc):
			continue
		case !acc.known():
			pending = append(pending, acc)
			runtimeOnly = runtimeOnly && !acc.write
			continue
		case c.inside(acc) && acc.follow && c.linkOut(acc.real) != "":
			// grep -R and rg -L follow links: one leading out reads outside.
			acc.shown, acc.path, acc.real = acc.path+" (through the link "+c.linkOut(acc.real)+")", c.linkTarget(acc.real), c.linkTarget(acc.real)
		case c.inside(acc) && (!acc.write || mode == ModeAcceptEdits || acc.ruled):
			continue
		case c.inside(acc) && wholeBash:
			used = "Bash"
			continue
		}
		pending = append(pending, acc)
		runtimeOnly = false
	}
	auto := used == ""
	switch {
	case len(unapproved) == 0 && len(pending) == 0 && used != "":
		return Decision{Behavior: Allow, Layer: LayerRule, Rule: used, Reason: "every command and path is allowed (rule " + used + ")"}
	case len(unapproved) == 0 && len(pending) == 0:
		return Decision{Behavior: Allow, Layer: LayerMode, Reason: "read-only commands inside the workspace", Auto: auto}
	case len(unapproved) == 0 && runtimeOnly && req.Sandboxed:
		return Decision{Behavior: Allow, Layer: LayerSandbox, Reason: "read-only commands whose files are only known at run time, confined by the sandbox", Auto: auto}
	case req.Sandboxed && c.cfg.SandboxAutoAllow:
		return Decision{Behavior: Allow, Layer: LayerSandbox, Reason: "runs inside the sandbox (sandbox.autoAllow)"}
	case mode == ModeBypass:
		// A path only known at run time may be a credential or a git hook,
		// which even bypassPermissions does not open; the sandbox would
		// confine it, without one nova asks.
		for _, acc := range pending {
			if !acc.known() && !req.Sandboxed {
				return Decision{Behavior: Ask, Layer: LayerPath, Reason: "touches " + acc.shown + ", a path only known at run time, which may be a sensitive file; bypassPermissions opens it only inside the sandbox"}
			}
		}
		return c.bypassed(req)
	}
	// A rule for the command covers its own files inside the workspace,
	// so only other files get a path rule of their own.
	var others []access
	mine := map[*simpleCmd]bool{}
	for _, bc := range unapproved {
		mine[bc.sc] = true
	}
	for _, bc := range cmds {
		for _, acc := range bc.accs {
			if !mine[bc.sc] || !c.inside(acc) {
				others = append(others, acc)
			}
		}
	}
	others = append(others, redirs...)
	var pendingOthers []access
	for _, p := range pending {
		for _, o := range others {
			if o.path == p.path && o.write == p.write {
				pendingOthers = append(pendingOthers, p)
				break
			}
		}
	}
	sugg := c.bashSuggestions(unapproved, pendingOthers)
	for _, acc := range pending {
		if acc.known() && !c.inside(acc) {
			// Where it goes matters more to a person than which program.
			return Decision{Behavior: Ask, Layer: LayerPath, Reason: fmt.Sprintf("%s %s, outside the workspace", verbOf(acc), acc.path), Suggestions: sugg}
		}
	}
	if len(unapproved) > 0 {
		bc := unapproved[0]
		why := bc.why
		if bc.sc.asks != "" {
			why = bc.sc.asks
		}
		if why == "" {
			why = bc.sc.ruleText
		}
		return Decision{Behavior: Ask, Layer: LayerMode, Reason: "needs approval: " + why, Suggestions: sugg}
	}
	acc := pending[0]
	switch {
	case !acc.known():
		reason := "touches " + acc.shown + ", a path only known at run time"
		if !req.Sandboxed && runtimeOnly {
			reason += " (inside the sandbox it would run without asking)"
		}
		return Decision{Behavior: Ask, Layer: LayerPath, Reason: reason}
	case !c.inside(acc):
		return Decision{Behavior: Ask, Layer: LayerPath, Reason: fmt.Sprintf("%s %s, outside the workspace", verbOf(acc), acc.path), Suggestions: sugg}
	}
	return Decision{Behavior: Ask, Layer: LayerMode, Reason: fmt.Sprintf("%s %s", verbOf(acc), acc.path), Suggestions: sugg}
}

// ruleNamesOption reports whether rule r spells out option opt itself
// (Bash(find . -name *.o -delete)): the user allowed that write by name.
func ruleNamesOption(r Rule, opt string) bool {
	for _, f := range strings.Fields(r.Spec) {
		if f == opt || strings.HasPrefix(f, opt+"=") {
			return true
		}
	}
	return false
}

// bashCommands reads every simple command against the table, with the
// files each command's entry names, and returns them with the files the
// redirections read and write.
func (c *Checker) bashCommands(a *analysis, req Request) ([]bashCmd, []access) {
	var accs []access
	for _, r := range a.redirs {
		cwd := r.cwd
		for _, acc := range c.wordAccesses(r.target, cwd, r.write) {
			acc.ruled = r.covered
			if !ignoredPath(acc.path) {
				accs = append(accs, acc)
			}
		}
	}
	carried := ""
	for _, kv := range req.ShellEnv {
		name, val, hasVal := strings.Cut(kv, "=")
		if !safeExport(name, val, !hasVal) {
			carried = name + " is set in the session's shell (an earlier command exported it), and it changes what programs do; unset it or approve"
			break
		}
	}
	cmds := make([]bashCmd, 0, len(a.cmds))
	for _, sc := range a.cmds {
		if carried != "" && sc.asks == "" && !sc.decl {
			sc.asks = carried
		}
		cmds = append(cmds, c.readCommand(sc))
	}
	return cmds, accs
}

// readCommand looks sc up in the table and works out its files.
func (c *Checker) readCommand(sc *simpleCmd) bashCmd {
	bc := bashCmd{sc: sc}
	if sc.decl {
		bc.readOnly = sc.asks == ""
		return bc
	}
	name := sc.name()
	switch {
	case name == "":
		bc.why = "the program is only known at run time"
		return bc
	case sc.privileged:
		bc.why = "runs as another user: " + sc.ruleText
		return bc
	case name == "git":
		bc.inv = c.gitInvocation(sc.argv[1:])
	default:
		if sp, args := c.specFor(sc); sp != nil {
			bc.inv = c.parseArgs(sp, args)
		}
	}
	if name == "git" {
		f := c.gitConfigWrite(sc)
		if bc.inv != nil {
			c.gitConfigValues(&bc, f != "")
		}
		if f != "" {
			bc.accs = append(bc.accs, c.newAccess(f, "/", true))
			bc.why = "git writes its configuration (" + f + ")"
			return bc
		}
	}
	if bc.inv == nil {
		bc.why = sc.ruleText
		return bc
	}
	inv := bc.inv
	cwd := sc.cwd
	for _, w := range inv.reads {
		for _, acc := range c.wordAccesses(w, cwd, false) {
			acc.tree = inv.tree
			if !ignoredPath(acc.path) {
				bc.accs = append(bc.accs, acc)
			}
		}
	}
	for _, w := range inv.writes {
		for _, acc := range c.wordAccesses(w, cwd, true) {
			acc.tree = inv.rec
			if !ignoredPath(acc.path) {
				bc.accs = append(bc.accs, acc)
			}
		}
	}
	for _, l := range inv.listed {
		bc.accs = append(bc.accs, access{shown: "the files " + l.val + " lists"})
	}
	for i := range bc.accs {
		bc.accs[i].follow = inv.follow && !bc.accs[i].write
	}
	if sc.runtimeArg && !inv.spec.anyArgs {
		// xargs and find -exec add words nova cannot see: files, or
		// options, which in a program with options that write or run may
		// be one of those.
		if inv.spec.risky && inv.unknown == "" {
			inv.unknown = "arguments " + sc.via + " supplies at run time"
		}
		bc.accs = append(bc.accs, access{shown: "the files " + sc.via + " supplies at run time", tree: inv.tree, write: len(inv.writes) > 0 || inv.inplace})
	}

	if inv.markSeen("dynword") && len(inv.pos) > 0 && inv.spec.pos == argVal {
		// $X may expand to options of a program whose words are values.
		bc.accs = append(bc.accs, access{shown: "options only known at run time"})
	}
	bc.readOnly = inv.readOnly() && sc.asks == ""
	if !bc.readOnly {
		bc.why = inv.why()
		if sc.asks != "" {
			bc.why = sc.asks
		}
		if bc.why == "" {
			bc.why = sc.ruleText
		}
	}
	if bc.readOnly && name == "git" {
		if why := c.gitHazard(sc, inv); why != "" {
			bc.readOnly, bc.why = false, why
		}
	}
	return bc
}

// editInside reports whether bc is a file edit acceptEdits runs without
// asking: mkdir, touch, cp, mv, rm (not recursive), sed -i, on files that
// are all known and inside the workspace.
func (c *Checker) editInside(bc bashCmd) bool {
	inv := bc.inv
	if inv == nil || bc.sc.asks != "" || inv.unknown != "" || len(inv.execs) > 0 || inv.net != "" || inv.effect != "" {
		return false
	}
	if !inv.spec.edit && !(inv.spec.name == "sed" && inv.inplace) {
		return false
	}
	if inv.rec && inv.spec.name == "rm" {
		return false
	}
	for _, acc := range bc.accs {
		if !acc.known() || !c.inside(acc) {
			return false
		}
	}
	return true
}
