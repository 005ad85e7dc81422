package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/permission"
)

// HostDecider decides whether a sandboxed command may reach host (normalized
// by permission.NormalizeHost) on port through nova's network proxy. A nil
// error lets it through; an error refuses it, and its text is what the
// command reads in the proxy's 403 answer, so it should name the host and
// the setting that would let it through. It is an alias, so that a caller
// that does not import this package (the tools' Sandbox interface) can
// hand one over as a plain func.
type HostDecider = func(host string, port int) error

// proxyDialTimeout bounds how long the proxy waits for a host to answer.
const proxyDialTimeout = 30 * time.Second

// proxy is nova's filtering HTTP proxy: CONNECT tunnels for HTTPS (the TLS
// inside is the command's own, never opened) and absolute-URI requests for
// plain HTTP, each host judged by a HostDecider before anything is sent to
// it. It serves connections handed to it; where they come from (the bridge
// inside bwrap, a loopback listener for sandbox-exec) is the caller's.
type proxy struct {
	dial      func(ctx context.Context, network, addr string) (net.Conn, error)
	transport *http.Transport
}

func newProxy() *proxy {
	d := &net.Dialer{Timeout: proxyDialTimeout}
	return &proxy{
		dial: d.DialContext,
		transport: &http.Transport{
			// The proxy's own requests go straight to the host: nova's
			// environment may name a proxy of its own, which the dial
			// below would then bypass anyway.
			Proxy:               nil,
			DialContext:         d.DialContext,
			DisableCompression:  true,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     30 * time.Second,
		},
	}
}

// hopHeaders are the headers of one hop, never forwarded (RFC 9110 7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// serve answers the requests of one client connection until it closes.
func (p *proxy) serve(conn net.Conn, decide HostDecider) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				refuse(conn, http.StatusBadRequest, "nova's sandbox proxy could not read the request: "+err.Error())
			}
			return
		}
		if req.Method == http.MethodConnect {
			p.tunnel(conn, br, req, decide)
			return
		}
		if !p.forward(conn, req, decide) {
			return
		}
	}
}

// target returns the normalized host and the port a request is for, asks
// decide about it, and answers the client itself when it may not go on.
func target(conn net.Conn, authority, defaultPort string, decide HostDecider) (host string, port int, ok bool) {
	h, ps, err := net.SplitHostPort(authority)
	if err != nil {
		h, ps = authority, defaultPort
	}
	if ps == "" {
		ps = defaultPort
	}
	port, err = strconv.Atoi(ps)
	if err != nil || port <= 0 || port > 65535 {
		refuse(conn, http.StatusBadRequest, fmt.Sprintf("nova's sandbox proxy: bad port in %q", authority))
		return "", 0, false
	}
	host, err = permission.NormalizeHost(h)
	if err != nil {
		refuse(conn, http.StatusBadRequest, "nova's sandbox proxy: "+err.Error())
		return "", 0, false
	}
	if err := decide(host, port); err != nil {
		refuse(conn, http.StatusForbidden, err.Error())
		return "", 0, false
	}
	return host, port, true
}

// tunnel opens a CONNECT tunnel to an allowed host and relays bytes both
// ways until either side closes.
func (p *proxy) tunnel(conn net.Conn, br *bufio.Reader, req *http.Request, decide HostDecider) {
	host, port, ok := target(conn, req.RequestURI, "443", decide)
	if !ok {
		return
	}
	up, err := p.dial(context.Background(), "tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		refuse(conn, http.StatusBadGateway, fmt.Sprintf("nova's sandbox proxy could not reach %s: %v", host, err))
		return
	}
	defer up.Close()
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	relay(conn, br, up)
}

