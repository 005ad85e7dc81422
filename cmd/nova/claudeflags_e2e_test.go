package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// offeredTools are the tool names of a request to the fake provider.
func offeredTools(r llmtest.Request) []string {
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(r.Body, &body)
	var out []string
	for _, t := range body.Tools {
		out = append(out, t.Name)
	}
	return out
}

// requestSystem is the system prompt of a request, its blocks joined.
func requestSystem(r llmtest.Request) string {
	var body struct {
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
	}
	_ = json.Unmarshal(r.Body, &body)
	var b strings.Builder
	for _, s := range body.System {
		b.WriteString(s.Text)
	}
	return b.String()
}

const pirateAgents = `{"pirate": {"description": "Talks like a pirate", "prompt": "PIRATE-PROMPT: say arr.", "tools": ["Read", "Grep"], "model": "haiku"}}`

// TestAgentsFlagE2E: --agents adds subagent types for the run, in
// Claude Code's shape (system/init lists them); --agent runs the main
// session as one: the provider gets its prompt as the system prompt, its
// model and only its tools.
func TestAgentsFlagE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "Arr."}, llmtest.Turn{Text: "Arr."})
	r := e.run("", "-p", "--output-format", "stream-json", "--verbose", "--agents", pirateAgents, "hi")
	if r.code != 0 {
		t.Fatalf("--agents: exit %d: %s", r.code, r.stderr)
	}
	if got := initAgents(t, r.stdout); !slices.Contains(got, "pirate") {
		t.Errorf("init agents = %v, lacks --agents' pirate", got)
	}
	if body := string(e.srv.Requests()[0].Body); !strings.Contains(body, "Talks like a pirate") {
		t.Errorf("the model was not told of the pirate agent")
	}

	r = e.run("", "-p", "--agents", pirateAgents, "--agent", "pirate", "hi")
	if r.code != 0 {
		t.Fatalf("--agent pirate: exit %d: %s", r.code, r.stderr)
	}
	req := e.srv.Requests()[1]
	haiku, _ := config.AliasModel(llm.ProviderAnthropic, "haiku")
	if m := req.JSON()["model"]; m != haiku {
		t.Errorf("--agent pirate asked for %v, want the agent's haiku (%s)", m, haiku)
	}
	if s := requestSystem(req); !strings.HasPrefix(s, "PIRATE-PROMPT") {
		t.Errorf("system prompt = %.200q, want the agent's prompt", s)
	}
	if got := offeredTools(req); !slices.Equal(got, []string{"Grep", "Read"}) && !slices.Equal(got, []string{"Read", "Grep"}) {
		t.Errorf("tools offered = %v, want the agent's Read and Grep", got)
	}

	if r := e.run("", "-p", "--agent", "nobody", "hi"); r.code != 2 || !strings.Contains(r.stderr, "--agent nobody: no agent of that name; there are") {
		t.Errorf("unknown agent: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.run("", "-p", "--agents", `{"x": {"prompt": "p"}}`, "hi"); r.code != 2 || !strings.Contains(r.stderr, "agents.x: an agent needs a description and a prompt") {
		t.Errorf("bad --agents: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestDisableSlashCommandsE2E: with --disable-slash-commands a command
// file does not expand (the model gets "/greet" as typed, as Claude Code
// sends it) and the Skill tool is not offered; without it, it expands.
func TestDisableSlashCommandsE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "One."}, llmtest.Turn{Text: "Two."})
	e.writeHome(".claude/commands/greet.md", "GREET-BODY.\n")
	if r := e.run("", "-p", "/greet"); r.code != 0 {
		t.Fatalf("control: exit %d: %s", r.code, r.stderr)
	}
	if r := e.run("", "-p", "--disable-slash-commands", "/greet"); r.code != 0 {
		t.Fatalf("--disable-slash-commands: exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if got := lastUserText(t, reqs[0]); !strings.Contains(got, "GREET-BODY") || !slices.Contains(offeredTools(reqs[0]), "Skill") {
		t.Errorf("control: the command did not expand (%q) or no Skill tool", got)
	}
	if got := lastUserText(t, reqs[1]); strings.Contains(got, "GREET-BODY") || !strings.Contains(got, "/greet") {
		t.Errorf("disabled: the model got %q, want /greet as typed", got)
	}
	if slices.Contains(offeredTools(reqs[1]), "Skill") {
		t.Errorf("disabled: the Skill tool is still offered")
	}
}

// TestEffortFlagE2E: --effort sets the request's thinking budget
// (Anthropic's extended thinking), over MAX_THINKING_TOKENS; a word
// nova does not know is refused.
func TestEffortFlagE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "One."}, llmtest.Turn{Text: "Two."})
	e.env = append(e.env, "MAX_THINKING_TOKENS=2000")
	budget := func(i int) any {
		th, _ := e.srv.Requests()[i].JSON()["thinking"].(map[string]any)
		return th["budget_tokens"]
	}
	if r := e.run("", "-p", "hi"); r.code != 0 {
		t.Fatalf("control: exit %d: %s", r.code, r.stderr)
	}
	if r := e.run("", "-p", "--effort", "high", "hi"); r.code != 0 {
		t.Fatalf("--effort high: exit %d: %s", r.code, r.stderr)
	}
	if b := budget(0); b != float64(2000) {
		t.Errorf("MAX_THINKING_TOKENS: budget %v", b)
	}
	if b := budget(1); b != float64(32768) {
		t.Errorf("--effort high: budget %v, want 32768", b)
	}
	if r := e.run("", "-p", "--effort", "max", "hi"); r.code != 2 || !strings.Contains(r.stderr, `--effort "max": want low, medium or high`) {
		t.Errorf("--effort max: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestReplayUserMessagesE2E: with --replay-user-messages, a user message
// read on stdin is written back on stdout in the Agent SDK's
// SDKUserMessageReplay shape (the message as given, its uuid, isReplay),
// before the turn it starts; without the flag it is not.
func TestReplayUserMessagesE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "One."}, llmtest.Turn{Text: "Two."})
	in := `{"type":"user","session_id":"","parent_tool_use_id":null,"uuid":"11111111-2222-4333-8444-555555555555","message":{"role":"user","content":"echo me"}}` + "\n"
	args := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}
	replays := func(stdout string) []map[string]any {
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("not JSON: %q", l)
			}
			if m["type"] == "user" && m["isReplay"] == true {
				out = append(out, m)
			}
		}
		return out
	}
	r := e.run(in, append(args, "--replay-user-messages")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := replays(r.stdout)
	if len(got) != 1 {
		t.Fatalf("%d replays, want 1:\n%s", len(got), r.stdout)
	}
	msg, _ := got[0]["message"].(map[string]any)
	if got[0]["uuid"] != "11111111-2222-4333-8444-555555555555" || msg["content"] != "echo me" || got[0]["session_id"] == "" {
		t.Errorf("replay = %v", got[0])
	}
	if r := e.run(in, args...); r.code != 0 || len(replays(r.stdout)) != 0 {
		t.Errorf("without the flag: exit %d, %d replays", r.code, len(replays(r.stdout)))
	}
	if r := e.run("", "-p", "--replay-user-messages", "hi"); r.code != 2 || !strings.Contains(r.stderr, "--replay-user-messages needs --input-format stream-json") {
		t.Errorf("without stream-json input: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestRefusedClaudeFlagsE2E: Claude Code's flags nova cannot honour are
// refused with the reason, not ignored.
func TestRefusedClaudeFlagsE2E(t *testing.T) {
	e := newE2E(t)
	for flag, why := range map[string]string{
		"--file=file_011:doc.txt": "Anthropic's Files API",
	} {
		r := e.run("", "-p", "--output-format", "stream-json", "--verbose", flag, "hi")
		if r.code != 2 || !strings.Contains(r.stderr, why) {
			t.Errorf("%s: exit %d, stderr %q", flag, r.code, r.stderr)
		}
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("the provider got %d requests", n)
	}
}

// TestSystemPromptFileFlagsE2E: --system-prompt-file replaces the system
// prompt with a file's text, --append-system-prompt-file adds one after
// nova's, as Claude Code's do; with the inline flag of the same kind, or
// a missing file, nova exits 2 before any request.
func TestSystemPromptFileFlagsE2E(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "One."}, llmtest.Turn{Text: "Two."})
	e.write("prompts/only.txt", "ONLY-THIS-PROMPT\n")
	e.write("prompts/more.txt", "APPENDED-PROMPT\n")
	if r := e.run("", "-p", "--system-prompt-file", "prompts/only.txt", "hi"); r.code != 0 {
		t.Fatalf("--system-prompt-file: exit %d: %s", r.code, r.stderr)
	}
	if r := e.run("", "-p", "--append-system-prompt-file", "prompts/more.txt", "hi"); r.code != 0 {
		t.Fatalf("--append-system-prompt-file: exit %d: %s", r.code, r.stderr)
	}
	reqs := e.srv.Requests()
	if s := requestSystem(reqs[0]); !strings.HasPrefix(s, "ONLY-THIS-PROMPT") {
		t.Errorf("replaced system prompt = %.100q", s)
	}
	if s := requestSystem(reqs[1]); !strings.Contains(s, "APPENDED-PROMPT") || strings.HasPrefix(s, "APPENDED-PROMPT") {
		t.Errorf("appended system prompt = %.300q, want nova's then the file's", s)
	}
	for _, args := range [][]string{
		{"--system-prompt-file", "prompts/only.txt", "--system-prompt", "x"},
		{"--append-system-prompt-file", "prompts/missing.txt"},
	} {
		if r := e.run("", append(append([]string{"-p"}, args...), "hi")...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, r.code, r.stderr)
		}
	}
	if n := len(e.srv.Requests()); n != 2 {
		t.Errorf("the provider got %d requests, want 2", n)
	}
}
