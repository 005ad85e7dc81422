package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// mcpWorld is a NOVA_HOME, a home and a workspace in temp dirs.
type mcpWorld struct {
	novaHome, home, ws string
}

func newMCPWorld(t *testing.T) *mcpWorld {
	t.Helper()
	home := CanonicalDir(t.TempDir())
	w := &mcpWorld{novaHome: filepath.Join(home, ".nova"), home: home, ws: filepath.Join(home, "src", "app")}
	if err := os.MkdirAll(w.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *mcpWorld) load(t *testing.T, o MCPLoad) []ConfiguredMCP {
	t.Helper()
	o.NovaHome, o.Workspace, o.Home = w.novaHome, w.ws, w.home
	got, err := LoadMCP(o)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func byName(list []ConfiguredMCP) map[string]ConfiguredMCP {
	m := map[string]ConfiguredMCP{}
	for _, c := range list {
		m[c.Name] = c
	}
	return m
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return v
}

// wantFile fails unless the JSON file at path holds the same value as
// the JSON text want.
func wantFile(t *testing.T, path, want string) {
	t.Helper()
	got := readJSON(t, path)
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(got, w) {
		data, _ := os.ReadFile(path)
		t.Errorf("%s =\n%s\nwant\n%s", path, data, want)
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// TestLoadMCPPrecedence: every source is read, and a name in several is
// taken from the highest: cli > local > project > user > claude.
func TestLoadMCPPrecedence(t *testing.T) {
	w := newMCPWorld(t)
	writeFile(t, filepath.Join(w.home, ".claude.json"), `{
  "numStartups": 12,
  "mcpServers": {"shared": {"command": "claude-user"}, "c-user": {"command": "cu"}, "c-both": {"command": "claude-user"}},
  "projects": {
    "`+w.ws+`": {"allowedTools": [], "mcpServers": {"shared": {"command": "claude-local"}, "c-both": {"command": "claude-local"}}},
    "/elsewhere": {"mcpServers": {"other-project": {"command": "x"}}}
  }
}`)
	settings := filepath.Join(w.novaHome, "settings.json")
	writeFile(t, settings, `{
  "permissions": {"allow": ["Read"]},
  "mcpServers": {"shared": {"command": "user"}, "n-user": {"type": "http", "url": "https://user.example/mcp"}},
  "projects": {"`+w.ws+`": {"mcpServers": {"shared": {"command": "local"}, "n-local": {"command": "l"}}}}
}`)
	writeFile(t, filepath.Join(w.ws, ".mcp.json"), `{"mcpServers": {"shared": {"command": "project"}, "proj": {"command": "p"}}}`)
	cliFile := filepath.Join(w.ws, "extra.json")
	writeFile(t, cliFile, `{"mcpServers": {"from-file": {"type": "sse", "url": "http://127.0.0.1:9/sse"}, "twice": {"command": "file"}}}`)

	all := w.load(t, MCPLoad{Trusted: true, Settings: &Settings{EnableAllProjectMcpServers: ptr(true)}})
	var names []string
	for _, c := range all {
		names = append(names, c.Name)
	}
	if want := []string{"c-both", "c-user", "n-local", "n-user", "proj", "shared"}; !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v (sorted, another project's servers left out)", names, want)
	}
	m := byName(all)
	for name, want := range map[string]struct {
		scope  MCPScope
		source string
		cmd    string
	}{
		"shared":  {MCPScopeLocal, settings, "local"},
		"c-both":  {MCPScopeClaude, filepath.Join(w.home, ".claude.json"), "claude-local"},
		"c-user":  {MCPScopeClaude, filepath.Join(w.home, ".claude.json"), "cu"},
		"n-local": {MCPScopeLocal, settings, "l"},
		"n-user":  {MCPScopeUser, settings, ""},
		"proj":    {MCPScopeProject, filepath.Join(w.ws, ".mcp.json"), "p"},
	} {
		c := m[name]
		if c.Scope != want.scope || c.Source != want.source || c.Server.Command != want.cmd || c.State != MCPReady {
			t.Errorf("%s = %+v, want scope %s source %s command %q, ready", name, c, want.scope, want.source, want.cmd)
		}
	}
	if m["n-user"].Server.Transport() != MCPHTTP || m["proj"].Server.Transport() != MCPStdio {
		t.Errorf("transports %q %q", m["n-user"].Server.Transport(), m["proj"].Server.Transport())
	}

	// --mcp-config beats them all; among several, the later wins.
	inline := `{"mcpServers": {"shared": {"command": "cli"}, "twice": {"command": "inline"}}}`
	m = byName(w.load(t, MCPLoad{Trusted: true, Configs: []string{"extra.json", inline}}))
	if c := m["shared"]; c.Scope != MCPScopeCLI || c.Server.Command != "cli" || !strings.HasPrefix(c.Source, "--mcp-config {") {
		t.Errorf("shared with --mcp-config = %+v", c)
	}
	if c := m["twice"]; c.Server.Command != "inline" {
		t.Errorf("twice = %+v, want the later --mcp-config's", c)
	}
	if c := m["from-file"]; c.Source != cliFile || c.State != MCPReady || c.Server.URL != "http://127.0.0.1:9/sse" {
		t.Errorf("from-file = %+v (a relative --mcp-config is relative to the workspace)", c)
	}
	if len(m) != 8 {
		t.Errorf("%d servers, want the 6 configured and 2 from --mcp-config", len(m))
	}

	// --strict-mcp-config: only the command line's.
	strict := w.load(t, MCPLoad{Trusted: true, Strict: true, Configs: []string{inline}})
	if len(strict) != 2 || strict[0].Name != "shared" || strict[0].Scope != MCPScopeCLI || strict[1].Name != "twice" {
		t.Errorf("strict = %+v, want only the inline config's two", strict)
	}
	if none := w.load(t, MCPLoad{Strict: true}); len(none) != 0 {
		t.Errorf("strict with no --mcp-config = %+v, want none", none)
	}
}

func ptr[T any](v T) *T { return &v }

// TestLoadMCPProjectApproval: a .mcp.json server starts only in a trusted
// workspace and once approved (by name, or all of them); a declined one
// never does.
func TestLoadMCPProjectApproval(t *testing.T) {
	w := newMCPWorld(t)
	writeFile(t, filepath.Join(w.ws, ".mcp.json"), `{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}, "c": {"command": "c"}}}`)
	writeFile(t, filepath.Join(w.novaHome, "settings.json"), `{"mcpServers": {"mine": {"command": "m"}}}`)
	states := func(o MCPLoad) string {
		var parts []string
		for _, c := range w.load(t, o) {
			parts = append(parts, c.Name+"="+string(c.State))
			if c.State != MCPReady && c.Problem == "" {
				t.Errorf("%s is %s with no reason in words", c.Name, c.State)
			}
		}
		return strings.Join(parts, " ")
	}
	for _, tc := range []struct {
		name string
		o    MCPLoad
		want string
	}{
		{"untrusted", MCPLoad{Settings: &Settings{EnabledMcpjsonServers: []string{"a"}, EnableAllProjectMcpServers: ptr(true)}},
			"a=untrusted b=untrusted c=untrusted mine=ready"},
		{"trusted, nothing approved", MCPLoad{Trusted: true}, "a=needs-approval b=needs-approval c=needs-approval mine=ready"},
		{"trusted, a approved, b declined", MCPLoad{Trusted: true, Settings: &Settings{EnabledMcpjsonServers: []string{"a", "b"}, DisabledMcpjsonServers: []string{"b"}}},
			"a=ready b=rejected c=needs-approval mine=ready"},
		{"trusted, all enabled but one declined", MCPLoad{Trusted: true, Settings: &Settings{EnableAllProjectMcpServers: ptr(true), DisabledMcpjsonServers: []string{"c"}}},
			"a=ready b=ready c=rejected mine=ready"},
		{"enableAll false", MCPLoad{Trusted: true, Settings: &Settings{EnableAllProjectMcpServers: ptr(false)}},
			"a=needs-approval b=needs-approval c=needs-approval mine=ready"},
		{"declined, untrusted", MCPLoad{Settings: &Settings{DisabledMcpjsonServers: []string{"a"}}}, "a=rejected b=untrusted c=untrusted mine=ready"},
		// Naming .mcp.json on the command line is the person's approval.
		{"named by --mcp-config", MCPLoad{Configs: []string{".mcp.json"}}, "a=ready b=ready c=ready mine=ready"},
	} {
		if got := states(tc.o); got != tc.want {
			t.Errorf("%s: %s\nwant %s", tc.name, got, tc.want)
		}
	}
	// The approvals as LoadSettings reads them from .nova/settings.local.json.
	if err := ApproveMCPServer(w.ws, "b", true); err != nil {
		t.Fatal(err)
	}
	if err := ApproveMCPServer(w.ws, "c", false); err != nil {
		t.Fatal(err)
	}
	for _, trusted := range []bool{true, false} {
		st, _, err := LoadSettings(w.novaHome, w.ws, w.home, trusted)
		if err != nil {
			t.Fatal(err)
		}
		want := "a=needs-approval b=ready c=rejected mine=ready"
		if !trusted {
			want = "a=untrusted b=untrusted c=rejected mine=ready"
		}
		if got := states(MCPLoad{Trusted: trusted, Settings: st}); got != want {
			t.Errorf("after approving b and declining c (trusted %v): %s\nwant %s", trusted, got, want)
		}
	}
}

func TestLoadMCPExpansion(t *testing.T) {
	w := newMCPWorld(t)
	writeFile(t, filepath.Join(w.ws, ".mcp.json"), `{"mcpServers": {
  "gh": {"type": "http", "url": "${GH_URL:-https://api.example.com}/mcp",
         "headers": {"Authorization": "Bearer ${GH_TOKEN}", "X-${GH_TOKEN}": "k"}},
  "fs": {"command": "${TOOLS}/fs", "args": ["--root", "${ROOT:-/tmp}", "${ROOT}"], "env": {"KEY": "${SECRET}", "${SECRET}": "v", "PLAIN": "$SECRET"}},
  "bad": {"command": "x", "args": ["${NOPE}", "${ALSO_NOPE}", "${NOPE}"]},
  "empty": {"command": "x", "env": {"A": "${EMPTY}"}}
}}`)
	env := map[string]string{"GH_TOKEN": "t0k", "TOOLS": "/opt/tools", "SECRET": "s3", "EMPTY": ""}
	m := byName(w.load(t, MCPLoad{Trusted: true, Settings: &Settings{EnableAllProjectMcpServers: ptr(true)}, Getenv: func(k string) string { return env[k] }}))
	gh := m["gh"]
	if gh.State != MCPReady || gh.Server.URL != "https://api.example.com/mcp" || gh.Server.Headers["Authorization"] != "Bearer t0k" || gh.Server.Headers["X-${GH_TOKEN}"] != "k" {
		t.Errorf("gh = %+v: the default fills an unset variable; header values expand, names do not", gh)
	}
	// ${ROOT} has a default in the second arg, none in the third: the
	// server is invalid, and what could be expanded is.
	fs := m["fs"]
	if fs.State != MCPInvalid || !strings.Contains(fs.Problem, "ROOT") || strings.Contains(fs.Problem, "SECRET") {
		t.Errorf("fs = %+v, want invalid naming ROOT", fs)
	}
	if fs.Server.Command != "/opt/tools/fs" || !slices.Equal(fs.Server.Args, []string{"--root", "/tmp", "${ROOT}"}) || fs.Server.Env["KEY"] != "s3" || fs.Server.Env["${SECRET}"] != "v" || fs.Server.Env["PLAIN"] != "$SECRET" {
		t.Errorf("fs expanded = %+v: command, args and env values expand; env names and $VAR without braces do not", fs.Server)
	}
	bad := m["bad"]
	if bad.State != MCPInvalid || !strings.Contains(bad.Problem, "ALSO_NOPE, NOPE are not set") || bad.Server.Args[0] != "${NOPE}" {
		t.Errorf("bad = %+v, want invalid naming both variables once", bad)
	}
	if e := m["empty"]; e.State != MCPInvalid || !strings.Contains(e.Problem, "EMPTY is not set") {
		t.Errorf("empty = %+v: an empty variable counts as unset", e)
	}
}

// TestLoadMCPInvalidEntries: a bad entry is MCPInvalid with a reason; the
// file's other servers still load.
func TestLoadMCPInvalidEntries(t *testing.T) {
	w := newMCPWorld(t)
	writeFile(t, filepath.Join(w.novaHome, "settings.json"), `{"mcpServers": {
  "good": {"command": "ok", "someFutureKey": true},
  "bad name": {"command": "x"},
  "mcp.dots": {"command": "x"},
  "nocmd": {"args": ["a"]},
  "urlonly": {"url": "https://example.com/mcp"},
  "weird": {"type": "websocket", "url": "wss://x"},
  "nourl": {"type": "http"},
  "ftp": {"type": "sse", "url": "ftp://example.com"},
  "relurl": {"type": "http", "url": "/mcp"},
  "argstr": {"command": "x",
     "args": "not a list"},
  "notobj": "npx server",
  "neg": {"command": "x", "timeout": -1}
}}`)
	m := byName(w.load(t, MCPLoad{}))
	if c := m["good"]; c.State != MCPReady || c.Problem != "" {
		t.Errorf("good = %+v", c)
	}
	for name, want := range map[string]string{
		"bad name": "mcp__<server>__<tool>",
		"mcp.dots": "letters, digits, '_' and '-'",
		"nocmd":    `needs a "command"`,
		"urlonly":  `add "type": "http"`,
		"weird":    `unknown type "websocket"`,
		"nourl":    `needs a "url"`,
		"ftp":      "not an http or https URL",
		"relurl":   "not an http or https URL",
		"argstr":   "args: want a list, not a string (line 12, column 26)",
		"notobj":   "want an object, not a string",
		"neg":      "timeout -1",
	} {
		c, ok := m[name]
		if !ok || c.State != MCPInvalid || !strings.Contains(c.Problem, want) {
			t.Errorf("%s = %+v, want invalid with %q", name, c, want)
		}
	}
}

// TestLoadMCPBrokenFiles: a file that does not parse stops the load with
// its name, line and column.
func TestLoadMCPBrokenFiles(t *testing.T) {
	for _, tc := range []struct {
		file, content, want string
	}{
		{".mcp.json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", "line 3, column 27"},
		{".mcp.json", `{"mcpServers": ["a"]}`, `line 1, column 17: "mcpServers" must be a JSON object, not a list`},
		{".mcp.json", `[]`, "the file must be a JSON object"},
		{"settings.json", `{"mcpServers": {}, "projects": {"WS": {"mcpServers": 3}}}`, "projects entry of"},
		{".claude.json", `{"mcpServers": {`, "line 1, column 17"},
	} {
		w := newMCPWorld(t)
		path := map[string]string{".mcp.json": filepath.Join(w.ws, ".mcp.json"), "settings.json": filepath.Join(w.novaHome, "settings.json"),
			".claude.json": filepath.Join(w.home, ".claude.json")}[tc.file]
		writeFile(t, path, strings.ReplaceAll(tc.content, "WS", w.ws))
		_, err := LoadMCP(MCPLoad{NovaHome: w.novaHome, Workspace: w.ws, Home: w.home})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: error %v, want it to name the file and %q", tc.file, tc.content, err, tc.want)
		}
	}
	// A directory at .mcp.json is the sandbox's placeholder for a missing
	// one: no servers, and no error.
	w := newMCPWorld(t)
	if err := os.Mkdir(filepath.Join(w.ws, ".mcp.json"), 0o555); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadMCP(MCPLoad{NovaHome: w.novaHome, Workspace: w.ws, Home: w.home}); err != nil || len(got) != 0 {
		t.Errorf("a directory at .mcp.json: %+v, %v; want no servers and no error", got, err)
	}
	// --strict-mcp-config reads none of them.
	w = newMCPWorld(t)
	writeFile(t, filepath.Join(w.ws, ".mcp.json"), `{`)
	if _, err := LoadMCP(MCPLoad{NovaHome: w.novaHome, Workspace: w.ws, Home: w.home, Strict: true}); err != nil {
		t.Errorf("strict read .mcp.json: %v", err)
	}
	// No workspace: no .mcp.json, not even the process's own.
	t.Chdir(w.ws)
	if got, err := LoadMCP(MCPLoad{NovaHome: w.novaHome}); err != nil || len(got) != 0 {
		t.Errorf("no workspace: %+v %v, want nothing read from the working directory", got, err)
	}
	if err := AddMCPServer(w.novaHome, "", MCPScopeProject, "x", MCPServer{Command: "x"}); err == nil {
		t.Error("added to the project config of no workspace")
	}
	// No home: no ~/.claude.json, and no error.
	if _, err := LoadMCP(MCPLoad{NovaHome: w.novaHome, Workspace: w.ws, Configs: []string{`{"mcpServers": {}}`}, Strict: true}); err != nil {
		t.Errorf("no home: %v", err)
	}
}

func TestResolveMCPConfig(t *testing.T) {
	dir := CanonicalDir(t.TempDir())
	writeFile(t, filepath.Join(dir, "ok.json"), `{"mcpServers": {"a": {"command": "a"}}}`)
	writeFile(t, filepath.Join(dir, "broken.json"), `{"mcpServers": {"a": }}`)
	writeFile(t, filepath.Join(dir, "nokey.json"), `{"a": {"command": "a"}}`)
	inline := ` {"mcpServers": {"a": {"type": "http", "url": "https://x"}}}`
	for _, tc := range []struct {
		arg, want, err string
	}{
		{arg: "ok.json", want: filepath.Join(dir, "ok.json")},
		{arg: filepath.Join(dir, "ok.json"), want: filepath.Join(dir, "ok.json")},
		{arg: inline, want: inline},
		{arg: "missing.json", err: "--mcp-config missing.json: no such file"},
		{arg: "broken.json", err: "broken.json: line 1, column 23"},
		{arg: "nokey.json", err: `no "mcpServers" object`},
		{arg: `{"mcpServers": {"a": {"command": 1}}`, err: "--mcp-config {"},
		{arg: `{"mcpServers": 5}`, err: `"mcpServers" must be a JSON object`},
		{arg: "  ", err: "got nothing"},
	} {
		got, err := ResolveMCPConfig(tc.arg, dir)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: error %v, want %q", tc.arg, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%q = %q, %v; want %q", tc.arg, got, err, tc.want)
		}
	}
}

func TestApproveMCPServer(t *testing.T) {
	w := newMCPWorld(t)
	path := filepath.Join(w.ws, ".nova", "settings.local.json")
	if err := ApproveMCPServer(w.ws, "db", true); err != nil {
		t.Fatal(err)
	}
	wantFile(t, path, `{"enabledMcpjsonServers": ["db"]}`)
	if m := mode(t, path); m != 0o600 {
		t.Errorf("new settings.local.json mode %o, want 600", m)
	}
	if data, err := os.ReadFile(filepath.Join(w.ws, ".nova", ".gitignore")); err != nil || string(data) != "settings.local.json\n" {
		t.Errorf(".gitignore %q %v", data, err)
	}

	// Another key, a rule and a mode of the person's own stay as they are.
	writeFile(t, path, `{"permissions": {"allow": ["Bash(make)"]}, "zz": {"keep": [1, 2]}, "enabledMcpjsonServers": ["db", "web"]}`)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := ApproveMCPServer(w.ws, "db", false); err != nil {
		t.Fatal(err)
	}
	wantFile(t, path, `{"permissions": {"allow": ["Bash(make)"]}, "zz": {"keep": [1, 2]}, "enabledMcpjsonServers": ["web"], "disabledMcpjsonServers": ["db"]}`)
	if m := mode(t, path); m != 0o640 {
		t.Errorf("mode %o, want the file's own 640 kept", m)
	}
	// Approving again moves it back; approving twice writes nothing new.
	for range 2 {
		if err := ApproveMCPServer(w.ws, "db", true); err != nil {
			t.Fatal(err)
		}
	}
	wantFile(t, path, `{"permissions": {"allow": ["Bash(make)"]}, "zz": {"keep": [1, 2]}, "enabledMcpjsonServers": ["web", "db"]}`)
	if err := ApproveMCPServer(w.ws, "no good", true); err == nil || !strings.Contains(err.Error(), "mcp__<server>__<tool>") {
		t.Errorf("bad name: %v", err)
	}
	writeFile(t, path, `{"enabledMcpjsonServers": "db"}`)
	if err := ApproveMCPServer(w.ws, "x", true); err == nil || !strings.Contains(err.Error(), "not a list of strings") {
		t.Errorf("a list that is not one: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != `{"enabledMcpjsonServers": "db"}` {
		t.Errorf("a file nova could not edit was rewritten: %s", data)
	}
}

func TestAddMCPServer(t *testing.T) {
	w := newMCPWorld(t)
	settings := filepath.Join(w.novaHome, "settings.json")
	mcpJSON := filepath.Join(w.ws, ".mcp.json")
	fs := MCPServer{Type: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Env: map[string]string{"K": "${K:-v}"}}
	web := MCPServer{Type: "http", URL: "${BASE}/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}

	// New files: settings.json private to the user, .mcp.json for the repository.
	if err := AddMCPServer(w.novaHome, w.ws, MCPScopeLocal, "fs", fs); err != nil {
		t.Fatal(err)
	}
	if err := AddMCPServer(w.novaHome, w.ws, MCPScopeProject, "web", web); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, settings); m != 0o600 {
		t.Errorf("settings.json mode %o, want 600", m)
	}
	if m := mode(t, mcpJSON); m != 0o644 {
		t.Errorf(".mcp.json mode %o, want 644", m)
	}
	if entries, _ := os.ReadDir(w.ws); len(entries) != 1 {
		t.Errorf("workspace holds %v, want only .mcp.json (no lock file in the repository)", entries)
	}
	wantFile(t, settings, `{"projects": {"`+w.ws+`": {"mcpServers": {"fs": {"type": "stdio", "command": "npx",
 "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"K": "${K:-v}"}}}}}}`)
	wantFile(t, mcpJSON, `{"mcpServers": {"web": {"type": "http", "url": "${BASE}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}}}`)

	// Existing files: every key nova does not edit stays.
	writeFile(t, settings, `{"permissions": {"deny": ["WebFetch"]}, "future": 1,
 "mcpServers": {"old": {"command": "o", "extra": "kept"}},
 "projects": {"/other": {"mcpServers": {"x": {"command": "x"}}}, "`+w.ws+`": {"note": "mine"}}}`)
	writeFile(t, mcpJSON, `{"$schema": "https://example.com/schema", "mcpServers": {"keep": {"command": "k", "oauth": {"clientId": "abc"}}}}`)
	if err := AddMCPServer(w.novaHome, w.ws, MCPScopeUser, "u", MCPServer{Command: "u"}); err != nil {
		t.Fatal(err)
	}
	if err := AddMCPServer(w.novaHome, w.ws, MCPScopeLocal, "l", MCPServer{Command: "l"}); err != nil {
		t.Fatal(err)
	}
	if err := AddMCPServer(w.novaHome, w.ws, MCPScopeProject, "p", MCPServer{Type: "sse", URL: "https://p.example/sse"}); err != nil {
		t.Fatal(err)
	}
	wantFile(t, settings, `{"permissions": {"deny": ["WebFetch"]}, "future": 1,
 "mcpServers": {"old": {"command": "o", "extra": "kept"}, "u": {"command": "u"}},
 "projects": {"/other": {"mcpServers": {"x": {"command": "x"}}}, "`+w.ws+`": {"note": "mine", "mcpServers": {"l": {"command": "l"}}}}}`)
	wantFile(t, mcpJSON, `{"$schema": "https://example.com/schema", "mcpServers": {"keep": {"command": "k", "oauth": {"clientId": "abc"}},
 "p": {"type": "sse", "url": "https://p.example/sse"}}}`)
	// What was added loads.
	m := byName(w.load(t, MCPLoad{Trusted: true, Getenv: func(string) string { return "" }}))
	if m["l"].Scope != MCPScopeLocal || m["u"].Scope != MCPScopeUser || m["p"].Scope != MCPScopeProject || m["p"].State != MCPNeedsApproval {
		t.Errorf("loaded %+v", m)
	}
	// settings.json with MCP servers in it still loads as settings.
	if st, _, err := LoadSettings(w.novaHome, w.ws, w.home, true); err != nil || !slices.Equal(st.Permissions.Deny, []string{"WebFetch"}) {
		t.Errorf("LoadSettings after adding servers: %v %+v", err, st)
	}

	// Refusals are *InputErrors and change nothing.
	before, _ := os.ReadFile(settings)
	for _, tc := range []struct {
		scope MCPScope
		name  string
		s     MCPServer
		want  string
	}{
		{MCPScopeUser, "u", MCPServer{Command: "again"}, `"u" is already in the user config`},
		{MCPScopeLocal, "l", MCPServer{Command: "again"}, `"l" is already in the local config`},
		{MCPScopeUser, "a b", MCPServer{Command: "x"}, "mcp__<server>__<tool>"},
		{MCPScopeUser, "h", MCPServer{Type: "http", URL: "localhost:8080"}, "not an http or https URL"},
		{MCPScopeUser, "h", MCPServer{Type: "grpc", URL: "https://x"}, `unknown type "grpc"`},
		{MCPScopeUser, "h", MCPServer{}, `needs a "command"`},
		{MCPScopeClaude, "c", MCPServer{Command: "x"}, "nova only reads it"},
		{MCPScopeCLI, "c", MCPServer{Command: "x"}, "--mcp-config"},
		{"global", "c", MCPServer{Command: "x"}, `unknown scope "global"`},
	} {
		err := AddMCPServer(w.novaHome, w.ws, tc.scope, tc.name, tc.s)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("add %s %q %+v: %v, want an InputError with %q", tc.scope, tc.name, tc.s, err, tc.want)
		}
	}
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		t.Errorf("a refused add changed settings.json:\n%s", after)
	}
	// A file that does not parse is left alone.
	writeFile(t, mcpJSON, `{"mcpServers": `)
	if err := AddMCPServer(w.novaHome, w.ws, MCPScopeProject, "x", MCPServer{Command: "x"}); err == nil || !strings.Contains(err.Error(), "line 1, column 16") {
		t.Errorf("add to a broken .mcp.json: %v", err)
	}
	if data, _ := os.ReadFile(mcpJSON); string(data) != `{"mcpServers": ` {
		t.Errorf("broken .mcp.json rewritten: %s", data)
	}
}