// forward sends one absolute-URI request to an allowed host and writes the
// answer back; it reports whether the connection may carry another.
func (p *proxy) forward(conn net.Conn, req *http.Request, decide HostDecider) bool {
	if !req.URL.IsAbs() || req.URL.Host == "" {
		refuse(conn, http.StatusBadRequest, "nova's sandbox proxy takes absolute URLs (GET http://host/path) and CONNECT host:port")
		return false
	}
	if req.URL.Scheme != "http" {
		refuse(conn, http.StatusBadRequest, fmt.Sprintf("nova's sandbox proxy forwards http:// URLs; use CONNECT for %s", req.URL.Scheme))
		return false
	}
	host, port, ok := target(conn, req.URL.Host, "80", decide)
	if !ok {
		return false
	}
	out := req.Clone(context.Background())
	out.RequestURI = ""
	// The host asked about is the one reached and the one named: a Host
	// header of another name must not ride along to a shared server.
	out.URL.Host = authority(host, port, 80)
	out.Host = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		refuse(conn, http.StatusBadGateway, fmt.Sprintf("nova's sandbox proxy could not reach %s: %v", host, err))
		return false
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		if h != "Transfer-Encoding" {
			resp.Header.Del(h)
		}
	}
	keep := !req.Close && !resp.Close
	resp.Close = !keep
	if err := resp.Write(conn); err != nil {
		return false
	}
	return keep
}

// refuse answers the client with status and a text body, and closes.
func refuse(conn net.Conn, status int, msg string) {
	body := msg + "\n"
	fmt.Fprintf(conn, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\nX-Nova-Sandbox: refused\r\n\r\n%s",
		status, http.StatusText(status), len(body), body)
}

// relay copies both ways between a client (with what its reader already
// buffered) and the host, and returns when both directions are done.
func relay(client net.Conn, br *bufio.Reader, up net.Conn) {
	var wg sync.WaitGroup
	wg.Go(func() {
		io.Copy(up, br)
		closeWrite(up)
	})
	io.Copy(client, up)
	closeWrite(client)
	wg.Wait()
}

// closeWrite half-closes c where it can, so the other side sees the end of
// what was sent while it may still answer.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// authority is host:port as a request names it, without the scheme's
// default port.
func authority(host string, port, defaultPort int) string {
	if port == defaultPort {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// Refusal is the error a HostDecider returns for a host nobody allowed:
// it names the host, why, and the setting that would let it through, so
// that every refusal reads the same to the command and its reader.
func Refusal(host, why string) error {
	return errors.New(RefusalText(host, why))
}

// RefusalText is Refusal's message: the host, why it was refused and the
// two ways to allow it (the setting, or the rule on the command line).
func RefusalText(host, why string) string {
	return fmt.Sprintf("nova's sandbox refused a network request to %s: %s. "+
		"To allow it, add %q to sandbox.network.allowedDomains in .nova/settings.json, "+
		"or run nova with --allowedTools \"WebFetch(domain:%s)\"", host, why, host, host)
}

// HostsAllowed returns the HostDecider of a static list: host patterns
// (permission.MatchHost) go through, every other host is refused.
func HostsAllowed(patterns []string) HostDecider {
	return func(host string, _ int) error {
		for _, p := range patterns {
			if permission.MatchHost(p, host) {
				return nil
			}
		}
		return Refusal(host, "it is not in sandbox.network.allowedDomains")
	}
}

// proxyEnv are the variables that point a command's HTTP clients at the
// proxy on addr (host:port); curl reads only the lower-case http_proxy,
// others the upper case. Loopback stays direct: inside the sandbox it is
// the command's own (a test server it started).
func proxyEnv(addr string) []string {
	u := "http://" + addr
	var out []string
	for _, k := range []string{"http_proxy", "https_proxy", "all_proxy"} {
		out = append(out, k+"="+u, strings.ToUpper(k)+"="+u)
	}
	return append(out, "no_proxy=localhost,127.0.0.1,::1", "NO_PROXY=localhost,127.0.0.1,::1")
}

// withoutProxyEnv drops proxy variables a command inherited, so that only
// the bridge's own reach it.
func withoutProxyEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToLower(name) {
		case "http_proxy", "https_proxy", "all_proxy", "no_proxy":
			continue
		}
		out = append(out, kv)
	}
	return out
}
