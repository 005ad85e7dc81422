package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/nova-dev/nova/acp"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/permission"
)

// acpOptions are what nova acp runs with.
type acpOptions struct {
	io *IOStreams
	// bypassOK is --allow-dangerously-skip-permissions.
	bypassOK bool
	// session is every flag that shapes the sessions the editor opens.
	session buildOptions
}

// newACPCmd is nova acp: nova as an Agent Client Protocol agent, started
// by an editor (docs/editors.md).
func newACPCmd(f *Factory) *cobra.Command {
	opts := &acpOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Speak the Agent Client Protocol on stdin and stdout, for editors (Zed, JetBrains, Neovim)",
		Long: `nova acp is nova as an ACP agent: an editor starts it and drives sessions
over JSON-RPC on stdin and stdout (docs/editors.md). Each session runs in
the directory the editor names, with the same tools, permission checks
and sessions as the terminal UI; asks become the editor's permission
prompts, and Read sees the editor's unsaved buffers. Logs go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.session.check(); err != nil {
				return err
			}
			return runACP(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	addSessionFlags(fl, &opts.session, "model of the sessions, as provider:model", "mode sessions start in: default, acceptEdits, plan or bypassPermissions")
	fl.BoolVar(&opts.bypassOK, "allow-dangerously-skip-permissions", false, "let the editor switch a session to bypassPermissions")
	return cmd
}

// addSessionFlags adds the flags that shape the sessions a server opens
// (nova serve, nova acp, nova mcp serve) to fl, with these words for the
// model and the mode.
func addSessionFlags(fl *pflag.FlagSet, o *buildOptions, model, mode string) {
	fl.StringVar(&o.model, "model", "", model)
	fl.StringVar(&o.permissionMode, "permission-mode", "", mode)
	fl.StringArrayVar(&o.allowedTools, "allowedTools", nil, `rules to allow without asking, e.g. "Read,Bash(git diff:*)"`)
	fl.StringArrayVar(&o.disallowedTools, "disallowedTools", nil, `rules to deny, e.g. "Bash(rm:*),WebFetch"`)
	fl.BoolVar(&o.sandbox, "sandbox", false, "run Bash inside the OS sandbox, or refuse it where the sandbox cannot run")
	fl.BoolVar(&o.noSandbox, "no-sandbox", false, "run Bash outside the OS sandbox")
	fl.StringSliceVar(&o.addDirs, "add-dir", nil, "further directories the agent may use")
}

// openRuntime builds the runtime of a session a server's client asked for
// in dir, shaped as the command line says, and says its warnings on
// stderr.
func openRuntime(ctx context.Context, s *IOStreams, novaHome, dir string, b buildOptions) (*live.Runtime, error) {
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	rt, err := live.Build(ctx, b.live(s, novaHome, dir))
	if err != nil {
		return nil, err
	}
	if err := b.shape(rt); err != nil {
		_ = rt.Close()
		return nil, err
	}
	for _, w := range rt.Warnings {
		fmt.Fprintf(s.ErrOut, "nova: warning: %s\n", w)
	}
	for _, ig := range rt.Ignored {
		fmt.Fprintf(s.ErrOut, "nova: %s\n", untrustedNotice(ig, rt.Workdir, rt.Home))
	}
	return rt, nil
}

// runACP serves the editor until it closes stdin or ctx ends.
func runACP(ctx context.Context, o *acpOptions) error {
	novaHome, err := findNovaHome(o.io)
	if err != nil {
		return err
	}
	base := o.session
	// The editor answers asks.
	base.interactive = true
	open := func(ctx context.Context, req acp.OpenRequest) (*live.Runtime, error) {
		b := base
		b.resume = req.Resume
		if req.Model != "" {
			b.model = req.Model
		}
		b.mcpConfigs = slices.Concat(b.mcpConfigs, req.MCPConfigs)
		return openRuntime(ctx, o.io, novaHome, req.Cwd, b)
	}
	err = acp.Serve(ctx, o.io.In, o.io.Out, acp.Options{
		Open: open, Version: version, NovaHome: novaHome, Log: o.io.ErrOut, Getenv: o.io.Getenv,
		BypassOK: o.bypassOK || base.permissionMode == string(permission.ModeBypass),
	})
	if err != nil {
		return failure(err)
	}
	return nil
}
