package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/display"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.MainIfRequested()
	os.Exit(m.Run())
}

// stdioServer is the test binary as a stdio MCP server.
func stdioServer(name string, o mcptest.Options) Server {
	env := map[string]string{}
	for _, kv := range mcptest.StdioEnv(o) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return Server{Name: name, Transport: TransportStdio, Command: os.Args[0], Env: env}
}

// allowAll is a checker that allows every call: these tests are about the
// protocol, the permission tests about the checker.
type allowAll struct{}

func (allowAll) Check(context.Context, permission.Request) permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Layer: permission.LayerRule, Reason: "test"}
}
func (allowAll) AllowAlways(string) error { return nil }

// world is a manager with its registry and a pipeline to call through.
type world struct {
	m    *Manager
	reg  *tools.Registry
	pipe *tools.Pipeline
	env  *tools.Env

	mu       sync.Mutex
	progress []display.Progress
	changes  []Status
	changed  chan struct{} // a token after every OnChange (buffered 1)
}

func newWorld(t *testing.T, o Options, servers ...Server) *world {
	t.Helper()
	w := &world{reg: tools.NewRegistry(), changed: make(chan struct{}, 1)}
	o.Registry = w.reg
	o.OnChange = func(s Status) {
		w.mu.Lock()
		w.changes = append(w.changes, s)
		w.mu.Unlock()
		select {
		case w.changed <- struct{}{}:
		default:
		}
	}
	w.m = NewManager(servers, o)
	w.m.Start()
	t.Cleanup(func() { _ = w.m.Close() })
	w.pipe = &tools.Pipeline{Registry: w.reg, Checker: allowAll{}}
	w.env = tools.NewEnv(t.TempDir())
	w.env.SpillDir = t.TempDir()
	w.env.Notify = func(_ context.Context, d *display.Display) {
		if d.Kind == display.KindProgress {
			w.mu.Lock()
			w.progress = append(w.progress, *d.Progress)
			w.mu.Unlock()
		}
	}
	return w
}

func (w *world) wait(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w.m.Wait(ctx)
}

func (w *world) call(t *testing.T, name string, input any) tools.Outcome {
	t.Helper()
	raw, _ := json.Marshal(input)
	return w.pipe.Run(context.Background(), tools.Call{ID: "call_" + name, Name: name, Input: raw}, w.env)
}

// waitRegistered waits for a tool a list_changed adds to join the
// registry: the manager reports the refresh through OnChange.
func (w *world) waitRegistered(t *testing.T, name string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		if _, _, ok := w.reg.Get(name); ok {
			return
		}
		select {
		case <-w.changed:
		case <-timeout:
			t.Fatalf("%s never joined the registry: %v", name, w.reg.Names())
		}
	}
}

// TestTransports runs the same calls over the three transports against
// a real mcp-go server: what the model would receive of each result.
func TestTransports(t *testing.T) {
	for _, tr := range []string{TransportStdio, TransportHTTP, TransportSSE} {
		t.Run(tr, func(t *testing.T) {
			var srv Server
			switch tr {
			case TransportStdio:
				srv = stdioServer("t", mcptest.Options{})
			case TransportHTTP:
				srv = Server{Name: "t", Transport: tr, URL: mcptest.StreamableHTTP(t, mcptest.Options{})}
			case TransportSSE:
				srv = Server{Name: "t", Transport: tr, URL: mcptest.SSE(t, mcptest.Options{})}
			}
			w := newWorld(t, Options{}, srv)
			w.wait(t)
			st := w.m.Statuses()[0]
			if st.State != StateConnected {
				t.Fatalf("server state %s: %s", st.State, st.Error)
			}
			for _, name := range mcptest.ToolNames {
				if _, _, ok := w.reg.Get(ToolName("t", name)); !ok {
					t.Errorf("tool %s is not registered (have %v)", ToolName("t", name), w.reg.Names())
				}
			}

			if o := w.call(t, "mcp__t__echo", map[string]any{"text": "hello mcp"}); o.Result.Output != "hello mcp" || o.Result.IsError {
				t.Errorf("echo: %+v", o.Result)
			}
			o := w.call(t, "mcp__t__image", map[string]any{})
			want, _ := base64.StdEncoding.DecodeString(mcptest.TinyPNG)
			if len(o.Result.Images) != 1 || string(o.Result.Images[0].Data) != string(want) || o.Result.Images[0].MediaType != "image/png" {
				t.Errorf("image: the model would not see the image: %+v", o.Result)
			}
			if !strings.Contains(o.Result.Output, mcptest.ImageText) {
				t.Errorf("image: caption lost: %q", o.Result.Output)
			}
			o = w.call(t, "mcp__t__links", map[string]any{})
			for _, s := range []string{mcptest.ReadmeURI, "ReadMcpResourceTool", mcptest.EmbeddedURI, mcptest.EmbeddedText} {
				if !strings.Contains(o.Result.Output, s) {
					t.Errorf("links: %q missing from %q", s, o.Result.Output)
				}
			}
			o = w.call(t, "mcp__t__weather", map[string]any{"city": "Oslo"})
			var weather struct {
				City        string  `json:"city"`
				Temperature float64 `json:"temperature"`
			}
			if err := json.Unmarshal([]byte(strings.SplitN(o.Result.Output, "\n", 2)[0]), &weather); err != nil || weather.City != "Oslo" || weather.Temperature != mcptest.WeatherCelsius {
				t.Errorf("weather: structuredContent did not reach the model: %q (%v)", o.Result.Output, err)
			}
			if o := w.call(t, "mcp__t__fail", map[string]any{}); !o.Result.IsError || !strings.Contains(o.Result.Output, mcptest.FailText) {
				t.Errorf("fail: isError lost: %+v", o.Result)
			}
			o = w.call(t, "ReadMcpResourceTool", map[string]any{"server": "t", "uri": mcptest.GreetingURI})
			if !strings.Contains(o.Result.Output, mcptest.GreetingText) {
				t.Errorf("ReadMcpResourceTool: %+v", o.Result)
			}
		})
	}
}

