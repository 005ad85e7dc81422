package permission

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Rule is one parsed permission rule: Tool or Tool(specifier).
type Rule struct {
	Raw    string // as written
	Tool   string // Bash, Read, Edit, WebFetch, mcp__server__tool ...
	Spec   string // the specifier; "" means the whole tool
	Source string // the settings file or "--allowedTools" it came from
	Base   string // the project directory ./ patterns are relative to
	// grant names the Grant that added the rule for a while; 0 for rules
	// that last as long as the Checker.
	grant uint64
}

// RuleSet is the allow, ask and deny lists of one source.
type RuleSet struct {
	Source string // e.g. /p/.nova/settings.json, --allowedTools
	Base   string // directory ./ and bare path patterns are relative to
	Allow  []string
	Ask    []string
	Deny   []string
}

// ParseRule parses "Tool" or "Tool(specifier)" and checks the specifier
// fits the tool.
func ParseRule(s string) (Rule, error) {
	raw := s
	s = strings.TrimSpace(s)
	r := Rule{Raw: s}
	name, spec, hasSpec := strings.Cut(s, "(")
	name = strings.TrimSpace(name)
	if name == "" {
		return r, fmt.Errorf("rule %q: no tool name", raw)
	}
	for i, ch := range name {
		ok := ch == '_' || ch == '-' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9' ||
			ch == '*' && i == len(name)-1 && strings.HasPrefix(name, "mcp__")
		if !ok {
			return r, fmt.Errorf("rule %q: tool name %q may hold only letters, digits, _ and -", raw, name)
		}
	}
	if name == "Task" {
		// Claude Code's older name of the Agent tool, in settings written
		// for it.
		name = "Agent"
	}
	r.Tool = name
	if !hasSpec {
		return r, nil
	}
	if !strings.HasSuffix(spec, ")") {
		return r, fmt.Errorf("rule %q: missing closing parenthesis", raw)
	}
	spec = strings.TrimSpace(strings.TrimSuffix(spec, ")"))
	if spec == "" {
		return r, fmt.Errorf("rule %q: empty specifier; write %s alone for the whole tool", raw, name)
	}
	if spec == "*" || spec == "**" {
		return r, nil
	}
	r.Spec = spec
	switch {
	case name == "Bash":
		if i := strings.Index(spec, ":*"); i >= 0 && i != len(spec)-2 {
			return r, fmt.Errorf("rule %q: \":*\" may only end a Bash prefix rule", raw)
		}
	case name == "WebFetch":
		d, ok := strings.CutPrefix(spec, "domain:")
		if !ok || strings.TrimSpace(d) == "" || strings.ContainsAny(d, "/ ") {
			return r, fmt.Errorf("rule %q: WebFetch rules look like WebFetch(domain:example.com)", raw)
		}
	case name == "Skill":
		r.Spec = strings.TrimPrefix(spec, "/")
		base := strings.TrimSuffix(strings.TrimSuffix(r.Spec, ":*"), " *")
		if base == "" || strings.ContainsAny(base, "*() ") {
			return r, fmt.Errorf("rule %q: Skill rules look like Skill(name), Skill(prefix:*) or Skill(name *)", raw)
		}
	case name == "Agent":
		if strings.ContainsAny(spec, "*() \t") {
			return r, fmt.Errorf("rule %q: Agent rules look like Agent(type), naming one agent type (Agent(Explore))", raw)
		}
	case strings.HasPrefix(name, "mcp__"):
		return r, fmt.Errorf("rule %q: MCP rules take no specifier; use mcp__server or mcp__server__tool", raw)
	case !doublestar.ValidatePattern(strings.TrimPrefix(spec, "/")):
		return r, fmt.Errorf("rule %q: bad path pattern %q", raw, spec)
	}
	return r, nil
}

