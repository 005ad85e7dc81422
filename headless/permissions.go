package headless

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Rules is what applying the permission updates of an SDK answer needs
// of the session's permission checker (*permission.Checker).
type Rules interface {
	// Grant adds allow rules until revoked: for the session, never
	// revoked.
	Grant(source string, rules []string) (revoke func(), err error)
	// AllowAlways adds an allow rule and saves it to the project's local
	// settings (.nova/settings.local.json).
	AllowAlways(rule string) error
}

// rules are the update's rules in nova's (Claude Code's) spelling:
// Bash(go test:*).
func (u permissionUpdate) rules() []string {
	var out []string
	for _, r := range u.Rules {
		rule := r.ToolName
		if r.RuleContent != "" {
			rule += "(" + r.RuleContent + ")"
		}
		out = append(out, rule)
	}
	return out
}

// applyPermissions applies the updatedPermissions of an allow answer as
// Claude Code does, as far as nova can, and returns what it could not
// apply, each saying why (the SDK is told; the call is allowed anyway).
// Allow rules: for the session ("session", "cliArg") or saved to the
// local settings ("localSettings"); "projectSettings" and
// "userSettings" rules hold for the session only. setMode switches the
// mode as set_permission_mode does.
func (s *server) applyPermissions(raw []json.RawMessage) []string {
	var notes []string
	for _, r := range raw {
		var u permissionUpdate
		if err := json.Unmarshal(r, &u); err != nil {
			notes = append(notes, fmt.Sprintf("a permission update does not decode (%v): %.200s", err, r))
			continue
		}
		switch u.Type {
		case "addRules":
			notes = append(notes, s.addRules(u)...)
		case "setMode":
			if s.o.SetPermissionMode == nil {
				notes = append(notes, "setMode: this session's permission mode cannot be changed")
				continue
			}
			if _, err := s.o.SetPermissionMode(u.Mode); err != nil {
				notes = append(notes, "setMode: "+err.Error())
				continue
			}
			if u.Destination != "session" && u.Destination != "cliArg" {
				notes = append(notes, fmt.Sprintf("setMode %s: switched for this session; nova does not save the mode to %s", u.Mode, u.Destination))
			}
		default:
			// replaceRules, removeRules, addDirectories, removeDirectories.
			notes = append(notes, fmt.Sprintf("%s: nova cannot apply this permission update from the SDK; it applies addRules (allow) and setMode", u.Type))
		}
	}
	return notes
}

func (s *server) addRules(u permissionUpdate) []string {
	rules := u.rules()
	if len(rules) == 0 {
		return nil
	}
	what := "addRules " + strings.Join(rules, ", ")
	if u.Behavior != "allow" {
		return []string{fmt.Sprintf("%s: nova adds only allow rules from the SDK, not %q ones; put them in .nova/settings.json", what, u.Behavior)}
	}
	if s.o.Rules == nil {
		return []string{what + ": this session's rules cannot be changed"}
	}
	switch u.Destination {
	case "localSettings":
		var notes []string
		for _, rule := range rules {
			if err := s.o.Rules.AllowAlways(rule); err != nil {
				notes = append(notes, what+": "+err.Error())
			}
		}
		return notes
	case "session", "cliArg":
		if _, err := s.o.Rules.Grant("the SDK's answer (this session)", rules); err != nil {
			return []string{what + ": " + err.Error()}
		}
		return nil
	default:
		if _, err := s.o.Rules.Grant("the SDK's answer (this session)", rules); err != nil {
			return []string{what + ": " + err.Error()}
		}
		return []string{fmt.Sprintf("%s: allowed for this session; nova saves the SDK's rules to localSettings (.nova/settings.local.json) only, not %s", what, u.Destination)}
	}
}
