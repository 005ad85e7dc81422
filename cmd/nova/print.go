package main

import (
	"context"
	"fmt"

	"github.com/nova-dev/nova/headless"
)

// runPrint runs one prompt in print mode; a non-zero exit code comes back
// as an exitError.
func runPrint(ctx context.Context, opts *rootOptions, prompt string) error {
	rt, err := build(ctx, opts.io, buildOptions{
		model: opts.model, maxTurns: opts.maxTurns, permissionMode: opts.permissionMode,
		allowedTools: opts.allowedTools, disallowedTools: opts.disallowedTools, appendSystem: opts.appendSystem,
		cont: opts.cont, resume: opts.resume, sandbox: opts.sandbox, addDirs: opts.addDirs,
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	for _, w := range rt.warnings {
		fmt.Fprintf(opts.io.ErrOut, "nova: warning: %s\n", w)
	}
	code := headless.Run(ctx, rt.agent, headless.Options{
		Prompt: prompt, Format: opts.outputFormat, Verbose: opts.verbose, SessionID: rt.session.ID(),
		Model: rt.selection.ID(), Tools: rt.registry.Names(), PermissionMode: string(rt.checker.Mode()), Cwd: rt.workdir,
		Stdout: opts.io.Out, Stderr: opts.io.ErrOut,
	})
	if rt.session.Meta().Title == "" {
		// Print mode names the session after its prompt rather than pay
		// for a model call; the TUI asks the model.
		_ = rt.session.SetTitle(shortTitle(prompt))
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}