// pathRule reports whether a tool's specifier is a path pattern: every
// tool's is (Read, Edit, Write, Grep, a tool added tomorrow) but Bash's, a
// command, WebFetch's, a domain, and MCP tools', which take none.
func pathRule(tool string) bool {
	return tool != "Bash" && tool != "WebFetch" && tool != "Skill" && tool != "Agent" && !strings.HasPrefix(tool, "mcp__")
}

// matchSkill reports whether a Skill rule covers the skill named name, as
// Claude Code's do: Skill(name) that skill, Skill(prefix:*) every skill
// whose name starts with prefix (Skill(ops:*) covers ops:deploy), and
// Skill(name *) that skill with any arguments, which is that skill.
func (r Rule) matchSkill(name string) bool {
	name = strings.TrimPrefix(name, "/")
	switch {
	case r.Spec == "":
		return true
	case name == "":
		return false
	case strings.HasSuffix(r.Spec, ":*"):
		return strings.HasPrefix(name, strings.TrimSuffix(r.Spec, ":*"))
	}
	return name == strings.TrimSuffix(r.Spec, " *")
}

// covers reports whether the rule applies to req and returns the paths of
// it the rule speaks about. A rule naming the tool covers all its paths.
// Edit covers what any tool writes, Read what any tool reads, as the
// request says: no list of tools, so a new file tool is covered the day
// it declares its paths. A call of an edit tool whose paths could not be
// read is still an edit, and a bare Edit rule covers it.
func (r Rule) covers(req Request, accs []access) ([]access, bool) {
	switch {
	case r.Tool == req.Tool:
		return accs, true
	case r.Tool == "Edit" || r.Tool == "Read":
		write := r.Tool == "Edit"
		var out []access
		for _, a := range accs {
			if a.write == write {
				out = append(out, a)
			}
		}
		return out, len(out) > 0 || write && req.Kind == KindEdit
	case strings.HasPrefix(r.Tool, "mcp__") && strings.HasPrefix(req.Tool, "mcp__"):
		if p, ok := strings.CutSuffix(r.Tool, "*"); ok {
			return accs, strings.HasPrefix(req.Tool, p)
		}
		return accs, strings.HasPrefix(req.Tool, r.Tool+"__")
	}
	return nil, false
}

// matchBash reports whether a Bash rule matches the text of one simple
// command.
func (r Rule) matchBash(text string) bool {
	if r.Spec == "" {
		return true
	}
	text = strings.Join(strings.Fields(text), " ")
	spec := strings.Join(strings.Fields(r.Spec), " ")
	if p, ok := strings.CutSuffix(spec, ":*"); ok {
		p = strings.TrimSpace(p)
		return text == p || strings.HasPrefix(text, p+" ")
	}
	if strings.Contains(spec, "*") {
		return wildcard(spec, text)
	}
	return text == spec
}

// wildcard matches s against pattern where * stands for any text.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}

// pattern turns a path specifier into an absolute doublestar pattern:
// //abs, ~/home, ./ or / relative to the rule's project, and bare names
// matching at any depth below it, like .gitignore.
func (r Rule) pattern(home string) string {
	s := r.Spec
	var p string
	switch {
	case strings.HasPrefix(s, "//"):
		p = s[1:]
	case s == "~" || strings.HasPrefix(s, "~/"):
		p = home + s[1:]
	case strings.HasPrefix(s, "./"), strings.HasPrefix(s, "/"):
		p = r.Base + "/" + strings.TrimPrefix(strings.TrimPrefix(s, "."), "/")
	case strings.Contains(strings.TrimSuffix(s, "/"), "/"):
		p = r.Base + "/" + s
	default:
		p = r.Base + "/**/" + s
	}
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	return filepath.ToSlash(p)
}

// matchPath reports whether a path rule covers p or a directory above it.
func (r Rule) matchPath(p, home string) bool {
	if r.Spec == "" {
		return true
	}
	if p == "" {
		return false
	}
	pat := r.pattern(home)
	for q := p; ; q = filepath.Dir(q) {
		if ok, _ := doublestar.Match(pat, filepath.ToSlash(q)); ok {
			return true
		}
		if q == filepath.Dir(q) {
			return false
		}
	}
}

