package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

func TestScratchRecordSessionStart(t *testing.T) {
	exe, _ := filepath.Abs("../../headless/testdata/agentsdk/node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude")
	e := newE2E(t, llmtest.Turn{Text: "done"})
	e.write(".claude/settings.json", `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "echo ss-out"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo ups-out"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo stop-out"}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "echo se-out"}]}]
}}`)
	cmd := exec.Command(exe, "-p", "say hi", "--output-format", "stream-json", "--verbose", "--include-hook-events")
	cmd.Dir = e.ws
	cmd.Env = append(e.env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	out, _ := cmd.CombinedOutput()
	os.WriteFile("/tmp/claude-ss.jsonl", out, 0o644)
	cmd = exec.Command(exe, "-p", "say hi", "--output-format", "stream-json", "--verbose")
	cmd.Dir = e.ws
	e.srv.Push(llmtest.Turn{Text: "done"})
	cmd.Env = append(e.env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1")
	out, _ = cmd.CombinedOutput()
	os.WriteFile("/tmp/claude-ss-noflag.jsonl", out, 0o644)
}
