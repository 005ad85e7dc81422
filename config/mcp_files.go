package config

// mcp_files.go: reading MCP server entries from .mcp.json, settings files and --mcp-config.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

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
