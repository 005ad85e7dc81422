package live

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// TestSandboxPlaceholdersGoWithTheRuntime: the sandbox keeps the empty
// directories it binds where a path that runs later is missing (.vscode)
// from one Bash command to the next, and closing the runtime removes them,
// leaving the workspace as it was.
func TestSandboxPlaceholdersGoWithTheRuntime(t *testing.T) {
	srv := llmtest.New(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "Bash", Input: `{"command":"echo written > made.txt"}`}}},
		llmtest.Turn{Text: "ok"})
	t.Cleanup(srv.Close)
	home, ws := t.TempDir(), t.TempDir()
	if real, err := filepath.EvalSymlinks(ws); err == nil {
		ws = real
	}
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	rt, err := Build(context.Background(), Options{NovaHome: filepath.Join(home, ".nova"), Workdir: ws, Home: home,
		Getenv: func(k string) string { return env[k] }, Interactive: true, AllowedTools: []string{"Bash(echo:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	if rt.Setup.Sandbox == nil {
		rt.Close()
		t.Skipf("no sandbox here: %v", rt.Setup.SandboxErr)
	}
	for ev := range rt.Live.Run(context.Background(), llm.UserText("make a file")) {
		if ev.Type == agent.EventPermissionAsk {
			ev.Ask.Answer(agent.PermissionAnswer{Allow: true})
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "made.txt")); err != nil || string(b) != "written\n" {
		t.Fatalf("the command did not run: %q, %v", b, err)
	}
	if fi, err := os.Lstat(filepath.Join(ws, ".vscode")); err != nil || !fi.IsDir() {
		t.Fatalf("no .vscode placeholder kept between commands: %v", err)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "made.txt" {
			t.Errorf("%s left in the workspace after Close", e.Name())
		}
	}
}
