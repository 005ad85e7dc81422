package mcptest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestMain lets this test binary be the stdio server: the stdio tests start
// os.Args[0] with NOVA_TEST_MCP_SERVER=stdio.
func TestMain(m *testing.M) {
	MainIfRequested()
	os.Exit(m.Run())
}

// legacy is the newest protocol version that still has the initialize
// handshake; "" lets mcp-go's client prefer 2026-07-28, as it does by default.
const legacy = mcp.LATEST_LEGACY_PROTOCOL_VERSION

// kind is one way of reaching a test server: a transport and the protocol
// version the client asks for.
type kind struct {
	name      string
	transport string // "stdio", "http" (Streamable HTTP) or "sse"
	version   string
}

var kinds = []kind{
	{"stdio", "stdio", ""},
	{"stdio-legacy", "stdio", legacy},
	{"http", "http", ""},
	{"http-legacy", "http", legacy},
	{"sse", "sse", ""},
	{"sse-legacy", "sse", legacy},
}

// session is a started client and the notifications it has received.
type session struct {
	c     *client.Client
	init  *mcp.InitializeResult
	notes chan mcp.JSONRPCNotification
}

// dial starts a server of kind k with options o and connects mcp-go's
// client to it.
func dial(t *testing.T, k kind, o Options) *session {
	t.Helper()
	var c *client.Client
	var err error
	switch k.transport {
	case "stdio":
		// -test.run=^$ makes the child run no tests, should it ever miss
		// the environment and carry on into m.Run.
		c, err = client.NewStdioMCPClient(os.Args[0], StdioEnv(o), "-test.run=^$")
	case "http":
		c, err = client.NewStreamableHttpClient(StreamableHTTP(t, o))
	case "sse":
		c, err = client.NewSSEMCPClient(SSE(t, o))
	}
	if err != nil {
		t.Fatalf("client for %s: %v", k.name, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	s := &session{c: c, notes: make(chan mcp.JSONRPCNotification, 100)}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		select {
		case s.notes <- n:
		default:
		}
	})
	// Start's context must outlive the connection: the SSE client opens its
	// event stream with it, and the stream ends when it does.
	if err := c.Start(t.Context()); err != nil {
		t.Fatalf("start %s: %v", k.name, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var req mcp.InitializeRequest
	req.Params.ProtocolVersion = k.version
	req.Params.ClientInfo = mcp.Implementation{Name: "nova-testserver-test", Version: "0"}
	s.init, err = c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize %s: %v", k.name, err)
	}
	return s
}

// call calls a tool and fails the test on a protocol error.
func (s *session) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// noteWithin reports whether a notification with the given method arrives
// within d, skipping others.
func (s *session) noteWithin(method string, d time.Duration) bool {
	timeout := time.After(d)
	for {
		select {
		case n := <-s.notes:
			if n.Method == method {
				return true
			}
		case <-timeout:
			return false
		}
	}
}

// waitNote waits for a notification with the given method, skipping others.
func (s *session) waitNote(t *testing.T, method string) mcp.JSONRPCNotification {
	t.Helper()
	timeout := time.After(3 * time.Second)
	for {
		select {
		case n := <-s.notes:
			if n.Method == method {
				return n
			}
		case <-timeout:
			t.Fatalf("no %s within 3s", method)
		}
	}
}

func text(t *testing.T, res *mcp.CallToolResult, i int) string {
	t.Helper()
	if len(res.Content) <= i {
		t.Fatalf("content has %d items, want item %d: %+v", len(res.Content), i, res.Content)
	}
	tc, ok := res.Content[i].(mcp.TextContent)
	if !ok {
		t.Fatalf("content[%d] is %T, want text", i, res.Content[i])
	}
	return tc.Text
}

// TestEveryTransport drives every tool, the prompt and the resource through
// mcp-go's client on each transport and protocol era, which is what makes
// these servers real: a client that works against them speaks MCP as
// mcp-go does.
func TestEveryTransport(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			s := dial(t, k, Options{})
			checkNegotiated(t, k, s)
			checkListTools(t, s)
			checkContent(t, s)
			checkProgress(t, s)
			checkPromptAndResource(t, s)
			checkListChanged(t, k, s) // last: it changes the tool list
		})
	}
}

