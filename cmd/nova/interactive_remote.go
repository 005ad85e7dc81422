package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/remote"
	"github.com/nova-dev/nova/tui"
)

// Sharing the terminal's session with browsers (/remote, nova --remote;
// docs/remote.md, "Sharing a terminal session"): nova serve's server runs
// in this process on live.Shared, whose host is whatever runtime the
// backend holds, so the TUI and the server are two consumers of one live
// session. No second runtime is opened (the session's lock would refuse
// it anyway), and /clear, /resume and /model carry the share to the new
// session: the server serves the backend's current runtime at every
// request, and the follower below moves to it.

var (
	_ tui.Remote       = (*interactiveBackend)(nil)
	_ tui.FileMentions = (*interactiveBackend)(nil)
	_ tui.Agents       = (*interactiveBackend)(nil)
)

// The defaults of --host and --port, nova serve's.
const (
	remoteHost = "127.0.0.1"
	remotePort = 8765
)

// remoteFlags are --remote, --host, --port and the token's flags.
type remoteFlags struct {
	on        bool   // --remote: share from the start
	host      string // where /remote listens unless told otherwise
	port      int
	portGiven bool // --port was given: a busy port is an error, not a reason to take another
	token     tokenFlags
}

// check is what the command line must hold for /remote: the token is
// --token-file's or NOVA_SERVER_TOKEN's when --token is not given, and a
// host other machines reach needs a strong one of the person's (as nova
// serve does).
func (f *remoteFlags) check(s *IOStreams) error {
	if err := f.token.resolve(s); err != nil {
		return err
	}
	if f.port < 0 || f.port > 65535 {
		return usageErr("--port %d: want 0 (any free port) to 65535", f.port)
	}
	if !remote.Loopback(f.host) && !f.token.given() {
		return usageErr("--host %s is reachable from other machines: give a token (--token-file, NOVA_SERVER_TOKEN or --token) so a random one is not the only lock, or share on 127.0.0.1", f.host)
	}
	return f.token.strongEnough(f.host, "--host")
}

// sharing is the backend's part of /remote; share is nil when the
// session is not shared. mu is not the backend's: the server's requests
// take that one (for the runtime), and stopping waits for them.
type sharing struct {
	remote remoteFlags
	mu     sync.Mutex
	share  *remoteShare
}

// remoteShare is one share: a server and the follower of the session's
// runs.
type remoteShare struct {
	info     tui.RemoteInfo
	runs     chan tui.RemoteRun
	cancel   context.CancelFunc
	served   chan error    // Serve's result
	followed chan struct{} // closed when the follower has returned
}