// TestProgressReachesFrontends calls a tool that reports progress: each
// notification becomes a progress display of the call.
func TestProgressReachesFrontends(t *testing.T) {
	w := newWorld(t, Options{}, stdioServer("t", mcptest.Options{}))
	w.wait(t)
	o := w.call(t, "mcp__t__progress", map[string]any{"steps": 3})
	if o.Result.IsError {
		t.Fatalf("progress: %+v", o.Result)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.progress) != 3 {
		t.Fatalf("got %d progress reports, want 3: %+v", len(w.progress), w.progress)
	}
	if p := w.progress[2]; p.CallID != "call_mcp__t__progress" || p.Progress != 3 || p.Total != 3 || p.Message == "" {
		t.Errorf("last progress: %+v", p)
	}
}

// TestListChanged adds a tool on the server: it joins the registry.
func TestListChanged(t *testing.T) {
	w := newWorld(t, Options{}, stdioServer("t", mcptest.Options{}))
	w.wait(t)
	w.call(t, "mcp__t__add_tool", map[string]any{})
	added := ToolName("t", mcptest.AddedTool)
	w.waitRegistered(t, added)
	if o := w.call(t, added, map[string]any{}); o.Result.Output != mcptest.AddedText {
		t.Errorf("the added tool: %+v", o.Result)
	}
}

// TestListChangedWhileConnecting: a server whose tools change right after
// the handshake, while nova is still connecting (its list_changed comes on
// the answer to nova's first tools/list, before that answer), still gets
// its new tool registered, over both HTTP transports.
func TestListChangedWhileConnecting(t *testing.T) {
	for _, tc := range []struct {
		kind string
		url  func(testing.TB, mcptest.Options) string
	}{{TransportHTTP, mcptest.StreamableHTTP}, {TransportSSE, mcptest.SSE}} {
		t.Run(tc.kind, func(t *testing.T) {
			w := newWorld(t, Options{}, Server{Name: "t", Transport: tc.kind, URL: tc.url(t, mcptest.Options{AddToolAfterList: true})})
			w.wait(t)
			added := ToolName("t", mcptest.AddedTool)
			w.waitRegistered(t, added)
			if o := w.call(t, added, map[string]any{}); o.Result.Output != mcptest.AddedText {
				t.Errorf("the added tool: %+v", o.Result)
			}
			if st := w.m.Statuses()[0]; !slices.Contains(st.Tools, added) {
				t.Errorf("status tools %v lack %s", st.Tools, added)
			}
		})
	}
}

