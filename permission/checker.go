package permission

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Rules are allow, ask and deny lists whose path patterns are relative to
// the workspace; RuleSets carry rules that belong to a settings file.
type Rules struct {
	Allow []string
	Ask   []string
	Deny  []string
}

// Config builds a Checker.
type Config struct {
	Mode      Mode
	Workspace string   // absolute workspace root
	AddDirs   []string // further directories treated like the workspace
	Home      string   // the user's home directory, absolute; required
	NovaHome  string   // nova's own directory (default Home/.nova)
	Rules     Rules    // rules relative to Workspace (tests, the SDK)
	RuleSets  []RuleSet
	// SandboxAutoAllow lets Bash commands that would ask run without
	// asking when the request says they run sandboxed. Whether a call is
	// sandboxed is the request's to say (Request.Sandboxed), from the
	// sandbox the tool really runs in: there is no second copy here.
	SandboxAutoAllow bool
	// SandboxExcluded are the patterns of sandbox.excludedCommands (Bash
	// rule specifiers: "docker:*", "docker *"): commands that run outside
	// the sandbox, which allow rules may let run there (LeavesSandbox).
	SandboxExcluded []string
	// Persist writes an "allow always" rule to the local settings file; nil
	// means rules added at run time live only as long as the Checker.
	Persist func(rule string) error
	// ReadDirs are directories every tool may read without asking, in
	// every mode: the session's own spilled results.
	ReadDirs []string
	// SensitiveReads are further absolute paths that hold secrets (the
	// sandbox masks them too): reading them always asks.
	SensitiveReads []string
	// AllowedDomains are the host patterns sandboxed commands reach
	// through nova's network proxy without a question
	// (sandbox.network.allowedDomains; see CheckHost).
	AllowedDomains []string
	// LookupEnv reads nova's environment (what Bash commands inherit);
	// nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Checker is the one decision point for tool calls. It is safe for
// concurrent use.
type Checker struct {
	mu sync.RWMutex
	checkerState
}

// checkerState is what a Checker decides from. A call in a worktree is
// decided on a copy of it with the worktree as one more root.
type checkerState struct {
	cfg       Config
	home      string
	novaHome  string
	roots     []string // workspace and added directories, cleaned
	realRoots []string // the same with symlinks resolved
	readDirs  []string // ReadDirs, symlinks resolved
	allow     []Rule
	ask       []Rule
	deny      []Rule
	specs     map[string]*spec // the command table, parsed once and shared read-only
	// readDenies says some deny or ask rule names paths that Read covers.
	readDenies bool
	// grants numbers the Grants made, so each revokes only its own rules.
	grants uint64
}

// NewChecker returns a Checker for cfg, or an error naming the bad rule or
// mode.
func NewChecker(cfg Config) (*Checker, error) {
	if cfg.Mode == "" {
		cfg.Mode = ModeDefault
	}
	if _, ok := ParseMode(string(cfg.Mode)); !ok {
		return nil, fmt.Errorf("unknown permission mode %q (want one of default, acceptEdits, plan, bypassPermissions)", cfg.Mode)
	}
	if cfg.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("permission checker: no workspace: %w", err)
		}
		cfg.Workspace = wd
	}
	if cfg.Home == "" {
		// The home holds the files no call may touch unasked (shell rc
		// files, ~/.ssh): guessing it here would protect the wrong one.
		return nil, errors.New("permission checker: no home directory (Config.Home is empty): set HOME")
	}
	if !filepath.IsAbs(cfg.Workspace) || !filepath.IsAbs(cfg.Home) {
		return nil, errors.New("permission checker: workspace and home must be absolute paths")
	}
	c := &Checker{checkerState: checkerState{cfg: cfg, home: filepath.Clean(cfg.Home), novaHome: cfg.NovaHome}}
	if c.novaHome == "" {
		c.novaHome = filepath.Join(c.home, ".nova")
	}
	c.novaHome = filepath.Clean(c.novaHome)
	for _, d := range append([]string{cfg.Workspace}, cfg.AddDirs...) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cfg.Workspace, d)
		}
		d = filepath.Clean(d)
		c.roots = append(c.roots, d)
		c.realRoots = append(c.realRoots, physicalPath(d))
	}
	for _, d := range cfg.ReadDirs {
		if filepath.IsAbs(d) {
			c.readDirs = append(c.readDirs, physicalPath(filepath.Clean(d)))
		}
	}
	if c.cfg.LookupEnv == nil {
		c.cfg.LookupEnv = os.LookupEnv
	}
	c.specs = sharedSpecs()
	// Rules may come straight from --allowedTools values, which can hold
	// several rules each ("Bash(git log:*),Edit").
	sets := append([]RuleSet{{Source: "command line", Allow: splitAll(cfg.Rules.Allow), Ask: splitAll(cfg.Rules.Ask), Deny: splitAll(cfg.Rules.Deny)}}, cfg.RuleSets...)
	for i := range sets {
		if sets[i].Base == "" {
			sets[i].Base = c.roots[0]
		}
	}
	var err error
	if c.allow, c.ask, c.deny, err = parseRules(sets); err != nil {
		return nil, fmt.Errorf("permission rules: %w", err)
	}
	for _, r := range append(slices.Clip(c.deny), c.ask...) {
		c.readDenies = c.readDenies || r.Spec != "" && r.Tool == "Read"
	}
	return c, nil
}

