package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// MCP end to end: nova -p with a project's .mcp.json, the test binary
// itself as the stdio server (TestMain serves when asked), and what the
// provider receives.

// mcpJSON is a .mcp.json naming the test binary as server "t".
func mcpJSON() string {
	env := map[string]string{}
	for _, kv := range mcptest.StdioEnv(mcptest.Options{}) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"t": map[string]any{"command": os.Args[0], "env": env},
	}})
	return string(b)
}

// offered reports whether the first request offered the model tool name.
func offered(t *testing.T, e *e2e, name string) bool {
	t.Helper()
	reqs := e.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the provider got no request")
	}
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	for _, tl := range body.Tools {
		if tl.Name == name {
			return true
		}
	}
	return false
}

func echoTurns() []llmtest.Turn {
	return []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{{ID: "toolu_mcp", Name: "mcp__t__echo", Input: jsonInput(map[string]any{"text": "hello from mcp"})}}},
		{Text: "Done."},
	}
}

// TestMCPProjectServerRules holds project servers to trust and approval:
// a repository's .mcp.json is its author's code.
func TestMCPProjectServerRules(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(e *e2e)
		args      []string
		started   bool
		stderr    string
		delivered bool // the echo result reached the model
	}{
		{name: "untrusted", args: nil, stderr: "not trusted"},
		{name: "trusted, not approved", args: []string{"--trust"}, stderr: "not approved"},
		{name: "approved, no rule", args: []string{"--trust"}, started: true,
			setup: func(e *e2e) { e.write(".nova/settings.local.json", `{"enabledMcpjsonServers": ["t"]}`) }},
		{name: "approved, allowed", args: []string{"--trust", "--allowedTools", "mcp__t"}, started: true, delivered: true,
			setup: func(e *e2e) { e.write(".nova/settings.local.json", `{"enabledMcpjsonServers": ["t"]}`) }},
		{name: "all enabled", args: []string{"--trust", "--allowedTools", "mcp__t__echo"}, started: true, delivered: true,
			setup: func(e *e2e) { e.write(".nova/settings.json", `{"enableAllProjectMcpServers": true}`) }},
		{name: "approval in an untrusted workspace", args: nil, stderr: "not trusted",
			setup: func(e *e2e) { e.write(".nova/settings.local.json", `{"enabledMcpjsonServers": ["t"]}`) }},
		{name: "rejected", args: []string{"--trust"},
			setup: func(e *e2e) {
				e.write(".nova/settings.local.json", `{"enableAllProjectMcpServers": true, "disabledMcpjsonServers": ["t"]}`)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newE2E(t, echoTurns()...)
			e.write(".mcp.json", mcpJSON())
			if tt.setup != nil {
				tt.setup(e)
			}
			r := e.run("", append([]string{"-p", "--output-format", "json"}, append(tt.args, "echo something")...)...)
			if got := offered(t, e, "mcp__t__echo"); got != tt.started {
				t.Fatalf("mcp__t__echo offered = %v, want %v\nstderr: %s", got, tt.started, r.stderr)
			}
			if tt.stderr != "" && !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr does not say %q: %s", tt.stderr, r.stderr)
			}
			reqs := e.srv.Requests()
			if !tt.started {
				return
			}
			if len(reqs) < 2 {
				t.Fatalf("provider got %d requests; stderr %s", len(reqs), r.stderr)
			}
			res := toolResultsOf(t, reqs[1])["toolu_mcp"]
			switch {
			case tt.delivered && (res.IsError || res.Text != "hello from mcp"):
				t.Errorf("the model got %+v, want the server's echo", res)
			case !tt.delivered && (!res.IsError || !strings.Contains(res.Text, "denied")):
				t.Errorf("without an allow rule the call must be a denial in print mode; the model got %+v", res)
			}
		})
	}
}

