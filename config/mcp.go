package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
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
		if o.Home != "" {
			user, local, err := readMCPSettings(filepath.Join(o.Home, ".claude.json"), o.Workspace, MCPScopeClaude, MCPScopeClaude)
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
	msg := fmt.Sprintf("want %s, not %s", jsonKind(te.Type), jsonValueName(te.Value))
	if te.Field != "" {
		msg = te.Field + ": " + msg
	}
	if base := bytes.Index(data, raw); base >= 0 {
		line, col := LineCol(data, int64(base)+te.Offset)
		msg += fmt.Sprintf(" (line %d, column %d)", line, col)
	}
	return msg
}

// jsonKind names, for people, the JSON a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
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

// mcpFileDoc is the part of a config file MCP servers live in.
type mcpFileDoc struct {
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	Projects   map[string]json.RawMessage `json:"projects"`
}

// parseMCPDoc decodes data into its servers; a document that does not
// parse, or whose mcpServers or projects is no object, is an error that
// starts with label ("MCP config <file>") and names line and column.
func parseMCPDoc(label string, data []byte) (mcpFileDoc, error) {
	var doc mcpFileDoc
	if len(bytes.TrimSpace(data)) == 0 {
		return doc, nil
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			line, col := LineCol(data, te.Offset)
			what := "the file"
			if te.Field != "" {
				what = `"` + te.Field + `"`
			}
			return doc, fmt.Errorf("%s: line %d, column %d: %s must be a JSON object, not %s", label, line, col, what, jsonValueName(te.Value))
		}
		return doc, fmt.Errorf("%s: %s", label, describeJSONError(data, err))
	}
	return doc, nil
}

// readFileIfAny reads path; a file that does not exist is nil.
func readFileIfAny(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read MCP config: %w", err)
	}
	return data, nil
}

// readMCPFile reads the top-level mcpServers of a file in .mcp.json's
// format; a missing file has none. need says the file must hold the key.
func readMCPFile(path string, scope MCPScope, need bool) (mcpSource, error) {
	src := mcpSource{scope: scope, source: path}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		// While a sandboxed command runs, a missing .mcp.json is an empty
		// directory, the mount point that keeps the command from creating
		// it (docs/sandbox.md): there is no file.
		return src, nil
	}
	data, err := readFileIfAny(path)
	if err != nil || data == nil {
		return src, err
	}
	doc, err := parseMCPDoc("MCP config "+path, data)
	if err != nil {
		return src, err
	}
	src.data, src.servers = data, doc.MCPServers
	return src, nil
}

// readMCPSettings reads a settings file's user servers (mcpServers) and
// the workspace's (projects[<workspace>].mcpServers).
func readMCPSettings(path, workspace string, userScope, localScope MCPScope) (user, local mcpSource, err error) {
	user = mcpSource{scope: userScope, source: path}
	local = mcpSource{scope: localScope, source: path}
	data, err := readFileIfAny(path)
	if err != nil || data == nil {
		return user, local, err
	}
	doc, err := parseMCPDoc("MCP config "+path, data)
	if err != nil {
		return user, local, err
	}
	user.data, user.servers = data, doc.MCPServers
	local.data = data
	if raw, ok := projectEntry(doc.Projects, workspace); ok {
		var entry struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(raw, &entry); err != nil {
			return user, local, fmt.Errorf("MCP config %s: projects entry of %s: %s", path, workspace, describeAt(data, raw, err))
		}
		local.servers = entry.MCPServers
	}
	return user, local, nil
}

// projectEntry finds workspace's entry of a projects map, under the path
// as given or as CanonicalDir spells it.
func projectEntry(projects map[string]json.RawMessage, workspace string) (json.RawMessage, bool) {
	if workspace == "" {
		return nil, false
	}
	for _, key := range []string{filepath.Clean(workspace), CanonicalDir(workspace)} {
		if raw, ok := projects[key]; ok {
			return raw, true
		}
	}
	return nil, false
}

// inlineMCPConfig reports whether an --mcp-config value is JSON rather
// than a file name.
func inlineMCPConfig(arg string) bool {
	return strings.HasPrefix(strings.TrimSpace(arg), "{")
}

