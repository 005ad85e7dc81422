package permission

import (
	"fmt"
	"path/filepath"
	"strings"
)

// bashCmd is one simple command of a Bash call and what layers 3 and 4
// need to know about it.
type bashCmd struct {
	sc    *simpleCmd
	safe  bool     // in the read-only table with acceptable arguments
	reads []access // paths a safe command reads
}

// checkBash decides a Bash call, looking at every simple command it runs.
func (c *Checker) checkBash(req Request) Decision {
	a := analyzeShell(req.Command, filepath.Clean(req.Workdir), c.home)
	// Layer 1: catastrophic commands, and commands that cannot be seen into.
	if b, why := c.dangerous(a); b != "" {
		return Decision{Behavior: b, Layer: LayerDangerous, Reason: why}
	}
	cmds, accs := c.bashAccesses(a)
	// Layer 2: system files are never written; sensitive files always ask.
	hard := ""
	for _, acc := range accs {
		if acc.write && acc.path != "" && (systemPath(acc.path) || systemPath(acc.real)) {
			return Decision{Behavior: Deny, Layer: LayerPath, Reason: "writes " + acc.path + ", a system file"}
		}
		if why := c.sensitiveAccess(acc); why != "" && hard == "" {
			hard = why
		}
	}
	for _, bc := range cmds {
		if !bc.safe && hard == "" {
			hard = c.sensitiveArgs(bc.sc)
		}
	}
	// Layer 3: deny beats ask beats allow, for every command and path.
	anyForm := func(r Rule, bc bashCmd) bool {
		for _, f := range bc.sc.forms {
			if r.matchBash(f) {
				return true
			}
		}
		return false
	}
	for _, list := range []struct {
		b     Behavior
		rules []Rule
	}{{Deny, c.deny}, {Ask, c.ask}} {
		if list.b == Ask && hard != "" {
			return Decision{Behavior: Ask, Layer: LayerPath, Reason: hard + "; it is never used without asking"}
		}
		for _, bc := range cmds {
			if r, ok := firstRule(list.rules, func(r Rule) bool { return r.Tool == "Bash" && anyForm(r, bc) }); ok {
				return ruleDecision(list.b, r, "command "+joinWords(bc.sc.argv))
			}
		}
		for _, acc := range accs {
			if r, ok := firstRule(list.rules, func(r Rule) bool { return c.bashPathRule(r, acc) }); ok {
				return ruleDecision(list.b, r, verbOf(acc)+" "+acc.path)
			}
		}
	}
	if c.cfg.SandboxUnavailable {
		return Decision{Behavior: Ask, Layer: LayerSandbox, Reason: "the Bash sandbox is enabled but not available on this machine, so every command needs approval"}
	}
	mode := c.cfg.Mode
	if mode == ModePlan {
		for _, bc := range cmds {
			if !bc.safe {
				return Decision{Behavior: Deny, Layer: LayerMode, Reason: "plan mode allows only read-only commands: present the plan with ExitPlanMode first"}
			}
		}
		for _, acc := range accs {
			if acc.write {
				return Decision{Behavior: Deny, Layer: LayerMode, Reason: "plan mode allows no writes: present the plan with ExitPlanMode first"}
			}
		}
	}
	// Every command must be allowed by a rule or be read-only, and every
	// path it touches must be allowed.
	used := ""
	var unapproved []*simpleCmd
	for _, bc := range cmds {
		if bc.sc.riskyEnv != "" {
			unapproved = append(unapproved, bc.sc) // no rule may wave through PATH=... cmd
			continue
		}
		if r, ok := firstRule(c.allow, func(r Rule) bool { return r.Tool == "Bash" && r.matchBash(bc.sc.ruleText) }); ok {
			used = r.Raw
			continue
		}
		if !bc.safe {
			unapproved = append(unapproved, bc.sc)
		}
	}
	// A bare "Bash" allow rule already lets any command write anywhere in
	// the workspace (cp, tee ...), so a redirection there needs no question.
	_, wholeBash := firstRule(c.allow, func(r Rule) bool { return r.Tool == "Bash" && r.Spec == "" })
	var pending []access
	for _, acc := range accs {
		if r, ok := firstRule(c.allow, func(r Rule) bool { return c.bashPathRule(r, acc) }); ok {
			used = r.Raw
			continue
		}
		if acc.path != "" && c.inside(acc) && (!acc.write || mode == ModeAcceptEdits || wholeBash) {
			continue
		}
		pending = append(pending, acc)
	}
	if len(unapproved) == 0 && len(pending) == 0 {
		if used != "" {
			return Decision{Behavior: Allow, Layer: LayerRule, Rule: used, Reason: "every command and path is allowed (rule " + used + ")"}
		}
		return Decision{Behavior: Allow, Layer: LayerMode, Reason: "read-only commands inside the workspace"}
	}
	if c.cfg.Sandboxed && c.cfg.SandboxAutoAllow {
		return Decision{Behavior: Allow, Layer: LayerSandbox, Reason: "runs inside the sandbox (sandbox.autoAllow)"}
	}
	if mode == ModeBypass {
		return Decision{Behavior: Allow, Layer: LayerMode, Reason: "bypassPermissions mode"}
	}
	sugg := c.bashSuggestions(unapproved, pending)
	if len(unapproved) > 0 {
		return Decision{Behavior: Ask, Layer: LayerMode, Reason: "needs approval: " + unapproved[0].ruleText, Suggestions: sugg}
	}
	acc := pending[0]
	switch {
	case acc.path == "":
		return Decision{Behavior: Ask, Layer: LayerPath, Reason: "touches " + acc.shown + ", a path only known at run time"}
	case !c.inside(acc):
		return Decision{Behavior: Ask, Layer: LayerPath, Reason: fmt.Sprintf("%s %s, outside the workspace", verbOf(acc), acc.path), Suggestions: sugg}
	}
	return Decision{Behavior: Ask, Layer: LayerMode, Reason: fmt.Sprintf("%s %s", verbOf(acc), acc.path), Suggestions: sugg}
}