// TestMCPConfigFlag: a server the person names with --mcp-config starts
// in an untrusted workspace (their words), and --strict-mcp-config leaves
// the project's out.
func TestMCPConfigFlag(t *testing.T) {
	e := newE2E(t, echoTurns()...)
	e.write(".mcp.json", strings.Replace(mcpJSON(), `"t"`, `"p"`, 1))
	cfg := filepath.Join(t.TempDir(), "servers.json")
	if err := os.WriteFile(cfg, []byte(mcpJSON()), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "-p", "--output-format", "json", "--trust", "--mcp-config", cfg, "--strict-mcp-config", "--allowedTools", "mcp__t,mcp__p", "echo")
	if !offered(t, e, "mcp__t__echo") || offered(t, e, "mcp__p__echo") {
		t.Fatalf("want only the --mcp-config server; stderr %s", r.stderr)
	}
	if res := toolResultsOf(t, e.srv.Requests()[1])["toolu_mcp"]; res.Text != "hello from mcp" {
		t.Errorf("the model got %+v", res)
	}
}

// everything is the MCP reference server, installed by npm ci in
// tools/mcp/testdata/everything (.ci/run does it).
func everything(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "tools", "mcp", "testdata", "everything"))
	bin := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	_, nerr := exec.LookPath("node")
	if _, err := os.Stat(bin); err != nil || nerr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node and @modelcontextprotocol/server-everything are needed in CI (npm ci in %s): %v %v", dir, err, nerr)
		}
		t.Skipf("needs node and @modelcontextprotocol/server-everything (npm ci in %s)", dir)
	}
	return bin
}

// TestMCPEverything drives the reference server over stdio and Streamable
// HTTP through the agent: the model receives its echo, its sum and its
// image.
func TestMCPEverything(t *testing.T) {
	bin := everything(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var server map[string]any
			switch transport {
			case "stdio":
				server = map[string]any{"command": "node", "args": []string{bin, "stdio"}}
			case "http":
				port := freePort(t)
				cmd := exec.Command("node", bin, "streamableHttp")
				cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
				waitListening(t, port)
				server = map[string]any{"type": "http", "url": fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}
			}
			e := newE2E(t,
				llmtest.Turn{ToolCalls: []llmtest.ToolCall{
					{ID: "toolu_echo", Name: "mcp__every__echo", Input: jsonInput(map[string]any{"message": "hi everything"})},
					{ID: "toolu_sum", Name: "mcp__every__get-sum", Input: jsonInput(map[string]any{"a": 2, "b": 40})},
					{ID: "toolu_img", Name: "mcp__every__get-tiny-image", Input: jsonInput(map[string]any{})},
				}},
				llmtest.Turn{Text: "Done."},
			)
			cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"every": server}})
			r := e.run("", "-p", "--output-format", "json", "--mcp-config", string(cfg), "--allowedTools", "mcp__every", "use the server")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			reqs := e.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("provider got %d requests: %s", len(reqs), r.stderr)
			}
			got := toolResultsOf(t, reqs[1])
			if res := got["toolu_echo"]; res.IsError || !strings.Contains(res.Text, "hi everything") {
				t.Errorf("echo: %+v", res)
			}
			if res := got["toolu_sum"]; res.IsError || !strings.Contains(res.Text, "42") {
				t.Errorf("get-sum: %+v", res)
			}
			if !strings.Contains(string(reqs[1].Body), `"media_type":"image/png"`) {
				t.Errorf("the tiny image did not reach the model as an image")
			}
		})
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitListening(t *testing.T, port int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server never listened on %d", port)
}

// TestMCPListConnects: nova mcp list and get report the health they
// checked, by connecting to each server that may start.
func TestMCPListConnects(t *testing.T) {
	e := newE2E(t)
	var servers map[string]any
	if err := json.Unmarshal([]byte(mcpJSON()), &servers); err != nil {
		t.Fatal(err)
	}
	all := servers["mcpServers"].(map[string]any)
	all["broken"] = map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")}
	b, _ := json.Marshal(map[string]any{"mcpServers": all})
	if err := os.MkdirAll(filepath.Join(e.home, ".nova"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".nova", "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "mcp", "list")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := fmt.Sprintf("connected, %d tools", len(mcptest.ToolNames))
	if !strings.Contains(rows(r.stdout)["t"], want) || !strings.Contains(rows(r.stdout)["broken"], "failed:") {
		t.Errorf("nova mcp list:\n%s\nwant t %q and broken failed", r.stdout, want)
	}
	if r := e.run("", "mcp", "get", "broken"); !strings.Contains(r.stdout, "no-such-server") || !strings.Contains(r.stdout, "failed:") {
		t.Errorf("nova mcp get broken:\n%s", r.stdout)
	}
}
