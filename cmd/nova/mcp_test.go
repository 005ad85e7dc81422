package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"github.com/nova-dev/nova/config"
)

func TestMCPAddOptions(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stderr string
		scope  config.MCPScope
		server config.MCPServer
	}{
		{args: []string{"fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, scope: "local",
			server: config.MCPServer{Type: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}}},
		{args: []string{"fs", "-s", "user", "--", "server", "-e", "X", "--scope", "project"}, scope: "user",
			server: config.MCPServer{Type: "stdio", Command: "server", Args: []string{"-e", "X", "--scope", "project"}}},
		{args: []string{"-e", "A=1", "--env", "B=x=y", "--env", "EMPTY=", "-s", "project", "db", "--", "db-mcp"}, scope: "project",
			server: config.MCPServer{Type: "stdio", Command: "db-mcp", Env: map[string]string{"A": "1", "B": "x=y", "EMPTY": ""}}},
		{args: []string{"plain", "server-bin"}, scope: "local", server: config.MCPServer{Type: "stdio", Command: "server-bin"}},
		{args: []string{"-t", "http", "-H", "Authorization: Bearer ${TOKEN}", "--header", "X-Trace:1", "api", "https://example.com/mcp"}, scope: "local",
			server: config.MCPServer{Type: "http", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}", "X-Trace": "1"}}},
		{args: []string{"--transport", "sse", "--scope", "user", "old", "http://127.0.0.1:3000/sse"}, scope: "user",
			server: config.MCPServer{Type: "sse", URL: "http://127.0.0.1:3000/sse"}},
		{args: []string{"-t", "http", "env-url", "${BASE_URL}/mcp"}, scope: "local", server: config.MCPServer{Type: "http", URL: "${BASE_URL}/mcp"}},

		{args: []string{"fs", "npx", "-y", "pkg"}, code: 2, stderr: "A command's own flags go after --"},
		{args: []string{"fs"}, code: 2, stderr: "want a name and a command or URL"},
		{args: nil, code: 2, stderr: "want a name and a command or URL"},
		{args: []string{"notion", "https://mcp.notion.com/mcp"}, code: 2, stderr: "is a URL, not a command: an HTTP server needs -t http"},
		{args: []string{"-t", "ws", "x", "wss://x"}, code: 2, stderr: `--transport "ws": want stdio, http or sse`},
		{args: []string{"-s", "global", "x", "--", "c"}, code: 2, stderr: `--scope "global": want local, project or user`},
		{args: []string{"-s", "claude", "x", "--", "c"}, code: 2, stderr: `--scope "claude"`},
		{args: []string{"-t", "http", "x", "https://a", "https://b"}, code: 2, stderr: "an http server takes one URL, not 2 arguments"},
		{args: []string{"-t", "http", "-e", "A=1", "x", "https://a"}, code: 2, stderr: "--env is for stdio servers"},
		{args: []string{"-H", "A: b", "x", "--", "c"}, code: 2, stderr: "--header is for http and sse servers"},
		{args: []string{"-e", "NOEQUALS", "x", "--", "c"}, code: 2, stderr: `--env "NOEQUALS": want KEY=value`},
		{args: []string{"-e", "=v", "x", "--", "c"}, code: 2, stderr: "want KEY=value"},
		{args: []string{"-t", "sse", "-H", "nocolon", "x", "https://a"}, code: 2, stderr: `--header "nocolon": want "Name: value"`},
		{args: []string{"-t", "sse", "-H", "Bad Name: v", "x", "https://a"}, code: 2, stderr: "want \"Name: value\""},
		{args: []string{"bad.name", "--", "c"}, code: 2, stderr: "mcp__<server>__<tool>"},
		{args: []string{"-t", "http", "x", "ftp://example.com"}, code: 2, stderr: "not an http or https URL"},
		{args: []string{"-t", "http", "x", "localhost:8080/mcp"}, code: 2, stderr: "not an http or https URL"},
	}
	for _, tt := range tests {
		tio := newTestIO(t, "", false, nil)
		var got *mcpAddOptions
		code := tio.parse(newMCPAddCmd(&Factory{IOStreams: tio.s}, func(o *mcpAddOptions) error { got = o; return nil }), tt.args...)
		if code != tt.code || !strings.Contains(tio.errOut.String(), tt.stderr) {
			t.Errorf("add %q: exit %d stderr %q, want %d and %q", tt.args, code, tio.errOut, tt.code, tt.stderr)
			continue
		}
		if tt.code != 0 {
			if got != nil {
				t.Errorf("add %q: runF was called on a refused command line", tt.args)
			}
			continue
		}
		if got == nil || got.io != tio.s || got.name != tt.args[slices.IndexFunc(tt.args, isName)] || got.scope != tt.scope || !reflect.DeepEqual(got.server, tt.server) {
			t.Errorf("add %q: options %+v, want scope %s server %+v", tt.args, got, tt.scope, tt.server)
		}
	}
}

