package remote

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The embedded UI is served at / with its security headers: pages and
// assets, the UI's own routes falling back to index.html, missing assets
// a 404, and a revalidation that answers 304.
func TestEmbeddedUI(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	for _, tt := range []struct {
		path, typ string
		code      int
		has       string
	}{
		{"/", "text/html", 200, `<script type="module" src="/js/app.js"></script>`},
		{"/js/app.js", "text/javascript", 200, "import"},
		{"/style.css", "text/css", 200, "--accent"},
		{"/favicon.svg", "image/svg+xml", 200, "<svg"},
		{"/s/01SESSION", "text/html", 200, "<title>nova</title>"}, // a session's address
		{"/js/missing.js", "application/json", 404, "detail"},
		{"/etc/passwd", "text/html", 200, "<title>nova</title>"}, // only the UI's own files
	} {
		code, body, h := ts.do("GET", tt.path, "")
		if code != tt.code || !strings.Contains(body, tt.has) || !strings.HasPrefix(h.Get("Content-Type"), tt.typ) {
			t.Errorf("GET %s: %d %s %.80q", tt.path, code, h.Get("Content-Type"), body)
		}
		if code == 200 {
			if csp := h.Get("Content-Security-Policy"); csp != contentSecurityPolicy {
				t.Errorf("GET %s: CSP %q", tt.path, csp)
			}
			if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("GET %s: headers %v", tt.path, h)
			}
		}
	}
	_, _, h := ts.do("GET", "/js/app.js", "")
	etag := h.Get("ETag")
	if code, _, _ := ts.do("GET", "/js/app.js", "", "If-None-Match", etag); etag == "" || code != 304 {
		t.Errorf("revalidation with ETag %q: %d, want 304", etag, code)
	}
}

// The CSP lets nothing but nova's own files run: no inline code, no
// other origin.
func TestUIContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(contentSecurityPolicy, want) {
			t.Errorf("the CSP lacks %s", want)
		}
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:"} {
		if strings.Contains(contentSecurityPolicy, bad) {
			t.Errorf("the CSP allows %s", bad)
		}
	}
}

// A browser that has no token gets the UI all the same (it holds no
// secret, and it asks for the token itself), with its security headers;
// the API answers a script without the token with the JSON error.
func TestUIWithoutToken(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t)
	code, body, h := ts.do("GET", "/s/01SESSION", "", "Authorization", "", "Accept", "text/html,application/xhtml+xml")
	if code != 200 || !strings.Contains(body, "/js/app.js") || h.Get("Content-Security-Policy") != contentSecurityPolicy {
		t.Errorf("a browser without the token: %d %.80s %v", code, body, h)
	}
	if code, body, _ := ts.do("GET", "/api/sessions", "", "Authorization", "", "Accept", "text/html"); code != 401 || !strings.Contains(body, `"detail"`) {
		t.Errorf("an API call without the token: %d %s", code, body)
	}
}

// NOVA_FRONTEND_DIST replaces the embedded UI, with the same headers.
func TestFrontendDistOverridesEmbeddedUI(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	os.WriteFile(filepath.Join(dist, "index.html"), []byte("<html>my ui</html>"), 0o644)
	ts := newTestServer(t, func(o *Options) { o.FrontendDir = dist })
	code, body, h := ts.do("GET", "/s/01SESSION", "")
	if code != 200 || body != "<html>my ui</html>" || h.Get("Content-Security-Policy") != contentSecurityPolicy {
		t.Errorf("the dist: %d %q %v", code, body, h)
	}
	if code, _, _ := ts.do("GET", "/js/app.js", ""); code != 404 {
		t.Errorf("an embedded file behind the dist: %d, want 404", code)
	}
	// A dist that is not a directory leaves the embedded UI in place.
	ts = newTestServer(t, func(o *Options) { o.FrontendDir = filepath.Join(dist, "index.html") })
	if code, body, _ := ts.do("GET", "/", ""); code != 200 || !strings.Contains(body, "/js/app.js") {
		t.Errorf("a dist that is a file: %d %.80q", code, body)
	}
}

// The UI as shipped holds together: every file index.html and the
// modules load is embedded, and no page carries inline script, inline
// style or event-handler attributes (the CSP would block them).
func TestEmbeddedUIFilesResolve(t *testing.T) {
	t.Parallel()
	web, err := fs.Sub(webFiles, "web")
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`(?:src|href)="(/[^"]*)"`)
	imp := regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^'"]*from\s+'([^']+)'|import\('([^']+)'\)`)
	index, _ := fs.ReadFile(web, "index.html")
	for _, m := range ref.FindAllStringSubmatch(string(index), -1) {
		if _, err := fs.Stat(web, strings.TrimPrefix(m[1], "/")); err != nil {
			t.Errorf("index.html loads %s, which is not embedded", m[1])
		}
	}
	if regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]+</script>|<script>|\sstyle="|\son[a-z]+="`).Match(index) {
		t.Error("index.html has inline script, style or handlers")
	}
	err = fs.WalkDir(web, "js", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, _ := fs.ReadFile(web, p)
		for _, m := range imp.FindAllStringSubmatch(string(src), -1) {
			spec := m[1] + m[2]
			target := path.Join(path.Dir(p), spec)
			if strings.HasPrefix(spec, "/") {
				target = strings.TrimPrefix(spec, "/")
			}
			if _, err := fs.Stat(web, target); err != nil {
				t.Errorf("%s imports %s, which is not embedded", p, spec)
			}
		}
		if strings.Contains(string(src), "innerHTML") || strings.Contains(string(src), "insertAdjacentHTML") {
			t.Errorf("%s parses HTML: the UI builds nodes with textContent only", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
