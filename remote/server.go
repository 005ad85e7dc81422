package remote

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"
)

// MaxBody bounds a request body (413 beyond it).
const MaxBody = 20 << 20

// Options configure a Server.
type Options struct {
	// Host is the address the server listens on; it is also a Host header
	// the server answers besides loopback names (DNS rebinding guard).
	Host string
	// Addrs are further addresses the server answers as (Host headers),
	// besides loopback names and Host: the machine's interface addresses
	// when Host is every address (0.0.0.0, ::; see InterfaceAddrs).
	Addrs []string
	// Token is the secret every request but GET /health and the UI's
	// files must carry.
	Token string
	// NovaHome is nova's directory (config.json, agents, memories).
	NovaHome string
	// Home is the user's home directory (~ in paths).
	Home string
	// Workdir is the server's own workspace: sessions start there unless a
	// request names another.
	Workdir string
	// FrontendDir, when it is a directory, is served at / instead of the
	// web UI embedded in the binary (NOVA_FRONTEND_DIST).
	FrontendDir string
	// Sessions opens and runs the sessions.
	Sessions Host
	// Getenv reads the environment: the providers it defines
	// (ANTHROPIC_API_KEY, OPENAI_API_KEY, OLLAMA_HOST ...) and NOVA_MODEL.
	// nil means os.Getenv.
	Getenv func(string) string
	// Landing, when set, is the page opening the printed URL leads to
	// instead of /: a shared terminal session's own page, so a phone that
	// scans its code is in it.
	Landing func() string
	// Share says the server shares one terminal session (/remote): its
	// link may use that session and read what the UI shows, and nothing
	// that reaches beyond it (routes.go).
	Share bool
}

// Server is nova serve's HTTP API.
type Server struct {
	o       Options
	mux     *http.ServeMux
	table   []route
	streams streams
	ws      wsHub
	limiter limiter
}

// New returns a server for o. A missing token is an error: the caller
// generates one (NewToken) and says it.
func New(o Options) (*Server, error) {
	if o.Token == "" {
		return nil, errors.New("a token is required")
	}
	s := &Server{o: o, mux: http.NewServeMux()}
	s.routes()
	return s, nil
}

// NewToken returns a random token of 256 bits.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate a token: %w", err)
	}
	// base64url, not hex: 43 characters, so the URL with the token fits
	// on one line of an 80-column terminal, where /remote prints it.
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Loopback reports whether host (a name or an address, without port) is
// this machine's loopback.
func Loopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler is the whole API with its guards: the Host check, the token,
// JSON bodies of bounded size. The UI's files and GET /health need no
// token: the page holds none until it reads it from the printed URL's
// fragment (auth.go).
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			writeError(w, http.StatusForbidden, "Host "+r.Host+" is not this server: nova serve answers only its own address (DNS rebinding guard)")
			return
		}
		if public(r) {
			if r.URL.Path == "/" && r.URL.Query().Has("token") {
				s.login(w, r)
				return
			}
			s.mux.ServeHTTP(w, r)
			return
		}
		if !s.authenticate(w, r) {
			return
		}
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			if r.ContentLength != 0 {
				mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
				if err != nil || mt != "application/json" {
					writeError(w, http.StatusUnsupportedMediaType, "send the body as application/json")
					return
				}
			}
			if r.ContentLength > MaxBody {
				writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d MB", MaxBody>>20))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		}
		s.mux.ServeHTTP(w, r)
	})
}

// hostAllowed is the DNS-rebinding guard: a page on another name that
// resolves to this machine must not reach the API with the browser.
func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if Loopback(host) {
		return true
	}
	for _, a := range append([]string{s.o.Host}, s.o.Addrs...) {
		if a != "" && strings.EqualFold(host, strings.Trim(a, "[]")) {
			return true
		}
	}
	return false
}

// Serve answers on ln until ctx ends, then lets requests in flight finish
// (a bounded time) and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	hs.RegisterOnShutdown(s.ws.shutdown) // Shutdown leaves hijacked connections be
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers with seed 000's error shape.
func writeError(w http.ResponseWriter, status int, detail string) {
	writeJSON(w, status, map[string]string{"detail": detail})
}

// readJSON decodes a request body into v; the error is for a 400 (or a
// 413 when the body was too large, see bodyStatus).
func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the body is empty: send a JSON object")
		}
		return fmt.Errorf("the body is not valid JSON: %w", err)
	}
	return nil
}

// bodyStatus is the status for a readJSON error: 413 when the body hit
// MaxBody, else 400.
func bodyStatus(err error) int {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}
