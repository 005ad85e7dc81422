package acp

import (
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/permission"
)

// This file is the one place the ACP frontend reaches the session's
// operations (mode, commands): the mode through live.Controller, as the
// terminal, nova serve and the SDK protocol do.

// modes are the permission modes offered as ACP session modes, in order.
var modes = []struct {
	id          permission.Mode
	name, about string
}{
	{permission.ModeDefault, "Default", "Ask before edits and commands the rules do not allow"},
	{permission.ModeAcceptEdits, "Accept Edits", "Edit files in the workspace without asking"},
	{permission.ModePlan, "Plan", "Read-only: explore and plan, change nothing"},
	{permission.ModeBypass, "Bypass Permissions", "Run everything the dangerous-command layer allows, without asking"},
}

// modeState is the session's modes for the client; bypassPermissions is
// offered only when the command line allowed it.
func modeState(rt *live.Runtime, bypassOK bool) *acpsdk.SessionModeState {
	st := &acpsdk.SessionModeState{CurrentModeId: acpsdk.SessionModeId(rt.Checker.Mode())}
	for _, m := range modes {
		if m.id == permission.ModeBypass && !bypassOK && rt.Checker.Mode() != permission.ModeBypass {
			continue
		}
		st.AvailableModes = append(st.AvailableModes, acpsdk.SessionMode{Id: acpsdk.SessionModeId(m.id), Name: m.name, Description: acpsdk.Ptr(m.about)})
	}
	return st
}

// setMode switches the session's permission mode through its
// controller, the one mode setter of every frontend (the startup check
// and Runtime.CanBypass included). bypassPermissions is the editor's
// to choose: the person at the editor started nova acp.
func setMode(c *live.Controller, mode string) error {
	_, err := c.SetMode(mode, false)
	return err
}

// availableCommands are the session's slash commands and skills, as a
// prompt starting with /name runs them.
func availableCommands(rt *live.Runtime) []acpsdk.AvailableCommand {
	out := []acpsdk.AvailableCommand{}
	if rt.Skills == nil {
		return out
	}
	for _, sk := range rt.Skills.Commands() {
		c := acpsdk.AvailableCommand{Name: sk.Name, Description: strings.TrimSpace(sk.Description)}
		if c.Description == "" {
			c.Description = "/" + sk.Name
		}
		if sk.ArgumentHint != "" {
			c.Input = &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: sk.ArgumentHint}}
		}
		out = append(out, c)
	}
	return out
}
