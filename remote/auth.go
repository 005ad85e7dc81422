package remote

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/gorilla/websocket"
)

// How the token travels (docs/remote.md, "How the token travels"). No
// credential is ever ambient: a browser sends a cookie to every port of
// 127.0.0.1 (another port is the same site), so any local listener's page
// would get it. Instead the printed URL carries the token in its fragment
// (/#token=...), which the browser never sends to a server; the page
// keeps it in sessionStorage (this tab and this origin only) and sends it
// as "Authorization: Bearer" on every request, and on /ws, whose browser
// API cannot set headers, as the subprotocol "nova.token.<base64url>"
// beside the protocol the server answers with, "nova.v1".

// The WebSocket's subprotocols.
const (
	// wsProtocol is the protocol GET /ws speaks; the server answers with it.
	wsProtocol = "nova.v1"
	// wsTokenPrefix, then the token in unpadded base64url (a subprotocol
	// is an HTTP token: no spaces, no separators), carries the token.
	wsTokenPrefix = "nova.token."
)

// WSTokenProtocol is the subprotocol that carries token on GET /ws; a
// client offers it with "nova.v1".
func WSTokenProtocol(token string) string {
	return wsTokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(token))
}

// public reports whether r needs no token: GET /health and the web UI's
// files, which hold nothing secret (the page asks for the token).
func public(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	return p == "/health" || (p != "/ws" && !strings.HasPrefix(p, "/api/") && p != "/api")
}

// credential is the token r carries, and whether it carries one: the
// Authorization header (anything but "Bearer <token>" is a wrong one),
// or on /ws the token subprotocol.
func credential(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		tok, _ := strings.CutPrefix(h, "Bearer ")
		if tok == h {
			return "", true
		}
		return tok, true
	}
	if r.URL.Path == "/ws" {
		for _, p := range websocket.Subprotocols(r) {
			if enc, ok := strings.CutPrefix(p, wsTokenPrefix); ok {
				b, err := base64.RawURLEncoding.DecodeString(enc)
				if err != nil {
					return "", true // a guess all the same
				}
				return string(b), true
			}
		}
	}
	return "", false
}

// authenticate answers r with a 401 (no token, or a wrong one) or a 429
// (its client failed too often lately) and reports false, or reports
// true for the right token.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) bool {
	tok, given := credential(r)
	if !given {
		writeError(w, http.StatusUnauthorized, "missing token: send Authorization: Bearer <token> (on /ws, the subprotocol "+wsTokenPrefix+"<token in base64url> with "+wsProtocol+"), or open the URL nova printed")
		return false
	}
	switch ok, wait := s.checkToken(r, tok); {
	case wait > 0:
		writeTooMany(w, r, wait)
		return false
	case !ok:
		writeError(w, http.StatusUnauthorized, "wrong token: send the one nova printed (the URL's #token=...)")
		return false
	}
	return true
}

// checkToken reports whether tok is the token. A client that failed too
// often lately gets wait > 0 before tok is looked at (so a guess then
// tells nothing); a wrong tok counts against its client.
func (s *Server) checkToken(r *http.Request, tok string) (ok bool, wait time.Duration) {
	client := clientKey(r.RemoteAddr)
	now := s.limiter.clock()
	if wait := s.limiter.blocked(client, now); wait > 0 {
		return false, wait
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.o.Token)) == 1 {
		return true, 0
	}
	s.limiter.fail(client, now)
	return false, 0
}

// writeTooMany answers a client that must wait before it tries a token
// again.
func writeTooMany(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", fmt.Sprint(secs))
	writeError(w, http.StatusTooManyRequests, fmt.Sprintf("too many wrong tokens from %s: nova looks at no token from there for %d s (it takes 2 wrong tries a minute, plus 12 an hour); use the URL nova printed", clientKey(r.RemoteAddr), secs))
}

// login answers an old link, GET /?token=T (nova printed those before
// the token moved to the fragment): it moves the token into the fragment
// of the landing page's URL, where the page takes it and drops it from
// the address bar. The token is never logged, and no cookie is set.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	tok := r.URL.Query().Get("token")
	switch ok, wait := s.checkToken(r, tok); {
	case wait > 0:
		writeTooMany(w, r, wait)
	case !ok:
		writeLoginPage(w, r)
	default:
		setUIHeaders(w.Header())
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, s.landingPath()+"#token="+url.QueryEscape(tok), http.StatusSeeOther)
	}
}

