package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// KillShell stops a background shell and every process it started.
type KillShell struct{ Input[killShellInput] }

type killShellInput struct {
	ShellID string `json:"shell_id" jsonschema:"The ID of the background shell to kill"`
}

// Name implements Tool.
func (*KillShell) Name() string { return "KillShell" }

// Kind implements Tool.
func (*KillShell) Kind() permission.Kind { return permission.KindOther }

// Description implements Tool.
func (*KillShell) Description() string {
	return `Kills a running background bash shell by its ID.

- Takes the shell id (shell_id) that Bash returned for a run_in_background command.
- Stops the command and every process it started (SIGTERM, then SIGKILL if they do not exit).
- Output the shell wrote before it was killed can still be read with BashOutput.`
}

// Run implements Tool.
func (*KillShell) Run(_ context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in killShellInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid KillShell input: %v", err), nil
	}
	s, err := shellsOf(env).shell(in.ShellID)
	if err != nil {
		return Errorf("%v", err), nil
	}
	if !s.kill() {
		d := s.display()
		msg := fmt.Sprintf("shell %s is not running (status: %s", s.id, d.Status)
		if d.ExitCode != nil {
			msg += fmt.Sprintf(", exit code %d", *d.ExitCode)
		}
		return Result{Output: msg + ")", IsError: true, Display: display.OfShell(d)}, nil
	}
	return Result{Output: fmt.Sprintf("Killed shell %s (%s)", s.id, s.command), Display: display.OfShell(s.display())}, nil
}
