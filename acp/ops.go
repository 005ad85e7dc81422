package acp

import (
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/permission"
)

// This file is the one place the ACP frontend reaches the session's
// operations (mode, commands). It uses what live.Runtime offers today;
// when live gains its operations seam, these functions call it instead.

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

// setMode switches the session's permission mode.
func setMode(rt *live.Runtime, mode string, bypassOK bool) error {
	m, ok := permission.ParseMode(mode)
	if !ok {
		return fmt.Errorf("mode %q: nova has default, acceptEdits, plan and bypassPermissions", mode)
	}
	if m == permission.ModeBypass && rt.Checker.Mode() != permission.ModeBypass {
		if !bypassOK {
			return fmt.Errorf("bypassPermissions needs nova acp started with --allow-dangerously-skip-permissions")
		}
		if err := rt.CanBypass(); err != nil {
			return err
		}
	}
	rt.Checker.SetMode(m)
	return nil
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