// mcpInlineSource names inline JSON given to --mcp-config.
func mcpInlineSource(arg string) string {
	arg = strings.Join(strings.Fields(arg), " ")
	if r := []rune(arg); len(r) > 40 {
		arg = string(r[:39]) + "…"
	}
	return "--mcp-config " + arg
}

// readMCPConfigArg reads one --mcp-config value: inline JSON, or a file
// (relative to dir) in .mcp.json's format. Either must hold mcpServers.
func readMCPConfigArg(arg, dir string) (mcpSource, error) {
	src := mcpSource{scope: MCPScopeCLI}
	if inlineMCPConfig(arg) {
		src.source, src.data = mcpInlineSource(arg), []byte(arg)
	} else {
		src.source = arg
		if !filepath.IsAbs(arg) {
			src.source = filepath.Join(dir, arg)
		}
		data, err := os.ReadFile(src.source)
		if errors.Is(err, fs.ErrNotExist) {
			return src, fmt.Errorf("--mcp-config %s: no such file (inline JSON starts with {)", arg)
		}
		if err != nil {
			return src, fmt.Errorf("--mcp-config %s: %w", arg, err)
		}
		src.data = data
	}
	label := src.source
	if !inlineMCPConfig(arg) {
		label = "--mcp-config " + src.source
	}
	doc, err := parseMCPDoc(label, src.data)
	if err != nil {
		return src, err
	}
	if doc.MCPServers == nil {
		return src, fmt.Errorf(`%s: no "mcpServers" object (want {"mcpServers": {"<name>": {"command": ...}}})`, label)
	}
	src.servers = doc.MCPServers
	return src, nil
}

// ResolveMCPConfig checks one --mcp-config value as the command line is
// parsed: inline JSON must parse as an MCP config, and a file (relative to
// dir) must exist and parse. It returns the value to keep: the JSON as
// given, or the file's absolute path.
func ResolveMCPConfig(arg, dir string) (string, error) {
	if strings.TrimSpace(arg) == "" {
		return "", errors.New("--mcp-config: want a file or inline JSON, got nothing")
	}
	src, err := readMCPConfigArg(arg, dir)
	if err != nil {
		return "", err
	}
	if inlineMCPConfig(arg) {
		return arg, nil
	}
	return src.source, nil
}

// MCPFile is the file the servers of scope are kept in: NOVA_HOME's
// settings.json for local and user, <workspace>/.mcp.json for project; ""
// for a scope nova does not write.
func MCPFile(novaHome, workspace string, scope MCPScope) string {
	switch scope {
	case MCPScopeLocal, MCPScopeUser:
		return filepath.Join(novaHome, "settings.json")
	case MCPScopeProject:
		return filepath.Join(workspace, ".mcp.json")
	}
	return ""
}

// mcpWritable is the error for a scope nova does not edit.
func mcpWritable(scope MCPScope) error {
	if _, ok := ParseMCPScope(string(scope)); ok {
		return nil
	}
	switch scope {
	case MCPScopeClaude:
		return inputErrorf("~/.claude.json belongs to Claude Code: nova only reads it (claude mcp edits it)")
	case MCPScopeCLI:
		return inputErrorf("--mcp-config servers live in the files given on the command line: edit those")
	}
	return inputErrorf("unknown scope %q (want local, project or user)", scope)
}