func TestRemoveMCPServer(t *testing.T) {
	w := newMCPWorld(t)
	settings := filepath.Join(w.novaHome, "settings.json")
	mcpJSON := filepath.Join(w.ws, ".mcp.json")
	writeFile(t, settings, `{"env": {"A": "1"},
 "mcpServers": {"both": {"command": "u"}, "solo": {"command": "s"}},
 "projects": {"`+w.ws+`": {"mcpServers": {"both": {"command": "l"}, "mine": {"command": "m"}}}, "/other": {"mcpServers": {"mine": {"command": "o"}}}}}`)
	writeFile(t, mcpJSON, `{"mcpServers": {"both": {"command": "p"}, "team": {"command": "t"}}, "x-note": "kept"}`)
	writeFile(t, filepath.Join(w.home, ".claude.json"), `{"mcpServers": {"claudes": {"command": "c"}}}`)

	// In one scope: found there.
	for _, tc := range []struct{ name, want string }{{"solo", "user"}, {"team", "project"}, {"mine", "local"}} {
		sc, err := RemoveMCPServer(w.novaHome, w.ws, "", tc.name)
		if err != nil || string(sc) != tc.want {
			t.Errorf("remove %s: %q %v, want from %s", tc.name, sc, err, tc.want)
		}
	}
	// In several: which?
	_, err := RemoveMCPServer(w.novaHome, w.ws, "", "both")
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "local and project and user") || !strings.Contains(err.Error(), "--scope") {
		t.Errorf("remove both: %v, want an InputError naming the three scopes", err)
	}
	if sc, err := RemoveMCPServer(w.novaHome, w.ws, MCPScopeProject, "both"); err != nil || sc != MCPScopeProject {
		t.Errorf("remove -s project both: %q %v", sc, err)
	}
	// Nowhere: ~/.claude.json is not nova's to edit, and a scope without it says so.
	for _, tc := range []struct {
		scope MCPScope
		name  string
	}{{"", "claudes"}, {"", "nope"}, {MCPScopeProject, "solo"}, {MCPScopeLocal, "team"}} {
		_, err := RemoveMCPServer(w.novaHome, w.ws, tc.scope, tc.name)
		if !errors.Is(err, ErrMCPServerNotFound) || !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("remove -s %q %s: %v, want ErrMCPServerNotFound", tc.scope, tc.name, err)
		}
	}
	if _, err := RemoveMCPServer(w.novaHome, w.ws, MCPScopeClaude, "claudes"); err == nil || !strings.Contains(err.Error(), "nova only reads it") {
		t.Errorf("remove -s claude: %v", err)
	}

	wantFile(t, settings, `{"env": {"A": "1"}, "mcpServers": {"both": {"command": "u"}},
 "projects": {"`+w.ws+`": {"mcpServers": {"both": {"command": "l"}}}, "/other": {"mcpServers": {"mine": {"command": "o"}}}}}`)
	// .mcp.json keeps an empty mcpServers, and its other key.
	wantFile(t, mcpJSON, `{"mcpServers": {}, "x-note": "kept"}`)
	// The last local server goes with its (then empty) project entry; the
	// last user server with mcpServers.
	for _, sc := range []MCPScope{MCPScopeLocal, MCPScopeUser} {
		if _, err := RemoveMCPServer(w.novaHome, w.ws, sc, "both"); err != nil {
			t.Fatal(err)
		}
	}
	wantFile(t, settings, `{"env": {"A": "1"}, "projects": {"/other": {"mcpServers": {"mine": {"command": "o"}}}}}`)
	// Nothing there, no file: nothing is created.
	empty := newMCPWorld(t)
	if _, err := RemoveMCPServer(empty.novaHome, empty.ws, MCPScopeProject, "x"); !errors.Is(err, ErrMCPServerNotFound) {
		t.Errorf("remove from no .mcp.json: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty.ws, ".mcp.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("removing from a missing .mcp.json created it: %v", err)
	}
}

// TestAddMCPServerConcurrent: edits by several processes at once lose
// nothing (each call takes the lock, as another process would).
func TestAddMCPServerConcurrent(t *testing.T) {
	w := newMCPWorld(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if err := AddMCPServer(w.novaHome, w.ws, MCPScopeUser, fmt.Sprintf("s%d", i), MCPServer{Command: "x"}); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if err := AddMCPServer(w.novaHome, w.ws, MCPScopeProject, fmt.Sprintf("p%d", i), MCPServer{Command: "x"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(w.load(t, MCPLoad{})); n != 16 {
		t.Errorf("%d servers after 16 concurrent adds", n)
	}
}
