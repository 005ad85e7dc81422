//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/sandbox"
)

// TestMain lets this test binary be the sandbox's network bridge, as nova's
// own executable is (cmd/nova's main hands sandbox.BridgeArg on).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.BridgeArg {
		os.Exit(sandbox.BridgeMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// hostServer serves plain HTTP on addr (a loopback alias: a host of its
// own to the proxy) and counts the requests that reach it: the sentinel.
func hostServer(t *testing.T, addr string) (string, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	ln, err := net.Listen("tcp", addr+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(w, "body-from-%s", addr)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, &hits
}

// proxiedWorld is a pipeline with the Bash tool, a real checker (Bash
// allowed, allowed domains as given) and a real bwrap sandbox whose
// network goes through nova's proxy; saved collects the "always" rules.
type proxiedWorld struct {
	p     *Pipeline
	env   *Env
	saved *[]string
}

func newProxiedWorld(t *testing.T, allowed []string, ask Asker) *proxiedWorld {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed: the proxy's end-to-end tests need a real sandbox")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := newShellEnv(t)
	env.ScratchDir = t.TempDir()
	home := t.TempDir()
	var saved []string
	c, err := permission.NewChecker(permission.Config{Workspace: env.Workdir, Home: home, AllowedDomains: allowed,
		Rules:   permission.Rules{Allow: []string{"Bash"}},
		Persist: func(rule string) error { saved = append(saved, rule); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	// The sandbox's own judge asks nobody; the pipeline's per-call judge
	// replaces it for the Bash tool's commands.
	sb, err := sandbox.New(sandbox.Config{Workspace: env.Workdir, Home: home, AddDirs: []string{env.ScratchDir},
		Hosts: sandbox.HostsAllowed(allowed), Bridge: exe})
	if errors.Is(err, sandbox.ErrUnavailable) {
		t.Skipf("the sandbox does not work here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	env.Sandbox = sb
	env.Ask = ask
	reg := NewRegistry()
	if err := reg.Register(&Bash{}); err != nil {
		t.Fatal(err)
	}
	return &proxiedWorld{p: &Pipeline{Registry: reg, Checker: c}, env: env, saved: &saved}
}

func (w *proxiedWorld) bash(t *testing.T, command string) Outcome {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"command": command})
	return w.p.Run(context.Background(), Call{ID: "call_" + fmt.Sprint(len(command)), Name: "Bash", Input: in}, w.env)
}

// TestProxyAllowedHostReachesCommand is the positive control of the
// others: an allowed host's body reaches the command through the proxy,
// so a sandbox that cut everything would fail here.
func TestProxyAllowedHostReachesCommand(t *testing.T) {
	t.Parallel()
	allowedURL, hits := hostServer(t, "127.0.0.2")
	w := newProxiedWorld(t, []string{"127.0.0.2"}, nil)
	out := w.bash(t, "curl -sS "+allowedURL+"/pkg")
	if !strings.Contains(out.Result.Output, "body-from-127.0.0.2") || hits.Load() != 1 {
		t.Fatalf("allowed host: %d requests arrived; output:\n%s", hits.Load(), out.Result.Output)
	}
	// The proxy variables the bridge set are not the shell's state: the
	// check is not told an earlier command exported them (it would ask).
	req := (&Bash{}).Permission(json.RawMessage(`{"command":"ls"}`), w.env)
	for _, kv := range req.ShellEnv {
		if name, _, _ := strings.Cut(kv, "="); proxyVar(name) {
			t.Errorf("the check is told the shell carries %s", kv)
		}
	}
	// Past the proxy there is no network at all.
	out = w.bash(t, "curl -sS --noproxy '*' --max-time 5 "+allowedURL+"/direct")
	if hits.Load() != 1 {
		t.Errorf("a direct connection (no proxy) reached the host: %s", out.Result.Output)
	}
}

// TestProxyPrintModeRefusesNamingHost: with nobody to ask, a host not
// allowed gets no connection, and the model reads the host and the two
// ways to allow it.
func TestProxyPrintModeRefusesNamingHost(t *testing.T) {
	t.Parallel()
	allowedURL, allowedHits := hostServer(t, "127.0.0.2")
	otherURL, otherHits := hostServer(t, "127.0.0.3")
	w := newProxiedWorld(t, []string{"127.0.0.2"}, nil)
	out := w.bash(t, "curl -sS "+otherURL+"/secret; curl -sS "+allowedURL+"/ok")
	if n := otherHits.Load(); n != 0 {
		t.Fatalf("the host not allowed got %d requests", n)
	}
	if allowedHits.Load() != 1 {
		t.Errorf("positive control: the allowed host got %d requests in the same command", allowedHits.Load())
	}
	for _, want := range []string{"refused a network request to 127.0.0.3", "sandbox.network.allowedDomains", `--allowedTools "WebFetch(domain:127.0.0.3)"`} {
		if !strings.Contains(out.Result.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, out.Result.Output)
		}
	}
}

// TestProxyAskYesLetsThrough: a person who answers yes lets the request
// through, and was asked the network question of the Bash call.
func TestProxyAskYesLetsThrough(t *testing.T) {
	t.Parallel()
	otherURL, hits := hostServer(t, "127.0.0.3")
	a := &hostAsker{ans: Approval{Allow: true}}
	w := newProxiedWorld(t, nil, a)
	out := w.bash(t, "curl -sS "+otherURL+"/a; curl -sS "+otherURL+"/b")
	if hits.Load() != 2 || !strings.Contains(out.Result.Output, "body-from-127.0.0.3") {
		t.Fatalf("after yes: %d requests arrived; output:\n%s", hits.Load(), out.Result.Output)
	}
	if a.n.Load() != 1 {
		t.Errorf("asked %d times for one host in one command, want 1", a.n.Load())
	}
	if got := a.asked[0].Decision.Reason; got != "Network request outside the sandbox: 127.0.0.3" {
		t.Errorf("question %q", got)
	}
	// "Yes" was for that command: the next one asks again.
	w.bash(t, "curl -sS "+otherURL+"/c")
	if a.n.Load() != 2 {
		t.Errorf("a yes for one command covered the next (asked %d times)", a.n.Load())
	}
}

// TestProxyAskNoRefuses: no is a refusal; nothing reaches the host.
func TestProxyAskNoRefuses(t *testing.T) {
	t.Parallel()
	otherURL, hits := hostServer(t, "127.0.0.3")
	a := &hostAsker{ans: Approval{}}
	w := newProxiedWorld(t, nil, a)
	out := w.bash(t, "curl -sS "+otherURL+"/a")
	if hits.Load() != 0 || a.n.Load() != 1 || !strings.Contains(out.Result.Output, "the user said no") {
		t.Errorf("after no: %d requests, %d asks; output:\n%s", hits.Load(), a.n.Load(), out.Result.Output)
	}
}

// TestProxyAskAlwaysAddsRule: always writes WebFetch(domain:HOST), and
// the next command reaches the host unasked.
func TestProxyAskAlwaysAddsRule(t *testing.T) {
	t.Parallel()
	otherURL, hits := hostServer(t, "127.0.0.3")
	a := &hostAsker{ans: Approval{Allow: true, Rule: "WebFetch(domain:127.0.0.3)"}}
	w := newProxiedWorld(t, nil, a)
	w.bash(t, "curl -sS "+otherURL+"/a")
	out := w.bash(t, "curl -sS "+otherURL+"/b")
	if hits.Load() != 2 || !strings.Contains(out.Result.Output, "body-from-127.0.0.3") {
		t.Fatalf("after always: %d requests; output:\n%s", hits.Load(), out.Result.Output)
	}
	if a.n.Load() != 1 {
		t.Errorf("asked %d times, want once", a.n.Load())
	}
	if len(*w.saved) != 1 || (*w.saved)[0] != "WebFetch(domain:127.0.0.3)" {
		t.Errorf("rules saved: %v", *w.saved)
	}
}

// TestProxyNpmInstallFromConfiguredRegistry installs a small package from
// the registry this machine's npm is configured with, through the
// sandbox's proxy, with that registry's host the one allowed domain: what
// a user's everyday `npm install` does. It skips, saying so, where npm is
// missing or the registry cannot be reached.
func TestProxyNpmInstallFromConfiguredRegistry(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	out, err := exec.Command("npm", "config", "get", "registry").Output()
	if err != nil {
		t.Skipf("npm config get registry: %v", err)
	}
	registry := strings.TrimSpace(string(out))
	u, err := url.Parse(registry)
	if err != nil || u.Hostname() == "" {
		t.Skipf("npm's registry %q is no URL", registry)
	}
	probe := &http.Client{Timeout: 10 * time.Second}
	resp, err := probe.Get(strings.TrimSuffix(registry, "/") + "/left-pad")
	if err != nil {
		t.Skipf("npm's registry %s cannot be reached from here: %v", registry, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Skipf("npm's registry %s answers %s for left-pad", registry, resp.Status)
	}
	install := `npm install --cache "$PWD/.npm-cache" --no-audit --no-fund --fetch-retries 0 --registry ` + shellQuote(registry) + ` left-pad@1.3.0 2>&1; echo "exit=$?"`
	// The registry not allowed, in print mode: nothing is installed, and
	// the model is told which host to allow. (The network namespace is
	// cut, so the install below can only have come through the proxy.)
	refused := newProxiedWorld(t, nil, nil)
	res := refused.bash(t, install)
	if _, err := os.Stat(filepath.Join(refused.env.Workdir, "node_modules", "left-pad")); err == nil {
		t.Fatalf("left-pad was installed with its registry not allowed:\n%s", res.Result.Output)
	}
	if !strings.Contains(res.Result.Output, "refused a network request to "+u.Hostname()) {
		t.Errorf("the refusal does not name %s:\n%s", u.Hostname(), res.Result.Output)
	}
	w := newProxiedWorld(t, []string{u.Hostname()}, nil)
	res = w.bash(t, install)
	if _, err := os.Stat(filepath.Join(w.env.Workdir, "node_modules", "left-pad", "package.json")); err != nil {
		t.Fatalf("left-pad was not installed through the proxy (%v):\n%s", err, res.Result.Output)
	}
	if strings.Contains(res.Result.Output, "refused a network request") {
		t.Errorf("the proxy refused a host npm needed:\n%s", res.Result.Output)
	}
}
