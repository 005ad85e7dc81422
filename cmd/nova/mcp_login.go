package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/mcp"
)

// mcpLoginWait bounds how long nova mcp login waits for the browser: long
// enough to sign in and approve, short enough that a forgotten terminal
// does not hold the port for ever.
const mcpLoginWait = 5 * time.Minute

// mcpLoginOptions are what nova mcp login runs with.
type mcpLoginOptions struct {
	io   *IOStreams
	name string
	// open shows the authorization URL in the person's browser; nil when
	// no browser can be opened here. The URL is printed either way.
	open func(url string) error
	wait time.Duration
}

// mcpLogoutOptions are what nova mcp logout runs with.
type mcpLogoutOptions struct {
	io   *IOStreams
	name string
}

// newMCPLoginCmd is nova mcp login.
func newMCPLoginCmd(f *Factory, runF func(*mcpLoginOptions) error) *cobra.Command {
	opts := &mcpLoginOptions{io: f.IOStreams, open: browserOpener(f.IOStreams), wait: mcpLoginWait}
	return &cobra.Command{
		Use:   "login <name>",
		Short: "Log in to an http or sse MCP server that wants OAuth: nova prints a URL to open (and opens your browser)",
		Long: `Log in to an http or sse MCP server that asks for OAuth (most hosted
servers do). nova prints the authorization URL, opens your browser on it
when it can, and waits for the browser to come back to it on
127.0.0.1. The login is stored in NOVA_HOME/mcp-auth, readable by you
only, and renewed as it expires; sessions already open pick it up at
their next call to the server.

  nova mcp login linear
  nova mcp logout linear           forget it`,
		Args: mcpOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runMCPLogin(cmd.Context(), opts)
		},
	}
}

// newMCPLogoutCmd is nova mcp logout.
func newMCPLogoutCmd(f *Factory, runF func(*mcpLogoutOptions) error) *cobra.Command {
	opts := &mcpLogoutOptions{io: f.IOStreams}
	return &cobra.Command{
		Use:   "logout <name>",
		Short: "Forget the OAuth login of an MCP server (its stored token and client)",
		Args:  mcpOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runMCPLogout(opts)
		},
	}
}

// mcpServerHere finds the server called name among those nova sees here.
func mcpServerHere(s *IOStreams, name string) (novaHome, workdir string, c config.ConfiguredMCP, err error) {
	novaHome, workdir, list, err := loadMCPHere(s)
	if err != nil {
		return "", "", c, err
	}
	for _, l := range list {
		if l.Name == name {
			return novaHome, workdir, l, nil
		}
	}
	return "", "", c, usageErr("no MCP server %q here (nova mcp list lists them)", name)
}

func runMCPLogin(ctx context.Context, o *mcpLoginOptions) error {
	novaHome, workdir, c, err := mcpServerHere(o.io, o.name)
	if err != nil {
		return err
	}
	if c.State != config.MCPReady {
		// Logging in would send your browser where the entry says; a
		// server nova does not start gets nothing from you.
		return usageErr("MCP server %s does not start here (%s), so nova does not log in to it", o.name, mcpStateWords(c))
	}
	srv := live.MCPServer(c, workdir)
	if srv.Transport == mcp.TransportStdio {
		return usageErr("MCP server %s is a stdio server: only http and sse servers log in", o.name)
	}
	authDir := live.MCPAuthDir(novaHome)
	m := mcp.NewManager([]mcp.Server{srv}, mcp.Options{Registry: tools.NewRegistry(), Version: version, AuthDir: authDir})
	defer m.Close()
	ctx, cancel := context.WithTimeout(ctx, o.wait)
	defer cancel()
	// The first attempt hears the server's 401, which names where its
	// authorization server is described.
	m.Start()
	m.Wait(ctx)

	w := o.io.ErrOut
	err = m.Login(ctx, o.name, func(url string) error {
		fmt.Fprintf(w, "To log in to %s, open this URL in your browser:\n\n  %s\n\n", o.name, url)
		if o.open != nil {
			if err := o.open(url); err != nil {
				fmt.Fprintf(w, "(nova could not open a browser: %v)\n", err)
			}
		}
		fmt.Fprintf(w, "Waiting for the browser (up to %s; Ctrl-C stops)...\n", o.wait)
		return nil
	})
	if errors.Is(err, context.DeadlineExceeded) {
		return failure(fmt.Errorf("%w: nothing came back within %s; run nova mcp login %s again", err, o.wait, o.name))
	}
	if err != nil {
		return failure(err)
	}
	st := m.Statuses()[0]
	fmt.Fprintf(o.io.Out, "Logged in to %s: connected, %d %s. The login is stored in %s.\n",
		o.name, len(st.Tools), plural(len(st.Tools), "tool", "tools"), mcp.AuthFile(authDir, srv))
	return nil
}

func runMCPLogout(o *mcpLogoutOptions) error {
	novaHome, workdir, c, err := mcpServerHere(o.io, o.name)
	if err != nil {
		return err
	}
	srv := live.MCPServer(c, workdir)
	removed, err := mcp.Logout(live.MCPAuthDir(novaHome), srv)
	if err != nil {
		return failure(err)
	}
	if !removed {
		fmt.Fprintf(o.io.Out, "nova holds no login for %s.\n", o.name)
		return nil
	}
	fmt.Fprintf(o.io.Out, "Logged out of %s: its stored login is removed; an open session asks for a login at its next call to it.\n", o.name)
	return nil
}

// browserOpener returns how to open a URL in the person's browser, or nil
// when there can be none: stdin is not a terminal (a script), there is no
// display, or no opener (xdg-open, macOS's open) on PATH. What it knows
// comes through s, so a test's streams never open a browser.
func browserOpener(s *IOStreams) func(url string) error {
	if s.InIsPipe {
		return nil
	}
	var name string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		if s.Getenv("DISPLAY") == "" && s.Getenv("WAYLAND_DISPLAY") == "" {
			return nil
		}
		name = "xdg-open"
	default:
		return nil
	}
	path := lookPathIn(s.Getenv("PATH"), name)
	if path == "" {
		return nil
	}
	return func(url string) error {
		cmd := exec.Command(path, url)
		if err := cmd.Start(); err != nil {
			return err
		}
		// Reaped in the background: an opener may stay until the browser
		// exits, and nova has the URL on screen anyway.
		go func() { _ = cmd.Wait() }()
		return nil
	}
}

// lookPathIn finds an executable called name in the directories of path
// (a PATH value), or "".
func lookPathIn(path, name string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}