// matchDomain reports whether a WebFetch rule covers host.
func (r Rule) matchDomain(host string) bool {
	if r.Spec == "" {
		return true
	}
	return MatchHost(strings.TrimPrefix(r.Spec, "domain:"), host)
}

// parseRules parses the lists of every source, naming the source of a bad
// rule.
func parseRules(sets []RuleSet) (allow, ask, deny []Rule, err error) {
	for _, set := range sets {
		for _, l := range []struct {
			in  []string
			out *[]Rule
		}{{set.Allow, &allow}, {set.Ask, &ask}, {set.Deny, &deny}} {
			for _, s := range l.in {
				r, perr := ParseRule(s)
				if perr != nil {
					return nil, nil, nil, fmt.Errorf("%s: %w", set.Source, perr)
				}
				r.Source, r.Base = set.Source, filepath.Clean(set.Base)
				*l.out = append(*l.out, r)
			}
		}
	}
	return allow, ask, deny, nil
}

// SplitToolList splits a --allowedTools / --disallowedTools value on commas
// and spaces outside parentheses: "Bash(git log:*),Edit Read".
func SplitToolList(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
	}
	for i, ch := range s {
		switch {
		case ch == '(':
			depth++
		case ch == ')' && depth > 0:
			depth--
		case (ch == ',' || ch == ' ') && depth == 0:
			flush(i)
			start = i + 1
		}
	}
	flush(len(s))
	return out
}

// commandForms returns the spellings deny and ask rules are matched
// against: as written (privileged wrappers included), the program alone,
// by its base name (deny rules name programs, wherever they are run
// from), and with global options taken out (git -C . push is git push).
func commandForms(argv, prefix []word) []string {
	full := append(append([]word(nil), prefix...), argv...)
	forms := []string{joinWords(full), joinWords(argv)}
	if len(argv) == 0 || argv[0].dyn {
		return forms
	}
	base := append([]word{{val: filepath.Base(argv[0].val)}}, argv[1:]...)
	forms = append(forms, joinWords(base))
	if norm, ok := stripGlobalOptions(base); ok {
		forms = append(forms, joinWords(norm))
	}
	return forms
}

// globalOptions lists, for programs with subcommands, the options that
// may come before the subcommand and whether each takes a value.
func globalOptions(prog string) map[string]bool {
	switch prog {
	case "git":
		return map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
			"--exec-path": false, "--super-prefix": true, "--config-env": true, "--attr-source": true}
	case "docker", "podman":
		return map[string]bool{"-H": true, "--host": true, "--context": true, "-c": true, "--config": true, "-l": true, "--log-level": true}
	case "kubectl":
		return map[string]bool{"-n": true, "--namespace": true, "--context": true, "--kubeconfig": true, "-s": true, "--server": true}
	case "npm", "pnpm", "yarn":
		return map[string]bool{"--prefix": true, "-C": true, "--dir": true, "--cwd": true, "-w": true, "--workspace": true, "--filter": true}
	case "cargo":
		return map[string]bool{"-C": true, "--config": true, "-Z": true, "--manifest-path": true}
	case "go", "make":
		return map[string]bool{"-C": true, "-f": true, "--file": true, "--directory": true}
	}
	return nil
}

// stripGlobalOptions drops the options before the subcommand of a program
// that has them: git --no-pager -C . push origin main is git push origin
// main. ok is false when there were none to drop.
func stripGlobalOptions(argv []word) ([]word, bool) {
	opts := globalOptions(argv[0].val)
	if opts == nil {
		return nil, false
	}
	i := 1
	for i < len(argv) && !argv[i].dyn && strings.HasPrefix(argv[i].val, "-") && argv[i].val != "--" {
		name, _, glued := strings.Cut(argv[i].val, "=")
		i++
		if opts[name] && !glued {
			i++
		}
		if strings.HasPrefix(name, "+") { // cargo +nightly
			continue
		}
	}
	if i == 1 || i > len(argv) {
		return nil, false
	}
	return append([]word{argv[0]}, argv[i:]...), true
}