// isName finds the server name among test arguments: the first that is
// neither a flag nor a flag's value.
func isName(a string) bool {
	return !strings.HasPrefix(a, "-") && !slices.Contains([]string{"http", "sse", "user", "project", "A=1", "B=x=y", "EMPTY=",
		"Authorization: Bearer ${TOKEN}", "X-Trace:1"}, a)
}

func TestMCPAddJSONOptions(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
		scope  config.MCPScope
		server config.MCPServer
	}{
		{args: []string{"w", `{"command": "weather", "args": ["--metric"], "unknownKey": 1}`}, scope: "local",
			server: config.MCPServer{Command: "weather", Args: []string{"--metric"}}},
		{args: []string{"-s", "project", "api", `{"type": "http", "url": "https://x/mcp", "headers": {"A": "b"}, "timeout": 5000}`}, scope: "project",
			server: config.MCPServer{Type: "http", URL: "https://x/mcp", Headers: map[string]string{"A": "b"}, Timeout: 5000}},
		{args: []string{"w", "{\n  \"command\": \"x\",\n  \"args\": \"one\"\n}"}, code: 2, stderr: "args: want a list, not a string (line 3, column 16)"},
		{args: []string{"w", `{"command": `}, code: 2, stderr: "line 1, column 13"},
		{args: []string{"w", `"npx"`}, code: 2, stderr: "want a JSON object"},
		{args: []string{"w", `{"type": "http"}`}, code: 2, stderr: `needs a "url"`},
		{args: []string{"w"}, code: 2, stderr: "want a name and a JSON object, got 1 arguments"},
		{args: []string{"-s", "everywhere", "w", `{"command": "x"}`}, code: 2, stderr: `--scope "everywhere"`},
	} {
		tio := newTestIO(t, "", false, nil)
		var got *mcpAddOptions
		code := tio.parse(newMCPAddJSONCmd(&Factory{IOStreams: tio.s}, func(o *mcpAddOptions) error { got = o; return nil }), tt.args...)
		if code != tt.code || !strings.Contains(tio.errOut.String(), tt.stderr) {
			t.Errorf("add-json %q: exit %d stderr %q, want %d and %q", tt.args, code, tio.errOut, tt.code, tt.stderr)
			continue
		}
		if tt.code == 0 && (got.scope != tt.scope || !reflect.DeepEqual(got.server, tt.server)) {
			t.Errorf("add-json %q: options %+v, want scope %s server %+v", tt.args, got, tt.scope, tt.server)
		}
		if tt.code != 0 && got != nil {
			t.Errorf("add-json %q: runF was called on a refused command line", tt.args)
		}
	}
}

