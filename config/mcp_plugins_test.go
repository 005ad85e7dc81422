package config

import (
	"encoding/json"
	"testing"
)

// TestMCPPluginServers: a plugin's servers are named
// plugin_<plugin>_<server>, ${CLAUDE_PLUGIN_ROOT} is substituted in them
// and set in their environment, and they start as the user's own.
func TestMCPPluginServers(t *testing.T) {
	o := MCPLoad{NovaHome: t.TempDir(), Workspace: t.TempDir(), Getenv: func(k string) string {
		return map[string]string{"TOKEN": "t0k"}[k]
	}, Plugins: []MCPPluginServers{{Plugin: "guard-kit", File: "/p/.mcp.json", Vars: map[string]string{"CLAUDE_PLUGIN_ROOT": "/p"},
		Servers: map[string]json.RawMessage{"where": json.RawMessage(`{"command": "python3", "args": ["${CLAUDE_PLUGIN_ROOT}/servers/where.py"], "env": {"WHERE_ROOT": "${CLAUDE_PLUGIN_ROOT}", "T": "${TOKEN}"}}`)}}}}
	list, err := LoadMCP(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("servers %+v", list)
	}
	c := list[0]
	if c.Name != "plugin_guard-kit_where" || c.Scope != MCPScopePlugin || c.State != MCPReady || c.Source != "/p/.mcp.json" {
		t.Errorf("%+v", c)
	}
	if c.Server.Args[0] != "/p/servers/where.py" || c.Server.Env["WHERE_ROOT"] != "/p" || c.Server.Env["CLAUDE_PLUGIN_ROOT"] != "/p" || c.Server.Env["T"] != "t0k" {
		t.Errorf("expanded %+v", c.Server)
	}
	o.Strict = true
	if list, _ := LoadMCP(o); len(list) != 0 {
		t.Errorf("--strict-mcp-config kept %+v", list)
	}
}
