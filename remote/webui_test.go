package remote

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
)

// screenshots, when set, writes the browser test's screenshots to docs/
// (go test ./remote -run TestWebUIInBrowser -screenshots); otherwise
// they go to a temporary directory.
var screenshots = flag.Bool("screenshots", false, "write the web UI's screenshots to docs/")

// browserTools finds node, Chromium and the test's playwright-core and
// axe-core (installed by .ci/run: npm ci in testdata/browser). Without them the
// test skips, except in CI, where it fails.
func browserTools(t *testing.T) (node, chromium, dir string) {
	t.Helper()
	dir, _ = filepath.Abs(filepath.Join("testdata", "browser"))
	var missing []string
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	if chromium = os.Getenv("CHROMIUM"); chromium == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				chromium = p
				break
			}
		}
	}
	if chromium == "" {
		missing = append(missing, "chromium (apt-get install chromium)")
	}
	for _, pkg := range []string{"playwright-core", "axe-core"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg)); err != nil {
			missing = append(missing, pkg+" (npm ci --prefix remote/testdata/browser)")
		}
	}
	if len(missing) > 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("the browser test needs %s in CI", strings.Join(missing, ", "))
		}
		t.Skipf("needs %s", strings.Join(missing, ", "))
	}
	return node, chromium, dir
}

// cutProxy forwards TCP connections to a server until cut: then it
// closes every connection it carries and refuses new ones until
// restored, as a network that goes away and comes back does.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		go p.pipe(c)
	}
}

func (p *cutProxy) pipe(c net.Conn) {
	defer p.forget(c)
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		up.Close()
		return
	}
	p.conns[up] = struct{}{}
	p.mu.Unlock()
	defer p.forget(up)
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
}

func (p *cutProxy) forget(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
}

func (p *cutProxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// requireWebSocket fails the test, saying why, when the server has no
// WebSocket at /ws: the UI cannot work without it, and the browser would
// only time out waiting to connect.
func requireWebSocket(t *testing.T, base string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/ws", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	req.Header.Set("Origin", base)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("GET /ws answered %d, not 101 Switching Protocols: the web UI needs the WebSocket endpoint (docs/remote.md)", resp.StatusCode)
	}
}

// webUITurns is what the fake model answers, in the order ui.mjs sends
// its prompts (the script names each step).
func webUITurns() []llmtest.Turn {
	return []llmtest.Turn{
		// "Say hello": Markdown with a heading, emphasis, code and a list.
		{Text: "# Hello\n\nThis is **bold**, *emphasis*, `code` and a [link](https://example.com/docs).\n\n" +
			"```go\nfunc main() {\n\treturn // done\n}\n```\n\n- one\n- two\n\n<img src=x onerror=alert(1)>"},
		// "Make a file": a Bash call that asks, then a word about it.
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_bash", Name: "Bash", Input: `{"command":"touch made-by-nova.txt && echo created-by-bash","description":"Create a file"}`}}},
		{Text: "Created **made-by-nova.txt**."},
		// "Take your time": a model that never answers, stopped from the page.
		{Hang: true},
		// "Stream slowly": streamed while the network goes away and comes back.
		{Text: "Alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike.", ChunkDelay: 500 * time.Millisecond},
		// The phone's prompt: a wide code line and a wide table.
		{Text: "Wide things:\n\n```sh\necho " + strings.Repeat("very-long-argument-", 12) + "\n```\n\n" +
			"| column one | column two | column three | column four | column five |\n| --- | --- | --- | --- | --- |\n" +
			"| " + strings.Repeat("cell ", 8) + "| b | c | d | e |\n"},
		// "Edit the notes" on the phone: an Edit of a long line and a long
		// command, both asked in cards that must show them whole.
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_read", Name: "Read", Input: `{"file_path":"notes.txt"}`}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_edit", Name: "Edit", Input: jsonText(map[string]string{"file_path": "notes.txt",
			"old_string": webUINote, "new_string": strings.Replace(webUINote, "reads every", "merges every", 1)})}}},
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_tee", Name: "Bash", Input: jsonText(map[string]string{"description": "Keep a copy",
			"command": "grep -n configuration notes.txt | sed -e 's/loader/reader/' -e 's/settings/options/' | sort | tee notes-copy.log"})}}},
		{Text: "Edited the notes."},
		// The phone's session operations: a prompt after the model picker
		// switched the model (the request must name the picked one), then
		// in plan mode a Write the model attempts, which must be stopped.
		{Text: "Answered by the picked model."},
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_write", Name: "Write", Input: `{"file_path":"plan-mode.txt","content":"must not be written"}`}}},
		{Text: "Plan mode kept the file unwritten."},
		// Compact on the phone: the summary the model writes.
		{Text: "The session so far: notes edited, a plan-mode Write refused."},
	}
}

