//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
)

// BridgeArg is the hidden first argument that makes nova's executable run
// as the bridge (BridgeMain) inside the sandbox. A program that can be
// named in Config.Bridge hands it on as its main's first step:
//
//	if len(os.Args) > 1 && os.Args[1] == sandbox.BridgeArg {
//		os.Exit(sandbox.BridgeMain(os.Args[2:]))
//	}
const BridgeArg = "__sandbox-bridge"

// How the proxy and the bridge meet. Inside bwrap the network namespace is
// cut and Unix sockets cannot be made (the seccomp filter refuses
// socket(AF_UNIX)); socketpair(2) stays allowed, and so does passing a
// descriptor over a socket already connected. So nova hands the bridge one
// end of a connected pair (the control socket) as an inherited descriptor.
// The bridge listens on 127.0.0.1 inside the sandbox; for every TCP
// connection it accepts, it makes a socketpair, sends one end to nova over
// the control socket (SCM_RIGHTS) and relays between the TCP connection
// and the other end. nova serves the proxy on each end it receives. No path
// inside the sandbox leads out, and no command can open a way of its own.

// bridgeRun is the proxy's side of one confined command: the control
// socket it reads, and the connections it is serving, closed by stop.
type bridgeRun struct {
	ctl   *net.UnixConn
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	done  bool
}

// startBridge makes the control socket pair for one command and serves
// what arrives on it with decide. child is the end the bridge inherits;
// stop ends the serving.
func (s *Sandbox) startBridge(decide HostDecider) (child *os.File, stop func(), err error) {
	fds, err := socketpair()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: network bridge: socketpair: %w", err)
	}
	parent := os.NewFile(uintptr(fds[0]), "nova-proxy-ctl")
	c, err := net.FileConn(parent)
	parent.Close()
	if err != nil {
		syscall.Close(fds[1])
		return nil, nil, fmt.Errorf("sandbox: network bridge: %w", err)
	}
	r := &bridgeRun{ctl: c.(*net.UnixConn), conns: map[net.Conn]struct{}{}}
	go r.accept(s.proxy, decide)
	return os.NewFile(uintptr(fds[1]), "nova-bridge-ctl"), sync.OnceFunc(r.stop), nil
}

// accept serves every connection the bridge hands over until the control
// socket closes.
func (r *bridgeRun) accept(p *proxy, decide HostDecider) {
	buf := make([]byte, 1)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	for {
		_, oobn, _, _, err := r.ctl.ReadMsgUnix(buf, oob)
		if err != nil {
			return
		}
		msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			continue
		}
		for _, m := range msgs {
			fds, err := syscall.ParseUnixRights(&m)
			if err != nil {
				continue
			}
			for _, fd := range fds {
				f := os.NewFile(uintptr(fd), "nova-proxy-conn")
				conn, err := net.FileConn(f)
				f.Close()
				if err != nil {
					continue // not a socket: nothing to serve
				}
				if !r.track(conn) {
					conn.Close()
					continue
				}
				go func() {
					defer r.untrack(conn)
					p.serve(conn, decide)
				}()
			}
		}
	}
}

func (r *bridgeRun) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *bridgeRun) untrack(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
}

// stop closes the control socket and every connection still served.
func (r *bridgeRun) stop() {
	r.mu.Lock()
	r.done = true
	conns := r.conns
	r.conns = nil
	r.mu.Unlock()
	r.ctl.Close()
	for c := range conns {
		c.Close()
	}
}

// BridgeMain runs the bridge inside the sandbox: args are the control
// socket's descriptor, "--" and the command. It listens on 127.0.0.1,
// starts the command with the proxy variables pointing there, passes on
// the signals it gets and returns the command's exit status. It is what
// an executable named in Config.Bridge runs for BridgeArg.
func BridgeMain(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "nova sandbox bridge: usage: "+BridgeArg+" FD -- COMMAND [ARG...]")
		return 125
	}
	fd, err := strconv.Atoi(args[0])
	if err != nil || fd < 3 {
		fmt.Fprintf(os.Stderr, "nova sandbox bridge: bad descriptor %q\n", args[0])
		return 125
	}
	f := os.NewFile(uintptr(fd), "nova-bridge-ctl")
	c, err := net.FileConn(f)
	f.Close() // FileConn holds a close-on-exec copy: the command never inherits it
	if err != nil {
		fmt.Fprintf(os.Stderr, "nova sandbox bridge: control socket: %v\n", err)
		return 125
	}
	ctl, ok := c.(*net.UnixConn)
	if !ok {
		fmt.Fprintln(os.Stderr, "nova sandbox bridge: the control descriptor is not a Unix socket")
		return 125
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "nova sandbox bridge: listen: %v\n", err)
		return 125
	}
	go bridgeAccept(ln, ctl)

	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(withoutProxyEnv(os.Environ()), proxyEnv(ln.Addr().String())...)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "nova sandbox bridge: %v\n", err)
		if errors.Is(err, exec.ErrNotFound) {
			return 127
		}
		return 126
	}
	go func() {
		for sig := range sigs {
			cmd.Process.Signal(sig)
		}
	}()
	err = cmd.Wait()
	signal.Stop(sigs)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "nova sandbox bridge: %v\n", err)
		return 125
	}
	return 0
}

// bridgeAccept hands every connection made to ln over to nova's proxy.
func bridgeAccept(ln net.Listener, ctl *net.UnixConn) {
	var mu sync.Mutex // one descriptor per message, whole
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			fds, err := socketpair()
			if err != nil {
				return
			}
			mu.Lock()
			_, _, err = ctl.WriteMsgUnix([]byte{0}, syscall.UnixRights(fds[1]), nil)
			mu.Unlock()
			syscall.Close(fds[1])
			if err != nil {
				syscall.Close(fds[0])
				return
			}
			pf := os.NewFile(uintptr(fds[0]), "nova-bridge-conn")
			peer, err := net.FileConn(pf)
			pf.Close()
			if err != nil {
				return
			}
			defer peer.Close()
			var wg sync.WaitGroup
			wg.Go(func() {
				io.Copy(peer, conn)
				closeWrite(peer)
			})
			io.Copy(conn, peer)
			closeWrite(conn)
			wg.Wait()
		}()
	}
}

// socketpair makes a connected pair of stream Unix sockets, both
// close-on-exec (under ForkLock, as the net package makes its sockets, so
// no command started meanwhile inherits them).
func socketpair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return fds, err
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	return fds, nil
}