// checkNegotiated records which era each transport lands in by default,
// since that decides how notifications reach the client.
func checkNegotiated(t *testing.T, k kind, s *session) {
	if s.init.ServerInfo.Name != DefaultName || s.init.ServerInfo.Version != Version {
		t.Errorf("serverInfo = %+v, want %s %s", s.init.ServerInfo, DefaultName, Version)
	}
	want := mcp.ProtocolVersion20260728
	if k.version != "" {
		want = k.version
	}
	if got := s.c.ProtocolVersion(); got != want {
		t.Errorf("negotiated %q, want %q", got, want)
	}
	if s.init.Capabilities.Tools == nil || !s.init.Capabilities.Tools.ListChanged {
		t.Errorf("capabilities.tools = %+v, want listChanged", s.init.Capabilities.Tools)
	}
}

func checkListTools(t *testing.T, s *session) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	byName := map[string]mcp.Tool{}
	var names []string
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	want := slices.Sorted(slices.Values(ToolNames))
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	for _, tc := range []struct{ tool, prop, typ string }{
		{"echo", "text", "string"}, {"weather", "city", "string"}, {"progress", "steps", "integer"},
	} {
		schema := byName[tc.tool].InputSchema
		prop, _ := schema.Properties[tc.prop].(map[string]any)
		if schema.Type != "object" || prop["type"] != tc.typ || !slices.Contains(schema.Required, tc.prop) {
			t.Errorf("%s inputSchema = %+v, want required %s %s", tc.tool, schema, tc.typ, tc.prop)
		}
	}
	out := byName["weather"].OutputSchema
	temp, _ := out.Properties["temperature"].(map[string]any)
	city, _ := out.Properties["city"].(map[string]any)
	if out.Type != "object" || temp["type"] != "number" || city["type"] != "string" {
		t.Errorf("weather outputSchema = %+v", out)
	}
	if byName["echo"].OutputSchema.Type != "" {
		t.Errorf("echo has an outputSchema: %+v", byName["echo"].OutputSchema)
	}
	a := byName["annotated"].Annotations
	if a.Title != "Annotated" || a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("annotated annotations = %+v", a)
	}
	if e := byName["echo"].Annotations; e != (mcp.ToolAnnotation{}) {
		t.Errorf("echo annotations = %+v, want none", e)
	}
}

func checkContent(t *testing.T, s *session) {
	if got := text(t, s.call(t, "echo", map[string]any{"text": "hello there"}), 0); got != "hello there" {
		t.Errorf("echo = %q", got)
	}
	if res := s.call(t, "echo", nil); !res.IsError {
		t.Errorf("echo without text: %+v, want an error result", res)
	}

	img := s.call(t, "image", nil)
	ic, ok := img.Content[0].(mcp.ImageContent)
	if !ok || ic.MIMEType != "image/png" || ic.Data != TinyPNG {
		t.Fatalf("image content[0] = %#v", img.Content[0])
	}
	raw, err := base64.StdEncoding.DecodeString(ic.Data)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(raw)); err != nil || cfg.Width != 1 || cfg.Height != 1 {
		t.Errorf("image is not a 1x1 PNG: %+v, %v", cfg, err)
	}
	if got := text(t, img, 1); got != ImageText {
		t.Errorf("image caption = %q", got)
	}

	links := s.call(t, "links", nil)
	if len(links.Content) != 2 {
		t.Fatalf("links content = %+v", links.Content)
	}
	rl, ok := links.Content[0].(mcp.ResourceLink)
	if !ok || rl.URI != ReadmeURI || rl.Name == "" || rl.MIMEType != "text/plain" {
		t.Errorf("links content[0] = %#v", links.Content[0])
	}
	er, ok := links.Content[1].(mcp.EmbeddedResource)
	if !ok {
		t.Fatalf("links content[1] = %#v", links.Content[1])
	}
	if tr, ok := er.Resource.(mcp.TextResourceContents); !ok || tr.URI != EmbeddedURI || tr.Text != EmbeddedText {
		t.Errorf("embedded resource = %#v", er.Resource)
	}

	w := s.call(t, "weather", map[string]any{"city": "Oslo"})
	want := map[string]any{"city": "Oslo", "temperature": WeatherCelsius}
	if got, _ := w.StructuredContent.(map[string]any); w.IsError || got["city"] != want["city"] || got["temperature"] != want["temperature"] || len(got) != 2 {
		t.Errorf("weather structuredContent = %#v (isError %v), want %v", w.StructuredContent, w.IsError, want)
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text(t, w, 0)), &fromText); err != nil || fromText["city"] != "Oslo" || fromText["temperature"] != WeatherCelsius {
		t.Errorf("weather text %q does not carry the same JSON: %v", text(t, w, 0), err)
	}

	fail := s.call(t, "fail", nil)
	if !fail.IsError || text(t, fail, 0) != FailText {
		t.Errorf("fail = %+v", fail)
	}
	if got := text(t, s.call(t, "annotated", nil), 0); got != "ok" {
		t.Errorf("annotated = %q", got)
	}
	if got, want := text(t, s.call(t, "environ", nil), 0), "PATH="+os.Getenv("PATH"); !strings.Contains(got, want) {
		t.Errorf("environ = %q, want it to hold %s", got, want)
	}
}

