package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/mcp"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// TestMCPLogin runs nova mcp login through its runF against an
// OAuth-protected server, with a fake browser where nova would open one:
// the URL is printed, the browser's redirect reaches nova, the login is
// stored (0600) and the server connects; nova mcp logout removes it.
func TestMCPLogin(t *testing.T) {
	as := mcptest.OAuth(t, mcptest.Options{}, 0)
	w := newMCPCmdWorld(t)
	w.must("mcp", "add", "-t", "http", "api", as.MCPURL)
	w.must("mcp", "add", "local", "--", "some-stdio-server")

	var out, errOut bytes.Buffer
	s := w.streams(&out, &errOut)
	var got *mcpLoginOptions
	if code := execute(context.Background(), newMCPLoginCmd(&Factory{IOStreams: s}, func(o *mcpLoginOptions) error { got = o; return nil }), []string{"api"}, s); code != 0 {
		t.Fatalf("login api: exit %d %s", code, errOut.String())
	}
	if got.name != "api" || got.io != s || got.wait != mcpLoginWait {
		t.Errorf("options %+v", got)
	}
	if got.open != nil {
		t.Error("a browser opener on streams with no terminal display: tests would open a browser")
	}
	got.wait = 20 * time.Second // a broken login fails the test, not the test binary's timeout

	var visited string
	pages := make(chan string, 1)
	browse := fakeBrowser(pages)
	got.open = func(u string) error {
		visited = u
		return browse(u)
	}
	if err := runMCPLogin(context.Background(), got); err != nil {
		t.Fatalf("nova mcp login api: %v\n%s", err, errOut.String())
	}
	if visited == "" || !strings.Contains(errOut.String(), "open this URL in your browser:\n\n  "+visited+"\n") {
		t.Errorf("stderr %q does not give the URL the browser was sent to (%q)", errOut.String(), visited)
	}
	if page := <-pages; !strings.Contains(page, "You may close this tab") {
		t.Errorf("the browser got %q", page)
	}
	file := mcp.AuthFile(live.MCPAuthDir(w.novaHome), mcp.Server{Name: "api", URL: as.MCPURL})
	if want := "Logged in to api: connected, " + strconv.Itoa(len(mcptest.ToolNames)) + " tools. The login is stored in " + file; !strings.Contains(out.String(), want) {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stored login: %v, %v", fi, err)
	}
	if as.TokensIssued() != 1 {
		t.Errorf("tokens issued %d", as.TokensIssued())
	}

	if out := w.must("mcp", "logout", "api"); !strings.Contains(out, "Logged out of api") {
		t.Errorf("logout = %q", out)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the login is still stored after logout: %v", err)
	}
	if out := w.must("mcp", "logout", "api"); !strings.Contains(out, "nova holds no login for api") {
		t.Errorf("logout again = %q", out)
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"mcp", "login", "local"}, "is a stdio server"},
		{[]string{"mcp", "login", "nope"}, `no MCP server "nope" here`},
		{[]string{"mcp", "login"}, "want one server name"},
		{[]string{"mcp", "logout", "a", "b"}, "want one server name"},
	} {
		if _, errOut, code := w.run(tc.args...); code != 2 || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%q: exit %d %q, want 2 and %q", tc.args, code, errOut, tc.stderr)
		}
	}
}