// StartRemote implements tui.Remote.
func (b *interactiveBackend) StartRemote(addr string) (tui.RemoteInfo, error) {
	b.sharing.mu.Lock()
	defer b.sharing.mu.Unlock()
	if sh := b.sharing.share; sh != nil {
		return sh.info, nil
	}
	f := b.sharing.remote
	// /remote lan: this machine's first LAN address, for a phone on the
	// same network. Asked for by name, with the warning in view, it may use
	// a fresh 256-bit token; any other address needs a token of the
	// person's, as nova serve does.
	lan := addr == "lan"
	if lan {
		addrs := remote.InterfaceAddrs("0.0.0.0")
		if len(addrs) == 0 {
			return tui.RemoteInfo{}, errors.New("this machine has no LAN address (no network interface is up besides loopback): /remote shares on loopback")
		}
		addr = addrs[0]
	}
	host, port, portGiven, err := remoteAddr(addr, f)
	if err != nil {
		return tui.RemoteInfo{}, err
	}
	if !lan && !remote.Loopback(host) && !f.token.given() {
		return tui.RemoteInfo{}, fmt.Errorf("%s is reachable from other machines: start nova with a token (--token-file, NOVA_SERVER_TOKEN or --token) so a random one is not the only lock, share on this machine's LAN address with /remote lan, or share on loopback (/remote)", host)
	}
	if err := f.token.strongEnough(host, "/remote"); err != nil {
		return tui.RemoteInfo{}, err
	}
	token := f.token.token
	if token == "" {
		if token, err = remote.NewToken(); err != nil {
			return tui.RemoteInfo{}, err
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil && !portGiven && errors.Is(err, syscall.EADDRINUSE) {
		// The default port is taken (nova serve, another terminal's
		// share): any free one does, the URL says which.
		ln, err = net.Listen("tcp", net.JoinHostPort(host, "0"))
	}
	if err != nil {
		return tui.RemoteInfo{}, fmt.Errorf("listen on %s: %w", net.JoinHostPort(host, strconv.Itoa(port)), err)
	}
	urlHost, addrs := host, remote.InterfaceAddrs(host)
	if remote.Unspecified(host) {
		// Every address of the machine: the URL is one a phone on the LAN
		// reaches (the server answers each of them besides loopback).
		urlHost = remoteHost
		if len(addrs) > 0 {
			urlHost = addrs[0]
		}
	}
	rt := b.runtime()
	srv, err := remote.New(remote.Options{
		Host: host, Addrs: addrs, Token: token, NovaHome: rt.NovaHome, Home: b.io.Home, Workdir: rt.Workdir,
		FrontendDir: b.io.Getenv("NOVA_FRONTEND_DIST"), Sessions: live.NewSharedController(b.ctl), Getenv: b.io.Getenv,
		Landing: func() string { return "/s/" + b.runtime().Session.ID() },
		Share:   true,
	})
	if err != nil {
		ln.Close()
		return tui.RemoteInfo{}, err
	}
	link := tokenURL(net.JoinHostPort(urlHost, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)), token)
	ctx, cancel := context.WithCancel(b.ctx)
	info := tui.RemoteInfo{URL: link, Exposed: !remote.Loopback(host)}
	if !info.Exposed {
		if lanAddrs := remote.InterfaceAddrs("0.0.0.0"); len(lanAddrs) > 0 {
			info.LAN = lanAddrs[0]
		}
	}
	sh := &remoteShare{info: info, runs: make(chan tui.RemoteRun),
		cancel: cancel, served: make(chan error, 1), followed: make(chan struct{})}
	go func() { sh.served <- srv.Serve(ctx, ln) }()
	go func() {
		defer close(sh.followed)
		b.followRemote(ctx, sh.runs)
	}()
	b.sharing.share = sh
	return sh.info, nil
}

// remoteAddr is where /remote listens: addr (host, host:port or :port)
// over the flags' host and port.
func remoteAddr(addr string, f remoteFlags) (host string, port int, portGiven bool, err error) {
	host, port, portGiven = f.host, f.port, f.portGiven
	if addr == "" {
		return host, port, portGiven, nil
	}
	h, p, splitErr := net.SplitHostPort(addr)
	if splitErr != nil {
		return strings.Trim(addr, "[]"), port, portGiven, nil // a host alone
	}
	if h != "" {
		host = h
	}
	if port, err = strconv.Atoi(p); err != nil || port < 0 || port > 65535 {
		return "", 0, false, fmt.Errorf("%s: the port must be 0 (any free port) to 65535", addr)
	}
	return host, port, true, nil
}

// StopRemote implements tui.Remote: the listener closes at once (a new
// connection is refused), and connections still open are let finish a
// bounded time. The runs go on.
func (b *interactiveBackend) StopRemote() error {
	b.sharing.mu.Lock()
	sh := b.sharing.share
	b.sharing.share = nil
	b.sharing.mu.Unlock()
	if sh == nil {
		return nil
	}
	sh.cancel()
	err := <-sh.served
	<-sh.followed
	return err
}

// RemoteInfo implements tui.Remote.
func (b *interactiveBackend) RemoteInfo() (tui.RemoteInfo, bool) {
	b.sharing.mu.Lock()
	defer b.sharing.mu.Unlock()
	if sh := b.sharing.share; sh != nil {
		return sh.info, true
	}
	return tui.RemoteInfo{}, false
}

// RemoteRuns implements tui.Remote.
func (b *interactiveBackend) RemoteRuns() <-chan tui.RemoteRun {
	b.sharing.mu.Lock()
	defer b.sharing.mu.Unlock()
	if sh := b.sharing.share; sh != nil {
		return sh.runs
	}
	closed := make(chan tui.RemoteRun)
	close(closed)
	return closed
}

// followRemote offers the TUI every run of the current session that it
// did not start (live.Controller.ForeignRuns), as each starts, until ctx
// ends. A run's events are the TUI's for as long as nova runs (a share
// stopped meanwhile leaves them be: the run goes on).
func (b *interactiveBackend) followRemote(ctx context.Context, out chan<- tui.RemoteRun) {
	defer close(out)
	for fr := range b.ctl.ForeignRuns(ctx) {
		sess := fr.Session
		run := tui.RemoteRun{Prompt: promptText(fr.Run.Input()), Events: fr.Run.Events(b.ctx), Interrupt: func() { go sess.Interrupt() }}
		select {
		case out <- run:
		case <-ctx.Done():
			return
		}
	}
}

// promptText is what a run's prompt says, for the transcript: its text,
// and how many attachments came with it.
func promptText(m llm.Message) string {
	var text []string
	attached := 0
	for _, p := range m.Parts {
		if p.Type == llm.PartText {
			text = append(text, p.Text)
		} else {
			attached++
		}
	}
	s := strings.Join(text, "\n\n")
	switch {
	case attached == 1:
		s += "\n(1 attachment)"
	case attached > 1:
		s += fmt.Sprintf("\n(%d attachments)", attached)
	}
	return strings.TrimSpace(s)
}
