package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/tools/mcp/mcptest"
	"github.com/nova-dev/nova/tui"
)

// The TUI's MCP capabilities on the real runtime: a project server waits
// for approval, the answer is remembered and starts it, and its prompts
// and resources reach the TUI's types (the test binary is server "t").
func TestInteractiveMCPCapabilities(t *testing.T) {
	w := newInteractiveWorld(t)
	if err := os.WriteFile(filepath.Join(w.ws, ".mcp.json"), []byte(mcpJSON()), 0o644); err != nil {
		t.Fatal(err)
	}
	w.start(t, buildOptions{trust: true})
	b := w.b

	pending := b.MCPPending()
	if len(pending) != 1 || pending[0].Name != "t" || pending[0].Source != ".mcp.json" || pending[0].Transport != "stdio" ||
		!strings.HasPrefix(pending[0].Target, os.Args[0]) {
		t.Fatalf("pending = %+v", pending)
	}
	if sts := b.MCPStatus(); len(sts) != 0 {
		t.Fatalf("a server started before approval: %+v", sts)
	}
	if err := b.ApproveMCP("t", true); err != nil {
		t.Fatal(err)
	}
	if err := b.ApproveMCP("t", true); err == nil {
		t.Error("a second answer for t was taken")
	}
	data, err := os.ReadFile(filepath.Join(w.ws, ".nova", "settings.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	var local struct {
		Enabled []string `json:"enabledMcpjsonServers"`
	}
	if err := json.Unmarshal(data, &local); err != nil || !slices.Equal(local.Enabled, []string{"t"}) {
		t.Fatalf("settings.local.json = %s (%v)", data, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b.runtime().MCP.Wait(ctx)
	sts := b.MCPStatus()
	if len(sts) != 1 || sts[0].State != tui.MCPConnected || !slices.Contains(sts[0].Tools, "mcp__t__echo") {
		t.Fatalf("after approval: %+v", sts)
	}

	prompts := b.MCPPrompts(ctx)
	i := slices.IndexFunc(prompts, func(p tui.MCPPrompt) bool { return p.Command == "mcp__t__review" })
	if i < 0 || len(prompts[i].Arguments) != 1 || !prompts[i].Arguments[0].Required || prompts[i].Arguments[0].Name != "file" {
		t.Fatalf("prompts = %+v", prompts)
	}
	if text, err := b.MCPPrompt(ctx, prompts[i], []string{"main.go"}); err != nil || text != "Review main.go" {
		t.Errorf("rendered %q, %v", text, err)
	}

	res := b.MCPResources(ctx)
	if !slices.ContainsFunc(res, func(r tui.MCPResource) bool { return r.Server == "t" && r.URI == mcptest.GreetingURI }) {
		t.Fatalf("resources = %+v", res)
	}
	if text, err := b.ReadMCPResource(ctx, "t", mcptest.GreetingURI); err != nil || !strings.Contains(text, mcptest.GreetingText) {
		t.Errorf("read %q, %v", text, err)
	}
	if _, err := b.ReadMCPResource(ctx, "nope", mcptest.GreetingURI); err == nil {
		t.Error("a resource of an unknown server was read")
	}
}

// TestInteractiveMCPLogin: /mcp login's backend logs in to a server that
// needs OAuth in the session's own manager: the URL reaches the TUI, the
// browser's round trip completes, and the server connects with its tools.
func TestInteractiveMCPLogin(t *testing.T) {
	w := newInteractiveWorld(t)
	as := mcptest.OAuth(t, mcptest.Options{}, time.Hour)
	settings := `{"mcpServers": {"api": {"type": "http", "url": "` + as.MCPURL + `"}}}`
	if err := os.MkdirAll(w.novaHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.novaHome, "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	w.start(t, buildOptions{})
	b := w.b
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b.runtime().MCP.Wait(ctx)
	if sts := b.MCPStatus(); len(sts) != 1 || sts[0].State == tui.MCPConnected {
		t.Fatalf("before the login: %+v", sts)
	}
	var shown string
	text, err := b.LoginMCP(ctx, "api", func(url string) {
		shown = url
		go func() { // the browser: the authorization server sends it back to nova
			if resp, err := http.Get(url); err == nil {
				resp.Body.Close()
			}
		}()
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(shown, as.Issuer) || !strings.Contains(text, "Logged in to api: connected") {
		t.Errorf("shown %q, said %q", shown, text)
	}
	if sts := b.MCPStatus(); sts[0].State != tui.MCPConnected || !slices.Contains(sts[0].Tools, "mcp__api__echo") {
		t.Errorf("after the login: %+v", sts)
	}
}

// TestInteractiveMCPDisabledAndReconnect: a project server declined shows
// in /mcp as disabled with why, now and in the next session, and is not
// reconnected (the tmux test reconnects a connected one).
func TestInteractiveMCPDisabled(t *testing.T) {
	w := newInteractiveWorld(t)
	if err := os.WriteFile(filepath.Join(w.ws, ".mcp.json"), []byte(mcpJSON()), 0o644); err != nil {
		t.Fatal(err)
	}
	w.start(t, buildOptions{trust: true})
	if err := w.b.ApproveMCP("t", false); err != nil {
		t.Fatal(err)
	}
	sts := w.b.MCPStatus()
	if len(sts) != 1 || sts[0].Name != "t" || sts[0].State != tui.MCPDisabled || !strings.Contains(sts[0].Error, "declined") {
		t.Fatalf("after declining: %+v", sts)
	}
	w.b.Close()
	w.start(t, buildOptions{trust: true})
	if sts := w.b.MCPStatus(); len(sts) != 1 || sts[0].State != tui.MCPDisabled || !strings.Contains(sts[0].Error, "disabledMcpjsonServers") {
		t.Fatalf("next session: %+v", sts)
	}
	if _, err := w.b.ReconnectMCP(context.Background(), "t"); err == nil {
		t.Error("a disabled server was reconnected")
	}
}