// checkProgress shows progress notifications reach OnNotification, in order
// and before CallTool returns, and only when a progressToken was sent.
func checkProgress(t *testing.T, s *session) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "progress"
	req.Params.Arguments = map[string]any{"steps": 3}
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-7"}
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("progress: %v", err)
	}
	if got := text(t, res, 0); got != "done after 3 steps" {
		t.Errorf("progress = %q", got)
	}
	for i := 1; i <= 3; i++ {
		n := s.waitNote(t, string(mcp.MethodNotificationProgress))
		f := n.Params.AdditionalFields
		if f["progressToken"] != "tok-7" || f["progress"] != float64(i) || f["total"] != float64(3) || f["message"] != fmt.Sprintf("step %d", i) {
			t.Errorf("progress notification %d = %v", i, f)
		}
	}
	req.Params.Meta = nil
	if got := text(t, s.call(t, "progress", map[string]any{"steps": 2}), 0); got != "done after 2 steps" {
		t.Errorf("progress without token = %q", got)
	}
	select {
	case n := <-s.notes:
		if n.Method == string(mcp.MethodNotificationProgress) {
			t.Errorf("progress notification without a token: %v", n.Params.AdditionalFields)
		}
	case <-time.After(50 * time.Millisecond):
	}
}

func checkPromptAndResource(t *testing.T, s *session) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	prompts, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != "review" || len(prompts.Prompts[0].Arguments) != 1 ||
		prompts.Prompts[0].Arguments[0].Name != "file" || !prompts.Prompts[0].Arguments[0].Required {
		t.Errorf("prompts = %+v", prompts.Prompts)
	}
	var get mcp.GetPromptRequest
	get.Params.Name = "review"
	get.Params.Arguments = map[string]string{"file": "main.go"}
	p, err := s.c.GetPrompt(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 1 || p.Messages[0].Role != mcp.RoleUser {
		t.Fatalf("review messages = %+v", p.Messages)
	}
	if tc, ok := p.Messages[0].Content.(mcp.TextContent); !ok || tc.Text != "Review main.go" {
		t.Errorf("review message = %#v", p.Messages[0].Content)
	}
	get.Params.Arguments = nil
	if _, err := s.c.GetPrompt(ctx, get); err == nil {
		t.Error("review without file succeeded")
	}

	resources, err := s.c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resources.Resources) != 1 || resources.Resources[0].URI != GreetingURI || resources.Resources[0].MIMEType != "text/plain" {
		t.Errorf("resources = %+v", resources.Resources)
	}
	var read mcp.ReadResourceRequest
	read.Params.URI = GreetingURI
	r, err := s.c.ReadResource(ctx, read)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Contents) != 1 {
		t.Fatalf("greeting contents = %+v", r.Contents)
	}
	if tr, ok := r.Contents[0].(mcp.TextResourceContents); !ok || tr.Text != GreetingText || tr.MIMEType != "text/plain" {
		t.Errorf("greeting = %#v", r.Contents[0])
	}
}