func TestMCPListGetRemoveOptions(t *testing.T) {
	f := func(tio *testIO) *Factory { return &Factory{IOStreams: tio.s} }
	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
		scope  config.MCPScope
	}{
		{args: []string{"fs"}},
		{args: []string{"-s", "project", "fs"}, scope: "project"},
		{args: []string{"fs", "--scope=user"}, scope: "user"},
		{args: []string{"-s", "claude", "fs"}, code: 2, stderr: `--scope "claude": want local, project or user`},
		{args: nil, code: 2, stderr: "nova mcp remove: want one server name, got 0"},
		{args: []string{"a", "b"}, code: 2, stderr: "want one server name, got 2"},
	} {
		tio := newTestIO(t, "", false, nil)
		var got *mcpRemoveOptions
		code := tio.parse(newMCPRemoveCmd(f(tio), func(o *mcpRemoveOptions) error { got = o; return nil }), tt.args...)
		if code != tt.code || !strings.Contains(tio.errOut.String(), tt.stderr) || (code == 0 && (got.name != "fs" || got.scope != tt.scope)) {
			t.Errorf("remove %q: exit %d stderr %q options %+v", tt.args, code, tio.errOut, got)
		}
	}
	tio := newTestIO(t, "", false, nil)
	var get *mcpGetOptions
	getCmd := func() *cobra.Command {
		return newMCPGetCmd(f(tio), func(o *mcpGetOptions) error { get = o; return nil })
	}
	if code := tio.parse(getCmd(), "fs"); code != 0 || get.name != "fs" || get.probe == nil {
		t.Errorf("get fs: exit %d options %+v (get checks the server's health)", code, get)
	}
	if code := tio.parse(getCmd()); code != 2 || !strings.Contains(tio.errOut.String(), "want one server name") {
		t.Errorf("get with no name: exit %d %q", code, tio.errOut)
	}
	var list *mcpListOptions
	if code := tio.parse(newMCPListCmd(f(tio), func(o *mcpListOptions) error { list = o; return nil })); code != 0 || list == nil || list.probe == nil {
		t.Errorf("list: exit %d options %+v", code, list)
	}
	if code := tio.parse(newMCPListCmd(f(tio), nil), "extra"); code != 2 {
		t.Errorf("list extra: exit %d", code)
	}
	if code := tio.parse(newMCPCmd(f(tio)), "frobnicate"); code != 2 || !strings.Contains(tio.errOut.String(), `unknown command "frobnicate" for "nova mcp"`) {
		t.Errorf("mcp frobnicate: exit %d %q", code, tio.errOut)
	}
}

// mcpCmdWorld runs nova in-process on streams with a temp HOME, NOVA_HOME
// and workspace.
type mcpCmdWorld struct {
	t                  *testing.T
	home, novaHome, ws string
	env                map[string]string
}

func newMCPCmdWorld(t *testing.T) *mcpCmdWorld {
	t.Helper()
	home := realPath(t, t.TempDir())
	w := &mcpCmdWorld{t: t, home: home, novaHome: filepath.Join(home, ".nova"), ws: filepath.Join(home, "src", "app")}
	if err := os.MkdirAll(w.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	w.env = map[string]string{"NOVA_HOME": w.novaHome}
	return w
}

func (w *mcpCmdWorld) streams(out, errOut *bytes.Buffer) *IOStreams {
	return &IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut, LookupEnv: envMap(w.env), Home: w.home, Workdir: w.ws}
}

func (w *mcpCmdWorld) run(args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	var out, errOut bytes.Buffer
	s := w.streams(&out, &errOut)
	// Connecting is tested with real servers (TestMCPListConnects); here
	// every server that may start answers with two tools.
	probe := func(context.Context, config.ConfiguredMCP) (int, error) { return 2, nil }
	code = execute(context.Background(), newRootCmd(&Factory{IOStreams: s, MCPProbe: probe}, nil), args, s)
	return out.String(), errOut.String(), code
}

func (w *mcpCmdWorld) must(args ...string) string {
	w.t.Helper()
	out, errOut, code := w.run(args...)
	if code != 0 {
		w.t.Fatalf("nova %q: exit %d\n%s", args, code, errOut)
	}
	return out
}

func (w *mcpCmdWorld) file(path string) map[string]any {
	w.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		w.t.Fatalf("%s: %v", path, err)
	}
	return v
}

// rows returns the table lines of nova mcp list keyed by server name.
func rows(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			m[f[0]] = l
		}
	}
	return m
}

