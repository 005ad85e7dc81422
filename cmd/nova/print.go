package main

import (
	"context"
	"fmt"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/headless"
)

// runPrint runs opts.prompt in print mode; a non-zero exit code comes
// back as an exitError.
func runPrint(ctx context.Context, opts *rootOptions) error {
	rt, err := build(ctx, opts.io, opts.session)
	if err != nil {
		return err
	}
	defer func() {
		if err := rt.Close(); err != nil {
			fmt.Fprintf(opts.io.ErrOut, "nova: %v\n", err)
		}
	}()
	if err := offerStructured(rt, opts.claude.structured); err != nil {
		return err
	}
	for _, w := range rt.Warnings {
		fmt.Fprintf(opts.io.ErrOut, "nova: warning: %s\n", w)
	}
	// A script that names an MCP tool must find it: print mode waits for
	// the servers' first connection (bounded by MCP_TIMEOUT) and says which
	// failed; the TUI lets the person type meanwhile.
	for _, w := range rt.WaitMCP(ctx) {
		fmt.Fprintf(opts.io.ErrOut, "nova: warning: %s\n", w)
	}
	ignored := make([]headless.IgnoredSetting, 0, len(rt.Ignored))
	for _, ig := range rt.Ignored {
		ignored = append(ignored, headless.IgnoredSetting{File: displayPath(ig.File, rt.Workdir, rt.Home), Setting: ig.Setting})
	}
	// A script run again and again in one folder is told once what the
	// folder's untrusted files would grant (the json result lists them
	// every time).
	fresh, err := config.NoteIgnored(rt.NovaHome, rt.Workdir, rt.Ignored)
	if err != nil {
		fmt.Fprintf(opts.io.ErrOut, "nova: warning: %v\n", err)
	}
	for _, ig := range fresh {
		fmt.Fprintf(opts.io.ErrOut, "nova: %s\n", untrustedNotice(ig, rt.Workdir, rt.Home))
	}
	if len(fresh) > 0 {
		fmt.Fprintf(opts.io.ErrOut, "nova: (said once for this folder; `nova trust` trusts it, `nova doctor` lists what is ignored)\n")
	}
	debug, closeDebug, err := debugOutput(opts)
	if err != nil {
		return err
	}
	defer closeDebug()
	info := sessionInfo(rt, opts.session.shownID)
	code := headless.Run(ctx, rt.Live, headless.Options{
		Prompt: opts.prompt, Format: opts.outputFormat, Verbose: opts.verbose, SessionID: info.SessionID,
		Model: rt.Selection.ID(), Tools: rt.Registry.Names(), PermissionMode: string(rt.Checker.Mode()), Cwd: rt.Workdir,
		MCPServers: info.MCPServers, Commands: info.Commands, Agents: info.Agents, Version: version, ContextWindow: info.ContextWindow, MaxOutput: info.MaxOutput,
		Partial: opts.claude.includePartial, Debug: debug,
		IgnoredProjectSettings: ignored, Structured: opts.claude.structured, HookEvents: opts.claude.hookEvents,
		Stdout: opts.io.Out, Stderr: opts.io.ErrOut,
	})
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}