// bashAccesses classifies the simple commands of a and collects every path
// they read or write: redirections and the paths of read-only commands.
func (c *Checker) bashAccesses(a *analysis) ([]bashCmd, []access) {
	var accs []access
	for _, r := range a.redirs {
		if r.target.dyn {
			accs = append(accs, access{shown: r.target.val, write: r.write})
			continue
		}
		if acc := c.newAccess(r.target.val, r.cwd, r.write); !ignoredPath(acc.path) {
			accs = append(accs, acc)
		}
	}
	cmds := make([]bashCmd, 0, len(a.cmds))
	for _, sc := range a.cmds {
		bc := bashCmd{sc: sc}
		if words, ok := safeReads(sc); ok {
			bc.safe = true
			if len(words) == 0 && readsCwd(sc.name()) {
				words = []word{{val: "."}} // ls, git status: the current directory
			}
			for _, w := range words {
				if w.dyn {
					bc.reads = append(bc.reads, access{shown: w.val})
				} else if acc := c.newAccess(w.val, sc.cwd, false); !ignoredPath(acc.path) {
					bc.reads = append(bc.reads, acc)
				}
			}
			if sc.runtimeArg && !safeCommands()[sc.name()].noPaths {
				bc.reads = append(bc.reads, access{shown: "the arguments " + sc.via + " supplies"})
			}
			accs = append(accs, bc.reads...)
		}
		cmds = append(cmds, bc)
	}
	return cmds, accs
}

// readsCwd names read-only commands that read the current directory when
// given no path.
func readsCwd(name string) bool {
	switch name {
	case "ls", "tree", "du", "rg", "git", "find":
		return true
	}
	return false
}

