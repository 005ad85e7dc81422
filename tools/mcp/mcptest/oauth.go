package mcptest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// AuthServer is an MCP server (Streamable HTTP from OAuth, HTTP+SSE from
// OAuthSSE) that wants a bearer token and
// the in-test authorization server that issues them. The authorization
// server is a fake of the world (it approves every authorization request at
// once) but speaks the real RFCs: 9728 protected resource metadata, 8414
// authorization server metadata, 7591 dynamic registration, 6749 code and
// refresh grants, 7636 PKCE with S256 only, and 8707 resource indicators.
type AuthServer struct {
	MCPURL              string        // the MCP endpoint (http://127.0.0.1:p/mcp, or /sse); every method on it needs a bearer token (but see Options.OpenHandshake)
	Issuer              string        // the authorization server (http://127.0.0.1:q), named in the protected resource metadata
	ResourceMetadataURL string        // MCPURL's protected resource metadata, which a 401 names in WWW-Authenticate
	AccessTTL           time.Duration // how long an access token is good for: OAuth's accessTTL rounded up to whole seconds, since expires_in counts seconds; 0 means forever
	Registrations       func() int    // dynamic client registrations accepted
	TokensIssued        func() int    // access tokens issued, by code exchange and by refresh
	Refreshes           func() int    // refresh_token grants honoured
	Unauthorized        func() int    // MCP requests refused with 401
	Revoke              func()        // invalidates every access token issued so far (refresh tokens stay good), as a server restart might
}

// OAuth starts an OAuth-protected Streamable HTTP MCP server serving New and
// its authorization server, each on its own 127.0.0.1 port, closed by
// t.Cleanup. Access tokens expire after accessTTL (see AuthServer.AccessTTL);
// refresh tokens do not expire and are rotated on every use.
func OAuth(t testing.TB, o Options, accessTTL time.Duration) *AuthServer {
	t.Helper()
	return oauthServer(t, o, accessTTL, false)
}

// OAuthSSE is OAuth over the older HTTP+SSE transport: MCPURL is the event
// stream (http://127.0.0.1:p/sse), and both it and the message endpoint the
// stream names want the bearer token.
func OAuthSSE(t testing.TB, o Options, accessTTL time.Duration) *AuthServer {
	t.Helper()
	return oauthServer(t, o, accessTTL, true)
}

func oauthServer(t testing.TB, o Options, accessTTL time.Duration, sse bool) *AuthServer {
	t.Helper()
	if accessTTL > 0 {
		accessTTL = (accessTTL + time.Second - 1) / time.Second * time.Second
	}
	mcpHost := newHTTPHost(t)
	asHost := newHTTPHost(t)
	endpoint := "/mcp"
	if sse {
		endpoint = "/sse"
	}
	a := &authority{
		ttl:     accessTTL,
		issuer:  asHost.url,
		mcpURL:  mcpHost.url + endpoint,
		clients: map[string][]string{},
		codes:   map[string]codeGrant{},
		access:  map[string]time.Time{},
		refresh: map[string]string{},
	}
	a.prmURL = mcpHost.url + server.ProtectedResourceMetadataPath(a.mcpURL)
	if o.OpenHandshake {
		a.open = func(r *http.Request) bool {
			if sse && r.Method == http.MethodGet && r.URL.Path == endpoint {
				return true // the stream the handshake's answers come on
			}
			m := rpcMethod(r)
			return m == "initialize" || m == "notifications/initialized"
		}
	}

	prm := server.NewProtectedResourceMetadataHandler(server.ProtectedResourceMetadataConfig{
		Resource:               a.mcpURL,
		AuthorizationServers:   []string{a.issuer},
		ScopesSupported:        []string{"mcp"},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "nova test MCP server",
	})
	mcpMux := http.NewServeMux()
	if sse {
		srv := server.NewSSEServer(build(o, mcpHost.stop))
		mcpHost.onClose(srv.CloseSessions)
		mcpMux.Handle("/sse", a.requireBearer(srv))
		mcpMux.Handle("/message", a.requireBearer(srv))
	} else {
		srv := server.NewStreamableHTTPServer(build(o, mcpHost.stop), server.WithStreamableHTTPLogger(mcpHost.logger()))
		mcpHost.onClose(func() { srv.CloseSessions(context.Background()) })
		mcpMux.Handle("/mcp", a.requireBearer(crashByClosingConn(srv)))
	}
	mcpMux.Handle(server.ProtectedResourceMetadataPath(a.mcpURL), prm)
	// Clients that do not insert the resource path (RFC 9728 §3.1) look at
	// the root; the document is the same.
	mcpMux.Handle(server.WellKnownProtectedResourcePath, prm)
	mcpHost.start(delayed(mcpMux, o.StartDelay))

	asMux := http.NewServeMux()
	asMux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	asMux.HandleFunc("POST /register", a.register)
	asMux.HandleFunc("GET /authorize", a.authorize)
	asMux.HandleFunc("POST /token", a.token)
	asHost.start(asMux)

	count := func(n *int) func() int {
		return func() int {
			a.mu.Lock()
			defer a.mu.Unlock()
			return *n
		}
	}
	return &AuthServer{
		MCPURL:              a.mcpURL,
		Issuer:              a.issuer,
		ResourceMetadataURL: a.prmURL,
		AccessTTL:           accessTTL,
		Registrations:       count(&a.registrations),
		TokensIssued:        count(&a.issued),
		Refreshes:           count(&a.refreshes),
		Unauthorized:        count(&a.unauthorized),
		Revoke: func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			clear(a.access)
		},
	}
}

