// Command nova is a terminal-first AI coding assistant. This package holds
// the commands (flags -> a live runtime -> a frontend) and the TUI's backend
// for its session operations (interactive.go); the runtime itself is built
// by package live.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/headless"
	"github.com/nova-dev/nova/sandbox"
)

// version is set at build time (-ldflags -X main.version=...).
var version = "dev"

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr is a bad-usage or configuration error: exit code 2.
func usageErr(format string, args ...any) error {
	return &exitError{code: headless.ExitUsage, err: fmt.Errorf(format, args...)}
}

func main() {
	// Inside the sandbox nova's own executable is the network proxy's
	// bridge: before anything else, since it needs its inherited socket.
	if len(os.Args) > 1 && os.Args[1] == sandbox.BridgeArg {
		os.Exit(sandbox.BridgeMain(os.Args[2:]))
	}
	// --version answers before anything else is initialised.
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-v") {
		fmt.Println("nova " + version)
		return
	}
	closeInheritedFDs()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], systemStreams())
	stop()
	os.Exit(code)
}

// run executes the command line and returns the exit code.
func run(ctx context.Context, args []string, s *IOStreams) int {
	return execute(ctx, newRootCmd(&Factory{IOStreams: s}, nil), args, s)
}

// execute runs cmd on args and turns its error into words on s.ErrOut
// and an exit code. Tests run a command built with a runF through it, so
// what they check is what nova would print and return.
func execute(ctx context.Context, cmd *cobra.Command, args []string, s *IOStreams) int {
	cmd.SetArgs(resumeWithoutID(args))
	cmd.SetIn(s.In)
	cmd.SetOut(s.Out)
	cmd.SetErr(s.ErrOut)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(s.ErrOut, "nova: %v\n", ee.err)
		}
		return ee.code
	}
	// An error of the operating system (a file that would not write, a
	// process that would not start) is the machine's, never the command
	// line's: no usage hint, and the exit code of a failed run.
	var errno syscall.Errno
	if errors.As(err, &errno) {
		fmt.Fprintf(s.ErrOut, "nova: %v\n", err)
		return headless.ExitFailed
	}
	// Cobra's own errors (unknown flag, bad arguments) are usage errors.
	fmt.Fprintf(s.ErrOut, "nova: %v\nRun 'nova --help' for usage.\n", err)
	return headless.ExitUsage
}