// loginPage is what an old link with a wrong token gets.
const loginPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>nova: wrong token</title></head>
<body><main><h1>nova</h1>
<p>This link's token is not the one nova was started with. Open the URL nova printed
(<code>http://…/#token=…</code>) in this browser.</p>
</main></body></html>
`

// writeLoginPage answers a link whose token is wrong.
func writeLoginPage(w http.ResponseWriter, r *http.Request) {
	setUIHeaders(w.Header())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	if r.Method != http.MethodHead {
		_, _ = io.WriteString(w, loginPage)
	}
}

// clientKey is whom a failure counts against: the remote IP address, an
// IPv6 one by its /64 (one machine's addresses). Loopback counts too: on
// this machine, another user's process is the attacker nova guards
// against.
func clientKey(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil && !ip.IsLoopback() {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// MinTokenBits is the entropy a token of the person's own must have to
// serve beyond loopback without --insecure-token.
const MinTokenBits = 128

// TokenBits estimates a token's entropy as its length times log2 of its
// alphabet, the alphabet being the classes of characters it uses: 26 for
// lowercase letters, 26 for uppercase, 10 for digits, 33 for the other
// ASCII symbols, and 128 for anything beyond ASCII. It is an upper bound
// (it cannot see a word or a repeated pattern): enough to refuse a short
// or narrow token, not proof a long one is random.
func TokenBits(token string) float64 {
	var lower, upper, digit, symbol, other bool
	n := 0
	for _, c := range token {
		n++
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		case c < unicode.MaxASCII && unicode.IsPrint(c):
			symbol = true
		default:
			other = true
		}
	}
	size := 0
	for _, c := range []struct {
		on bool
		n  int
	}{{lower, 26}, {upper, 26}, {digit, 10}, {symbol, 33}, {other, 128}} {
		if c.on {
			size += c.n
		}
	}
	if size < 2 {
		return 0
	}
	return float64(n) * math.Log2(float64(size))
}

// The backoff after wrong tokens, per client (code-server's): a client
// may get 2 wrong a minute plus 12 an hour; beyond that every request
// that carries a token is a 429 until the budget refills, whether the
// token is right or not, so a guess then tells nothing.
const (
	perMinute = 2
	perHour   = 12
	// maxClients bounds the clients remembered; past it, new ones share
	// one budget (so a flood from many addresses cannot grow the map).
	maxClients = 4096
)

// limiter counts wrong tokens per client. The zero limiter is ready.
type limiter struct {
	// now is the clock (time.Now); tests step it.
	now     func() time.Time
	mu      sync.Mutex
	clients map[string]*budget
}

// budget is a client's two token buckets.
type budget struct {
	minute, hour bucket
}

// bucket refills at rate per interval up to its size.
type bucket struct {
	left float64
	at   time.Time
}

func (b *bucket) refill(now time.Time, size float64, every time.Duration) {
	if b.at.IsZero() {
		b.left, b.at = size, now
		return
	}
	if d := now.Sub(b.at); d > 0 {
		b.left = math.Min(size, b.left+size*d.Seconds()/every.Seconds())
		b.at = now
	}
}

// until is how long until b holds a whole try again.
func (b *bucket) until(size float64, every time.Duration) time.Duration {
	if b.left >= 1 {
		return 0
	}
	return time.Duration((1 - b.left) / size * float64(every))
}

func (l *limiter) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// get returns client's budget, refilled to now; l.mu is held.
func (l *limiter) get(client string, now time.Time) *budget {
	if l.clients == nil {
		l.clients = map[string]*budget{}
	}
	b := l.clients[client]
	if b == nil {
		if len(l.clients) >= maxClients {
			l.prune(now)
		}
		if len(l.clients) >= maxClients {
			client = "*"
			if b = l.clients[client]; b != nil {
				b.refillAll(now)
				return b
			}
		}
		b = &budget{}
		l.clients[client] = b
	}
	b.refillAll(now)
	return b
}

func (b *budget) refillAll(now time.Time) {
	b.minute.refill(now, perMinute, time.Minute)
	b.hour.refill(now, perHour, time.Hour)
}

// prune forgets the clients whose budget is whole again.
func (l *limiter) prune(now time.Time) {
	for k, b := range l.clients {
		b.refillAll(now)
		if b.minute.left >= perMinute && b.hour.left >= perHour {
			delete(l.clients, k)
		}
	}
}

// blocked is how long client must wait before a token is looked at
// again; 0 when it may try now.
func (l *limiter) blocked(client string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(client, now)
	if b.minute.left >= 1 || b.hour.left >= 1 {
		return 0
	}
	return min(b.minute.until(perMinute, time.Minute), b.hour.until(perHour, time.Hour))
}

// fail counts a wrong token against client: the minute's budget first,
// then the hour's.
func (l *limiter) fail(client string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(client, now)
	switch {
	case b.minute.left >= 1:
		b.minute.left--
	case b.hour.left >= 1:
		b.hour.left--
	}
}
