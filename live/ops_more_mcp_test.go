package live

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/tools/mcp"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// A project's MCP server (a real one over Streamable HTTP on loopback)
// waits for approval; the answer is remembered on disk and starts it, a
// second answer is refused, and its prompts and resources are the
// server's own.
func TestControllerMCPApprovePromptsResources(t *testing.T) {
	url := mcptest.StreamableHTTP(t, mcptest.Options{})
	e := newTestController(t, "", Options{Trust: true, Interactive: true})
	writeTestFile(t, filepath.Join(e.ws, ".mcp.json"), `{"mcpServers": {"t": {"type": "http", "url": "`+url+`"}}}`)
	if err := e.c.Clear(); err != nil { // a runtime that has read it
		t.Fatal(err)
	}
	pending := e.c.MCPPending()
	if len(pending) != 1 || pending[0].Name != "t" || pending[0].Target != url || pending[0].Transport != "http" ||
		pending[0].Source != filepath.Join(e.ws, ".mcp.json") {
		t.Fatalf("pending = %+v", pending)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if got := e.c.MCPPrompts(ctx); len(got) != 0 {
		t.Fatalf("positive control: a server not approved offers prompts %+v", got)
	}
	if err := e.c.ApproveMCP("t", true); err != nil {
		t.Fatal(err)
	}
	if err := e.c.ApproveMCP("t", true); !errors.Is(err, ErrNoPendingMCP) {
		t.Errorf("a second answer for t: %v, want ErrNoPendingMCP", err)
	}
	data, err := os.ReadFile(filepath.Join(e.ws, ".nova", "settings.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	var local struct {
		Enabled []string `json:"enabledMcpjsonServers"`
	}
	if err := json.Unmarshal(data, &local); err != nil || !slices.Equal(local.Enabled, []string{"t"}) {
		t.Fatalf("settings.local.json = %s (%v)", data, err)
	}
	e.c.Runtime().MCP.Wait(ctx)
	if sts := e.c.MCPStatus(); len(sts) != 1 || sts[0].State != mcp.StateConnected {
		t.Fatalf("after approval: %+v", sts)
	}

	prompts := e.c.MCPPrompts(ctx)
	i := slices.IndexFunc(prompts, func(p mcp.Prompt) bool { return p.Command == "mcp__t__review" })
	if i < 0 || len(prompts[i].Arguments) != 1 || !prompts[i].Arguments[0].Required {
		t.Fatalf("prompts = %+v", prompts)
	}
	if text, err := e.c.MCPPrompt(ctx, prompts[i], []string{"main.go"}); err != nil || text != "Review main.go" {
		t.Errorf("rendered %q, %v", text, err)
	}
	res := e.c.MCPResources(ctx)
	if !slices.ContainsFunc(res, func(r mcp.Resource) bool { return r.Server == "t" && r.URI == mcptest.GreetingURI }) {
		t.Fatalf("resources = %+v", res)
	}
	if text, err := e.c.ReadMCPResource(ctx, "t", mcptest.GreetingURI); err != nil || !strings.Contains(text, mcptest.GreetingText) {
		t.Errorf("read %q, %v", text, err)
	}
	if _, err := e.c.ReadMCPResource(ctx, "nope", mcptest.GreetingURI); err == nil {
		t.Error("a resource of an unknown server was read")
	}
}

// A declined project server does not start and is listed as disabled
// with why.
func TestControllerMCPDecline(t *testing.T) {
	url := mcptest.StreamableHTTP(t, mcptest.Options{})
	e := newTestController(t, "", Options{Trust: true, Interactive: true})
	writeTestFile(t, filepath.Join(e.ws, ".mcp.json"), `{"mcpServers": {"t": {"type": "http", "url": "`+url+`"}}}`)
	if err := e.c.Clear(); err != nil {
		t.Fatal(err)
	}
	if err := e.c.ApproveMCP("t", false); err != nil {
		t.Fatal(err)
	}
	sts := e.c.MCPStatus()
	if len(sts) != 1 || sts[0].State != MCPDisabled || !strings.Contains(sts[0].Error, "declined") {
		t.Fatalf("after declining: %+v", sts)
	}
	if len(e.c.MCPPending()) != 0 {
		t.Error("a declined server still waits")
	}
}

// /mcp login logs in to a server that needs OAuth in the session's own
// manager: open gets the authorization URL, the browser's round trip
// completes, and the server connects with its tools in this session.
func TestControllerMCPLogin(t *testing.T) {
	as := mcptest.OAuth(t, mcptest.Options{}, time.Hour)
	e := newTestController(t, `{"mcpServers": {"api": {"type": "http", "url": "`+as.MCPURL+`"}}}`, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e.c.Runtime().MCP.Wait(ctx)
	if sts := e.c.MCPStatus(); len(sts) != 1 || sts[0].State == mcp.StateConnected {
		t.Fatalf("positive control: connected before the login: %+v", sts)
	}
	var shown string
	st, err := e.c.LoginMCP(ctx, "api", func(url string) error {
		shown = url
		go func() { // the browser: the authorization server sends it back to nova
			if resp, err := http.Get(url); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(shown, as.Issuer) || st.State != mcp.StateConnected || !slices.Contains(st.Tools, "mcp__api__echo") {
		t.Errorf("shown %q, status %+v", shown, st)
	}
	if sts := e.c.MCPStatus(); sts[0].State != mcp.StateConnected {
		t.Errorf("after the login: %+v", sts)
	}
}
