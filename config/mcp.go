package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// MCPServer is one MCP server entry in Claude Code's .mcp.json format.
type MCPServer struct {
	Type    string            `json:"type,omitempty"` // "stdio" (also when empty and Command is set), "http", "sse"
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Timeout is nova's per-call timeout in milliseconds (0: the default).
	Timeout int `json:"timeout,omitempty"`
}

// Transport is how nova talks to the server: "stdio" when Type is empty,
// else Type.
func (s MCPServer) Transport() string {
	if s.Type == "" {
		return MCPStdio
	}
	return s.Type
}

// The transports of MCPServer.Type.
const (
	MCPStdio = "stdio" // a local process on stdin and stdout
	MCPHTTP  = "http"  // Streamable HTTP
	MCPSSE   = "sse"   // the older HTTP+SSE transport
)

// MCPScope says where a server is configured.
type MCPScope string

const (
	MCPScopeLocal   MCPScope = "local"   // the user's, for this project only: NOVA_HOME/settings.json "projects"[<workspace>]."mcpServers"
	MCPScopeProject MCPScope = "project" // .mcp.json at the project root: the repository's words
	MCPScopeUser    MCPScope = "user"    // NOVA_HOME/settings.json "mcpServers"
	MCPScopeClaude  MCPScope = "claude"  // ~/.claude.json: "mcpServers" (user) and "projects"[<workspace>]."mcpServers" (Claude Code's local), read-only
	MCPScopeCLI     MCPScope = "cli"     // --mcp-config
	MCPScopePlugin  MCPScope = "plugin"  // a plugin's .mcp.json or plugin.json (MCPLoad.Plugins)
)

// ParseMCPScope returns the scope named s, one of those nova writes:
// local, project or user.
func ParseMCPScope(s string) (MCPScope, bool) {
	switch sc := MCPScope(s); sc {
	case MCPScopeLocal, MCPScopeProject, MCPScopeUser:
		return sc, true
	}
	return "", false
}

// MCPState says whether a configured server may start.
type MCPState string

const (
	MCPReady         MCPState = "ready"          // may start
	MCPNeedsApproval MCPState = "needs-approval" // a project server the person has not approved
	MCPRejected      MCPState = "rejected"       // a project server the person declined (disabledMcpjsonServers)
	MCPUntrusted     MCPState = "untrusted"      // a project server in a workspace that is not trusted
	MCPInvalid       MCPState = "invalid"        // the entry is wrong, or a ${VAR} without default is unset: Problem says why
)

// ConfiguredMCP is one server after loading: expanded, with where it came from and whether it may start.
type ConfiguredMCP struct {
	Name    string
	Server  MCPServer // ${VAR} expanded
	Scope   MCPScope
	Source  string // the file it came from ("--mcp-config <arg>" for inline JSON)
	State   MCPState
	Problem string // for MCPInvalid (and a reason in words for the other non-ready states)
}

// MCPLoad is what LoadMCP needs.
type MCPLoad struct {
	NovaHome, Workspace, Home string
	Getenv                    func(string) string
	Trusted                   bool      // the workspace is trusted (project grants apply)
	Settings                  *Settings // merged settings (enableAllProjectMcpServers, enabledMcpjsonServers, disabledMcpjsonServers)
	Configs                   []string  // --mcp-config values: a file path, or inline JSON (Claude Code accepts both; the Agent SDK passes inline JSON)
	Strict                    bool      // --strict-mcp-config: only Configs
	// Plugins are the servers of the session's plugins (package plugins
	// hands them over); --strict-mcp-config leaves them out too.
	Plugins []MCPPluginServers
}

// MCPPluginServers are the servers one file of a plugin configures. They
// are named plugin_<plugin>_<server> (their tools
// mcp__plugin_<plugin>_<server>__<tool>, as Claude Code names them), and
// start as the user's own: the plugins that load are the user's to choose.
type MCPPluginServers struct {
	Plugin, File string
	Servers      map[string]json.RawMessage
	// Vars are ${NAME} values the entries may use, also set in the
	// servers' environment (CLAUDE_PLUGIN_ROOT).
	Vars map[string]string
}

// ErrMCPServerNotFound is wrapped by the *InputError of RemoveMCPServer
// when no scope it edits has the server.
var ErrMCPServerNotFound = errors.New("MCP server not found")

// mcpName is the shape of a server name: its tools are called
// mcp__<server>__<tool>, which the providers accept only in these letters.
var mcpName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ValidMCPServerName reports whether name can name an MCP server: letters,
// digits, '_' and '-'.
func ValidMCPServerName(name string) bool { return mcpName.MatchString(name) }

