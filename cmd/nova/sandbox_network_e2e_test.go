package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// pathHits counts the requests a sentinel got, per path: each subtest
// asks for a path of its own, so subtests running at once do not see each
// other's requests.
type pathHits struct {
	mu sync.Mutex
	m  map[string]int
}

func (h *pathHits) add(path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m[path]++
}

// of is how many requests for path arrived.
func (h *pathHits) of(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.m[path]
}

// hostSentinel serves HTTP on a loopback alias (a host of its own to the
// sandbox's proxy) and counts what reaches it.
func hostSentinel(t *testing.T, addr string) (string, *pathHits) {
	t.Helper()
	hits := &pathHits{m: map[string]int{}}
	ln, err := net.Listen("tcp", addr+":0")
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.add(r.URL.Path)
		fmt.Fprintf(w, "BODY-OF-%s", addr)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL, hits
}

// TestSandboxNetworkPrintMode runs the real nova (its own executable is
// the sandbox's bridge) in print mode with the default sandbox and
// --allowedTools Bash: an allowed domain's body reaches the command and
// the model, a host not allowed gets no connection and the model reads
// its name and how to allow it, and --allowedTools "WebFetch(domain:...)"
// lets it through.
func TestSandboxNetworkPrintMode(t *testing.T) {
	sandboxWorks(t)
	allowedURL, allowedHits := hostSentinel(t, "127.0.0.2")
	otherURL, otherHits := hostSentinel(t, "127.0.0.3")
	command := "curl -sS " + allowedURL + "/a; echo; curl -sS " + otherURL + "/b"

	t.Run("allowed domain and a host not allowed", func(t *testing.T) {
		e := newE2E(t, bashTurns("toolu_net", command)...)
		e.userSettings(`{"sandbox": {"network": {"allowedDomains": ["127.0.0.2"]}}}`)
		r := e.run("", "-p", "--allowedTools", "Bash", "fetch both")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		got := toolResultText(t, e)
		if allowedHits.of("/a") != 1 || !strings.Contains(got, "BODY-OF-127.0.0.2") {
			t.Errorf("allowed host: %d requests; the model read:\n%s", allowedHits.of("/a"), got)
		}
		if n := otherHits.of("/b"); n != 0 {
			t.Errorf("the host not allowed got %d requests", n)
		}
		for _, want := range []string{"refused a network request to 127.0.0.3", "sandbox.network.allowedDomains", `WebFetch(domain:127.0.0.3)`} {
			if !strings.Contains(got, want) {
				t.Errorf("the model's tool result lacks %q:\n%s", want, got)
			}
		}
	})

	t.Run("unset sandbox.network with a WebFetch rule on the command line", func(t *testing.T) {
		e := newE2E(t, bashTurns("toolu_net", "curl -sS "+otherURL+"/c")...)
		r := e.run("", "-p", "--allowedTools", "Bash", "--allowedTools", "WebFetch(domain:127.0.0.3)", "fetch it")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if got := toolResultText(t, e); otherHits.of("/c") != 1 || !strings.Contains(got, "BODY-OF-127.0.0.3") {
			t.Errorf("the rule's host: %d requests; the model read:\n%s", otherHits.of("/c"), got)
		}
	})

	t.Run("sandbox.network false cuts it", func(t *testing.T) {
		e := newE2E(t, bashTurns("toolu_net", "curl -sS --max-time 5 "+allowedURL+"/d")...)
		e.userSettings(`{"sandbox": {"network": false}}`)
		r := e.run("", "-p", "--allowedTools", "Bash", "--allowedTools", "WebFetch(domain:127.0.0.2)", "fetch it")
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		if allowedHits.of("/d") != 0 {
			t.Errorf("a request arrived with the network cut: %s", toolResultText(t, e))
		}
	})
}

// toolResultText is the text of the tool results in the provider's last
// request: what the model read of the command.
func toolResultText(t *testing.T, e *e2e) string {
	t.Helper()
	reqs := e.srv.Requests()
	if len(reqs) == 0 {
		return ""
	}
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil || len(body.Messages) == 0 {
		t.Fatalf("the provider's last request: %v", err)
	}
	var parts []struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(body.Messages[len(body.Messages)-1].Content, &parts)
	var out strings.Builder
	for _, p := range parts {
		if p.Type != "tool_result" {
			continue
		}
		var text string
		if json.Unmarshal(p.Content, &text) == nil {
			out.WriteString(text)
			continue
		}
		var blocks []struct {
			Text string `json:"text"`
		}
		json.Unmarshal(p.Content, &blocks)
		for _, b := range blocks {
			out.WriteString(b.Text)
		}
	}
	return out.String()
}
