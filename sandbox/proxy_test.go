//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// loopbackServer serves on addr (127.0.0.2 and 127.0.0.3 are loopback on
// Linux, distinct hosts to the proxy) and counts the requests it gets.
func loopbackServer(t *testing.T, addr string, tls bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	ln, err := net.Listen("tcp", addr+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(w, "hello from %s host=%s", addr, r.Host)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, &hits
}

// filteredSandbox is a real bwrap sandbox whose network goes through the
// proxy, with the test binary as the bridge (TestMain hands it on).
func filteredSandbox(t *testing.T, hosts HostDecider) (*Sandbox, string) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := realTempDir(t)
	ws := mkdir(t, root, "ws")
	return realSandbox(t, Config{Workspace: ws, Home: mkdir(t, root, "home"), Hosts: hosts, Bridge: exe}), ws
}

func TestProxyAllowsListedHostAndRefusesOthers(t *testing.T) {
	t.Parallel()
	allowed, allowedHits := loopbackServer(t, "127.0.0.2", false)
	other, otherHits := loopbackServer(t, "127.0.0.3", false)
	sb, ws := filteredSandbox(t, HostsAllowed([]string{"127.0.0.2"}))

	out, err := run(t, sb, ws, "curl", "-sS", allowed.URL+"/x")
	if err != nil || !strings.Contains(out, "hello from 127.0.0.2") {
		t.Fatalf("allowed host through the proxy: %v\n%s", err, out)
	}
	if allowedHits.Load() != 1 {
		t.Errorf("allowed server saw %d requests, want 1", allowedHits.Load())
	}

	out, err = run(t, sb, ws, "curl", "-sS", "-w", "\nstatus=%{http_code}", other.URL+"/secret")
	if !strings.Contains(out, "status=403") || !strings.Contains(out, "127.0.0.3") || !strings.Contains(out, "sandbox.network.allowedDomains") {
		t.Errorf("refused host: want a 403 naming the host and the setting; got %v\n%s", err, out)
	}
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the host not allowed saw %d requests: the proxy let it through", n)
	}

	// Bypassing the proxy gets nowhere: the network namespace is cut.
	out, err = run(t, sb, ws, "curl", "-sS", "--noproxy", "*", "--max-time", "5", other.URL+"/direct")
	if err == nil || otherHits.Load() != 0 {
		t.Errorf("a direct connection went out: %v\n%s", err, out)
	}
}

func TestProxyConnectTunnel(t *testing.T) {
	t.Parallel()
	allowed, hits := loopbackServer(t, "127.0.0.2", true)
	other, otherHits := loopbackServer(t, "127.0.0.3", true)
	sb, ws := filteredSandbox(t, HostsAllowed([]string{"127.0.0.2"}))
	out, err := run(t, sb, ws, "curl", "-sSk", allowed.URL+"/tls")
	if err != nil || !strings.Contains(out, "hello from 127.0.0.2") || hits.Load() != 1 {
		t.Fatalf("CONNECT to an allowed host: %v (hits %d)\n%s", err, hits.Load(), out)
	}
	out, err = run(t, sb, ws, "curl", "-sSk", other.URL+"/tls")
	if err == nil || !strings.Contains(out, "403") || otherHits.Load() != 0 {
		t.Errorf("CONNECT to a host not allowed: %v (hits %d)\n%s", err, otherHits.Load(), out)
	}
}

func TestProxyDeciderPerCommand(t *testing.T) {
	t.Parallel()
	srv, hits := loopbackServer(t, "127.0.0.2", false)
	sb, ws := filteredSandbox(t, HostsAllowed(nil))
	var asked []string
	decide := func(host string, port int) error {
		asked = append(asked, fmt.Sprintf("%s:%d", host, port))
		return nil
	}
	cmd := exec.Command("curl", "-sS", srv.URL+"/")
	cmd.Dir = ws
	release, err := sb.ConfineHosts(cmd, decide)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	release()
	if err != nil || hits.Load() != 1 {
		t.Fatalf("the command's own decider let it through, but: %v\n%s", err, out)
	}
	if want := strings.TrimPrefix(srv.URL, "http://"); len(asked) != 1 || asked[0] != want {
		t.Errorf("decider asked about %v, want [%s]", asked, want)
	}
	// The sandbox's own decider still refuses for other commands.
	got, _ := run(t, sb, ws, "curl", "-sS", "-w", "\nstatus=%{http_code}", srv.URL+"/")
	if !strings.Contains(got, "status=403") || hits.Load() != 1 {
		t.Errorf("default decider: %s", got)
	}
}

func TestProxyBridgeKeepsExitStatus(t *testing.T) {
	t.Parallel()
	sb, ws := filteredSandbox(t, HostsAllowed(nil))
	_, err := run(t, sb, ws, "sh", "-c", "exit 7")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Errorf("exit status through the bridge: %v", err)
	}
	out, err := run(t, sb, ws, "sh", "-c", `echo "$http_proxy|$HTTPS_PROXY|$NO_PROXY"; for f in /proc/$$/fd/*; do readlink "$f"; done; true`)
	if err != nil || !strings.Contains(out, "http://127.0.0.1:") || !strings.Contains(out, "|localhost,127.0.0.1,::1") {
		t.Errorf("proxy variables: %v\n%s", err, out)
	}
	// The control socket stays the bridge's: the command holds no socket.
	if strings.Contains(out, "socket:") {
		t.Errorf("the command inherited a socket:\n%s", out)
	}
}
