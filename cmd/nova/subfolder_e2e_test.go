package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

// TestSubfolderFindsRepoRootCommandsE2E: started in sub/dir of a git
// repository, nova finds the commands and agents of .claude and .nova
// from the repository's root down to sub/dir, as Claude Code does; where
// two folders have one name the nearer wins.
func TestSubfolderFindsRepoRootCommandsE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Done."}, llmtest.Turn{Text: "Done."})
	if out, err := exec.Command("git", "init", "-q", e.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(e.ws, "sub", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(".claude/commands/x.md", "ROOT-X-COMMAND for $ARGUMENTS.\n")
	e.write(".nova/commands/clash.md", "ROOT-CLASH.\n")
	e.write("sub/.claude/commands/clash.md", "NEARER-CLASH.\n")
	e.write(".claude/agents/rooted.md", "---\nname: rooted\ndescription: ROOT-AGENT\n---\nPrompt.\n")
	if r := e.run("", "trust"); r.code != 0 {
		t.Fatalf("nova trust: %d %s", r.code, r.stderr)
	}
	r := e.runIn("sub/dir", "", "-p", "--output-format", "json", "/x here")
	if r.code != 0 {
		t.Fatalf("/x from sub/dir: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	body := string(e.srv.Requests()[0].Body)
	for _, want := range []string{"ROOT-X-COMMAND for here", "ROOT-AGENT"} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %s of the repository root:\n%s", want, body)
		}
	}
	r = e.runIn("sub/dir", "", "-p", "--output-format", "json", "/clash")
	if r.code != 0 {
		t.Fatalf("/clash: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if got := lastUserText(t, e.srv.Requests()[1]); !strings.Contains(got, "NEARER-CLASH") || strings.Contains(got, "ROOT-CLASH") {
		t.Errorf("/clash sent %q, want sub/'s command, the nearer", got)
	}
}
