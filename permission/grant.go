package permission

import (
	"errors"
	"slices"
	"sync"
)

// Grant adds allow rules for a while: a skill's or a command's
// allowed-tools, for the run it was invoked in. They are allow rules like
// any other, consulted where allow rules are: deny and ask rules, the
// dangerous-command and path layers and plan mode still come first, so a
// grant only spares a question, never overrides a refusal. source names
// the grant in the decisions it makes ("skill deploy (this run)").
//
// revoke removes exactly these rules; later calls do nothing. Rules that do
// not parse are left out and named in err; the others are granted, and
// revoke is never nil.
func (c *Checker) Grant(source string, rules []string) (revoke func(), err error) {
	var parsed []Rule
	var errs []error
	for _, raw := range splitAll(rules) {
		r, perr := ParseRule(raw)
		if perr != nil {
			errs = append(errs, perr)
			continue
		}
		parsed = append(parsed, r)
	}
	if len(parsed) == 0 {
		return func() {}, errors.Join(errs...)
	}
	c.mu.Lock()
	c.grants++
	id := c.grants
	for i := range parsed {
		parsed[i].Source, parsed[i].Base, parsed[i].grant = source, c.roots[0], id
	}
	c.allow = append(c.allow, parsed...)
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.allow = slices.DeleteFunc(c.allow, func(r Rule) bool { return r.grant == id })
		})
	}, errors.Join(errs...)
}