func mcpNameProblem(name string) string {
	return fmt.Sprintf("server name %q: use only letters, digits, '_' and '-' (its tools are named mcp__<server>__<tool>)", name)
}

// CheckMCPServer returns why name and s cannot be added to a config file,
// as an *InputError, or nil. ${VAR} references are allowed anywhere
// LoadMCP expands them; a URL that holds one is checked once expanded.
func CheckMCPServer(name string, s MCPServer) error {
	if !ValidMCPServerName(name) {
		return &InputError{Reason: mcpNameProblem(name)}
	}
	if p := mcpEntryProblem(s, false); p != "" {
		return inputErrorf("MCP server %q: %s", name, p)
	}
	return nil
}

// mcpEntryProblem says what is wrong with s, or "". expanded says its
// ${VAR} references were expanded, so the URL must be a real one.
func mcpEntryProblem(s MCPServer, expanded bool) string {
	switch s.Type {
	case "", MCPStdio:
		if strings.TrimSpace(s.Command) != "" {
			break
		}
		if s.Type == "" && s.URL != "" {
			return `it has a url but no type: add "type": "http" (Streamable HTTP) or "type": "sse"`
		}
		return `a stdio server needs a "command"`
	case MCPHTTP, MCPSSE:
		if s.URL == "" {
			return fmt.Sprintf(`an %s server needs a "url"`, s.Type)
		}
		if !expanded && mcpVar.MatchString(s.URL) {
			break
		}
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("url %q is not an http or https URL", s.URL)
		}
	default:
		return fmt.Sprintf("unknown type %q (want stdio, http or sse)", s.Type)
	}
	if s.Timeout < 0 {
		return fmt.Sprintf("timeout %d: want milliseconds, or 0 for the default", s.Timeout)
	}
	return ""
}

// mcpVar is a ${VAR} or ${VAR:-default} reference (Claude Code's rule).
var mcpVar = regexp.MustCompile(`\$\{([^}]+)\}`)

// expandMCP returns s with ${VAR} and ${VAR:-default} expanded in the
// command, args, env values, url and header values, and the variables
// that are unset (or empty) and have no default, which stay as written.
func expandMCP(s MCPServer, getenv func(string) string) (MCPServer, []string) {
	var missing []string
	exp := func(v string) string {
		return mcpVar.ReplaceAllStringFunc(v, func(ref string) string {
			name, def, hasDef := strings.Cut(ref[2:len(ref)-1], ":-")
			if val := getenv(name); val != "" {
				return val
			}
			if hasDef {
				return def
			}
			if !contains(missing, name) {
				missing = append(missing, name)
			}
			return ref
		})
	}
	expMap := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k, v := range m {
			out[k] = exp(v)
		}
		return out
	}
	out := s
	out.Command = exp(s.Command)
	out.Args = nil
	for _, a := range s.Args {
		out.Args = append(out.Args, exp(a))
	}
	out.Env = expMap(s.Env)
	out.URL = exp(s.URL)
	out.Headers = expMap(s.Headers)
	sort.Strings(missing)
	return out, missing
}

// mcpSource is one file's (or one --mcp-config's) servers, as written.
type mcpSource struct {
	scope   MCPScope
	source  string
	data    []byte // the whole file, to place an entry's errors in it
	servers map[string]json.RawMessage
	vars    map[string]string // a plugin's: expanded first, and set in the environment
}

