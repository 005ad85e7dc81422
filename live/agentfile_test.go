package live

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/skills"
)

// TestCreateAgentFileRefusesWhereItWouldNotLoad: in a folder not trusted a
// project agent file would be ignored, so none is written; the user's is;
// a name that is no agent name is refused.
func TestCreateAgentFileRefusesWhereItWouldNotLoad(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	rt := &Runtime{Skills: &skills.Manager{Dirs: skills.Dirs{Workdir: ws, ClaudeHome: filepath.Join(home, ".claude"), Trusted: false}}}
	if _, err := rt.CreateAgentFile("reviewer", false); err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Errorf("untrusted project agent: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".claude")); err == nil {
		t.Error("a project agent file was written in a folder not trusted")
	}
	if p, err := rt.CreateAgentFile("reviewer", true); err != nil || p != filepath.Join(home, ".claude", "agents", "reviewer.md") {
		t.Errorf("user agent: %q, %v", p, err)
	}
	for _, bad := range []string{"../x", "Reviewer", "a b", ""} {
		if _, err := rt.CreateAgentFile(bad, true); err == nil {
			t.Errorf("name %q was accepted", bad)
		}
	}
}
