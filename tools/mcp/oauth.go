package mcp

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

// callbackPath is where the browser comes back to nova after a login.
const callbackPath = "/callback"

// clientName is how nova registers itself with authorization servers.
const clientName = "nova"

// authState is a server's OAuth side: its token store and what the
// server said last time it refused nova.
type authState struct {
	once  sync.Once
	store *tokenStore

	mu  sync.Mutex
	prm string // the protected resource metadata URL of the server's last 401

	// stamp is the stored login's modification time when the server went
	// to needs-login (guarded by conn.mu): a different one means someone
	// logged in since, and the next call tries again.
	stamp time.Time

	login sync.Mutex // one login at a time per server
}

// loginNeeded is a start-up or call failure that a login cures.
type loginNeeded struct {
	name   string
	reason string
	stamp  time.Time
}

func (e *loginNeeded) Error() string {
	return fmt.Sprintf("%s: run nova mcp login %s", e.reason, e.name)
}

// store returns the server's token store, made on first use.
func (c *conn) store() *tokenStore {
	c.auth.once.Do(func() { c.auth.store = newTokenStore(c.m.opts.AuthDir, c.srv) })
	return c.auth.store
}

// oauthCapable says whether nova may log in to the server: a remote one
// whose entry does not carry its own Authorization header, which is the
// person's choice of credentials and wins.
func (c *conn) oauthCapable() bool {
	if c.srv.Transport != TransportHTTP && c.srv.Transport != TransportSSE {
		return false
	}
	for k := range c.srv.Headers {
		if strings.EqualFold(k, "Authorization") {
			return false
		}
	}
	return true
}

// oauthConfig is how dial authorizes to the server: with mcp-go's OAuth
// handler when nova holds a login for it, else nil. mcp-go's handler sends
// nothing without a token, so a server that needs no login is reached
// plainly, and one that answers 401 then waits for a login.
func (c *conn) oauthConfig() *transport.OAuthConfig {
	if !c.oauthCapable() {
		return nil
	}
	st := c.store()
	rec, err := st.load()
	if err != nil || rec.Token == nil {
		return nil
	}
	return &transport.OAuthConfig{
		ClientID: rec.ClientID, ClientSecret: rec.ClientSecret, TokenEndpointAuthMethod: rec.AuthMethod,
		RedirectURI: rec.RedirectURI, TokenStore: st, PKCEEnabled: true,
	}
}

// wantsLogin reports whether err is the server asking for authorization
// that a nova login can give.
func (c *conn) wantsLogin(err error) bool {
	return c.oauthCapable() && (client.IsOAuthAuthorizationRequiredError(err) || client.IsAuthorizationRequiredError(err))
}

// loginNeeded turns err into a *loginNeeded when a login cures it, saying
// why in words; else nil.
func (c *conn) loginNeeded(err error) *loginNeeded {
	if !c.wantsLogin(err) {
		return nil
	}
	if u := client.GetResourceMetadataURL(err); u != "" {
		c.auth.mu.Lock()
		c.auth.prm = u
		c.auth.mu.Unlock()
	}
	st := c.store()
	rec, _ := st.load()
	reason := "the server wants an OAuth login"
	switch tok := rec.Token; {
	case tok == nil:
	case tok.IsExpired() && tok.RefreshToken != "":
		reason = "the stored OAuth login expired and renewing it failed"
	case tok.IsExpired():
		reason = "the stored OAuth login expired"
	default:
		reason = "the server refused the stored OAuth login (revoked, or expired early)"
	}
	return &loginNeeded{name: c.srv.Name, reason: reason, stamp: st.stamp()}
}

// settleLocked records a failed attempt: a server that wants a login waits
// for one (retrying would only be refused again); any other failure is
// retried after the backoff. c.mu is held.
func (c *conn) settleLocked(err error) {
	var ln *loginNeeded
	if errors.As(err, &ln) {
		c.state, c.err, c.retry = StateNeedsLogin, ln.Error(), time.Time{}
		c.auth.stamp = ln.stamp
		return
	}
	c.failLocked(err)
}

// loginChangedLocked reports whether the stored login changed since the
// server went to needs-login. c.mu is held.
func (c *conn) loginChangedLocked() bool {
	return !c.store().stamp().Equal(c.auth.stamp)
}

// needsLoginErr is what a call to a server waiting for a login returns.
func (c *conn) needsLoginErr(reason string) error {
	return fmt.Errorf("MCP server %s needs a login: %s; then call the tool again", c.srv.Name, reason)
}

