package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// browser plays the person's browser in a login: it visits the
// authorization URL and follows the authorization server's redirect to
// nova's loopback callback, as a browser would, and keeps the page nova
// answers with. Before that it tries the callback with a forged state,
// which nova must refuse without ending the login.
type browser struct {
	t      *testing.T
	pages  chan string
	forged chan int // the status of the forged redirect
}

func newBrowser(t *testing.T) *browser {
	return &browser{t: t, pages: make(chan string, 1), forged: make(chan int, 1)}
}

// open is the open func of Manager.Login. It returns at once, as a
// launched browser does; the visit goes on beside the login.
func (b *browser) open(authURL string) error {
	go func() {
		hc := &http.Client{Timeout: 20 * time.Second}
		u, err := url.Parse(authURL)
		if err != nil {
			b.pages <- "bad authorization URL: " + err.Error()
			return
		}
		forged := u.Query().Get("redirect_uri") + "?code=forged&state=forged"
		if resp, err := hc.Get(forged); err == nil {
			resp.Body.Close()
			b.forged <- resp.StatusCode
		} else {
			b.forged <- -1
		}
		resp, err := hc.Get(authURL)
		if err != nil {
			b.pages <- "visit failed: " + err.Error()
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		b.pages <- resp.Request.URL.Path + " " + resp.Status + ": " + string(body)
	}()
	return nil
}

// login runs Manager.Login with b and checks the browser's side of it.
func (b *browser) login(m *Manager, name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := m.Login(ctx, name, b.open); err != nil {
		b.t.Fatalf("login: %v", err)
	}
	if code := <-b.forged; code != http.StatusBadRequest {
		b.t.Errorf("a redirect with a forged state got %d, want 400", code)
	}
	page := <-b.pages
	if !strings.HasPrefix(page, callbackPath+" 200") || !strings.Contains(page, "logged in to "+name) || !strings.Contains(page, "You may close this tab") {
		b.t.Errorf("the browser ended on %q", page)
	}
}

// storedLogin reads the login file of s and checks it is the owner's only.
func storedLogin(t *testing.T, dir string, s Server) authRecord {
	t.Helper()
	path := AuthFile(dir, s)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no stored login: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, fi.Mode().Perm())
	}
	var rec authRecord
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Token == nil || rec.Token.AccessToken == "" || rec.ClientID == "" {
		t.Fatalf("stored login has no token or client: %s", data)
	}
	return rec
}