// checkListChanged shows notifications/tools/list_changed reaching
// OnNotification. Over Streamable HTTP on 2026-07-28 a client gets it only
// on a subscriptions/listen stream; everywhere else it comes unasked.
func checkListChanged(t *testing.T, k kind, s *session) {
	if k.transport == "http" && k.version == "" {
		stop, err := s.c.ListenAsync(t.Context(), mcp.SubscriptionFilter{ToolsListChanged: true}, func(err error) {
			t.Errorf("listen: %v", err)
		})
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		// The server acknowledges once the subscription is in place; a
		// change before that would reach no one.
		s.waitNote(t, mcp.MethodNotificationSubscriptionsAcknowledged)
	}
	// Over the legacy Streamable HTTP transport the notification goes out
	// on the client's standalone GET stream, which mcp-go's client opens in
	// the background after initialize: a change made before it is up
	// reaches no one. The change is made again until one arrives.
	for attempt := 1; ; attempt++ {
		if got := text(t, s.call(t, "add_tool", nil), 0); got != AddedTool {
			t.Errorf("add_tool = %q", got)
		}
		if s.noteWithin(mcp.MethodNotificationToolsListChanged, time.Second) {
			break
		}
		if attempt == 5 {
			t.Fatalf("no %s after %d changes", mcp.MethodNotificationToolsListChanged, attempt)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Tools, func(tool mcp.Tool) bool { return tool.Name == AddedTool }) {
		t.Errorf("tools after add_tool lack %q", AddedTool)
	}
	if got := text(t, s.call(t, AddedTool, nil), 0); got != AddedText {
		t.Errorf("added = %q", got)
	}
}

// TestHangCancelled shows a call the client gives up on ends on the server
// too, which the hang tool proves by writing CancelledFile. Over stdio the
// client sends notifications/cancelled; over Streamable HTTP ending the
// request is the cancellation; over HTTP+SSE the client tells the server
// nothing and the call runs until the session ends.
func TestHangCancelled(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "cancelled")
			s := dial(t, k, Options{CancelledFile: file})
			ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
			defer cancel()
			var req mcp.CallToolRequest
			req.Params.Name = "hang"
			if _, err := s.c.CallTool(ctx, req); !timedOut(err) {
				t.Fatalf("hang = %v, want the deadline", err)
			}
			if k.transport == "sse" {
				time.Sleep(150 * time.Millisecond)
				if _, err := os.Stat(file); err == nil {
					t.Fatal("over SSE the abandoned call ended before the session did")
				}
				_ = s.c.Close()
			}
			why := waitFile(t, file)
			want := "context: context canceled"
			if k.transport == "sse" {
				want = "session ended"
			}
			if why != want {
				t.Errorf("cancelled file says %q, want %q", why, want)
			}
		})
	}
}

// timedOut reports whether a call ended at its context's deadline. The SSE
// client arms its own timer from the deadline, and when that fires first its
// error wraps nothing.
func timedOut(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) ||
		err != nil && strings.Contains(err.Error(), "timeout waiting for SSE response")
}