// bashPathRule reports whether a Read or Edit rule covers a path a Bash
// command reads or writes.
func (c *Checker) bashPathRule(r Rule, acc access) bool {
	if r.Spec == "" || acc.path == "" {
		return false
	}
	tool := "Read"
	if acc.write {
		tool = "Edit"
	}
	return (r.Tool == tool || r.Tool == "Write" && acc.write) && c.pathRuleMatch(r, r.Tool, acc)
}

// sensitiveArgs returns why an argument of a command whose effects nova
// cannot read names a sensitive file, or "".
func (c *Checker) sensitiveArgs(sc *simpleCmd) string {
	if len(sc.argv) == 0 {
		return ""
	}
	for _, a := range sc.argv[1:] {
		v := a.val
		if _, after, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "-") {
			v = after
		}
		if a.dyn || v == "" {
			continue
		}
		if why := c.sensitiveAccess(c.newAccess(v, sc.cwd, true)); why != "" {
			return why
		}
	}
	return ""
}

// bashSuggestions proposes narrow rules that would allow what was asked.
func (c *Checker) bashSuggestions(cmds []*simpleCmd, pending []access) []string {
	var out []string
	add := func(s string) {
		if s != "" && !contains(out, s) {
			out = append(out, s)
		}
	}
	for _, sc := range cmds {
		add(suggestBash(sc))
	}
	for _, acc := range pending {
		if acc.path == "" {
			continue
		}
		if acc.write {
			add("Edit(" + c.dirPattern(acc.path) + ")")
		} else {
			add("Read(" + c.dirPattern(acc.path) + ")")
		}
	}
	return out
}

// suggestBash proposes a rule for one command: a prefix rule up to its
// subcommand (Bash(npm run test:*)), or the exact command for programs
// whose every use deserves a look (rm, curl, git push).
func suggestBash(sc *simpleCmd) string {
	if len(sc.argv) == 0 || sc.privileged || sc.riskyEnv != "" || sc.via == "xargs" || sc.via == "find -exec" {
		return ""
	}
	var words []string
	for _, w := range sc.argv {
		if w.dyn || strings.ContainsAny(w.val, "()\n") {
			return ""
		}
		words = append(words, w.val)
	}
	name := filepath.Base(words[0])
	sub := ""
	if len(words) > 1 {
		sub = words[1]
	}
	switch name {
	case "git":
		if sub == "push" || sub == "reset" || sub == "clean" || sub == "checkout" || sub == "rebase" || strings.HasPrefix(sub, "-") {
			return exactRule(words)
		}
		return prefixRule(words, 2)
	case "rm", "mv", "cp", "dd", "chmod", "chown", "curl", "wget", "ssh", "scp", "rsync", "kill", "pkill", "eval",
		"sh", "bash", "zsh", "env", "xargs", "find", "sed", "awk", "perl", "tee", "ln", "truncate", "shred", "touch", "mkdir", "sudo":
		return exactRule(words)
	case "npm", "pnpm", "yarn", "bun":
		if sub == "run" || sub == "run-script" || sub == "exec" || sub == "x" || sub == "dlx" {
			return prefixRule(words, 3)
		}
		return prefixRule(words, 2)
	case "go", "cargo", "docker", "kubectl", "make", "pip", "pip3", "uv", "poetry", "gh", "dotnet", "mvn", "gradle",
		"terraform", "helm", "npx", "deno", "bundle", "rake", "mix", "swift", "python", "python3", "node", "ruby", "pytest", "just":
		return prefixRule(words, 2)
	}
	return prefixRule(words, 1)
}

func exactRule(words []string) string { return "Bash(" + strings.Join(words, " ") + ")" }

// prefixRule is Bash(first n words:*), stopping early at an option or a
// path, or the exact command when nothing follows.
func prefixRule(words []string, n int) string {
	k := 1
	for k < n && k < len(words) && !strings.HasPrefix(words[k], "-") && !strings.ContainsAny(words[k], "/=*") {
		k++
	}
	if k == len(words) {
		return exactRule(words)
	}
	return "Bash(" + strings.Join(words[:k], " ") + ":*)"
}