func writeLogin(t *testing.T, path string, rec authRecord) {
	t.Helper()
	data, _ := json.Marshal(rec)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func status(t *testing.T, w *world) Status {
	t.Helper()
	sts := w.m.Statuses()
	if len(sts) != 1 {
		t.Fatalf("statuses %+v", sts)
	}
	return sts[0]
}

// TestOAuthLogin: a server that wants OAuth waits for a login instead of
// failing; Login connects it and stores the token (0600); the next
// session connects with the stored token and no login; a revoked token
// puts the server back to needs-login, and a login from another Manager
// (another terminal) is picked up by the next call, as a logout is.
func TestOAuthLogin(t *testing.T) {
	as := mcptest.OAuth(t, mcptest.Options{}, 0)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	srv := Server{Name: "t", Transport: TransportHTTP, URL: as.MCPURL}

	w := newWorld(t, Options{AuthDir: dir}, srv)
	w.wait(t)
	st := status(t, w)
	if st.State != StateNeedsLogin || !strings.Contains(st.Error, "nova mcp login t") {
		t.Fatalf("before login: %s (%q), want needs login saying how", st.State, st.Error)
	}
	if _, _, ok := w.reg.Get("mcp__t__echo"); ok {
		t.Error("tools registered before login")
	}

	newBrowser(t).login(w.m, "t")
	if st := status(t, w); st.State != StateConnected || len(st.Tools) != len(mcptest.ToolNames) {
		t.Fatalf("after login: %s (%q), %d tools", st.State, st.Error, len(st.Tools))
	}
	if o := w.call(t, "mcp__t__echo", map[string]any{"text": "authorized"}); o.Result.Output != "authorized" {
		t.Errorf("echo after login: %+v", o.Result)
	}
	rec := storedLogin(t, dir, srv)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("auth dir: %v %v, want mode 0700", fi.Mode().Perm(), err)
	}
	if rec.Server != "t" || rec.URL != as.MCPURL || !strings.HasPrefix(rec.RedirectURI, "http://127.0.0.1:") {
		t.Errorf("stored login names %q %q, redirect %q", rec.Server, rec.URL, rec.RedirectURI)
	}
	if as.Registrations() != 1 || as.TokensIssued() != 1 {
		t.Errorf("registrations %d, tokens %d; want 1, 1", as.Registrations(), as.TokensIssued())
	}

	// The next session: the stored token, no login, no new token.
	w2 := newWorld(t, Options{AuthDir: dir}, srv)
	w2.wait(t)
	if st := status(t, w2); st.State != StateConnected {
		t.Fatalf("next session: %s (%q), want connected with the stored token", st.State, st.Error)
	}
	if o := w2.call(t, "mcp__t__echo", map[string]any{"text": "again"}); o.Result.Output != "again" {
		t.Errorf("echo in the next session: %+v", o.Result)
	}
	if as.Registrations() != 1 || as.TokensIssued() != 1 {
		t.Errorf("the next session registered or got a token: registrations %d, tokens %d", as.Registrations(), as.TokensIssued())
	}

	// Revoked: the call says to log in, and the server waits for it.
	as.Revoke()
	o := w2.call(t, "mcp__t__echo", map[string]any{"text": "revoked"})
	if !o.Result.IsError || !strings.Contains(o.Result.Output, "needs a login") || !strings.Contains(o.Result.Output, "nova mcp login t") {
		t.Errorf("call with a revoked token: %+v", o.Result)
	}
	if st := status(t, w2); st.State != StateNeedsLogin || !strings.Contains(st.Error, "refused the stored OAuth login") {
		t.Errorf("after revoke: %s (%q)", st.State, st.Error)
	}
	refused := as.Unauthorized()
	if o := w2.call(t, "mcp__t__echo", map[string]any{"text": "still"}); !o.Result.IsError || !strings.Contains(o.Result.Output, "needs a login") {
		t.Errorf("second call while waiting for a login: %+v", o.Result)
	}
	if n := as.Unauthorized(); n != refused {
		t.Errorf("a call while waiting for a login reached the server (%d more 401s)", n-refused)
	}

	// Logged in again from the first Manager: the second one's next call
	// sees the new login and connects.
	newBrowser(t).login(w.m, "t")
	if as.Registrations() != 1 {
		t.Errorf("the second login registered a new client (%d registrations)", as.Registrations())
	}
	if o := w2.call(t, "mcp__t__echo", map[string]any{"text": "back"}); o.Result.Output != "back" {
		t.Errorf("after logging in elsewhere: %+v", o.Result)
	}
	if st := status(t, w2); st.State != StateConnected {
		t.Errorf("after logging in elsewhere: %s (%q)", st.State, st.Error)
	}

	// Logged out (nova mcp logout): a connected session's next call finds
	// no token to send.
	if removed, err := Logout(dir, srv); !removed || err != nil {
		t.Fatalf("logout = %v, %v", removed, err)
	}
	if o := w2.call(t, "mcp__t__echo", map[string]any{"text": "gone"}); !o.Result.IsError || !strings.Contains(o.Result.Output, "needs a login") {
		t.Errorf("call after logout: %+v", o.Result)
	}
	if st := status(t, w2); st.State != StateNeedsLogin || !strings.Contains(st.Error, "wants an OAuth login") {
		t.Errorf("after logout: %s (%q)", st.State, st.Error)
	}
}

// TestOAuthRefresh: an access token past its expiry is refreshed and the
// refreshed token is what is stored; a refresh the server refuses puts
// the server back to needs-login.
func TestOAuthRefresh(t *testing.T) {
	t.Run("http", func(t *testing.T) { testOAuthRefresh(t, TransportHTTP) })
	t.Run("sse", func(t *testing.T) { testOAuthRefresh(t, TransportSSE) })
}