func waitFile(t *testing.T, file string) string {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		b, err := os.ReadFile(file)
		if err == nil && bytes.HasSuffix(b, []byte("\n")) {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written within 3s", file)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCrashStdio shows the stdio server dying mid-call: the pending call
// fails at once (not at its deadline) and Close reports exit status 3.
func TestCrashStdio(t *testing.T) {
	t.Parallel()
	s := dial(t, kind{"stdio", "stdio", ""}, Options{})
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "crash"
	_, err := s.c.CallTool(ctx, req)
	if !errors.Is(err, transport.ErrTransportClosed) || time.Since(start) > 2*time.Second {
		t.Fatalf("crash = %v after %v, want ErrTransportClosed at once", err, time.Since(start))
	}
	var exit *exec.ExitError
	if err := s.c.Close(); !errors.As(err, &exit) || exit.ExitCode() != CrashExitCode {
		t.Errorf("Close = %v, want exit status %d", err, CrashExitCode)
	}
}

// TestCrashStreamableHTTP shows the connection dropping under a call: the
// call errors at once rather than hanging, and the server, which only lost
// a connection, answers the next call.
func TestCrashStreamableHTTP(t *testing.T) {
	for _, k := range kinds {
		if k.transport != "http" {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			s := dial(t, k, Options{})
			start := time.Now()
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			var req mcp.CallToolRequest
			req.Params.Name = "crash"
			_, err := s.c.CallTool(ctx, req)
			if err == nil || errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
				t.Fatalf("crash = %v after %v, want a prompt error", err, time.Since(start))
			}
			if got := text(t, s.call(t, "echo", map[string]any{"text": "still here"}), 0); got != "still here" {
				t.Errorf("echo after crash = %q", got)
			}
		})
	}
}

// TestCrashSSE shows the event stream dropping under a call. mcp-go's SSE
// client reports the lost stream to OnConnectionLost but does not fail the
// pending call: it ends only at its context's deadline.
func TestCrashSSE(t *testing.T) {
	t.Parallel()
	s := dial(t, kind{"sse", "sse", ""}, Options{})
	lost := make(chan error, 1)
	s.c.OnConnectionLost(func(err error) {
		select {
		case lost <- err:
		default:
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 400*time.Millisecond)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "crash"
	if _, err := s.c.CallTool(ctx, req); !timedOut(err) {
		t.Errorf("crash = %v, want the deadline", err)
	}
	select {
	case err := <-lost:
		if err == nil {
			t.Error("OnConnectionLost with a nil error")
		}
	case <-time.After(2 * time.Second):
		t.Error("OnConnectionLost not called")
	}
}

// TestStartDelayAndName shows a slow server is slow on every transport and
// reports the name it was given.
func TestStartDelayAndName(t *testing.T) {
	const delay = 300 * time.Millisecond
	for _, k := range []kind{{"stdio", "stdio", ""}, {"http", "http", ""}, {"sse", "sse", ""}} {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			s := dial(t, k, Options{Name: "slow-one", StartDelay: delay})
			if took := time.Since(start); took < delay {
				t.Errorf("connected in %v, before the %v start delay", took, delay)
			}
			if s.init.ServerInfo.Name != "slow-one" {
				t.Errorf("server name = %q", s.init.ServerInfo.Name)
			}
		})
	}
}

// TestOAuth runs the whole authorization-code flow with PKCE and dynamic
// registration, done programmatically where a browser would be, then lets
// the access token expire and shows the client refreshing it.
func TestOAuth(t *testing.T) {
	t.Parallel()
	as := OAuth(t, Options{}, time.Second)
	if as.AccessTTL != time.Second {
		t.Errorf("AccessTTL = %v", as.AccessTTL)
	}
	store := client.NewMemoryTokenStore()
	c, err := client.NewOAuthStreamableHttpClient(as.MCPURL, client.OAuthConfig{
		RedirectURI: "http://127.0.0.1:1/callback", // never visited: the test reads the redirect itself
		Scopes:      []string{"mcp"},
		TokenStore:  store,
		PKCEEnabled: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "nova-testserver-test", Version: "0"}

	// With no token the client does not even ask: it reports that
	// authorization is needed without sending anything.
	_, err = c.Initialize(ctx, init)
	if !client.IsOAuthAuthorizationRequiredError(err) {
		t.Fatalf("initialize without a token = %v, want authorization required", err)
	}
	if n := as.Unauthorized(); n != 0 {
		t.Errorf("%d requests reached the server without a token", n)
	}
	authorize(t, ctx, client.GetOAuthHandler(err))
	if as.Registrations() != 1 || as.TokensIssued() != 1 {
		t.Errorf("registrations %d, tokens %d; want 1, 1", as.Registrations(), as.TokensIssued())
	}

	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize after authorizing: %v", err)
	}
	s := &session{c: c}
	if got := text(t, s.call(t, "echo", map[string]any{"text": "authorized"}), 0); got != "authorized" {
		t.Errorf("echo = %q", got)
	}
	first, err := store.GetToken(ctx)
	if err != nil {
		t.Fatal(err)
	}

	time.Sleep(as.AccessTTL + 100*time.Millisecond)
	if !bearerRefused(t, as.MCPURL, first.AccessToken) {
		t.Error("the server still takes the expired access token")
	}
	if got := text(t, s.call(t, "echo", map[string]any{"text": "refreshed"}), 0); got != "refreshed" {
		t.Errorf("echo after expiry = %q", got)
	}
	if as.Refreshes() != 1 || as.TokensIssued() != 2 {
		t.Errorf("refreshes %d, tokens %d; want 1, 2", as.Refreshes(), as.TokensIssued())
	}
	if second, _ := store.GetToken(ctx); second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Error("refresh did not replace both tokens")
	}
}