// TestCrashIsReportedAndRestarted kills the stdio server mid-call: the
// call fails in words, the server is marked failed, and a later call
// starts it again.
func TestCrashIsReportedAndRestarted(t *testing.T) {
	w := newWorld(t, Options{}, stdioServer("t", mcptest.Options{}))
	w.wait(t)
	o := w.call(t, "mcp__t__crash", map[string]any{})
	if !o.Result.IsError || !strings.Contains(o.Result.Output, "stopped during the call") {
		t.Fatalf("crash: %+v", o.Result)
	}
	if st := w.m.Statuses()[0]; st.State != StateFailed || st.Error == "" {
		t.Fatalf("after the crash the server is %s (%q), want failed with a reason", st.State, st.Error)
	}
	// Within the backoff the call is refused at once, saying when.
	if o := w.call(t, "mcp__t__echo", map[string]any{"text": "x"}); !o.Result.IsError || !strings.Contains(o.Result.Output, "starts it again in") {
		t.Errorf("a call within the backoff: %+v", o.Result)
	}
	time.Sleep(1100 * time.Millisecond)
	if o := w.call(t, "mcp__t__echo", map[string]any{"text": "back"}); o.Result.Output != "back" {
		t.Errorf("after the backoff the server was not started again: %+v", o.Result)
	}
	if st := w.m.Statuses()[0]; st.State != StateConnected {
		t.Errorf("server is %s after the restart", st.State)
	}
}

// TestHangTimesOutAndCancels calls a tool that never answers: the call
// ends at the timeout with words, and the server learns it was cancelled.
func TestHangTimesOutAndCancels(t *testing.T) {
	cancelled := filepath.Join(t.TempDir(), "cancelled")
	w := newWorld(t, Options{CallTimeout: 300 * time.Millisecond}, stdioServer("t", mcptest.Options{CancelledFile: cancelled}))
	w.wait(t)
	start := time.Now()
	o := w.call(t, "mcp__t__hang", map[string]any{})
	if !o.Result.IsError || !strings.Contains(o.Result.Output, "did not answer within 300ms") {
		t.Fatalf("hang: %+v", o.Result)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the hung call took %s", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(cancelled); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never saw the call cancelled")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// It still answers other calls.
	if o := w.call(t, "mcp__t__echo", map[string]any{"text": "still here"}); o.Result.Output != "still here" {
		t.Errorf("after a timeout: %+v", o.Result)
	}
}

// TestSlowServerDoesNotBlock starts a server that takes a while: Start
// returns at once, a call made meanwhile waits for it, and its tools
// join when it is ready.
func TestSlowServerDoesNotBlock(t *testing.T) {
	start := time.Now()
	w := newWorld(t, Options{}, stdioServer("slow", mcptest.Options{StartDelay: 500 * time.Millisecond}))
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("Start took %s: a slow server delays the first prompt", d)
	}
	if st := w.m.Statuses()[0]; st.State != StateConnecting {
		t.Errorf("state right after Start: %s", st.State)
	}
	w.wait(t)
	if o := w.call(t, "mcp__slow__echo", map[string]any{"text": "late"}); o.Result.Output != "late" {
		t.Errorf("%+v", o.Result)
	}
}

// TestBadServerFailsInWords starts a command that is no MCP server.
func TestBadServerFailsInWords(t *testing.T) {
	w := newWorld(t, Options{StartTimeout: 2 * time.Second},
		Server{Name: "junk", Transport: TransportStdio, Command: "sh", Args: []string{"-c", "echo this is not json-rpc; echo oops >&2; sleep 30"}},
		Server{Name: "gone", Transport: TransportStdio, Command: filepath.Join(t.TempDir(), "no-such-server")},
	)
	w.wait(t)
	for _, st := range w.m.Statuses() {
		if st.State != StateFailed || st.Error == "" {
			t.Errorf("%s: state %s (%q), want failed with a reason", st.Name, st.State, st.Error)
		}
	}
	if st := w.m.Statuses()[1]; !strings.Contains(st.Error, "no answer within 2s") || !strings.Contains(st.Error, "oops") {
		t.Errorf("junk: the reason does not say it timed out and what it wrote: %q", st.Error)
	}
}

