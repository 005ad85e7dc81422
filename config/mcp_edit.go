package config

// mcp_edit.go: adding, removing and approving MCP servers in their files.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

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
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		// The sandbox's mount point for a missing .mcp.json (docs/sandbox.md).
		return fmt.Errorf("%s: %s is a directory, not a file: while a nova session here runs sandboxed commands, and for a minute after its last, an empty directory stands where a missing .mcp.json would be, so that no command can create one; try again once that session is idle or closed", op, path)
	}
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