// fakeBrowser is an opener that does what the browser would: visit the
// authorization URL and follow the redirects back to nova's callback. The
// page it ends on goes to pages.
func fakeBrowser(pages chan<- string) func(string) error {
	return func(u string) error {
		go func() {
			resp, err := (&http.Client{Timeout: 20 * time.Second}).Get(u)
			if err != nil {
				pages <- err.Error()
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			pages <- string(body)
		}()
		return nil
	}
}

// TestMCPOAuthE2E runs the built nova in print mode against a server that
// wants OAuth: without a login it says so on stderr and goes on; with a
// login stored in its NOVA_HOME it connects and the model's call reaches
// the server.
func TestMCPOAuthE2E(t *testing.T) {
	as := mcptest.OAuth(t, mcptest.Options{}, 0)
	e := newE2E(t, append([]llmtest.Turn{{Text: "No tools yet."}}, echoTurns()...)...)
	cfg := `{"mcpServers": {"t": {"type": "http", "url": "` + as.MCPURL + `"}}}`

	r := e.run("", "-p", "--mcp-config", cfg, "hi")
	if r.code != 0 || !strings.Contains(r.stderr, `MCP server "t" is not started, it needs a login`) || !strings.Contains(r.stderr, "nova mcp login t") {
		t.Fatalf("without a login: exit %d, stderr %q", r.code, r.stderr)
	}

	m := mcp.NewManager([]mcp.Server{{Name: "t", Transport: mcp.TransportHTTP, URL: as.MCPURL}},
		mcp.Options{Registry: tools.NewRegistry(), AuthDir: live.MCPAuthDir(filepath.Join(e.home, ".nova"))})
	t.Cleanup(func() { _ = m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := m.Login(ctx, "t", fakeBrowser(make(chan string, 1))); err != nil {
		t.Fatal(err)
	}

	before := len(e.srv.Requests())
	r = e.run("", "-p", "--mcp-config", cfg, "--allowedTools", "mcp__t", "echo something")
	reqs := e.srv.Requests()[before:]
	if r.code != 0 || len(reqs) < 2 {
		t.Fatalf("with a login: exit %d, %d requests, stderr %q", r.code, len(reqs), r.stderr)
	}
	if res := toolResultsOf(t, reqs[1])["toolu_mcp"]; res.IsError || res.Text != "hello from mcp" {
		t.Errorf("with a login the model got %+v, want the server's echo", res)
	}
	if as.Registrations() != 1 || as.TokensIssued() != 1 {
		t.Errorf("nova registered or got tokens again: %d registrations, %d tokens", as.Registrations(), as.TokensIssued())
	}
}

// TestMCPListNeedsLogin: nova mcp list and get, which connect to each
// server, say a server that wants OAuth needs a login and how to give it
// (whether it refuses the handshake or only tools/list), and connect with
// the login nova mcp login stored.
func TestMCPListNeedsLogin(t *testing.T) {
	closed := mcptest.OAuth(t, mcptest.Options{}, 0)
	open := mcptest.OAuth(t, mcptest.Options{OpenHandshake: true}, 0)
	w := newMCPCmdWorld(t)
	w.must("mcp", "add", "-t", "http", "closed", closed.MCPURL)
	w.must("mcp", "add", "-t", "http", "open", open.MCPURL)
	probed := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		s := w.streams(&out, &errOut)
		if code := execute(context.Background(), newRootCmd(&Factory{IOStreams: s}, nil), args, s); code != 0 {
			t.Fatalf("nova %q: exit %d %s", args, code, errOut.String())
		}
		return out.String()
	}
	out := probed("mcp", "list")
	for _, name := range []string{"closed", "open"} {
		if row := rows(out)[name]; !strings.Contains(row, "needs login") || !strings.Contains(row, "nova mcp login "+name) || strings.Contains(row, "failed") {
			t.Errorf("nova mcp list, %s: %q, want needs login saying how", name, row)
		}
	}
	if out := probed("mcp", "get", "open"); !strings.Contains(out, "Status:   needs login") {
		t.Errorf("nova mcp get open:\n%s", out)
	}

	m := mcp.NewManager([]mcp.Server{{Name: "open", Transport: mcp.TransportHTTP, URL: open.MCPURL}},
		mcp.Options{Registry: tools.NewRegistry(), AuthDir: live.MCPAuthDir(w.novaHome)})
	t.Cleanup(func() { _ = m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := m.Login(ctx, "open", fakeBrowser(make(chan string, 1))); err != nil {
		t.Fatal(err)
	}
	want := "connected, " + strconv.Itoa(len(mcptest.ToolNames)) + " tools"
	if row := rows(probed("mcp", "list"))["open"]; !strings.Contains(row, want) {
		t.Errorf("nova mcp list after the login: %q, want %q", row, want)
	}
}
