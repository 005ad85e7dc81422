package permission

import "strings"

// Leaving the sandbox. A Bash call that runs outside a sandbox that works
// (Request.LeavesSandbox) is judged as any unsandboxed command, except that
// allow rules, "Bash" itself among them, let run outside only the commands
// sandbox.excludedCommands names: an "always" given to a command inside the
// sandbox says nothing about the same command outside it, where it can
// write anything the user can. Its ask says that it leaves the sandbox, and
// what the sandboxed attempt hit.

// ExcludedCommand returns the first of patterns (sandbox.excludedCommands,
// each a Bash rule specifier: "docker:*", "docker *", "make build") that
// matches a simple command of command, or "". Such a call runs outside the
// sandbox, all of it: it is one shell.
func ExcludedCommand(patterns []string, command string) string {
	if len(patterns) == 0 || strings.TrimSpace(command) == "" {
		return ""
	}
	a := analyzeShell(shellInput{src: command})
	for _, p := range patterns {
		r := Rule{Tool: "Bash", Spec: strings.TrimSpace(p)}
		for _, sc := range a.cmds {
			if r.matchBash(sc.ruleText) || r.matchForms(sc) {
				return p
			}
		}
	}
	return ""
}

// ValidExcluded checks one sandbox.excludedCommands pattern as a Bash rule
// specifier.
func ValidExcluded(p string) error {
	_, err := ParseRule("Bash(" + p + ")")
	return err
}

// excludedPart reports whether sc, in a call that leaves the sandbox
// because sandbox.excludedCommands names it, is one of the commands it
// names: allow rules cover those outside the sandbox.
func (c *Checker) excludedPart(req Request, sc *simpleCmd) bool {
	if req.Excluded == "" || sc.covered {
		return false
	}
	for _, p := range c.cfg.SandboxExcluded {
		r := Rule{Tool: "Bash", Spec: strings.TrimSpace(p)}
		if r.matchBash(sc.ruleText) || r.matchForms(sc) {
			return true
		}
	}
	return false
}

// allowFor returns the allow rules that may allow sc in req: all of them,
// but none for a command that leaves the sandbox unless
// sandbox.excludedCommands names it.
func (c *Checker) allowFor(req Request, sc *simpleCmd) []Rule {
	if req.LeavesSandbox && !c.excludedPart(req, sc) {
		return nil
	}
	return c.allow
}

// leaving says, in the ask of a call that leaves the sandbox, that it does
// and what it hit inside. A call the model sent outside gets no suggested
// rule: no allow rule would let it leave the next time.
func leaving(req Request, d Decision) Decision {
	if !req.LeavesSandbox || d.Behavior != Ask {
		return d
	}
	why := "runs outside the sandbox (dangerouslyDisableSandbox)"
	if req.Excluded != "" {
		why = "runs outside the sandbox (sandbox.excludedCommands " + req.Excluded + ")"
	} else {
		d.Suggestions = nil
	}
	if req.SandboxFailure != "" {
		why += "; inside the sandbox it failed with: " + req.SandboxFailure
	}
	d.Reason = why + "; " + d.Reason
	return d
}