// loginLost puts a connected server that refused its token (revoked, or
// a refresh that failed) back to waiting for a login, and returns what
// the call that found it out says.
func (c *conn) loginLost(cl *client.Client, err error) error {
	ln := c.loginNeeded(err)
	if ln == nil {
		return err
	}
	c.mu.Lock()
	if c.client != cl || c.state != StateConnected {
		c.mu.Unlock()
		return c.needsLoginErr(ln.Error())
	}
	stop := c.stop
	c.client, c.stop = nil, nil
	c.settleLocked(ln)
	c.mu.Unlock()
	_ = cl.Close()
	if stop != nil {
		stop()
	}
	c.changed()
	return c.needsLoginErr(ln.Error())
}

// Login logs nova in to the MCP server called name with OAuth's
// authorization-code flow and PKCE: it registers nova with the server's
// authorization server when it has no client there yet, listens on
// 127.0.0.1 for the browser's redirect, hands the authorization URL to
// open (a frontend opens a browser or shows the URL), waits for the
// redirect (as long as ctx allows), exchanges the code, stores the token
// and connects the server again.
func (m *Manager) Login(ctx context.Context, name string, open func(url string) error) error {
	c := m.lookup(name)
	if c == nil {
		return fmt.Errorf("no MCP server %q (servers: %s)", name, m.names())
	}
	if !c.oauthCapable() {
		if c.srv.Transport == TransportHTTP || c.srv.Transport == TransportSSE {
			return fmt.Errorf("MCP server %s sends its own Authorization header, which nova uses instead of a login (take it out of the server's entry to log in with OAuth)", name)
		}
		return fmt.Errorf("MCP server %s is a %s server: only http and sse servers log in", name, c.srv.Transport)
	}
	if !c.auth.login.TryLock() {
		return fmt.Errorf("a login to MCP server %s is already under way", name)
	}
	defer c.auth.login.Unlock()

	st := c.store()
	rec, err := st.load()
	if err != nil {
		return err
	}
	ln, redirect, err := listenLoopback(rec.RedirectURI)
	if err != nil {
		return err
	}
	defer ln.Close()

	// The handler saves the token in got, not the store, so the client
	// registration and its first token are written together.
	got := &heldToken{}
	c.auth.mu.Lock()
	prm := c.auth.prm
	c.auth.mu.Unlock()
	cfg := transport.OAuthConfig{RedirectURI: redirect, TokenStore: got, PKCEEnabled: true, ProtectedResourceMetadataURL: prm}
	if rec.RedirectURI == redirect {
		cfg.ClientID, cfg.ClientSecret, cfg.TokenEndpointAuthMethod = rec.ClientID, rec.ClientSecret, rec.AuthMethod
	}
	h := transport.NewOAuthHandler(cfg)
	h.SetBaseURL(discoveryBase(c.srv.URL))
	if h.GetClientID() == "" {
		if err := h.RegisterClient(ctx, clientName); err != nil {
			return fmt.Errorf("log in to %s: registering nova with its authorization server failed: %w", name, err)
		}
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return fmt.Errorf("log in to %s: %w", name, err)
	}

	answers := make(chan callbackAnswer, 1)
	srv := &http.Server{Handler: callbackHandler(name, state, answers), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		// Shutdown, not Close, so the page the browser waits for is sent.
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	// open may block (a frontend that waits for the person); the redirect
	// can come meanwhile.
	opened := make(chan error, 1)
	go func() { opened <- open(authURL) }()
	var ans callbackAnswer
	for ans.done == nil {
		select {
		case ans = <-answers:
		case err := <-opened:
			if err != nil {
				return fmt.Errorf("log in to %s: %w", name, err)
			}
			opened = nil
		case <-ctx.Done():
			return fmt.Errorf("log in to %s: no answer from the browser: %w", name, ctx.Err())
		case <-m.ctx.Done():
			return fmt.Errorf("log in to %s: the session ended", name)
		}
	}
	if ans.err != "" {
		err := fmt.Errorf("log in to %s: the authorization server said %s", name, ans.err)
		ans.done <- err
		return err
	}
	err = h.ProcessAuthorizationResponse(ctx, ans.code, ans.state, verifier)
	if err == nil {
		err = st.update(func(r *authRecord) {
			r.ClientID, r.ClientSecret, r.AuthMethod = h.GetClientID(), h.GetClientSecret(), h.GetTokenEndpointAuthMethod()
			r.RedirectURI = redirect
			r.Token = got.token()
		})
	}
	if err != nil {
		err = fmt.Errorf("log in to %s: exchanging the authorization code failed: %w", name, err)
		ans.done <- err
		return err
	}
	ans.done <- nil
	if err := c.reconnect(ctx); err != nil {
		return fmt.Errorf("logged in to %s, but %w", name, err)
	}
	return nil
}

// reconnect drops the server's connection, if any, and connects again
// with what is stored now, waiting for the outcome.
func (c *conn) reconnect(ctx context.Context) error {
	for {
		c.mu.Lock()
		switch {
		case c.state == StateClosed || c.m.ctx.Err() != nil:
			c.mu.Unlock()
			return fmt.Errorf("MCP server %s is closed", c.srv.Name)
		case c.state == StateConnecting && c.ready != nil:
			// Let the attempt under way end: it may predate the login.
			ready := c.ready
			c.mu.Unlock()
			select {
			case <-ready:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		old, stop := c.client, c.stop
		c.client, c.stop = nil, nil
		ready := c.begin()
		c.mu.Unlock()
		if old != nil {
			_ = old.Close()
		}
		if stop != nil {
			stop()
		}
		c.changed()
		c.m.wg.Add(1)
		go func() {
			defer c.m.wg.Done()
			c.connect(ready)
		}()
		select {
		case <-ready:
		case <-ctx.Done():
			return ctx.Err()
		}
		st := c.status()
		if st.State != StateConnected {
			return fmt.Errorf("MCP server %s is %s: %s", c.srv.Name, st.State, st.Error)
		}
		return nil
	}
}

// discoveryBase is the server URL as mcp-go's transports give it to their
// OAuth handler: without query or fragment.
func discoveryBase(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// listenLoopback listens for the browser's redirect on 127.0.0.1: on the
// port of the last login when it is free, since a registered client may
// only be sent back to the redirect URI it registered; else on a new port
// (and the caller registers a new client).
func listenLoopback(prev string) (net.Listener, string, error) {
	if u, err := url.Parse(prev); err == nil && u.Scheme == "http" && u.Hostname() == "127.0.0.1" && u.Port() != "" && u.Path == callbackPath {
		if ln, err := net.Listen("tcp", u.Host); err == nil {
			return ln, prev, nil
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("listen on 127.0.0.1 for the browser's redirect: %w", err)
	}
	return ln, "http://" + ln.Addr().String() + callbackPath, nil
}

// callbackAnswer is the browser's redirect: a code or an error, and where
// to say how the exchange went, for the page the browser shows.
type callbackAnswer struct {
	code, state, err string
	done             chan error
}

// callbackHandler answers the browser's redirect. A request without the
// state nova sent is not the login it waits for (another page, a stale
// tab) and is refused without ending the wait.
func callbackHandler(name, state string, answers chan<- callbackAnswer) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+callbackPath, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("state") != state {
			page(w, http.StatusBadRequest, "This is not the login nova is waiting for (its state does not match). You may close this tab.")
			return
		}
		ans := callbackAnswer{code: q.Get("code"), state: q.Get("state"), done: make(chan error, 1)}
		if e := q.Get("error"); e != "" {
			ans.err = strings.TrimSpace(e + " " + q.Get("error_description"))
		} else if ans.code == "" {
			ans.err = "nothing: the redirect carries no code"
		}
		select {
		case answers <- ans:
		default:
			page(w, http.StatusConflict, "nova already has an answer for this login. You may close this tab.")
			return
		}
		select {
		case err := <-ans.done:
			if err != nil {
				page(w, http.StatusOK, fmt.Sprintf("nova could not log in to %s: %v. You may close this tab.", name, err))
				return
			}
			page(w, http.StatusOK, fmt.Sprintf("nova is logged in to %s. You may close this tab.", name))
		case <-r.Context().Done():
		}
	})
	return mux
}

// page writes the short page the browser shows at the end of a login.
func page(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>nova</title></head>\n<body><p>%s</p></body></html>\n", html.EscapeString(text))
}

// heldToken is a TokenStore that only holds what the code exchange
// returns, for Login to store with the client it belongs to.
type heldToken struct {
	mu  sync.Mutex
	tok *transport.Token
}

// GetToken implements transport.TokenStore.
func (h *heldToken) GetToken(ctx context.Context) (*transport.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t := h.token(); t != nil {
		return t, nil
	}
	return nil, transport.ErrNoToken
}

// SaveToken implements transport.TokenStore.
func (h *heldToken) SaveToken(ctx context.Context, tok *transport.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tok = tok
	return nil
}

func (h *heldToken) token() *transport.Token {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tok
}