// editMCPServers rewrites the servers of scope under the file's lock:
// change gets them as written (name -> entry) and says whether it changed
// anything. Every other key of the file, and of a server's entry, is kept.
func editMCPServers(novaHome, workspace string, scope MCPScope, op string, change func(servers map[string]json.RawMessage, path string) (bool, error)) error {
	if err := mcpWritable(scope); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if novaHome == "" || (workspace == "" && scope != MCPScopeUser) {
		return fmt.Errorf("%s: no NOVA_HOME or no workspace to find the %s config in", op, scope)
	}
	path := MCPFile(novaHome, workspace, scope)
	lockPath, perm := path+".lock", os.FileMode(0o600)
	dir := novaHome
	if scope == MCPScopeProject {
		// .mcp.json is committed and read by every tool that speaks MCP;
		// its lock stays out of the repository, in NOVA_HOME.
		sum := sha256.Sum256([]byte(CanonicalDir(path)))
		dir = filepath.Join(novaHome, "locks")
		lockPath, perm = filepath.Join(dir, "mcp-json-"+hex.EncodeToString(sum[:8])+".lock"), 0o644
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return editJSONFile(path, lockPath, op, false, perm, func(doc map[string]json.RawMessage) (bool, error) {
		if scope != MCPScopeLocal {
			servers, err := objectAt(doc, "mcpServers", path)
			if err != nil {
				return false, err
			}
			changed, err := change(servers, path)
			if err != nil || !changed {
				return false, err
			}
			// .mcp.json keeps its (maybe empty) mcpServers: that is the file.
			return true, putObject(doc, "mcpServers", servers, scope == MCPScopeProject)
		}
		projects, err := objectAt(doc, "projects", path)
		if err != nil {
			return false, err
		}
		key := CanonicalDir(workspace)
		for _, k := range []string{filepath.Clean(workspace), key} {
			if _, ok := projects[k]; ok {
				key = k // edit the entry where it is
				break
			}
		}
		entry, err := objectAt(projects, key, path)
		if err != nil {
			return false, err
		}
		servers, err := objectAt(entry, "mcpServers", path)
		if err != nil {
			return false, err
		}
		changed, err := change(servers, path)
		if err != nil || !changed {
			return false, err
		}
		if err := putObject(entry, "mcpServers", servers, false); err != nil {
			return false, err
		}
		if err := putObject(projects, key, entry, false); err != nil {
			return false, err
		}
		return true, putObject(doc, "projects", projects, false)
	})
}

// putObject sets doc[key] to obj, or removes the key when obj is empty
// and keepEmpty is false.
func putObject(doc map[string]json.RawMessage, key string, obj map[string]json.RawMessage, keepEmpty bool) error {
	if len(obj) == 0 && !keepEmpty {
		delete(doc, key)
		return nil
	}
	raw, err := json.Marshal(obj)
	doc[key] = raw
	return err
}

// mcpScopeNames describes where a scope's servers are kept, for errors.
func mcpScopeNames(novaHome, workspace string, scope MCPScope) string {
	if scope == MCPScopeLocal {
		return fmt.Sprintf("local config (%s, for %s)", MCPFile(novaHome, workspace, scope), workspace)
	}
	return fmt.Sprintf("%s config (%s)", scope, MCPFile(novaHome, workspace, scope))
}

// AddMCPServer / RemoveMCPServer edit the file of a scope (local and user:
// NOVA_HOME/settings.json; project: <workspace>/.mcp.json), atomically,
// keeping unknown keys, under the same lock other settings edits use (the
// .mcp.json lock lives in NOVA_HOME/locks). A name the scope already has,
// and a bad name or entry, are *InputErrors.
func AddMCPServer(novaHome, workspace string, scope MCPScope, name string, s MCPServer) error {
	if err := CheckMCPServer(name, s); err != nil {
		return fmt.Errorf("add MCP server: %w", err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("add MCP server: %w", err)
	}
	return editMCPServers(novaHome, workspace, scope, "add MCP server", func(servers map[string]json.RawMessage, path string) (bool, error) {
		if _, ok := servers[name]; ok {
			return false, inputErrorf("%q is already in the %s; remove it first (nova mcp remove -s %s %s)",
				name, mcpScopeNames(novaHome, workspace, scope), scope, name)
		}
		servers[name] = raw
		return true, nil
	})
}

// RemoveMCPServer removes name from the file of scope and returns the
// scope it was removed from. Remove with scope "" removes from the one
// scope that has it, and is an error naming the scopes when several do.
// A server in no scope it looked in is an *InputError wrapping
// ErrMCPServerNotFound.
func RemoveMCPServer(novaHome, workspace string, scope MCPScope, name string) (MCPScope, error) {
	const op = "remove MCP server"
	if scope == "" {
		var found []string
		for _, sc := range []MCPScope{MCPScopeLocal, MCPScopeProject, MCPScopeUser} {
			has, err := hasMCPServer(novaHome, workspace, sc, name)
			if err != nil {
				return "", fmt.Errorf("%s: %w", op, err)
			}
			if has {
				found = append(found, string(sc))
			}
		}
		switch len(found) {
		case 0:
			return "", fmt.Errorf("%s: %w", op, &InputError{Reason: fmt.Sprintf("no MCP server %q in the local, project or user config", name), Err: ErrMCPServerNotFound})
		case 1:
			scope = MCPScope(found[0])
		default:
			return "", fmt.Errorf("%s: %w", op, inputErrorf("%q is in the %s configs: say which with --scope (nova mcp remove -s %s %s)",
				name, strings.Join(found, " and "), found[0], name))
		}
	}
	err := editMCPServers(novaHome, workspace, scope, op, func(servers map[string]json.RawMessage, path string) (bool, error) {
		if _, ok := servers[name]; !ok {
			return false, &InputError{Reason: fmt.Sprintf("no MCP server %q in the %s", name, mcpScopeNames(novaHome, workspace, scope)), Err: ErrMCPServerNotFound}
		}
		delete(servers, name)
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return scope, nil
}

// hasMCPServer reports whether the file of scope names the server.
func hasMCPServer(novaHome, workspace string, scope MCPScope, name string) (bool, error) {
	var src mcpSource
	var err error
	switch scope {
	case MCPScopeProject:
		src, err = readMCPFile(MCPFile(novaHome, workspace, scope), scope, false)
	case MCPScopeUser:
		src, _, err = readMCPSettings(MCPFile(novaHome, workspace, scope), workspace, MCPScopeUser, MCPScopeLocal)
	default:
		_, src, err = readMCPSettings(MCPFile(novaHome, workspace, scope), workspace, MCPScopeUser, MCPScopeLocal)
	}
	_, ok := src.servers[name]
	return ok, err
}

// ApproveMCPServer records the person's answer for a project server in .nova/settings.local.json (enabledMcpjsonServers or disabledMcpjsonServers), atomically, keeping every other key.
// The name goes into one list and out of the other, under the lock
// AddLocalRule takes; the file is kept out of git as AddLocalRule keeps it.
func ApproveMCPServer(workspace, name string, approved bool) error {
	const op = "approve MCP server"
	if !ValidMCPServerName(name) {
		return fmt.Errorf("%s: %w", op, &InputError{Reason: mcpNameProblem(name)})
	}
	dir := filepath.Join(workspace, ".nova")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	path := filepath.Join(dir, "settings.local.json")
	in, out := "enabledMcpjsonServers", "disabledMcpjsonServers"
	if !approved {
		in, out = out, in
	}
	err := editJSONFile(path, path+".lock", op, false, 0o600, func(doc map[string]json.RawMessage) (bool, error) {
		added, err := setMember(doc, in, name, true, path)
		if err != nil {
			return false, err
		}
		removed, err := setMember(doc, out, name, false, path)
		return added || removed, err
	})
	if err != nil {
		return err
	}
	return ignoreLocalSettings(dir, op)
}

// setMember puts name into the list of strings doc[key] (present) or
// takes every copy of it out, dropping a list left empty; it reports
// whether the list changed.
func setMember(doc map[string]json.RawMessage, key, name string, present bool, path string) (bool, error) {
	var list []string
	if raw, ok := doc[key]; ok {
		if err := json.Unmarshal(raw, &list); err != nil {
			return false, fmt.Errorf("%s: %s is not a list of strings: %w", path, key, err)
		}
	}
	kept := make([]string, 0, len(list)+1)
	for _, s := range list {
		if s != name {
			kept = append(kept, s)
		}
	}
	if present {
		if len(kept) < len(list) {
			return false, nil // already there
		}
		kept = append(kept, name)
	} else if len(kept) == len(list) {
		return false, nil // not there
	}
	if len(kept) == 0 {
		delete(doc, key)
		return true, nil
	}
	raw, err := json.Marshal(kept)
	doc[key] = raw
	return true, err
}

// ParseMCPServer decodes one server entry (nova mcp add-json's argument);
// JSON that does not parse, or is not an entry, is an error with its line
// and column. Keys nova does not know are dropped.
func ParseMCPServer(data []byte) (MCPServer, error) {
	var s MCPServer
	if len(bytes.TrimSpace(data)) == 0 || bytes.TrimSpace(data)[0] != '{' {
		return s, errors.New(`want a JSON object: {"command": ..., "args": [...]} or {"type": "http", "url": ...}`)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return s, errors.New(describeAt(data, data, err))
		}
		return s, errors.New(describeJSONError(data, err))
	}
	return s, nil
}
