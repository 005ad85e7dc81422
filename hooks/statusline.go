package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// StatusLineTimeout bounds one run of a status line command: a slow one
// leaves the line as it was rather than piling up behind the next turn.
const StatusLineTimeout = 5 * time.Second

// statusEvent is the hook_event_name Claude Code gives a status line
// command.
const statusEvent Event = "Status"

// StatusLine runs command (the statusLine setting's) as a command hook
// runs: through sh -c in the workspace, with the hook environment (nova's
// credentials left out, the settings' env set), no sandbox, input on
// stdin: fields over the ones every hook gets (session_id,
// transcript_path, cwd, permission_mode, hook_event_name "Status"). It
// returns the first line the command printed; an error says why there is
// nothing to show (it could not start, failed, or timed out).
func (e *Engine) StatusLine(ctx context.Context, command string, fields map[string]any) (string, error) {
	if strings.TrimSpace(command) == "" {
		return "", errors.New("statusLine: no command")
	}
	h := &Hook{Event: statusEvent, Type: KindCommand, Command: command, Timeout: StatusLineTimeout}
	r := e.runCommand(ctx, h, statusEvent, e.payload(Input{Event: statusEvent, Fields: fields}))
	switch {
	case r.broken != "":
		return "", fmt.Errorf("statusLine command %s", r.broken)
	case r.code != 0:
		return "", fmt.Errorf("statusLine command exited %d: %s", r.code, orNone(firstLine(r.stderr)))
	}
	line, _, _ := strings.Cut(r.stdout, "\n")
	return strings.TrimRight(line, " \t\r"), nil
}