// webUIConfig is the server's config.json: the fake model's provider
// with two models, for the phone's model picker to choose between.
func webUIConfig(url string) string {
	return jsonText(map[string]any{"providers": []map[string]any{{"key": "anthropic", "type": "anthropic", "name": "Anthropic",
		"base_url": url, "api_key": "k", "models": []map[string]string{
			{"model": "claude-sonnet-4-5", "label": "Sonnet 4.5"}, {"model": "claude-haiku-4-5", "label": "Haiku 4.5"}}}}})
}

// webUISettings is the user's settings.json: a rule the phone's rules
// view must show with its source, and that lets "!echo hi" run unasked.
const webUISettings = `{"permissions": {"allow": ["Bash(echo:*)"]}}`

// webUINote is the long line the phone's Edit changes in the middle.
const webUINote = "The configuration loader reads every settings file in order, user first, then the project's, then the local one, and merges them key by key."

// jsonText is v as JSON text, for a scripted tool call's input.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestWebUIInBrowser is issue 14's "done when": the embedded UI in
// headless Chromium (testdata/browser/ui.mjs) against a real server on
// the fake model. It sends a prompt and sees the rendered answer,
// approves a Bash call and sees its result, reloads and sees the
// history, stops a slow run, loses the network mid-answer and gets every
// frame, and does it again at 390x844 with no horizontal scroll. It needs
// the /ws endpoint (docs/remote.md).
//
// Its workspace holds a directory src for the workspace picker.
func TestWebUIInBrowser(t *testing.T) {
	t.Parallel()
	runWebUI(t, nil)
}

// runWebUI runs ui.mjs against a server whose handler wrap (when not
// nil) wraps.
func runWebUI(t *testing.T, wrap func(*testing.T, *Server) func(http.Handler) http.Handler) {
	node, chromium, dir := browserTools(t)
	model := llmtest.New(webUITurns()...)
	t.Cleanup(model.Close)
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": model.URL}
	// A workspace with a name, as the screenshots show it.
	workdir := filepath.Join(t.TempDir(), "my-project")
	if err := os.MkdirAll(filepath.Join(workdir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(workdir, "notes.txt"), []byte(webUINote+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Host: "127.0.0.1", Token: testToken, NovaHome: filepath.Join(t.TempDir(), ".nova"), Home: t.TempDir(),
		Workdir: workdir, Getenv: func(k string) string { return env[k] }}
	if err := os.MkdirAll(o.NovaHome, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"config.json": webUIConfig(model.URL), "settings.json": webUISettings} {
		if err := os.WriteFile(filepath.Join(o.NovaHome, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	host := live.NewHost(context.Background(), live.Options{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home,
		Getenv: o.Getenv, NoSandbox: true})
	t.Cleanup(host.Close)
	o.Sessions = host
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv.Handler()
	if wrap != nil {
		h = wrap(t, srv)(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	requireWebSocket(t, hs.URL)
	proxy := newCutProxy(t, hs.Listener.Addr().String())
	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cut":
			proxy.cut()
		case "/restore":
			proxy.restore()
		case "/requests":
			// Waits until the model was asked n times: a run stopped
			// before its request would leave its turn to the next run.
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			for deadline := time.Now().Add(10 * time.Second); len(model.Requests()) < n; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					http.Error(w, fmt.Sprintf("the model was asked %d times, not %d", len(model.Requests()), n), http.StatusGatewayTimeout)
					return
				}
			}
		case "/last-model":
			// The model the last request to the fake provider named.
			reqs := model.Requests()
			if len(reqs) == 0 {
				http.Error(w, "no request yet", http.StatusNotFound)
				return
			}
			fmt.Fprint(w, reqs[len(reqs)-1].JSON()["model"])
			return
		default:
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(control.Close)

	shots := t.TempDir()
	if *screenshots {
		shots, _ = filepath.Abs(filepath.Join("..", "docs"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "ui.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"NOVA_URL=http://"+proxy.ln.Addr().String(),
		"NOVA_TOKEN="+testToken,
		"CONTROL_URL="+control.URL,
		"CHROMIUM="+chromium,
		"SCREENSHOT_DIR="+shots,
	)
	out, err := cmd.CombinedOutput()
	t.Logf("ui.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
	// What the page did happened on the server: the approved call ran in
	// the workspace, and every scripted turn was asked for.
	if _, err := os.Stat(filepath.Join(workdir, "made-by-nova.txt")); err != nil {
		t.Errorf("the approved Bash call did not run: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(workdir, "notes.txt")); !strings.Contains(string(b), "merges every settings file") {
		t.Errorf("the Edit approved on the phone did not change notes.txt: %q", b)
	}
	if _, err := os.Stat(filepath.Join(workdir, "plan-mode.txt")); !os.IsNotExist(err) {
		t.Errorf("the Write attempted in plan mode was not stopped: %v", err)
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted turns were not used", n)
	}
}