// TestMCPCommands runs add, add-json, list, get and remove as nova would,
// and checks the files they leave and what they print.
func TestMCPCommands(t *testing.T) {
	w := newMCPCmdWorld(t)
	settings := filepath.Join(w.novaHome, "settings.json")
	mcpJSON := filepath.Join(w.ws, ".mcp.json")

	if out := w.must("mcp", "list"); !strings.Contains(out, "No MCP servers configured here") {
		t.Errorf("list with none = %q", out)
	}
	out := w.must("mcp", "add", "-e", "ROOT=/tmp", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp/my notes")
	if !strings.Contains(out, "Added stdio MCP server fs to the local config (yours, this project only): npx -y @modelcontextprotocol/server-filesystem '/tmp/my notes'") ||
		!strings.Contains(out, "File modified: "+settings) {
		t.Errorf("add fs = %q", out)
	}
	w.must("mcp", "add", "-t", "http", "-s", "project", "-H", "Authorization: Bearer ${API_TOKEN}", "api", "https://api.example.com/mcp")
	w.must("mcp", "add-json", "-s", "user", "db", `{"command": "db-mcp", "env": {"DSN": "${DSN:-postgres://localhost/dev}"}}`)
	writeTestFile(t, filepath.Join(w.home, ".claude.json"), `{"mcpServers": {"from-claude": {"type": "sse", "url": "https://c.example/sse"}}}`)

	fs := w.file(settings)["projects"].(map[string]any)[w.ws].(map[string]any)["mcpServers"].(map[string]any)["fs"]
	if want := map[string]any{"type": "stdio", "command": "npx", "args": []any{"-y", "@modelcontextprotocol/server-filesystem", "/tmp/my notes"}, "env": map[string]any{"ROOT": "/tmp"}}; !reflect.DeepEqual(fs, want) {
		t.Errorf("settings.json fs = %v", fs)
	}
	if db := w.file(settings)["mcpServers"].(map[string]any)["db"]; !reflect.DeepEqual(db, map[string]any{"command": "db-mcp", "env": map[string]any{"DSN": "${DSN:-postgres://localhost/dev}"}}) {
		t.Errorf("settings.json db = %v", db)
	}
	if api := w.file(mcpJSON)["mcpServers"].(map[string]any)["api"]; !reflect.DeepEqual(api, map[string]any{"type": "http", "url": "https://api.example.com/mcp", "headers": map[string]any{"Authorization": "Bearer ${API_TOKEN}"}}) {
		t.Errorf(".mcp.json api = %v", api)
	}

	// Untrusted: the project's server does not start.
	w.env["API_TOKEN"] = "s3cret-token"
	out = w.must("mcp", "list")
	r := rows(out)
	if !strings.HasPrefix(r["NAME"], "NAME") || !strings.Contains(r["NAME"], "STATUS") {
		t.Errorf("header %q: no STATUS column", r["NAME"])
	}
	for name, want := range map[string][]string{
		"api":         {"project", "http", "https://api.example.com/mcp", "untrusted"},
		"db":          {"user", "stdio", "db-mcp", "ready"},
		"fs":          {"local", "stdio", "npx -y @modelcontextprotocol/server-filesystem '/tmp/my notes'", "ready"},
		"from-claude": {"claude", "sse", "https://c.example/sse", "ready"},
	} {
		for _, part := range want {
			if !strings.Contains(r[name], part) {
				t.Errorf("list row of %s = %q, want %q in it", name, r[name], part)
			}
		}
	}
	if !strings.Contains(out, "nova trust trusts it") || strings.Contains(out, "s3cret") {
		t.Errorf("list = %q, want the untrusted note and no secret", out)
	}

	// Trusted: it needs approval; approved, it is ready; declined, rejected.
	w.must("trust")
	if r := rows(w.must("mcp", "list")); !strings.Contains(r["api"], "needs approval") {
		t.Errorf("trusted, unapproved: %q", r["api"])
	}
	if err := config.ApproveMCPServer(w.ws, "api", true); err != nil {
		t.Fatal(err)
	}
	if r := rows(w.must("mcp", "list")); !strings.Contains(r["api"], "ready") || !strings.HasSuffix(strings.TrimSpace(r["api"]), "connected, 2 tools") {
		t.Errorf("approved: %q", r["api"])
	}
	if err := config.ApproveMCPServer(w.ws, "api", false); err != nil {
		t.Fatal(err)
	}
	if out := w.must("mcp", "list"); !strings.Contains(rows(out)["api"], "rejected") || !strings.Contains(out, "disabledMcpjsonServers") {
		t.Errorf("declined: %q", out)
	}
	// An unset variable without a default: invalid, naming it.
	delete(w.env, "API_TOKEN")
	if r := rows(w.must("mcp", "list")); !strings.Contains(r["api"], "invalid: environment variable API_TOKEN is not set") {
		t.Errorf("unset API_TOKEN: %q", r["api"])
	}

	// get: everything, secrets masked.
	w.env["API_TOKEN"] = "s3cret-token"
	out = w.must("mcp", "get", "api")
	for _, want := range []string{"api:", "Scope:    project (.mcp.json", "Source:   " + mcpJSON, "Type:     http", "URL:      https://api.example.com/mcp",
		"Headers:  Authorization: ****", "State:    rejected: declined", "nova mcp remove -s project api"} {
		if !strings.Contains(out, want) {
			t.Errorf("get api = %q, want %q", out, want)
		}
	}
	if strings.Contains(out, "s3cret") || !strings.Contains(out, "Status:   not started") {
		t.Errorf("get api shows a secret, or a status for a server that may not start: %q", out)
	}
	out = w.must("mcp", "get", "fs")
	for _, want := range []string{"Command:  npx", "Args:     -y @modelcontextprotocol/server-filesystem '/tmp/my notes'", "Env:      ROOT=****", "State:    ready"} {
		if !strings.Contains(out, want) {
			t.Errorf("get fs = %q, want %q", out, want)
		}
	}
	if out := w.must("mcp", "get", "from-claude"); !strings.Contains(out, "claude mcp remove from-claude") {
		t.Errorf("get from-claude = %q", out)
	}

	// remove.
	out = w.must("mcp", "remove", "db")
	if !strings.Contains(out, "Removed MCP server db from the user config") {
		t.Errorf("remove db = %q", out)
	}
	if _, ok := w.file(settings)["mcpServers"]; ok {
		t.Errorf("settings.json still has mcpServers: %v", w.file(settings))
	}
	w.must("mcp", "add", "-s", "user", "api", "--", "api-local")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"mcp", "remove", "api"}, 2, `"api" is in the project and user configs: say which with --scope`},
		{[]string{"mcp", "remove", "from-claude"}, 2, "which nova only reads (claude mcp remove from-claude"},
		{[]string{"mcp", "remove", "nope"}, 2, `no MCP server "nope"`},
		{[]string{"mcp", "remove", "-s", "local", "api"}, 2, `no MCP server "api" in the local config`},
		{[]string{"mcp", "get", "nope"}, 2, `no MCP server "nope" here`},
		{[]string{"mcp", "add", "fs", "--", "again"}, 2, `"fs" is already in the local config`},
	} {
		_, errOut, code := w.run(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%q: exit %d stderr %q, want %d and %q", tc.args, code, errOut, tc.code, tc.stderr)
		}
	}
	if out := w.must("mcp", "remove", "-s", "project", "api"); !strings.Contains(out, "File modified: "+mcpJSON) {
		t.Errorf("remove -s project api = %q", out)
	}
	if got := w.file(mcpJSON); !reflect.DeepEqual(got, map[string]any{"mcpServers": map[string]any{}}) {
		t.Errorf(".mcp.json after remove = %v", got)
	}
}

