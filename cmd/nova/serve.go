package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/remote"
)

// serveOptions are what nova serve runs with.
type serveOptions struct {
	io *IOStreams

	host  string
	port  int
	token tokenFlags
	// idle closes a session nobody used for that long (0: never).
	idle time.Duration
	// maxSessions bounds the sessions open at once (0: no bound).
	maxSessions int
	// session is every flag that shapes the sessions the server builds.
	session buildOptions
}

// newServeCmd is nova serve: the HTTP API of seed 000. runF, when not
// nil, is called with the parsed and checked options instead of running
// them (tests).
func newServeCmd(f *Factory, runF func(*serveOptions) error) *cobra.Command {
	opts := &serveOptions{io: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API (sessions, chat, the chat stream, approvals) on this machine",
		Long: `nova serve runs the same agent, tools, permission checks and sessions as
the terminal UI behind an HTTP API (docs/server.md): a browser, a script or
a Vercel AI SDK client drives it. It listens on 127.0.0.1:8765 and prints
the URL to open, with the token every request needs in its fragment
(#token=..., which a browser never sends to a server).

The token: --token-file or NOVA_SERVER_TOKEN rather than --token, which
other users of this machine can read in the process list.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.token.resolve(opts.io); err != nil {
				return err
			}
			if opts.idle < 0 {
				return usageErr("--idle-timeout %s: want a duration such as 30m, or 0 to keep sessions open", opts.idle)
			}
			if opts.port < 0 || opts.port > 65535 {
				return usageErr("--port %d: want 0 (any free port) to 65535", opts.port)
			}
			if opts.maxSessions < 0 {
				return usageErr("--max-sessions %d: want 1 or more, or 0 for no bound", opts.maxSessions)
			}
			if !remote.Loopback(opts.host) && !opts.token.given() {
				return usageErr("--host %s is reachable from other machines: give a token (--token-file, NOVA_SERVER_TOKEN or --token) so a random one is not the only lock, or serve on 127.0.0.1", opts.host)
			}
			if err := opts.token.strongEnough(opts.host, "--host"); err != nil {
				return err
			}
			if err := opts.session.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runServe(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.host, "host", "127.0.0.1", "address to listen on (a non-loopback one needs a token of yours of 128 bits or more; 0.0.0.0: every address)")
	fl.IntVar(&opts.port, "port", 8765, "port to listen on (0: any free port)")
	opts.token.add(fl, "requests")
	fl.DurationVar(&opts.idle, "idle-timeout", 30*time.Minute, "close a session (and stop its MCP servers) after this long with no request, run or open page; the next request reopens it (0: never)")
	fl.IntVar(&opts.maxSessions, "max-sessions", defaultMaxSessions, "sessions open at once, at most; past it a new one is refused (429) until one closes (0: no bound)")
	addSessionFlags(fl, &opts.session, "default model of new sessions, as provider:model", "default, acceptEdits, plan or bypassPermissions")
	return cmd
}

// defaultMaxSessions is --max-sessions' default: far more than one
// person keeps open within the idle timeout, and a bound on what a
// client that opens sessions in a loop costs (each holds its runtime and
// MCP servers; 200 measured 100 to 180 MB).
const defaultMaxSessions = 32

// runServe serves until ctx ends (SIGINT, SIGTERM), then lets requests in
// flight finish, ends the runs and exits 0.
func runServe(ctx context.Context, o *serveOptions) error {
	novaHome, workdir, err := locate(o.io)
	if err != nil {
		return err
	}
	token := o.token.token
	if token == "" {
		if token, err = remote.NewToken(); err != nil {
			return failure(err)
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.host, strconv.Itoa(o.port)))
	if err != nil {
		return failure(fmt.Errorf("listen on %s:%d: %w", o.host, o.port, err))
	}
	base := o.session.live(o.io, novaHome, workdir)
	host := live.NewHost(ctx, base)
	host.SetMaxSessions(o.maxSessions)
	defer host.Close()
	defer host.CloseIdle(o.idle)()
	addrs := remote.InterfaceAddrs(o.host)
	srv, err := remote.New(remote.Options{
		Host: o.host, Addrs: addrs, Token: token, NovaHome: novaHome, Home: o.io.Home, Workdir: workdir,
		FrontendDir: o.io.Getenv("NOVA_FRONTEND_DIST"), Sessions: host, Getenv: o.io.Getenv,
	})
	if err != nil {
		ln.Close()
		return failure(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, h := range serveURLHosts(o.host, addrs) {
		fmt.Fprintf(o.io.Out, "nova serve: listening on %s\n", tokenURL(net.JoinHostPort(h, port), token))
	}
	if !remote.Loopback(o.host) {
		fmt.Fprintln(o.io.ErrOut, "nova serve: ⚠ not encrypted: anyone on this network can read the traffic, the token included; keep it on 127.0.0.1 behind an SSH tunnel or a TLS proxy where others share the network (docs/remote.md#security)")
	}
	if err := srv.Serve(ctx, ln); err != nil {
		return failure(err)
	}
	return nil
}

// serveURLHosts are the hosts of the URLs nova serve prints: the one it
// listens on, or for every address loopback first, then each address of
// the machine that others reach it at.
func serveURLHosts(host string, addrs []string) []string {
	if !remote.Unspecified(host) {
		return []string{host}
	}
	lo := "127.0.0.1"
	if strings.Contains(host, ":") {
		lo = "::1"
	}
	return append([]string{lo}, addrs...)
}
