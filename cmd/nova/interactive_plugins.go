package main

import (
	"bytes"
	"context"
	"strings"
)

// pluginChanges says whether nova plugin's subcommand op changes which
// plugins a session loads.
func pluginChanges(op string) bool {
	switch op {
	case "install", "uninstall", "enable", "disable", "update":
		return true
	}
	return false
}

// Plugin implements tui.Plugins: the nova plugin command itself, its
// output captured instead of printed over the terminal UI.
func (b *interactiveBackend) Plugin(ctx context.Context, args []string) (string, bool, error) {
	var out bytes.Buffer
	s := *b.io
	s.In, s.Out, s.ErrOut = strings.NewReader(""), &out, &out
	cmd := newPluginCmd(&Factory{IOStreams: &s})
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.ExecuteContext(ctx); err != nil {
		if text := strings.TrimSpace(out.String()); text != "" {
			return "", false, errorWithOutput{text: text, err: err}
		}
		return "", false, err
	}
	return out.String(), len(args) > 0 && pluginChanges(args[0]), nil
}

// ReloadSession implements tui.Plugins (live.Controller.Reload).
func (b *interactiveBackend) ReloadSession() error { return b.ctl.Reload() }

// errorWithOutput is a failed subcommand with what it printed before.
type errorWithOutput struct {
	text string
	err  error
}

func (e errorWithOutput) Error() string { return e.text + "\n" + e.err.Error() }
func (e errorWithOutput) Unwrap() error { return e.err }