// matchForms reports whether a Bash rule matches any spelling of sc.
func (r Rule) matchForms(sc *simpleCmd) bool {
	for _, f := range sc.forms {
		if r.matchBash(f) {
			return true
		}
	}
	return false
}

// maybeBash reports whether a deny or ask rule could match sc once what is
// only known at run time is known: a word the rule spells is a variable or
// a substitution (g=push; git $g), or git's subcommand may be an alias
// (git -c alias.p=push p).
func (r Rule) maybeBash(sc *simpleCmd) bool {
	if r.Spec == "" || len(sc.argv) == 0 {
		return false
	}
	ruleWords := strings.Fields(strings.TrimSuffix(strings.TrimSpace(r.Spec), ":*"))
	if len(ruleWords) == 0 {
		return false
	}
	argv := sc.argv
	if !argv[0].dyn {
		argv = append([]word{{val: filepath.Base(argv[0].val)}}, argv[1:]...)
	}
	if norm, ok := stripGlobalOptions(argv); ok {
		if argv[0].val == "git" && gitAliasable(argv) {
			return ruleWords[0] == "git" && len(ruleWords) > 1
		}
		argv = norm
	} else if len(argv) > 0 && argv[0].val == "git" && len(argv) > 1 && !argv[1].dyn && !knownGitCommand(argv[1].val) &&
		ruleWords[0] == "git" && len(ruleWords) > 1 {
		return true // an alias from the user's or the repository's config
	}
	for i, rw := range ruleWords {
		if i >= len(argv) {
			return false
		}
		if argv[i].dyn {
			return true
		}
		if strings.Contains(rw, "*") {
			return false // a wildcard rule already matched or not on the text
		}
		if argv[i].val != rw {
			return false
		}
	}
	return false
}

// gitAliasable reports whether git's global options define an alias or
// configuration on the command line (-c alias.x=..., --config-env).
func gitAliasable(argv []word) bool {
	for i, a := range argv {
		if a.val == "--config-env" || strings.HasPrefix(a.val, "--config-env=") {
			return true
		}
		if a.val == "-c" && i+1 < len(argv) {
			if v := strings.ToLower(argv[i+1].val); argv[i+1].dyn || strings.HasPrefix(v, "alias.") {
				return true
			}
		}
		if strings.HasPrefix(a.val, "-c") && len(a.val) > 2 && strings.HasPrefix(strings.ToLower(a.val[2:]), "alias.") {
			return true
		}
	}
	return false
}

// knownGitCommand reports whether sub is one of git's own commands, which
// an alias cannot shadow.
func knownGitCommand(sub string) bool {
	switch sub {
	case "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file", "check-attr",
		"check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index", "cherry", "cherry-pick", "citool",
		"clean", "clone", "column", "commit", "commit-graph", "commit-tree", "config", "count-objects", "credential",
		"describe", "diff", "diff-files", "diff-index", "diff-tree", "difftool", "fast-export", "fast-import", "fetch",
		"filter-branch", "for-each-ref", "for-each-repo", "format-patch", "fsck", "gc", "grep", "gui", "hash-object", "help",
		"init", "instaweb", "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree", "maintenance", "merge",
		"merge-base", "merge-file", "merge-tree", "mergetool", "mktag", "mktree", "mv", "name-rev", "notes", "pack-objects",
		"pack-refs", "prune", "pull", "push", "range-diff", "read-tree", "rebase", "reflog", "remote", "repack", "replace",
		"request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "send-email", "shortlog",
		"show", "show-branch", "show-ref", "sparse-checkout", "stash", "status", "stripspace", "submodule", "switch",
		"symbolic-ref", "tag", "update-index", "update-ref", "var", "verify-commit", "verify-pack", "verify-tag", "version",
		"whatchanged", "worktree", "write-tree", "lfs", "init-db", "backfill", "replay", "refs", "diagnose", "bugreport":
		return true
	}
	return false
}