// TestAnnotationsShownNeverDecide: a read-only hint reaches the ask's
// words and the tool's kind, but the checker still decides.
func TestAnnotationsShownNeverDecide(t *testing.T) {
	w := newWorld(t, Options{}, stdioServer("t", mcptest.Options{}))
	w.wait(t)
	tool, _, ok := w.reg.Get("mcp__t__annotated")
	if !ok {
		t.Fatal("annotated not registered")
	}
	req := tool.(tools.Permissioner).Permission(nil, w.env)
	if req.Note == "" || tool.Kind() != permission.KindRead {
		t.Errorf("request %+v, kind %s", req, tool.Kind())
	}
	c, err := permission.NewChecker(permission.Config{Workspace: w.env.Workdir, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Check(context.Background(), req); d.Behavior != permission.Ask {
		t.Errorf("a read-only MCP tool without a rule was %s (%s), want ask", d.Behavior, d.Reason)
	}
}

// TestPromptsAndResources lists the server's prompt and resource and
// renders the prompt with its argument, as /mcp__t__review and @t:uri do.
func TestPromptsAndResources(t *testing.T) {
	w := newWorld(t, Options{}, stdioServer("t", mcptest.Options{}))
	w.wait(t)
	ctx := context.Background()
	ps := w.m.Prompts(ctx)
	if len(ps) != 1 || ps[0].Command != "mcp__t__review" || len(ps[0].Arguments) != 1 || !ps[0].Arguments[0].Required {
		t.Fatalf("prompts: %+v", ps)
	}
	if _, err := w.m.GetPrompt(ctx, ps[0], nil); err == nil {
		t.Errorf("a prompt without its required argument was rendered")
	}
	text, err := w.m.GetPrompt(ctx, ps[0], []string{"main.go"})
	if err != nil || text != "Review main.go" {
		t.Errorf("GetPrompt: %q, %v", text, err)
	}
	rs := w.m.Resources(ctx)
	if len(rs) != 1 || rs[0].URI != mcptest.GreetingURI {
		t.Fatalf("resources: %+v", rs)
	}
	if text, err := w.m.ReadResource(ctx, "t", rs[0].URI); err != nil || !strings.Contains(text, mcptest.GreetingText) {
		t.Errorf("ReadResource: %q, %v", text, err)
	}
}

// TestCrashSSE drops an SSE server's event stream mid-call: the call
// ends at once rather than at its timeout, and the server is failed.
func TestCrashSSE(t *testing.T) {
	w := newWorld(t, Options{CallTimeout: 20 * time.Second}, Server{Name: "t", Transport: TransportSSE, URL: mcptest.SSE(t, mcptest.Options{})})
	w.wait(t)
	start := time.Now()
	o := w.call(t, "mcp__t__crash", map[string]any{})
	if !o.Result.IsError {
		t.Fatalf("crash: %+v", o.Result)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call waited %s for a stream that was gone", d)
	}
	if st := w.m.Statuses()[0]; st.State != StateFailed {
		t.Errorf("after the stream broke the server is %s", st.State)
	}
}

// TestStdioServerEnvironment: a stdio server starts with nova's
// environment as the policy leaves it (no secret-named variable, no
// provider key), the variables its entry configures over it (the user's
// words: they pass, secret-named or not), and a passthrough name back.
func TestStdioServerEnvironment(t *testing.T) {
	for k, v := range map[string]string{"ANTHROPIC_API_KEY": "sk-ant-sentinel", "GITHUB_TOKEN": "ghp-sentinel",
		"NOVA_SERVER_TOKEN": "remote-sentinel", "DB_PASSWORD": "db-sentinel", "NOVA_PLAIN": "visible"} {
		t.Setenv(k, v)
	}
	srv := stdioServer("t", mcptest.Options{})
	srv.Env["SERVICE_API_KEY"] = "configured"
	for _, tt := range []struct {
		name        string
		passthrough []string
		want, not   []string
	}{
		{name: "default", want: []string{"NOVA_PLAIN=visible", "SERVICE_API_KEY=configured"},
			not: []string{"sk-ant-sentinel", "ghp-sentinel", "remote-sentinel", "db-sentinel"}},
		{name: "passthrough", passthrough: []string{"GITHUB_TOKEN"}, want: []string{"GITHUB_TOKEN=ghp-sentinel", "NOVA_PLAIN=visible"},
			not: []string{"sk-ant-sentinel", "remote-sentinel", "db-sentinel"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Options{EnvPolicy: tools.EnvPolicy{Credentials: []string{"ANTHROPIC_API_KEY"}, Passthrough: tt.passthrough}}, srv)
			w.wait(t)
			out := w.call(t, "mcp__t__environ", map[string]any{})
			if out.Result.IsError {
				t.Fatalf("environ: %s", out.Result.Output)
			}
			for _, s := range tt.want {
				if !strings.Contains(out.Result.Output, s) {
					t.Errorf("the server's environment lacks %s:\n%s", s, out.Result.Output)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(out.Result.Output, s) {
					t.Errorf("the server's environment holds %s:\n%s", s, out.Result.Output)
				}
			}
		})
	}
}