// authority is the authorization server's state and the resource server's
// view of it: which tokens are good.
type authority struct {
	ttl                     time.Duration
	issuer, mcpURL, prmURL  string
	open                    func(*http.Request) bool // requests served without a token (Options.OpenHandshake); nil: none
	mu                      sync.Mutex
	clients                 map[string][]string  // client ID -> registered redirect URIs
	codes                   map[string]codeGrant // authorization code -> what it was issued for
	access                  map[string]time.Time // access token -> expiry (zero: never)
	refresh                 map[string]string    // refresh token -> client ID
	registrations, issued   int
	refreshes, unauthorized int
}

type codeGrant struct {
	clientID, redirectURI, challenge string
	expires                          time.Time
}

// codeTTL bounds how long an authorization code may wait to be exchanged.
const codeTTL = time.Minute

func (a *authority) requireBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if (strings.EqualFold(scheme, "Bearer") && a.validAccess(strings.TrimSpace(tok))) || (a.open != nil && a.open(r)) {
			next.ServeHTTP(w, r)
			return
		}
		a.mu.Lock()
		a.unauthorized++
		a.mu.Unlock()
		challenge := fmt.Sprintf("Bearer resource_metadata=%q", a.prmURL)
		if tok != "" {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		writeJSON(w, http.StatusUnauthorized, oauthError{"invalid_token", "a valid bearer token is required"})
	})
}

// rpcMethod is the JSON-RPC method a POST carries ("" for anything else),
// leaving the body for the MCP server to read.
func rpcMethod(r *http.Request) string {
	if r.Method != http.MethodPost || r.Body == nil {
		return ""
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return ""
	}
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return ""
	}
	return msg.Method
}

func (a *authority) validAccess(tok string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.access[tok]
	return ok && (exp.IsZero() || time.Now().Before(exp))
}