// TestMCPCommandFailures: a config file nova cannot parse is the person's
// to fix (2); a file that cannot be written is the machine's (1).
func TestMCPCommandFailures(t *testing.T) {
	w := newMCPCmdWorld(t)
	writeTestFile(t, filepath.Join(w.ws, ".mcp.json"), "{\n  \"mcpServers\": {\"a\": {\"command\": \"x\"},}\n}")
	for _, args := range [][]string{{"mcp", "list"}, {"mcp", "get", "a"}, {"mcp", "add", "-s", "project", "b", "--", "c"}} {
		_, errOut, code := w.run(args...)
		if code != 2 || !strings.Contains(errOut, ".mcp.json") || !strings.Contains(errOut, "line 2") {
			t.Errorf("%q with a broken .mcp.json: exit %d stderr %q", args, code, errOut)
		}
	}
	if err := os.WriteFile(filepath.Join(w.ws, ".mcp.json"), []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// NOVA_HOME is a file: nothing can be written under it.
	blocker := filepath.Join(w.home, "not-a-dir")
	writeTestFile(t, blocker, "")
	w.env["NOVA_HOME"] = blocker
	_, errOut, code := w.run("mcp", "add", "-s", "user", "x", "--", "c")
	if code != 1 || !strings.Contains(errOut, "not a directory") {
		t.Errorf("add with NOVA_HOME a file: exit %d stderr %q, want 1", code, errOut)
	}
}

// TestMCPListProbe: the seam the MCP client plugs into. With a probe,
// list and get show a status for the servers that may start, and never
// start the others.
func TestMCPListProbe(t *testing.T) {
	w := newMCPCmdWorld(t)
	writeTestFile(t, filepath.Join(w.ws, ".mcp.json"), `{"mcpServers": {"proj": {"command": "p"}}}`)
	w.must("mcp", "add", "good", "--", "g")
	w.must("mcp", "add", "bad", "--", "b")
	var mu sync.Mutex
	var probed []string
	probe := func(ctx context.Context, c config.ConfiguredMCP) (int, error) {
		mu.Lock()
		probed = append(probed, c.Name)
		mu.Unlock()
		if c.Name == "bad" {
			return 0, errors.New("exit status 1")
		}
		return 3, nil
	}
	var out, errOut bytes.Buffer
	if err := runMCPList(context.Background(), &mcpListOptions{io: w.streams(&out, &errOut), probe: probe}); err != nil {
		t.Fatal(err)
	}
	r := rows(out.String())
	if !strings.Contains(r["NAME"], "STATUS") || !strings.Contains(r["good"], "connected, 3 tools") || !strings.Contains(r["bad"], "failed: exit status 1") ||
		!strings.Contains(r["proj"], "not started") {
		t.Errorf("list with a probe =\n%s", out.String())
	}
	slices.Sort(probed)
	if !slices.Equal(probed, []string{"bad", "good"}) {
		t.Errorf("probed %v, want only the servers that may start", probed)
	}
	out.Reset()
	if err := runMCPGet(context.Background(), &mcpGetOptions{io: w.streams(&out, &errOut), name: "good", probe: probe}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Status:   connected, 3 tools") {
		t.Errorf("get with a probe = %q", out.String())
	}
}

// TestMCPE2E runs the built nova: a server added with nova mcp add is
// listed, and print mode refuses an --mcp-config that is not there.
func TestMCPE2E(t *testing.T) {
	e := newE2E(t)
	if r := e.run("", "mcp", "add", "-s", "project", "fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "."); r.code != 0 {
		t.Fatalf("mcp add: exit %d %s", r.code, r.stderr)
	}
	if got := e.read(".mcp.json"); !strings.Contains(got, `"command": "npx"`) {
		t.Errorf(".mcp.json = %s", got)
	}
	r := e.run("", "mcp", "list")
	if r.code != 0 || !strings.Contains(rows(r.stdout)["fs"], "untrusted") {
		t.Errorf("mcp list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = e.run("", "-p", "--mcp-config", "missing.json", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "--mcp-config missing.json: no such file") {
		t.Errorf("-p --mcp-config missing.json: exit %d stderr %q", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("the provider was called %d times for a refused command line", n)
	}
}
