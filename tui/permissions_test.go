package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// rulesBackend is a fake backend with the RuleEditor capability.
type rulesBackend struct {
	*fakeBackend
	rules     []RuleInfo
	removed   []RuleInfo
	removeErr error
}

func (r *rulesBackend) Rules() ([]RuleInfo, error) { return slices.Clone(r.rules), nil }

func (r *rulesBackend) RemoveRule(x RuleInfo) error {
	if r.removeErr != nil {
		return r.removeErr
	}
	r.removed = append(r.removed, x)
	r.rules = slices.DeleteFunc(r.rules, func(y RuleInfo) bool { return y == x })
	return nil
}

func rulesFixture() []RuleInfo {
	return []RuleInfo{
		{Behavior: permission.Allow, Rule: "Bash(npm run test:*)", Source: "local .nova/settings.local.json", Path: "/p/.nova/settings.local.json", Removable: true},
		{Behavior: permission.Allow, Rule: "Read", Source: "--allowedTools"},
		{Behavior: permission.Ask, Rule: "Bash(git push:*)", Source: "project .nova/settings.json", Path: "/p/.nova/settings.json", Removable: true},
		{Behavior: permission.Deny, Rule: "Read(./secrets/**)", Source: "user ~/.nova/settings.json", Path: "/h/.nova/settings.json", Removable: true},
	}
}

func newRulesHarness(t *testing.T, rules []RuleInfo) (*harness, *rulesBackend) {
	t.Helper()
	b := &rulesBackend{fakeBackend: newFake(), rules: rules}
	h := newHarness(t, b.fakeBackend)
	// The harness is built on the plain fake; the model talks to the
	// backend with the capability.
	h.m.b = b
	h.m.in.comp.commands = h.m.commandNames()
	return h, b
}

func TestTUIPermissionsListsRules(t *testing.T) {
	h, _ := newRulesHarness(t, rulesFixture())
	h.typeText("/permissions")
	h.press("enter")
	h.golden("permissions")
}

func TestTUIPermissionsRemove(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    []string
		removed string // the rule removed; "" for none
		screen  string // on the screen afterwards
	}{
		{name: "enter and y", keys: []string{"enter", "y"}, removed: "Bash(npm run test:*)", screen: "Removed allow rule Bash(npm run test:*) from local .nova/settings.local.json"},
		{name: "d and enter on a later rule", keys: []string{"down", "down", "d", "enter"}, removed: "Bash(git push:*)", screen: "Removed ask rule Bash(git push:*)"},
		{name: "n keeps it", keys: []string{"d", "n"}, screen: "Permission rules · mode: default"},
		{name: "esc in the confirm keeps it", keys: []string{"d", "esc"}, screen: "Permission rules · mode: default"},
		{name: "command line rules stay", keys: []string{"down", "enter"}, screen: "Read comes from --allowedTools: it can't be removed here"},
		{name: "esc closes", keys: []string{"esc"}, screen: "? for keys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, b := newRulesHarness(t, rulesFixture())
			h.typeText("/permissions")
			h.press("enter")
			for _, k := range tc.keys {
				h.press(k)
			}
			var got string
			if len(b.removed) > 0 {
				got = b.removed[0].Rule
			}
			if got != tc.removed || len(b.removed) > 1 {
				t.Errorf("removed %+v, want %q", b.removed, tc.removed)
			}
			h.contains(tc.screen)
		})
	}
}

func TestTUIPermissionsConfirmView(t *testing.T) {
	h, _ := newRulesHarness(t, rulesFixture())
	h.typeText("/permissions")
	h.press("enter")
	h.press("up") // wraps to the last rule
	h.press("d")
	h.contains("Remove deny rule Read(./secrets/**) from user ~/.nova/settings.json?")
	h.contains("y remove · n keep")
}

func TestTUIPermissionsRemoveError(t *testing.T) {
	h, b := newRulesHarness(t, rulesFixture())
	b.removeErr = errors.New("remove rule: settings.json is not in permissions.allow")
	h.typeText("/permissions")
	h.press("enter")
	h.press("enter")
	h.press("y")
	h.contains("is not in permissions.allow")
}

func TestTUIPermissionsNoRules(t *testing.T) {
	h, _ := newRulesHarness(t, nil)
	h.typeText("/permissions")
	h.press("enter")
	h.contains("Permission mode: default · no allow, ask or deny rules")
}

func TestTUIPermissionsOnlyWithCapability(t *testing.T) {
	h := newHarness(t, newFake())
	if slices.Contains(h.m.commandNames(), "/permissions") {
		t.Error("/permissions offered by a backend that cannot list rules")
	}
	h2, _ := newRulesHarness(t, nil)
	if !slices.Contains(h2.m.commandNames(), "/permissions") {
		t.Error("/permissions missing")
	}
	h2.typeText("/perm")
	h2.press("tab")
	if v := h2.m.in.ta.Value(); !strings.HasPrefix(v, "/permissions") {
		t.Errorf("completed to %q", v)
	}
}
