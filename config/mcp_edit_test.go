package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A project .mcp.json that is a directory (the sandbox's placeholder for
// a missing one) is refused with what it is and when to try again, and
// left as it was.
func TestAddMCPServerWherePlaceholderStands(t *testing.T) {
	novaHome, ws := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, ".mcp.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := AddMCPServer(novaHome, ws, MCPScopeProject, "t", MCPServer{Command: "true"})
	if err == nil || !strings.Contains(err.Error(), "is a directory") || !strings.Contains(err.Error(), "try again") {
		t.Fatalf("err = %v", err)
	}
	if fi, err := os.Stat(filepath.Join(ws, ".mcp.json")); err != nil || !fi.IsDir() {
		t.Errorf("the directory was not left as it was: %v", err)
	}
}
