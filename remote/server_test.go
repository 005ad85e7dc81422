package remote

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testToken = "t0ken-for-tests"

// testServer is a server on loopback with a fresh NOVA_HOME and workspace.
type testServer struct {
	t   *testing.T
	srv *Server
	url string
	o   Options
}

func newTestServer(t *testing.T, mod ...func(*Options)) *testServer {
	t.Helper()
	o := Options{Host: "127.0.0.1", Token: testToken, NovaHome: filepath.Join(t.TempDir(), ".nova"), Home: t.TempDir(), Workdir: t.TempDir()}
	for _, m := range mod {
		m(&o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &testServer{t: t, srv: srv, url: hs.URL, o: o}
}

// do sends a request with the token unless headers say otherwise; body
// "" sends none, otherwise as application/json.
func (ts *testServer) do(method, path, body string, headers ...string) (int, string, http.Header) {
	ts.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.url+path, rd)
	if err != nil {
		ts.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), resp.Header
}

func TestHealthAndUnknownEndpoint(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	if code, body, _ := ts.do("GET", "/health", "", "Authorization", ""); code != 200 || !strings.Contains(body, `"status":"ok"`) || !strings.Contains(body, `"mode":"server"`) {
		t.Errorf("health without a token: %d %s", code, body)
	}
	// Without NOVA_FRONTEND_DIST, / is the embedded UI (web_test.go).
	if code, body, _ := ts.do("GET", "/", ""); code != 200 || !strings.Contains(body, "<title>nova</title>") {
		t.Errorf("the embedded UI: %d %.80q", code, body)
	}
	if code, body, _ := ts.do("GET", "/api/nothing", ""); code != 404 || !strings.Contains(body, `"detail"`) {
		t.Errorf("unknown endpoint: %d %s", code, body)
	}
}

func TestFrontendDist(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	os.WriteFile(filepath.Join(dist, "index.html"), []byte("<html>nova ui</html>"), 0o644)
	os.MkdirAll(filepath.Join(dist, "assets"), 0o755)
	os.WriteFile(filepath.Join(dist, "assets", "app.js"), []byte("console.log(1)"), 0o644)
	ts := newTestServer(t, func(o *Options) { o.FrontendDir = dist })
	for _, tt := range []struct {
		path string
		code int
		has  string
	}{
		{"/", 200, "nova ui"},
		{"/assets/app.js", 200, "console.log"},
		{"/sessions/01ABC", 200, "nova ui"}, // a client-side route
		{"/assets/missing.js", 404, "detail"},
		{"/etc/passwd", 200, "nova ui"}, // only files inside dist are served
	} {
		if code, body, _ := ts.do("GET", tt.path, ""); code != tt.code || !strings.Contains(body, tt.has) {
			t.Errorf("GET %s: %d %q", tt.path, code, body)
		}
	}
}

// Every route but the health check and the UI's files wants the token
// as a bearer header; a cookie is no token (a browser sends it to every
// port of the host, so any local listener's page would have it).
func TestAuth(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for _, tt := range []struct {
		name    string
		headers []string
		code    int
	}{
		{"no token", []string{"Authorization", ""}, 401},
		{"wrong token", []string{"Authorization", "Bearer nope"}, 401},
		{"not bearer", []string{"Authorization", testToken}, 401},
		{"bearer", nil, 200},
		{"cookie", []string{"Authorization", "", "Cookie", "nova_token=" + testToken}, 401},
	} {
		code, body, _ := ts.do("GET", "/api/providers", "", tt.headers...)
		if code != tt.code {
			t.Errorf("%s: %d %s, want %d", tt.name, code, body, tt.code)
		}
		if code == 401 && !strings.Contains(body, `"detail"`) {
			t.Errorf("%s: 401 without detail: %s", tt.name, body)
		}
	}
	// The UI's files need none: the page asks for the token itself.
	for _, p := range []string{"/", "/s/01ABC", "/js/app.js"} {
		if code, body, _ := ts.do("GET", p, "", "Authorization", ""); code != 200 {
			t.Errorf("GET %s without a token: %d %.100s", p, code, body)
		}
	}
}

// An old link (GET /?token=T, as nova printed before the fragment) still
// works: it moves the token into the landing URL's fragment, never into
// a cookie. A wrong one gets a page that says so.
func TestOldTokenLink(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	code, _, h := ts.do("GET", "/?token="+testToken, "", "Authorization", "")
	if code != http.StatusSeeOther || h.Get("Location") != "/#token="+testToken || h.Get("Set-Cookie") != "" {
		t.Errorf("old link: %d Location %q Set-Cookie %q", code, h.Get("Location"), h.Get("Set-Cookie"))
	}
	if h.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("the redirect may send the link as a Referer: %q", h.Get("Referrer-Policy"))
	}
	if code, body, h := ts.do("GET", "/?token=wrong", "", "Authorization", ""); code != 401 || !strings.Contains(body, "URL nova printed") || h.Get("Location") != "" {
		t.Errorf("old link with a wrong token: %d %q", code, body)
	}
}

func TestHostContentTypeAndSize(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	if code, body, _ := ts.do("GET", "/health", "", "Host", "evil.example:8765"); code != 403 || !strings.Contains(body, "detail") {
		t.Errorf("a foreign Host: %d %s", code, body)
	}
	for _, h := range []string{"localhost:1", "127.0.0.1:9", "[::1]:9"} {
		if code, _, _ := ts.do("GET", "/health", "", "Host", h); code != 200 {
			t.Errorf("Host %s: %d", h, code)
		}
	}
	if code, _, _ := ts.do("POST", "/api/chat", "message=hi", "Content-Type", "application/x-www-form-urlencoded"); code != 415 {
		t.Errorf("a form body: %d, want 415", code)
	}
	big := `{"message":"` + strings.Repeat("x", MaxBody) + `"}`
	if code, _, _ := ts.do("POST", "/api/chat", big); code != 413 {
		t.Errorf("a 20 MB body: %d, want 413", code)
	}
}

// A server on every address answers the Host headers that name the
// machine's interface addresses, and still refuses any other name.
func TestHostOnEveryAddress(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, func(o *Options) { o.Host = "0.0.0.0"; o.Addrs = []string{"192.0.2.7", "2001:db8::7"} })
	for _, h := range []string{"192.0.2.7:8765", "[2001:db8::7]:8765", "127.0.0.1:8765", "localhost"} {
		if code, _, _ := ts.do("GET", "/health", "", "Host", h); code != 200 {
			t.Errorf("Host %s: %d, want 200", h, code)
		}
	}
	for _, h := range []string{"192.0.2.8:8765", "evil.example:8765", "nova.example"} {
		if code, _, _ := ts.do("GET", "/health", "", "Host", h); code != 403 {
			t.Errorf("Host %s: %d, want 403", h, code)
		}
	}
	for _, a := range InterfaceAddrs("0.0.0.0") {
		if ip := net.ParseIP(a); ip == nil || ip.To4() == nil || ip.IsLoopback() {
			t.Errorf("InterfaceAddrs(0.0.0.0) holds %q", a)
		}
	}
	if got := InterfaceAddrs("127.0.0.1"); got != nil {
		t.Errorf("InterfaceAddrs(127.0.0.1) = %v, want none", got)
	}
}
