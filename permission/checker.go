package permission

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Rules are the allow, ask and deny lists, already merged from every source.
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
	Home      string   // the user's home directory
	Rules     Rules
	// Persist writes an "allow always" rule to the local settings file; nil
	// means rules added at run time live only as long as the Checker.
	Persist func(rule string) error
}

// Checker is the one decision point for tool calls. It is safe for
// concurrent use.
type Checker struct {
	mu    sync.RWMutex
	cfg   Config
	extra []string // rules allowed at run time
}

// NewChecker returns a Checker for cfg.
func NewChecker(cfg Config) (*Checker, error) {
	if cfg.Mode == "" {
		cfg.Mode = ModeDefault
	}
	if _, ok := ParseMode(string(cfg.Mode)); !ok {
		return nil, fmt.Errorf("unknown permission mode %q (want one of default, acceptEdits, plan, bypassPermissions)", cfg.Mode)
	}
	return &Checker{cfg: cfg}, nil
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
// was configured to.
func (c *Checker) AllowAlways(rule string) error {
	c.mu.Lock()
	c.extra = append(c.extra, rule)
	persist := c.cfg.Persist
	c.mu.Unlock()
	if persist != nil {
		return persist(rule)
	}
	return nil
}

// Check decides req.
func (c *Checker) Check(ctx context.Context, req Request) Decision {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if r, ok := matchAny(c.cfg.Rules.Deny, req); ok {
		return Decision{Behavior: Deny, Layer: LayerRule, Rule: r, Reason: "denied by rule " + r}
	}
	if r, ok := matchAny(c.cfg.Rules.Ask, req); ok {
		return Decision{Behavior: Ask, Layer: LayerRule, Rule: r, Reason: "rule " + r + " asks"}
	}
	if r, ok := matchAny(append(append([]string(nil), c.cfg.Rules.Allow...), c.extra...), req); ok {
		return Decision{Behavior: Allow, Layer: LayerRule, Rule: r, Reason: "allowed by rule " + r}
	}
	switch c.cfg.Mode {
	case ModeBypass:
		return Decision{Behavior: Allow, Layer: LayerMode, Reason: "bypassPermissions mode"}
	case ModePlan:
		if req.Kind == KindRead {
			return Decision{Behavior: Allow, Layer: LayerMode, Reason: "read-only tool"}
		}
		if req.Kind == KindOther {
			return Decision{Behavior: Allow, Layer: LayerMode, Reason: "no side effects on files"}
		}
		return Decision{Behavior: Deny, Layer: LayerMode, Reason: "plan mode is read-only: present the plan with ExitPlanMode first"}
	case ModeAcceptEdits:
		if req.Kind == KindEdit {
			return Decision{Behavior: Allow, Layer: LayerMode, Reason: "acceptEdits mode"}
		}
	}
	if req.Kind == KindRead || req.Kind == KindOther {
		return Decision{Behavior: Allow, Layer: LayerMode, Reason: "read-only tool"}
	}
	return Decision{Behavior: Ask, Layer: LayerMode, Reason: req.Tool + " needs approval", Suggestions: suggest(req)}
}

func suggest(req Request) []string {
	if req.Tool == "Bash" && req.Command != "" {
		fields := strings.Fields(req.Command)
		if len(fields) > 0 {
			return []string{"Bash(" + fields[0] + ":*)"}
		}
	}
	return []string{req.Tool}
}

// matchAny returns the first rule of rules that matches req.
func matchAny(rules []string, req Request) (string, bool) {
	for _, r := range rules {
		if matchRule(r, req) {
			return r, true
		}
	}
	return "", false
}

// matchRule handles "Tool" and "Bash(prefix:*)" / "Bash(exact)".
func matchRule(rule string, req Request) bool {
	name, spec, hasSpec := strings.Cut(rule, "(")
	if name != req.Tool {
		return false
	}
	if !hasSpec {
		return true
	}
	spec = strings.TrimSuffix(spec, ")")
	if req.Tool != "Bash" {
		return false
	}
	if p, ok := strings.CutSuffix(spec, ":*"); ok {
		return req.Command == p || strings.HasPrefix(req.Command, p+" ")
	}
	return req.Command == spec
}