func splitAll(list []string) []string {
	var out []string
	for _, s := range list {
		out = append(out, SplitToolList(s)...)
	}
	return out
}

// CheckStartup refuses bypassPermissions for root without a sandbox:
// nothing would stand between the model and the whole machine.
func CheckStartup(mode Mode, sandboxOn bool, euid int) error {
	if mode == ModeBypass && euid == 0 && !sandboxOn {
		return errors.New("bypassPermissions refuses to run as root unless the Bash sandbox is on: run as an ordinary user, enable the sandbox (sandbox.enabled in settings), or choose another permission mode")
	}
	return nil
}

// Mode returns the current mode.
func (c *Checker) Mode() Mode {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cfg.Mode
}

// SetMode changes the mode.
func (c *Checker) SetMode(m Mode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cfg.Mode = m
}

// AllowAlways adds rule to the allow list and persists it when the Checker
// was configured to. A rule that does not parse is refused.
func (c *Checker) AllowAlways(rule string) error {
	r, err := ParseRule(rule)
	if err != nil {
		return fmt.Errorf("allow always: %w", err)
	}
	c.mu.Lock()
	r.Source, r.Base = "session", c.roots[0]
	c.allow = append(c.allow, r)
	persist := c.cfg.Persist
	c.mu.Unlock()
	if persist != nil {
		if err := persist(r.Raw); err != nil {
			return fmt.Errorf("allow always %s: %w", r.Raw, err)
		}
	}
	return nil
}

// Check decides req. Layers in order: dangerous commands, paths, rules,
// mode; what none of them allows is asked.
func (c *Checker) Check(ctx context.Context, req Request) (d Decision) {
	defer func() {
		// A bug in the analysis must never wave a call through.
		if r := recover(); r != nil {
			d = Decision{Behavior: Ask, Layer: LayerDangerous, Reason: fmt.Sprintf("the permission check failed (%v); asking instead", r)}
		}
	}()
	c.mu.RLock()
	defer c.mu.RUnlock()
	if req.Workdir == "" {
		req.Workdir = c.roots[0]
	}
	v := c
	if req.Worktree != "" && filepath.IsAbs(req.Worktree) {
		v = c.withRoot(filepath.Clean(req.Worktree))
	}
	if req.Tool == "Bash" {
		return leaving(req, v.checkBash(req))
	}
	return v.checkTool(req)
}

// withRoot returns a copy of c, for one call, that treats dir like the
// workspace's added directories. The caller holds c.mu.
func (c *Checker) withRoot(dir string) *Checker {
	v := &Checker{checkerState: c.checkerState}
	v.roots = append(slices.Clip(c.roots), dir)
	v.realRoots = append(slices.Clip(c.realRoots), physicalPath(dir))
	return v
}

// AddReadDir lets every tool read dir (absolute) without asking, in every
// mode: the session's spilled results, whose directory exists only once
// the session does.
func (c *Checker) AddReadDir(dir string) {
	if !filepath.IsAbs(dir) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readDirs = append(c.readDirs, physicalPath(filepath.Clean(dir)))
}

// ReadDenied reports whether a deny or an ask rule covers reading the
// absolute path p (as spelled, or where its symlinks lead). Search tools
// use it to leave such files out of what they return: a search cannot
// put a question per file, so a file that needs one is not read by it
// (Read asks for it).
func (c *Checker) ReadDenied(p string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.readDenies {
		return false // searches ask this of every file: no rule, no work
	}
	a := c.newAccess(p, c.roots[0], false)
	covers := func(r Rule) bool { return r.Spec != "" && r.Tool == "Read" && c.pathRuleMatch(r, a) }
	if _, ok := firstRule(c.deny, covers); ok {
		return true
	}
	_, ok := firstRule(c.ask, covers)
	return ok
}

// firstRule returns the first rule of rules for which match holds.
func firstRule(rules []Rule, match func(Rule) bool) (Rule, bool) {
	for _, r := range rules {
		if match(r) {
			return r, true
		}
	}
	return Rule{}, false
}

