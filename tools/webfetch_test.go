package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const webFetchTestPage = `<!doctype html><html><head><title>Docs</title>
<script>var secret = "do not show";</script><style>body{color:red}</style></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<h1>Release notes</h1>
<p>Version <strong>2.0</strong> removes the <code>Legacy</code> API. See <a href="/migrate">the guide</a>.</p>
<ul><li>faster</li><li>smaller</li></ul>
<table><tr><th>Flag</th><th>Default</th></tr><tr><td>-v</td><td>off</td></tr></table>
</body></html>`

func webFetchServers(t *testing.T) (*httptest.Server, *atomic.Int64, chan struct{}) {
	t.Helper()
	var otherHits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		fmt.Fprint(w, "other host")
	}))
	t.Cleanup(other.Close)
	// The other server is reached as "localhost", the main one as 127.0.0.1:
	// two host names on loopback.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, webFetchTestPage)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "plain <b>text</b> stays as it is")
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/older", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/older", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/page", http.StatusFound) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+"/landing", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		line := strings.Repeat("a", 1023) + "\n"
		for i := 0; i < 6*1024; i++ { // 6 MB
			fmt.Fprint(w, line)
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv, &otherHits, release
}

func TestWebFetch(t *testing.T) {
	t.Parallel()
	srv, otherHits, _ := webFetchServers(t)
	env := NewEnv(t.TempDir())
	cases := []struct {
		name    string
		tool    *WebFetch
		path    string
		isError bool
		want    []string
		notWant []string
	}{
		{"html becomes markdown", &WebFetch{}, "/page", false,
			[]string{"Prompt: What changed?", "Page title: Docs", "# Release notes", "Version **2.0** removes the `Legacy` API.", "[the guide](" + srv.URL + "/migrate)", "- faster", "| Flag | Default |"},
			[]string{"do not show", "color:red", "About"}},
		{"text stays", &WebFetch{}, "/text", false, []string{"plain <b>text</b> stays as it is", "text/plain"}, nil},
		{"json stays", &WebFetch{}, "/json", false, []string{`{"ok":true}`}, nil},
		{"same-host redirects are followed", &WebFetch{}, "/old", false,
			[]string{"# Release notes", "content of " + srv.URL + "/page", "after redirects from " + srv.URL + "/old"}, nil},
		{"cross-host redirect is reported", &WebFetch{}, "/away", false,
			[]string{"redirected to http://localhost:", "/landing", "different host", "Fetch that URL with WebFetch if you trust it"}, []string{"other host"}},
		{"redirect loop", &WebFetch{}, "/loop", true, []string{"more than 5 redirects"}, nil},
		{"body cap", &WebFetch{}, "/big", false, []string{"[the response was larger than 5242880 bytes; only the first 5242880 bytes were read]", "[content cut at 100000 of"}, nil},
		{"small cap", &WebFetch{MaxBytes: 100}, "/page", false, []string{"[the response was larger than 100 bytes; only the first 100 bytes were read]"}, nil},
		{"timeout", &WebFetch{Timeout: 50 * time.Millisecond}, "/slow", true, []string{"timed out after 50ms"}, nil},
		{"404", &WebFetch{}, "/gone", true, []string{"HTTP 404 Not Found", "no such page"}, nil},
		{"binary refused", &WebFetch{}, "/image", true, []string{"image/png", "cannot show as text"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := ftRun(t, c.tool, env, map[string]any{"url": srv.URL + c.path, "prompt": "What changed?"})
			if res.IsError != c.isError {
				t.Errorf("IsError = %v, want %v; output:\n%s", res.IsError, c.isError, res.Output)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, ftHead(res.Output))
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(res.Output, w) {
					t.Errorf("output has %q:\n%s", w, ftHead(res.Output))
				}
			}
		})
	}
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the other host was contacted %d times; cross-host redirects must not be followed", n)
	}
}

func ftHead(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

func TestWebFetchBadURLs(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	for _, u := range []string{"ftp://example.com/x", "not a url", "http://", "file:///etc/passwd"} {
		res := ftRun(t, &WebFetch{}, env, map[string]any{"url": u, "prompt": "q"})
		if !res.IsError || !strings.Contains(res.Output, "invalid URL") {
			t.Errorf("WebFetch(%q) = %+v, want an invalid URL error", u, res)
		}
	}
}

func TestWebFetchCancelled(t *testing.T) {
	t.Parallel()
	srv, _, _ := webFetchServers(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	raw, _ := json.Marshal(map[string]any{"url": srv.URL + "/slow", "prompt": "q"})
	res, err := (&WebFetch{}).Run(ctx, raw, NewEnv(t.TempDir()))
	if err == nil && !res.IsError {
		t.Errorf("a cancelled fetch succeeded: %+v", res)
	}
}

func TestWebFetchPermission(t *testing.T) {
	t.Parallel()
	req := (&WebFetch{}).Permission(json.RawMessage(`{"url":"https://Docs.Example.com:8443/a?b=c","prompt":"q"}`), NewEnv("/w"))
	if req.Kind != "fetch" || req.Domain != "docs.example.com" || req.Tool != "WebFetch" {
		t.Errorf("Permission = %+v", req)
	}
}