// LoadMCP reads every MCP source; a server name defined in several wins by
// precedence cli > local > project > user > claude (within claude, Claude
// Code's local entry over its user one; among --mcp-config values, the
// later). Sorted by name. A file that does not parse is an error naming
// file, line and column; one bad entry is MCPInvalid, not an error.
func LoadMCP(o MCPLoad) ([]ConfiguredMCP, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var sources []mcpSource // lowest precedence first
	if !o.Strict {
		for _, p := range o.Plugins {
			src := mcpSource{scope: MCPScopePlugin, source: p.File, vars: p.Vars, servers: map[string]json.RawMessage{}}
			for name, raw := range p.Servers {
				src.servers["plugin_"+p.Plugin+"_"+name] = raw
			}
			sources = append(sources, src)
		}
		// Claude Code keeps .claude.json in the home directory, or in
		// CLAUDE_CONFIG_DIR when that is set.
		dir := o.Home
		if getenv("CLAUDE_CONFIG_DIR") != "" {
			dir = ClaudeHome(getenv, o.Home)
		}
		if dir != "" {
			user, local, err := readMCPSettings(filepath.Join(dir, ".claude.json"), o.Workspace, MCPScopeClaude, MCPScopeClaude)
			if err != nil {
				return nil, err
			}
			sources = append(sources, user, local)
		}
		user, local, err := readMCPSettings(filepath.Join(o.NovaHome, "settings.json"), o.Workspace, MCPScopeUser, MCPScopeLocal)
		if err != nil {
			return nil, err
		}
		var project mcpSource
		if o.Workspace != "" { // else no project: never the process's directory
			if project, err = readMCPFile(filepath.Join(o.Workspace, ".mcp.json"), MCPScopeProject, false); err != nil {
				return nil, err
			}
		}
		sources = append(sources, user, project, local)
	}
	for _, arg := range o.Configs {
		src, err := readMCPConfigArg(arg, o.Workspace)
		if err != nil {
			return nil, err
		}
		sources = append(sources, src)
	}
	byName := map[string]ConfiguredMCP{}
	for _, src := range sources {
		for name, raw := range src.servers {
			byName[name] = configureMCP(src, name, raw, getenv, o)
		}
	}
	out := make([]ConfiguredMCP, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// configureMCP decodes, expands and checks one entry, and says whether it
// may start.
func configureMCP(src mcpSource, name string, raw json.RawMessage, getenv func(string) string, o MCPLoad) ConfiguredMCP {
	c := ConfiguredMCP{Name: name, Scope: src.scope, Source: src.source}
	invalid := func(problem string) ConfiguredMCP {
		c.State, c.Problem = MCPInvalid, problem
		return c
	}
	var s MCPServer
	if err := json.Unmarshal(raw, &s); err != nil {
		return invalid(describeAt(src.data, raw, err))
	}
	if src.vars != nil {
		outer := getenv
		getenv = func(k string) string {
			if v, ok := src.vars[k]; ok {
				return v
			}
			return outer(k)
		}
	}
	exp, missing := expandMCP(s, getenv)
	if src.vars != nil {
		env := map[string]string{}
		for k, v := range src.vars {
			env[k] = v
		}
		for k, v := range exp.Env {
			env[k] = v
		}
		exp.Env = env
	}
	c.Server = exp
	switch {
	case !ValidMCPServerName(name):
		return invalid(mcpNameProblem(name))
	case len(missing) > 0:
		refs := make([]string, len(missing))
		for i, m := range missing {
			refs[i] = "${" + m + "}"
		}
		return invalid(fmt.Sprintf("environment variable %s %s not set and %s %s no default (write ${%s:-value} for one)",
			strings.Join(missing, ", "), plural(len(missing), "is", "are"), strings.Join(refs, ", "), plural(len(missing), "has", "have"), missing[0]))
	}
	if p := mcpEntryProblem(exp, true); p != "" {
		return invalid(p)
	}
	c.State = MCPReady
	if src.scope != MCPScopeProject {
		return c
	}
	st := o.Settings
	if st == nil {
		st = &Settings{}
	}
	switch {
	case contains(st.DisabledMcpjsonServers, name):
		c.State, c.Problem = MCPRejected, "declined: disabledMcpjsonServers lists it"
	case !o.Trusted:
		c.State, c.Problem = MCPUntrusted, "this folder is not trusted, so the servers of its .mcp.json do not start (run `nova trust` or pass --trust)"
	case st.EnableAllProjectMcpServers != nil && *st.EnableAllProjectMcpServers, contains(st.EnabledMcpjsonServers, name):
	default:
		c.State, c.Problem = MCPNeedsApproval, "a server of this project's .mcp.json: it starts once you approve it (the terminal UI asks), or when enabledMcpjsonServers lists it"
	}
	return c
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// describeAt says where in data, the file raw was cut from, err
// (decoding raw) happened, in words: "args: want a list, not a JSON
// string (line 4, column 15)".
func describeAt(data []byte, raw json.RawMessage, err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	want, got := JSONTypeMismatch(te)
	msg := fmt.Sprintf("want %s, not %s", want, got)
	if te.Field != "" {
		msg = te.Field + ": " + msg
	}
	if base := bytes.Index(data, raw); base >= 0 {
		line, col := LineCol(data, int64(base)+te.Offset)
		msg += fmt.Sprintf(" (line %d, column %d)", line, col)
	}
	return msg
}

// JSONTypeMismatch says in words what a JSON value that did not decode
// should have been and what it was ("a list", "a string"): the one
// wording of every such error nova reports, in files and on the wire.
func JSONTypeMismatch(te *json.UnmarshalTypeError) (want, got string) {
	return jsonKind(te.Type), jsonValueName(te.Value)
}

// jsonKind names, for people, the JSON a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	}
	return t.String()
}

// jsonValueName names the kind of JSON value an *json.UnmarshalTypeError
// found ("string", "array", "number 5").
func jsonValueName(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "string", "number":
		return "a " + kind
	case "bool":
		return "true or false"
	}
	return v
}