func ruleDecision(b Behavior, r Rule, what string) Decision {
	verb := map[Behavior]string{Deny: "denied", Ask: "needs approval", Allow: "allowed"}[b]
	return Decision{Behavior: b, Layer: LayerRule, Rule: r.Raw, Reason: fmt.Sprintf("%s %s by rule %s (%s)", what, verb, r.Raw, r.Source)}
}

// pathRuleMatch reports whether a path rule's pattern covers access a, as
// spelled or where it really leads (deny and ask rules).
func (c *Checker) pathRuleMatch(r Rule, a access) bool {
	return r.matchPath(a.path, c.home) || a.real != a.path && r.matchPath(a.real, c.home)
}

// allowRuleMatch reports whether an allow rule's pattern covers where
// access a really leads: a link inside an allowed directory that points
// elsewhere is not allowed by it.
func (c *Checker) allowRuleMatch(r Rule, a access) bool {
	return a.real != "" && r.matchPath(a.real, c.home)
}

// inEnv reports whether nova's environment, which Bash commands inherit,
// holds name.
func (c *Checker) inEnv(name string) bool {
	_, ok := c.cfg.LookupEnv(name)
	return ok
}

// checkTool decides a call of a tool other than Bash.
func (c *Checker) checkTool(req Request) Decision {
	var accs []access
	for _, p := range req.Paths {
		accs = append(accs, c.newAccess(p.Path, req.Workdir, p.Write))
	}
	d := c.decideTool(req, accs)
	for _, a := range accs {
		switch {
		case a.real == "":
		case a.write:
			d.Writes = append(d.Writes, a.real)
		default:
			d.Reads = append(d.Reads, a.real)
		}
	}
	return d
}

// decideTool runs the layers for a tool other than Bash.
func (c *Checker) decideTool(req Request, accs []access) Decision {
	// Layer 2: system files are never written; sensitive files always ask.
	hard := ""
	for _, a := range accs {
		if a.write && (systemPath(a.path) || systemPath(a.real)) {
			return Decision{Behavior: Deny, Layer: LayerPath, Reason: a.path + " is a system file; nova does not write there"}
		}
		if why := c.sensitiveAccess(a); why != "" && hard == "" {
			hard = why
		}
	}
	// Layer 3: deny beats ask beats allow.
	matches := func(r Rule, all bool) bool {
		covered, ok := r.covers(req, accs)
		// An allow rule must speak for every path of the call: Edit(src/**)
		// does not allow what the same call reads.
		if !ok || all && len(covered) != len(accs) {
			return false
		}
		switch {
		case r.Spec == "" && all:
			// A bare "Write" or "Read" allows the tool inside the workspace;
			// outside it only an explicit path rule opens a path.
			for _, a := range covered {
				if !c.inside(a) {
					return false
				}
			}
			return true
		case r.Spec == "":
			return true
		case r.Tool == "WebFetch":
			return req.Domain != "" && r.matchDomain(req.Domain)
		case r.Tool == "Skill":
			return r.matchSkill(req.Target)
		case r.Tool == "Agent":
			return req.Target == r.Spec
		case pathRule(r.Tool):
			if len(covered) == 0 {
				return false
			}
			for _, a := range covered {
				m := c.pathRuleMatch(r, a)
				if all {
					m = c.allowRuleMatch(r, a)
				}
				if m != all {
					return !all
				}
			}
			return all
		}
		return r.matchBash(req.Command)
	}
	if r, ok := firstRule(c.deny, func(r Rule) bool { return matches(r, false) }); ok {
		return ruleDecision(Deny, r, req.Tool)
	}
	if hard != "" {
		return Decision{Behavior: Ask, Layer: LayerPath, Reason: hard + "; it is never used without asking"}
	}
	if r, ok := firstRule(c.ask, func(r Rule) bool { return matches(r, false) }); ok {
		return ruleDecision(Ask, r, req.Tool)
	}
	mode := c.modeOf(req)
	mcp := strings.HasPrefix(req.Tool, "mcp__")
	if mode == ModePlan && (mcp || req.Kind == KindEdit || req.Kind == KindExec) {
		return Decision{Behavior: Deny, Layer: LayerMode, Reason: "plan mode is read-only: present the plan with ExitPlanMode first"}
	}
	// What runs later outside the sandbox asks in every mode but
	// bypassPermissions, unless an allow rule names it.
	if d, ok := c.laterAsk(req, req.Tool+" writes", c.laterHits(accs), func(r Rule, _ laterHit) bool { return matches(r, true) }); ok {
		return d
	}
	if r, ok := firstRule(c.allow, func(r Rule) bool { return matches(r, true) }); ok {
		return ruleDecision(Allow, r, req.Tool)
	}
	// Layer 4: the mode.
	if mode == ModeBypass {
		return c.bypassed(req)
	}
	for _, a := range accs {
		if !c.inside(a) && !c.readable(a) {
			return Decision{Behavior: Ask, Layer: LayerPath, Reason: fmt.Sprintf("%s %s %s, outside the workspace", req.Tool, verbOf(a), a.path), Suggestions: c.toolSuggestions(req, accs)}
		}
	}
	switch {
	case mcp:
	case req.Kind == KindRead || req.Kind == KindOther:
		return Decision{Behavior: Allow, Layer: LayerMode, Reason: "read-only tool inside the workspace"}
	case req.Kind == KindEdit && mode == ModeAcceptEdits && len(accs) > 0:
		return Decision{Behavior: Allow, Layer: LayerMode, Reason: "acceptEdits mode allows edits inside the workspace"}
	}
	return Decision{Behavior: Ask, Layer: LayerMode, Reason: req.Tool + " needs approval in " + string(mode) + " mode", Suggestions: c.toolSuggestions(req, accs)}
}