// TestOAuthStaleToken shows the other way the client learns it must
// authorize: the server refuses a token with 401, and the error carries the
// resource metadata URL from WWW-Authenticate. Revoke makes the token stale.
func TestOAuthStaleToken(t *testing.T) {
	t.Parallel()
	as := OAuth(t, Options{}, 0)
	store := client.NewMemoryTokenStore()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := store.SaveToken(ctx, &client.Token{AccessToken: "stale", TokenType: "Bearer"}); err != nil {
		t.Fatal(err)
	}
	c, err := client.NewOAuthStreamableHttpClient(as.MCPURL, client.OAuthConfig{
		RedirectURI: "http://127.0.0.1:1/callback",
		TokenStore:  store,
		PKCEEnabled: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var init mcp.InitializeRequest
	_, err = c.Initialize(ctx, init)
	if !client.IsOAuthAuthorizationRequiredError(err) || client.GetResourceMetadataURL(err) != as.ResourceMetadataURL {
		t.Fatalf("initialize with a stale token = %v (metadata %q), want authorization required naming %s",
			err, client.GetResourceMetadataURL(err), as.ResourceMetadataURL)
	}
	if as.Unauthorized() == 0 {
		t.Error("no 401 counted")
	}
	// The handler now discovers through the advertised metadata URL, whose
	// document must name exactly this resource.
	authorize(t, ctx, client.GetOAuthHandler(err))
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize after authorizing: %v", err)
	}
	s := &session{c: c}
	if got := text(t, s.call(t, "echo", map[string]any{"text": "ok"}), 0); got != "ok" {
		t.Errorf("echo = %q", got)
	}

	as.Revoke()
	var req mcp.CallToolRequest
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"text": "revoked"}
	if _, err := c.CallTool(ctx, req); !client.IsOAuthAuthorizationRequiredError(err) {
		t.Errorf("call with a revoked token = %v, want authorization required", err)
	}
}

// authorize does what a browser and the redirect listener would: register,
// visit the authorization URL, take code and state from the redirect, and
// exchange the code with the PKCE verifier.
func authorize(t *testing.T, ctx context.Context, h *transport.OAuthHandler) {
	t.Helper()
	if h == nil {
		t.Fatal("no OAuth handler in the error")
	}
	if h.GetClientID() == "" {
		if err := h.RegisterClient(ctx, "nova-testserver-test"); err != nil {
			t.Fatalf("register: %v", err)
		}
	}
	verifier, err := client.GenerateCodeVerifier()
	if err != nil {
		t.Fatal(err)
	}
	state, err := client.GenerateState()
	if err != nil {
		t.Fatal(err)
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, client.GenerateCodeChallenge(verifier))
	if err != nil {
		t.Fatalf("authorization URL: %v", err)
	}
	back := visit(t, authURL)
	if back.Get("error") != "" || back.Get("state") != state || back.Get("code") == "" {
		t.Fatalf("redirect carries %v", back)
	}
	if err := h.ProcessAuthorizationResponse(ctx, back.Get("code"), back.Get("state"), verifier); err != nil {
		t.Fatalf("code exchange: %v", err)
	}
}