func testOAuthRefresh(t *testing.T, kind string) {
	start := mcptest.OAuth
	if kind == TransportSSE {
		start = mcptest.OAuthSSE
	}
	as := start(t, mcptest.Options{}, time.Second)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	srv := Server{Name: "t", Transport: kind, URL: as.MCPURL}
	w := newWorld(t, Options{AuthDir: dir}, srv)
	w.wait(t)
	newBrowser(t).login(w.m, "t")
	first := storedLogin(t, dir, srv)
	if first.Token.ExpiresAt.IsZero() {
		t.Fatal("the stored token has no expiry")
	}

	// Waiting for the clock, not for another goroutine: the token must
	// have expired on both sides.
	time.Sleep(time.Until(first.Token.ExpiresAt) + 100*time.Millisecond)
	if o := w.call(t, "mcp__t__echo", map[string]any{"text": "refreshed"}); o.Result.Output != "refreshed" {
		t.Fatalf("echo after expiry: %+v", o.Result)
	}
	if as.Refreshes() != 1 {
		t.Errorf("refreshes %d, want 1", as.Refreshes())
	}
	second := storedLogin(t, dir, srv)
	if second.Token.AccessToken == first.Token.AccessToken || second.Token.RefreshToken == first.Token.RefreshToken || !second.Token.ExpiresAt.After(first.Token.ExpiresAt) {
		t.Errorf("the refreshed token is not on disk: first %+v, now %+v", first.Token, second.Token)
	}
	if second.ClientID != first.ClientID {
		t.Errorf("saving the refreshed token lost the client: %q, was %q", second.ClientID, first.ClientID)
	}

	// A refresh token the server does not know: the refresh fails.
	bad := second
	bad.Token = &transport.Token{AccessToken: second.Token.AccessToken, TokenType: "Bearer", RefreshToken: "rt-unknown", ExpiresAt: time.Now().Add(-time.Minute)}
	writeLogin(t, AuthFile(dir, srv), bad)
	o := w.call(t, "mcp__t__echo", map[string]any{"text": "x"})
	if !o.Result.IsError || !strings.Contains(o.Result.Output, "nova mcp login t") {
		t.Errorf("call after a failed refresh: %+v", o.Result)
	}
	if st := status(t, w); st.State != StateNeedsLogin || !strings.Contains(st.Error, "renewing it failed") {
		t.Errorf("after a failed refresh: %s (%q)", st.State, st.Error)
	}
}

// TestOAuthTokenOfAnotherURL: a login stored for a server's name under
// another URL is not sent, even where it would work (the same server
// reached with a query string), nor is a file whose record names another
// URL; an entry with its own Authorization header is never sent to login.
func TestOAuthTokenOfAnotherURL(t *testing.T) {
	as := mcptest.OAuth(t, mcptest.Options{}, 0)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	srv := Server{Name: "t", Transport: TransportHTTP, URL: as.MCPURL}
	w := newWorld(t, Options{AuthDir: dir}, srv)
	w.wait(t)
	newBrowser(t).login(w.m, "t")
	rec := storedLogin(t, dir, srv)

	moved := Server{Name: "t", Transport: TransportHTTP, URL: as.MCPURL + "?v=2"}
	if AuthFile(dir, moved) == AuthFile(dir, srv) {
		t.Fatal("two URLs share a login file")
	}
	w2 := newWorld(t, Options{AuthDir: dir}, moved)
	w2.wait(t)
	if st := status(t, w2); st.State != StateNeedsLogin {
		t.Errorf("another URL: %s (%q), want needs login: the token of %s was used", st.State, st.Error, as.MCPURL)
	}
	writeLogin(t, AuthFile(dir, moved), rec) // the right file, another server's record
	w3 := newWorld(t, Options{AuthDir: dir}, moved)
	w3.wait(t)
	if st := status(t, w3); st.State != StateNeedsLogin {
		t.Errorf("a record naming another URL: %s (%q), want needs login", st.State, st.Error)
	}

	own := Server{Name: "h", Transport: TransportHTTP, URL: as.MCPURL, Headers: map[string]string{"authorization": "Bearer mine"}}
	w4 := newWorld(t, Options{AuthDir: dir}, own)
	w4.wait(t)
	if st := status(t, w4); st.State != StateFailed {
		t.Errorf("own Authorization header refused: %s (%q), want failed", st.State, st.Error)
	}
	if err := w4.m.Login(context.Background(), "h", func(string) error { t.Error("login opened a browser"); return nil }); err == nil || !strings.Contains(err.Error(), "own Authorization header") {
		t.Errorf("login with an own header = %v", err)
	}
}

