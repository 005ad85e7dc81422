package remote

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
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

// cookieName carries the token for a browser after GET /?token=T.
const cookieName = "nova_token"

// Options configure a Server.
type Options struct {
	// Host is the address the server listens on; it is also a Host header
	// the server answers besides loopback names (DNS rebinding guard).
	Host string
	// Token is the secret every request but GET /health must carry.
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
	// (the path login redirects to) instead of /: a shared terminal
	// session's own page, so a phone that scans its code is in it.
	Landing func() string
}

// Server is nova serve's HTTP API.
type Server struct {
	o       Options
	mux     *http.ServeMux
	streams streams
	ws      wsHub
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
	return hex.EncodeToString(b[:]), nil
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
// JSON bodies of bounded size.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			writeError(w, http.StatusForbidden, "Host "+r.Host+" is not this server: nova serve answers only its own address (DNS rebinding guard)")
			return
		}
		if r.Method == http.MethodGet && r.URL.Path == "/health" {
			s.mux.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet && r.URL.Path == "/" && r.URL.Query().Has("token") {
			s.login(w, r)
			return
		}
		if !s.authorized(r) {
			if wantsHTML(r) {
				writeLoginPage(w, r)
				return
			}
			writeError(w, http.StatusUnauthorized, "missing or wrong token: send Authorization: Bearer <token>, or open the URL nova serve printed")
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
	if Loopback(host) {
		return true
	}
	return s.o.Host != "" && strings.EqualFold(strings.Trim(host, "[]"), strings.Trim(s.o.Host, "[]"))
}

func (s *Server) authorized(r *http.Request) bool {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokenIs(tok) {
		return true
	}
	if c, err := r.Cookie(cookieName); err == nil && s.tokenIs(c.Value) {
		return true
	}
	// A browser's WebSocket cannot send a header: GET /ws may carry the
	// token in its query.
	if r.URL.Path == "/ws" && s.tokenIs(r.URL.Query().Get("token")) {
		return true
	}
	return false
}

func (s *Server) tokenIs(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.o.Token)) == 1
}

// login turns the printed URL's token into a cookie and drops it from
// the address bar, so it is not left in history or sent as a Referer.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.tokenIs(r.URL.Query().Get("token")) {
		writeError(w, http.StatusUnauthorized, "wrong token: open the URL nova serve printed")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.o.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	to := "/"
	if s.o.Landing != nil {
		to = s.o.Landing()
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
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

func (s *Server) routes() {
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "service": "nova", "mode": "server"})
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/"):
			writeError(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
		case r.Method == http.MethodGet || r.Method == http.MethodHead:
			s.frontend(w, r)
		default:
			writeError(w, http.StatusMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path)
		}
	})
	s.mux.HandleFunc("GET /ws", s.serveWS)
	s.sessionRoutes()
	s.chatRoutes()
	s.mcpRoutes()
	s.configRoutes()
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