// visit GETs an authorization URL and returns the query of the redirect.
func visit(t *testing.T, authURL string) url.Values {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize answered %s", resp.Status)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc.Query()
}

func bearerRefused(t *testing.T, mcpURL, token string) bool {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, mcpURL, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusUnauthorized && strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`)
}

// TestOAuthEndpoints checks the discovery documents and that the
// authorization server refuses what it should: no PKCE, a wrong verifier.
func TestOAuthEndpoints(t *testing.T) {
	t.Parallel()
	as := OAuth(t, Options{}, time.Minute)

	resp, err := http.Post(as.MCPURL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := `Bearer resource_metadata="` + as.ResourceMetadataURL + `"`; resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("unauthenticated POST: %s, WWW-Authenticate %q; want 401, %q", resp.Status, resp.Header.Get("WWW-Authenticate"), want)
	}

	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	getJSON(t, as.ResourceMetadataURL, &prm)
	if prm.Resource != as.MCPURL || !slices.Equal(prm.AuthorizationServers, []string{as.Issuer}) {
		t.Errorf("protected resource metadata = %+v", prm)
	}
	var meta struct {
		Issuer               string   `json:"issuer"`
		TokenEndpoint        string   `json:"token_endpoint"`
		RegistrationEndpoint string   `json:"registration_endpoint"`
		CodeChallengeMethods []string `json:"code_challenge_methods_supported"`
	}
	getJSON(t, as.Issuer+"/.well-known/oauth-authorization-server", &meta)
	if meta.Issuer != as.Issuer || meta.TokenEndpoint != as.Issuer+"/token" || meta.RegistrationEndpoint != as.Issuer+"/register" || !slices.Equal(meta.CodeChallengeMethods, []string{"S256"}) {
		t.Errorf("authorization server metadata = %+v", meta)
	}

	reg, err := http.Post(as.Issuer+"/register", "application/json",
		strings.NewReader(`{"client_name":"raw","redirect_uris":["http://127.0.0.1:1/cb"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var registered struct {
		ClientID string `json:"client_id"`
	}
	err = json.NewDecoder(reg.Body).Decode(&registered)
	reg.Body.Close()
	if err != nil || reg.StatusCode != http.StatusCreated || registered.ClientID == "" {
		t.Fatalf("register: %s, %+v, %v", reg.Status, registered, err)
	}

	q := url.Values{"response_type": {"code"}, "client_id": {registered.ClientID}, "redirect_uri": {"http://127.0.0.1:1/cb"}, "state": {"s1"}}
	if back := visit(t, as.Issuer+"/authorize?"+q.Encode()); back.Get("error") != "invalid_request" || back.Get("code") != "" || back.Get("state") != "s1" {
		t.Errorf("authorize without PKCE redirected with %v", back)
	}
	verifier, _ := client.GenerateCodeVerifier()
	q.Set("code_challenge", client.GenerateCodeChallenge(verifier))
	q.Set("code_challenge_method", "S256")
	back := visit(t, as.Issuer+"/authorize?"+q.Encode())
	if back.Get("code") == "" {
		t.Fatalf("authorize with PKCE redirected with %v", back)
	}
	exchange := func(v string) int {
		form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "client_id": {registered.ClientID},
			"redirect_uri": {"http://127.0.0.1:1/cb"}, "code_verifier": {v}}
		resp, err := http.PostForm(as.Issuer+"/token", form)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := exchange(verifier + "x"); status != http.StatusBadRequest {
		t.Errorf("exchange with a wrong verifier: %d", status)
	}
	if status := exchange(verifier); status != http.StatusBadRequest {
		t.Errorf("a code used once (even badly) was accepted again: %d", status)
	}
	if as.TokensIssued() != 0 {
		t.Errorf("%d tokens issued", as.TokensIssued())
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}