func (a *authority) metadata(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                a.issuer,
		"authorization_endpoint":                a.issuer + "/authorize",
		"token_endpoint":                        a.issuer + "/token",
		"registration_endpoint":                 a.issuer + "/register",
		"scopes_supported":                      []string{"mcp"},
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported": []string{"none"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

func (a *authority) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ClientName   string   `json:"client_name"`
		RedirectURIs []string `json:"redirect_uris"`
		Scope        string   `json:"scope"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError{"invalid_client_metadata", err.Error()})
		return
	}
	if len(req.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, oauthError{"invalid_redirect_uri", "redirect_uris is required"})
		return
	}
	for _, u := range req.RedirectURIs {
		if p, err := url.Parse(u); err != nil || !p.IsAbs() {
			writeJSON(w, http.StatusBadRequest, oauthError{"invalid_redirect_uri", fmt.Sprintf("%q is not an absolute URI", u)})
			return
		}
	}
	id := "client-" + rand.Text()
	a.mu.Lock()
	a.clients[id] = req.RedirectURIs
	a.registrations++
	a.mu.Unlock()
	// Every client is public: PKCE, not a secret, is what binds a code to
	// the client that asked for it.
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  id,
		"client_id_issued_at":        time.Now().Unix(),
		"client_name":                req.ClientName,
		"redirect_uris":              req.RedirectURIs,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"scope":                      req.Scope,
	})
}

// authorize approves at once: no login, no consent page. It still checks
// what a real server checks, since those are the client's mistakes to catch.
func (a *authority) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	clientID, redirectURI := q.Get("client_id"), q.Get("redirect_uri")
	a.mu.Lock()
	registered, known := a.clients[clientID]
	a.mu.Unlock()
	if !known {
		writeJSON(w, http.StatusBadRequest, oauthError{"invalid_client", "unknown client_id"})
		return
	}
	if redirectURI == "" && len(registered) == 1 {
		redirectURI = registered[0]
	}
	if !slices.Contains(registered, redirectURI) {
		writeJSON(w, http.StatusBadRequest, oauthError{"invalid_request", "redirect_uri is not registered"})
		return
	}
	// From here on errors go back to the client through the redirect, as
	// RFC 6749 §4.1.2.1 has it.
	back, err := url.Parse(redirectURI)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError{"invalid_request", err.Error()})
		return
	}
	params := back.Query()
	if state := q.Get("state"); state != "" {
		params.Set("state", state)
	}
	fail := ""
	switch {
	case q.Get("response_type") != "code":
		fail = "unsupported_response_type"
	case q.Get("code_challenge") == "":
		fail = "invalid_request: code_challenge (PKCE) is required"
	case q.Get("code_challenge_method") != "S256":
		fail = "invalid_request: code_challenge_method must be S256"
	case q.Get("resource") != "" && q.Get("resource") != a.mcpURL:
		fail = "invalid_target"
	}
	if fail != "" {
		code, desc, _ := strings.Cut(fail, ": ")
		params.Set("error", code)
		if desc != "" {
			params.Set("error_description", desc)
		}
	} else {
		code := rand.Text()
		a.mu.Lock()
		a.codes[code] = codeGrant{clientID, redirectURI, q.Get("code_challenge"), time.Now().Add(codeTTL)}
		a.mu.Unlock()
		params.Set("code", code)
	}
	back.RawQuery = params.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (a *authority) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError{"invalid_request", err.Error()})
		return
	}
	clientID := r.PostForm.Get("client_id")
	if user, _, ok := r.BasicAuth(); ok {
		clientID, _ = url.QueryUnescape(user)
	}
	if res := r.PostForm.Get("resource"); res != "" && res != a.mcpURL {
		writeJSON(w, http.StatusBadRequest, oauthError{"invalid_target", "tokens are only issued for " + a.mcpURL})
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.clients[clientID]; !ok {
		writeJSON(w, http.StatusUnauthorized, oauthError{"invalid_client", "unknown client_id"})
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		code := r.PostForm.Get("code")
		g, ok := a.codes[code]
		delete(a.codes, code) // single use, even when the exchange fails
		switch {
		case !ok || time.Now().After(g.expires):
			writeJSON(w, http.StatusBadRequest, oauthError{"invalid_grant", "unknown or expired code"})
			return
		case g.clientID != clientID:
			writeJSON(w, http.StatusBadRequest, oauthError{"invalid_grant", "code was issued to another client"})
			return
		case g.redirectURI != r.PostForm.Get("redirect_uri"):
			writeJSON(w, http.StatusBadRequest, oauthError{"invalid_grant", "redirect_uri differs from the authorization request's"})
			return
		case s256(r.PostForm.Get("code_verifier")) != g.challenge:
			writeJSON(w, http.StatusBadRequest, oauthError{"invalid_grant", "code_verifier does not match code_challenge"})
			return
		}
	case "refresh_token":
		rt := r.PostForm.Get("refresh_token")
		owner, ok := a.refresh[rt]
		if !ok || owner != clientID {
			writeJSON(w, http.StatusBadRequest, oauthError{"invalid_grant", "unknown refresh token"})
			return
		}
		delete(a.refresh, rt) // rotation: each refresh token is good once
		a.refreshes++
	default:
		writeJSON(w, http.StatusBadRequest, oauthError{"unsupported_grant_type", r.PostForm.Get("grant_type")})
		return
	}
	access, refresh := "at-"+rand.Text(), "rt-"+rand.Text()
	var exp time.Time
	resp := map[string]any{
		"access_token":  access,
		"token_type":    "Bearer",
		"refresh_token": refresh,
		"scope":         "mcp",
	}
	if a.ttl > 0 {
		exp = time.Now().Add(a.ttl)
		resp["expires_in"] = int64(a.ttl / time.Second)
	}
	a.access[access] = exp
	a.refresh[refresh] = clientID
	a.issued++
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, resp)
}

func s256(verifier string) string {
	if verifier == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
