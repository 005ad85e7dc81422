package live

import "sync"

// sessionGrants are the allow rules a frontend gave the session for its
// life (the SDK's updatedPermissions to "session"). A runtime's checker
// is new after a model switch or a reload; the session is not, so each
// runtime the controller builds is granted them again.
type sessionGrants struct {
	mu   sync.Mutex
	list []*sessionGrant
}

// sessionGrant is one Grant, with its revoke on the checker in force.
type sessionGrant struct {
	source  string
	rules   []string
	revoke  func()
	revoked bool
}

// Grant adds allow rules to the session until revoke is called, on the
// runtime in force and on every runtime that replaces it. Rules that do
// not parse are named in err; the rest are granted (permission.Checker.Grant).
func (c *Controller) Grant(source string, rules []string) (revoke func(), err error) {
	// The runtime is read before the grants' lock: a rebuild holds the
	// controller's lock while it grants them again (regrant).
	rt := c.Runtime()
	g := &c.grants
	g.mu.Lock()
	defer g.mu.Unlock()
	r, err := rt.Checker.Grant(source, rules)
	sg := &sessionGrant{source: source, rules: rules, revoke: r}
	g.list = append(g.list, sg)
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		sg.revoked = true
		sg.revoke()
	}, err
}

// AllowAlways adds an allow rule and saves it to the project's local
// settings, which every later runtime's checker reads.
func (c *Controller) AllowAlways(rule string) error {
	return c.Runtime().Checker.AllowAlways(rule)
}

// regrant grants rt's checker the session's rules still in force.
func (g *sessionGrants) regrant(rt *Runtime) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, sg := range g.list {
		if !sg.revoked {
			// An unparsable rule was said so at its first Grant.
			sg.revoke, _ = rt.Checker.Grant(sg.source, sg.rules)
		}
	}
}

// reset forgets the grants: the controller carries on with another
// session.
func (g *sessionGrants) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.list = nil
}
