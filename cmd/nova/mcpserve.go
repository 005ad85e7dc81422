package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/acp"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/permission"
)

// mcpServeOptions are what nova mcp serve runs with.
type mcpServeOptions struct {
	io *IOStreams
	// bypassOK is --allow-dangerously-skip-permissions: a call may ask
	// for bypassPermissions.
	bypassOK bool
	// session is every flag that shapes the sessions the calls open.
	session buildOptions
}

// newMCPServeCmd is nova mcp serve: nova as an MCP server (stdio) for
// other agents (docs/mcp.md#nova-as-an-mcp-server).
func newMCPServeCmd(f *Factory) *cobra.Command {
	opts := &mcpServeOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve nova as an MCP server on stdin and stdout: the nova and nova-reply tools",
		Long: `nova mcp serve is nova as another agent's tool, over MCP (stdio): the nova
tool runs a prompt in a new session (prompt, cwd, model, permissionMode,
allowedTools) and returns the answer and the session id; nova-reply
continues a session. Asks go to the MCP client's elicitation when it
offers it; otherwise they are denied, and the model is told why.

  claude mcp add nova -- nova mcp serve`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.session.check(); err != nil {
				return err
			}
			return runMCPServe(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	addSessionFlags(fl, &opts.session, "model of sessions whose call names none, as provider:model", "mode of sessions whose call names none: default, acceptEdits or plan")
	fl.BoolVar(&opts.bypassOK, "allow-dangerously-skip-permissions", false, "let a call ask for bypassPermissions")
	return cmd
}

// runMCPServe serves the MCP client until it closes stdin or ctx ends.
func runMCPServe(ctx context.Context, o *mcpServeOptions) error {
	novaHome, workdir, err := locate(o.io)
	if err != nil {
		return err
	}
	base := o.session
	// The client's elicitation answers asks, when it has one.
	base.interactive = true
	open := func(ctx context.Context, req acp.MCPOpenRequest) (*live.Runtime, error) {
		b := base
		b.resume = req.Resume
		b.model = cmp.Or(req.Model, b.model)
		b.permissionMode = cmp.Or(req.PermissionMode, b.permissionMode)
		if b.permissionMode == string(permission.ModeBypass) && !o.bypassOK {
			return nil, fmt.Errorf("permissionMode bypassPermissions needs nova mcp serve started with --allow-dangerously-skip-permissions")
		}
		b.allowedTools = append(append([]string(nil), b.allowedTools...), req.AllowedTools...)
		return openRuntime(ctx, o.io, novaHome, cmp.Or(req.Cwd, workdir), b)
	}
	if err := acp.ServeMCP(ctx, o.io.In, o.io.Out, acp.MCPOptions{Open: open, Version: version, Log: o.io.ErrOut}); err != nil {
		return failure(err)
	}
	return nil
}