// modeOf is the mode req is judged in: a hook's allow stands in for
// bypassPermissions, except in plan mode, which stays read-only.
func (c *Checker) modeOf(req Request) Mode {
	if m := c.baseMode(req); !req.HookAllowed || m == ModePlan {
		return m
	}
	return ModeBypass
}

// baseMode is the mode req runs in: the checker's, or the narrower mode
// its caller runs in (a subagent's), whichever allows less.
func (c *Checker) baseMode(req Request) Mode {
	if req.Mode != "" && modeRank(req.Mode) < modeRank(c.cfg.Mode) {
		return req.Mode
	}
	return c.cfg.Mode
}

// modeRank orders the modes by what they allow without asking.
func modeRank(m Mode) int {
	switch m {
	case ModePlan:
		return 0
	case ModeAcceptEdits:
		return 2
	case ModeBypass:
		return 3
	}
	return 1
}

// Narrower returns the mode of a and b that allows less without asking:
// what a subagent asking for mode b runs in under a parent in mode a.
func Narrower(a, b Mode) Mode {
	if b != "" && modeRank(b) < modeRank(a) {
		return b
	}
	return a
}

// bypassed is the allow of the bypassPermissions layer, said as what it
// was: the mode, or a hook's allow.
func (c *Checker) bypassed(req Request) Decision {
	if req.HookAllowed && c.baseMode(req) != ModeBypass {
		return Decision{Behavior: Allow, Layer: LayerHook, Reason: "a hook allowed it"}
	}
	return Decision{Behavior: Allow, Layer: LayerMode, Reason: "bypassPermissions mode"}
}

// toolSuggestions proposes rules for a tool call that asks.
func (c *Checker) toolSuggestions(req Request, accs []access) []string {
	switch {
	case req.Tool == "WebFetch" && req.Domain != "":
		return []string{"WebFetch(domain:" + req.Domain + ")"}
	case len(accs) > 0:
		// Edit and Read rules cover the path whichever tool touches it next.
		var out []string
		for _, a := range accs {
			t := "Read"
			if a.write {
				t = "Edit"
			}
			if s := t + "(" + c.dirPattern(a.path) + ")"; !contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}
	return []string{req.Tool}
}

// dirPattern is a rule pattern for the directory holding p: relative to
// the workspace inside it, //absolute outside.
func (c *Checker) dirPattern(p string) string {
	if rel, err := filepath.Rel(c.roots[0], p); err == nil && within(p, c.roots[0]) {
		if !strings.Contains(rel, "/") {
			return "./" + rel
		}
		return filepath.ToSlash(filepath.Dir(rel)) + "/**"
	}
	return "/" + filepath.Dir(p) + "/**"
}

func verbOf(a access) string {
	if a.write {
		return "writes"
	}
	return "reads"
}

// RuleInForce is one rule a Checker enforces, and where it came from.
type RuleInForce struct {
	Behavior Behavior `json:"behavior"`
	Rule     string   `json:"rule"`
	// Source is the settings file, "command line", "session" (an
	// "always" answer) or a grant's name.
	Source string `json:"source"`
}

// Rules lists the rules the checker enforces now, allow then ask then
// deny, each in the order the sources merged: what it was built with,
// the rules "always" answers added and the grants in force. A frontend
// shows this list, not the settings files read again, so what it shows is
// what is enforced.
func (c *Checker) Rules() []RuleInForce {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []RuleInForce
	for _, l := range []struct {
		b     Behavior
		rules []Rule
	}{{Allow, c.allow}, {Ask, c.ask}, {Deny, c.deny}} {
		for _, r := range l.rules {
			out = append(out, RuleInForce{Behavior: l.b, Rule: r.Raw, Source: r.Source})
		}
	}
	return out
}
