package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams is the only door from the commands to the process: the
// standard streams, the environment, the home directory and the working
// directory. main makes it once from the operating system and passes it
// down; tests make their own, so no command reads the real HOME, the real
// environment or the real terminal behind a test's back.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// InIsPipe reports whether In is a pipe or a file rather than a
	// terminal: print mode then reads the prompt from it, and the terminal
	// UI refuses to start.
	InIsPipe bool
	// InIsTerminal reports whether In is a terminal: print mode with no
	// prompt then refuses at once rather than wait for the person to type
	// one and press ctrl+d.
	InIsTerminal bool
	// LookupEnv reads the environment; nil is an empty environment.
	LookupEnv func(string) (string, bool)
	// Environ is the whole environment, for the processes nova starts
	// as itself (teammates); nil is an empty one.
	Environ func() []string
	// Unsetenv removes a variable from the environment every process nova
	// starts inherits (a secret nova read for itself); nil does nothing.
	Unsetenv func(string) error
	// Home is the user's home directory; "" when there is none.
	Home string
	// Workdir is the working directory as the operating system gave it;
	// "" when it could not be found (WorkdirErr says why).
	Workdir string
	// WorkdirErr is why the working directory is unknown.
	WorkdirErr error
}

// systemStreams returns the process's own streams, environment, home and
// working directory.
func systemStreams() *IOStreams {
	// A home that cannot be found is "": what needs it says so.
	home, _ := os.UserHomeDir()
	wd, wdErr := os.Getwd()
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, InIsPipe: stdinIsPipe(), InIsTerminal: term.IsTerminal(int(os.Stdin.Fd())),
		LookupEnv: os.LookupEnv, Environ: os.Environ, Unsetenv: os.Unsetenv, Home: home, Workdir: wd, WorkdirErr: wdErr,
	}
}

// Getenv returns the value of the environment variable key, "" when unset.
func (s *IOStreams) Getenv(key string) string {
	v, _ := s.lookupEnv(key)
	return v
}

// unsetenv removes key from the environment of what nova starts.
func (s *IOStreams) unsetenv(key string) error {
	if s.Unsetenv == nil {
		return nil
	}
	if err := s.Unsetenv(key); err != nil {
		return fmt.Errorf("unset %s: %w", key, err)
	}
	return nil
}

func (s *IOStreams) lookupEnv(key string) (string, bool) {
	if s.LookupEnv == nil {
		return "", false
	}
	return s.LookupEnv(key)
}

// getwd returns the working directory, or why it is unknown.
func (s *IOStreams) getwd() (string, error) {
	switch {
	case s.Workdir != "":
		return s.Workdir, nil
	case s.WorkdirErr != nil:
		return "", s.WorkdirErr
	}
	return "", errors.New("unknown")
}

func stdinIsPipe() bool {
	st, err := os.Stdin.Stat()
	if err != nil {
		return false
	}
	return st.Mode()&os.ModeCharDevice == 0 && (st.Mode()&os.ModeNamedPipe != 0 || st.Mode().IsRegular())
}

// Factory is what every command is made from: NewCmd-style constructors
// take it, so a test builds any command on its own streams.
type Factory struct {
	IOStreams *IOStreams
	// MCPProbe, when set, stands in for connecting to MCP servers in nova
	// mcp list and get (tests of the commands' words).
	MCPProbe mcpProbe
}