// TestLogout removes the stored login, and only that server's.
func TestLogout(t *testing.T) {
	dir := t.TempDir()
	a := Server{Name: "a", Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp"}
	b := Server{Name: "b", Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp"}
	for _, s := range []Server{a, b} {
		if err := newTokenStore(dir, s).SaveToken(context.Background(), &transport.Token{AccessToken: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if removed, err := Logout(dir, a); !removed || err != nil {
		t.Errorf("logout a = %v, %v", removed, err)
	}
	if removed, err := Logout(dir, a); removed || err != nil {
		t.Errorf("logout a again = %v, %v", removed, err)
	}
	if _, err := os.Stat(AuthFile(dir, b)); err != nil {
		t.Errorf("b's login went too: %v", err)
	}
}

// TestOAuthEveryTransport: over Streamable HTTP and the older HTTP+SSE,
// and whether the server refuses the handshake or lets it through and
// answers 401 from tools/list on, a server that wants a login is "needs
// login" (not failed), a login connects it, the next session connects
// with the stored login alone, and a revoked token is needs-login again.
func TestOAuthEveryTransport(t *testing.T) {
	for _, tc := range []struct {
		name      string
		transport string
		open      bool
	}{
		{"http", TransportHTTP, false},
		{"http, 401 after the handshake", TransportHTTP, true},
		{"sse", TransportSSE, false},
		{"sse, 401 after the handshake", TransportSSE, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := mcptest.OAuth
			if tc.transport == TransportSSE {
				start = mcptest.OAuthSSE
			}
			as := start(t, mcptest.Options{OpenHandshake: tc.open}, 0)
			dir := filepath.Join(t.TempDir(), "mcp-auth")
			srv := Server{Name: "t", Transport: tc.transport, URL: as.MCPURL}

			w := newWorld(t, Options{AuthDir: dir}, srv)
			w.wait(t)
			if st := status(t, w); st.State != StateNeedsLogin || !strings.Contains(st.Error, "nova mcp login t") {
				t.Fatalf("before login: %s (%q), want needs login saying how", st.State, st.Error)
			}
			if o := w.call(t, "ListMcpResourcesTool", map[string]any{}); !strings.Contains(o.Result.Output, "needs a login") {
				t.Errorf("resources before login: %+v", o.Result)
			}
			newBrowser(t).login(w.m, "t")
			if st := status(t, w); st.State != StateConnected || len(st.Tools) != len(mcptest.ToolNames) {
				t.Fatalf("after login: %s (%q), %d tools", st.State, st.Error, len(st.Tools))
			}
			if o := w.call(t, "mcp__t__echo", map[string]any{"text": "authorized"}); o.Result.Output != "authorized" {
				t.Errorf("echo after login: %+v", o.Result)
			}

			w2 := newWorld(t, Options{AuthDir: dir}, srv)
			w2.wait(t)
			if st := status(t, w2); st.State != StateConnected {
				t.Fatalf("a new session with the stored login: %s (%q)", st.State, st.Error)
			}
			as.Revoke()
			if o := w2.call(t, "mcp__t__echo", map[string]any{"text": "x"}); !o.Result.IsError || !strings.Contains(o.Result.Output, "nova mcp login t") {
				t.Errorf("call with a revoked token: %+v", o.Result)
			}
			if st := status(t, w2); st.State != StateNeedsLogin {
				t.Errorf("after the token was revoked: %s (%q), want needs login", st.State, st.Error)
			}
			if as.Registrations() != 1 {
				t.Errorf("%d registrations, want 1", as.Registrations())
			}
		})
	}
}

// TestListResourcesSaysWhy: ListMcpResourcesTool lists what Manager.Resources
// (the @-mention completion) lists, plus a line for each server that could
// not answer; a server that refuses its login there goes to needs-login and
// the line says how to log in, while the other servers' resources are still
// listed.
func TestListResourcesSaysWhy(t *testing.T) {
	as := mcptest.OAuth(t, mcptest.Options{}, 0)
	dir := filepath.Join(t.TempDir(), "mcp-auth")
	w := newWorld(t, Options{AuthDir: dir}, Server{Name: "t", Transport: TransportHTTP, URL: as.MCPURL}, stdioServer("local", mcptest.Options{}))
	w.wait(t)
	newBrowser(t).login(w.m, "t")

	rs := w.m.Resources(context.Background())
	if len(rs) != 2 || rs[0].Server != "local" || rs[1].Server != "t" {
		t.Fatalf("Resources = %+v, want the greeting of local and of t", rs)
	}
	o := w.call(t, "ListMcpResourcesTool", map[string]any{})
	for _, r := range rs {
		if !strings.Contains(o.Result.Output, r.Server+" "+r.URI+" ("+r.Name) {
			t.Errorf("the tool does not list %s %s: %q", r.Server, r.URI, o.Result.Output)
		}
	}

	as.Revoke()
	o = w.call(t, "ListMcpResourcesTool", map[string]any{})
	if !strings.Contains(o.Result.Output, "local "+mcptest.GreetingURI) {
		t.Errorf("local's resource went missing: %q", o.Result.Output)
	}
	if !strings.Contains(o.Result.Output, "\nt: ") && !strings.HasPrefix(o.Result.Output, "t: ") || !strings.Contains(o.Result.Output, "nova mcp login t") {
		t.Errorf("no line saying t needs a login: %q", o.Result.Output)
	}
	for _, st := range w.m.Statuses() {
		if st.Name == "t" && st.State != StateNeedsLogin {
			t.Errorf("t refused its login on resources/list and is %s (%q)", st.State, st.Error)
		}
	}
	if rs := w.m.Resources(context.Background()); len(rs) != 1 || rs[0].Server != "local" {
		t.Errorf("Resources after t's login went = %+v", rs)
	}
}
