package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// acpRecord is what acp/testdata/client/drive.mjs saw of one nova acp.
type acpRecord struct {
	Initialize struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool            `json:"loadSession"`
			PromptCapabilities map[string]bool `json:"promptCapabilities"`
		} `json:"agentCapabilities"`
	} `json:"initialize"`
	Session struct {
		SessionID     string         `json:"sessionId"`
		ConfigOptions []acpConfigOpt `json:"configOptions"`
		Modes         struct {
			CurrentModeID  string `json:"currentModeId"`
			AvailableModes []struct {
				ID string `json:"id"`
			} `json:"availableModes"`
		} `json:"modes"`
	} `json:"session"`
	Edit, Cancel, Buffer, After struct {
		StopReason string `json:"stopReason"`
	}
	Load map[string]any `json:"load"`
	List struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Title     string `json:"title"`
		} `json:"sessions"`
	} `json:"list"`
	SetMode  map[string]any `json:"setMode"`
	SetModel struct {
		ConfigOptions []acpConfigOpt `json:"configOptions"`
	} `json:"setModel"`
	BadOption         map[string]any   `json:"badOption"`
	BadMode           map[string]any   `json:"badMode"`
	CancelChunks      int              `json:"cancelChunks"`
	AsksInAcceptEdits int              `json:"asksInAcceptEdits"`
	Updates           []map[string]any `json:"updates"`
	Permissions       []struct {
		ToolCall map[string]any `json:"toolCall"`
		Options  []string       `json:"options"`
		Answered string         `json:"answered"`
	} `json:"permissions"`
	Reads  []string         `json:"reads"`
	Raw    []map[string]any `json:"raw"`
	Stderr string           `json:"stderr"`
}

// acpConfigOpt is one session config option (a select).
type acpConfigOpt struct {
	ID           string `json:"id"`
	Category     string `json:"category"`
	CurrentValue string `json:"currentValue"`
	Options      []struct {
		Value string `json:"value"`
	} `json:"options"`
}

// updatesOf are the session updates of one kind.
func (r acpRecord) updatesOf(kind string) []map[string]any {
	var out []map[string]any
	for _, u := range r.Updates {
		if u["sessionUpdate"] == kind {
			out = append(out, u)
		}
	}
	return out
}

// text is the concatenated text of the chunks of one kind.
func (r acpRecord) text(kind string) string {
	var b strings.Builder
	for _, u := range r.updatesOf(kind) {
		if c, ok := u["content"].(map[string]any); ok {
			b.WriteString(c["text"].(string))
		}
	}
	return b.String()
}

// driveACP runs drive.mjs (the official ACP TypeScript SDK's client)
// against this test's nova. The SDK is installed by .ci/run (npm ci);
// without it the test skips, but never in CI.
func driveACP(t *testing.T, e *e2e) (first, second acpRecord) {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "acp", "testdata", "client"))
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk")); err != nil || serr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node and @agentclientprotocol/sdk are needed in CI (run npm ci in %s): %v %v", dir, err, serr)
		}
		t.Skipf("needs node and @agentclientprotocol/sdk (npm ci --prefix acp/testdata/client): %v %v", err, serr)
	}
	cmd := exec.Command(node, filepath.Join(dir, "drive.mjs"), novaBin, e.ws)
	cmd.Dir = dir
	cmd.Env = e.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("drive.mjs: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var out struct {
		First, Second acpRecord
		Error         string
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("drive.mjs printed %q: %v\nstderr: %s", stdout.String(), err, stderr.String())
	}
	t.Logf("nova's stderr (first): %s", out.First.Stderr)
	if out.Error != "" {
		t.Fatalf("the ACP client failed: %s\nnova's stderr: %s%s", out.Error, out.First.Stderr, out.Second.Stderr)
	}
	return out.First, out.Second
}

// TestACPWithTheTypeScriptSDK drives nova acp as an editor does, with the
// official ACP TypeScript SDK's client: initialize, a new session, a
// prompt that streams text and edits with a diff, a permission request
// answered both ways, a todo list as the plan, cancel mid-turn,
// session/set_mode, a Read of an unsaved buffer through
// fs/read_text_file, malformed messages answered with JSON-RPC errors
// while the session goes on, and session/load of the session in a new
// nova replaying its history.
func TestACPWithTheTypeScriptSDK(t *testing.T) {
	greet := map[string]any{"file_path": "greet.txt"}
	e := newE2E(t,
		llmtest.Turn{Match: "please edit greet.txt", Text: "Let me read it.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Input: jsonInput(greet)}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Edit", Input: jsonInput(map[string]any{"file_path": "greet.txt", "old_string": "hello world", "new_string": "hello nova"})}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_3", Name: "Edit", Input: jsonInput(map[string]any{"file_path": "greet.txt", "old_string": "hello nova", "new_string": "hello rejected"})}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_4", Name: "TodoWrite", Input: jsonInput(map[string]any{"todos": []map[string]any{
			{"content": "Edit the greeting", "status": "completed", "activeForm": "Editing the greeting"},
			{"content": "Tell the person", "status": "in_progress", "activeForm": "Telling the person"},
		}})}}},
		llmtest.Turn{Text: "Edited once; the second edit was rejected."},
		// Slow enough that the cancel arrives mid-answer.
		llmtest.Turn{Match: "tell me slowly", Text: "one two three four five six seven eight nine ten", ChunkDelay: 300 * time.Millisecond},
		llmtest.Turn{Match: "read notes.txt", ToolCalls: []llmtest.ToolCall{{ID: "toolu_5", Name: "Read", Input: jsonInput(map[string]any{"file_path": "notes.txt"})}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_6", Name: "Write", Input: jsonInput(map[string]any{"file_path": "new.txt", "content": "written without asking\n"})}}},
		llmtest.Turn{Text: "The buffer is read."},
		llmtest.Turn{Match: "still there?", Text: "Still here."},
	)
	e.write("greet.txt", "hello world\n")
	e.write("notes.txt", "text saved on disk\n")
	// A user command: the workspace is not trusted, so its commands are
	// not loaded.
	cmdFile := filepath.Join(e.home, ".nova", "commands", "hello.md")
	if err := os.MkdirAll(filepath.Dir(cmdFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cmdFile, []byte("---\ndescription: Say hello\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first, second := driveACP(t, e)

	if !first.Initialize.AgentCapabilities.LoadSession || first.Initialize.ProtocolVersion != 1 {
		t.Errorf("initialize = %+v, want protocol 1 and loadSession", first.Initialize)
	}
	if first.Session.SessionID == "" || first.Session.Modes.CurrentModeID != "default" || len(first.Session.Modes.AvailableModes) < 3 {
		t.Errorf("session/new = %+v, want an id and the modes, default current", first.Session)
	}

	// The edit prompt: text streamed, the Edit announced with its kind,
	// location and diff, asked twice (allowed, then rejected).
	if first.Edit.StopReason != "end_turn" {
		t.Errorf("edit prompt stopReason = %q", first.Edit.StopReason)
	}
	if got := first.text("agent_message_chunk"); !strings.Contains(got, "Let me read it.") || !strings.Contains(got, "Edited once") {
		t.Errorf("agent message chunks = %q", got)
	}
	var edit map[string]any
	for _, u := range first.updatesOf("tool_call") {
		if u["toolCallId"] == "toolu_2" {
			edit = u
		}
	}
	if edit == nil || edit["kind"] != "edit" {
		t.Fatalf("no tool_call of kind edit for toolu_2: %v", first.updatesOf("tool_call"))
	}
	if locs, _ := edit["locations"].([]any); len(locs) != 1 || locs[0].(map[string]any)["path"] != "greet.txt" {
		t.Errorf("edit locations = %v", edit["locations"])
	}
	if c, _ := edit["content"].([]any); len(c) != 1 || c[0].(map[string]any)["type"] != "diff" || c[0].(map[string]any)["oldText"] != "hello world" || c[0].(map[string]any)["newText"] != "hello nova" {
		t.Errorf("edit content = %v, want the diff", edit["content"])
	}
	status := map[string]string{}
	for _, u := range first.updatesOf("tool_call_update") {
		if s, ok := u["status"].(string); ok {
			status[u["toolCallId"].(string)] = s
		}
	}
	if status["toolu_1"] != "completed" || status["toolu_2"] != "completed" || status["toolu_3"] != "failed" {
		t.Errorf("tool call statuses = %v, want Read and the allowed Edit completed, the rejected Edit failed", status)
	}
	if len(first.Permissions) < 2 || first.Permissions[0].ToolCall["toolCallId"] != "toolu_2" || first.Permissions[1].ToolCall["toolCallId"] != "toolu_3" {
		t.Fatalf("permission requests = %+v, want the two Edits", first.Permissions)
	}
	if opts := strings.Join(first.Permissions[0].Options, ","); !strings.Contains(opts, "allow_once") || !strings.Contains(opts, "reject_once") {
		t.Errorf("permission options = %s", opts)
	}
	if got := e.read("greet.txt"); got != "hello nova\n" {
		t.Errorf("greet.txt = %q, want the allowed edit only", got)
	}
	plans := first.updatesOf("plan")
	if len(plans) == 0 || !strings.Contains(jsonInput(plans[len(plans)-1]), "Tell the person") {
		t.Errorf("plan updates = %v, want the todo list", plans)
	}
	var cmds []string
	for _, u := range first.updatesOf("available_commands_update") {
		for _, c := range u["availableCommands"].([]any) {
			cmds = append(cmds, c.(map[string]any)["name"].(string))
		}
	}
	if !strings.Contains(strings.Join(cmds, ","), "hello") {
		t.Errorf("available commands = %v, want the user's /hello", cmds)
	}

	// Cancel mid-turn.
	if first.Cancel.StopReason != "cancelled" {
		t.Errorf("cancelled prompt stopReason = %q, want cancelled", first.Cancel.StopReason)
	}
	if first.CancelChunks >= 10 {
		t.Errorf("the cancelled answer streamed %d chunks: the cancel did not stop it", first.CancelChunks)
	}

	// The mode, and the unsaved buffer.
	if modes := first.updatesOf("current_mode_update"); len(modes) == 0 || modes[0]["currentModeId"] != "acceptEdits" {
		t.Errorf("current_mode_update = %v, want acceptEdits", modes)
	}
	if first.Buffer.StopReason != "end_turn" || first.AsksInAcceptEdits != 0 {
		t.Errorf("acceptEdits prompt: stopReason %q, %d asks; want end_turn and none", first.Buffer.StopReason, first.AsksInAcceptEdits)
	}
	if got := e.read("new.txt"); got != "written without asking\n" {
		t.Errorf("new.txt = %q", got)
	}
	notes := filepath.Join(e.ws, "notes.txt")
	if !strings.Contains(strings.Join(first.Reads, ","), notes) {
		t.Errorf("fs/read_text_file was asked for %v, want %s", first.Reads, notes)
	}
	var sawBuffer bool
	for _, r := range e.srv.Requests() {
		body := string(r.Body)
		if strings.Contains(body, "toolu_5") {
			sawBuffer = strings.Contains(body, "UNSAVED BUFFER TEXT")
			if strings.Contains(body, "text saved on disk") {
				t.Errorf("the model saw the disk's notes.txt, not the editor's buffer")
			}
		}
	}
	if !sawBuffer {
		t.Errorf("the model never saw the unsaved buffer's text")
	}

	// Malformed messages: JSON-RPC errors, and the session goes on.
	var parseErr, badParams bool
	for _, m := range first.Raw {
		errObj, _ := m["error"].(map[string]any)
		if errObj == nil {
			continue
		}
		code, _ := errObj["code"].(float64)
		switch {
		case m["id"] == nil && code == -32700:
			parseErr = true
		case m["id"] == "bad-1" && code == -32602:
			badParams = true
		}
	}
	if !parseErr || !badParams {
		t.Errorf("malformed messages: parse error answered %v, bad params answered %v", parseErr, badParams)
	}
	if be, _ := first.BadMode["error"].(map[string]any); be == nil {
		t.Errorf("session/set_mode of an unknown mode = %v, want an error", first.BadMode)
	}
	// The model: one config option of category "model", the Controller's
	// list; switched to haiku, the next prompt's request names it.
	var model *acpConfigOpt
	for i := range first.Session.ConfigOptions {
		if first.Session.ConfigOptions[i].Category == "model" {
			model = &first.Session.ConfigOptions[i]
		}
	}
	if model == nil || model.ID != "model" || len(model.Options) < 2 || !strings.HasPrefix(model.CurrentValue, "anthropic:") {
		t.Fatalf("session/new config options = %+v, want the model with the known models", first.Session.ConfigOptions)
	}
	if len(first.SetModel.ConfigOptions) != 1 || !strings.Contains(first.SetModel.ConfigOptions[0].CurrentValue, "haiku") {
		t.Errorf("session/set_config_option answered %+v, want the model now haiku; nova's stderr: %s", first.SetModel, first.Stderr)
	}
	if be, _ := first.BadOption["error"].(map[string]any); be == nil {
		t.Errorf("session/set_config_option of an unknown option = %v, want an error", first.BadOption)
	}
	reqs := e.srv.Requests()
	var last map[string]any
	for _, r := range reqs {
		if strings.Contains(string(r.Body), "still there?") {
			_ = json.Unmarshal(r.Body, &last)
		}
	}
	if m, _ := last["model"].(string); !strings.Contains(m, "haiku") {
		t.Errorf("the prompt after the model switch went to %q, want a haiku model", m)
	}
	if first.After.StopReason != "end_turn" || !strings.Contains(first.text("agent_message_chunk"), "Still here.") {
		t.Errorf("the prompt after the malformed messages: %+v", first.After)
	}

	// session/list in a new nova finds the session, named after its
	// first prompt.
	if l := second.List.Sessions; len(l) != 1 || l[0].SessionID != first.Session.SessionID || l[0].Cwd != e.ws || l[0].Title != "please edit greet.txt" {
		t.Errorf("session/list = %+v, want the one session of the workspace", l)
	}

	// session/load in a new nova replays the history.
	if second.Load == nil {
		t.Fatalf("session/load answered nothing; nova's stderr: %s", second.Stderr)
	}
	if got := second.text("user_message_chunk"); !strings.Contains(got, "please edit greet.txt") || !strings.Contains(got, "still there?") || strings.Contains(got, "<environment>") {
		t.Errorf("replayed user messages = %q, want the prompts without nova's context", got)
	}
	if got := second.text("agent_message_chunk"); !strings.Contains(got, "Let me read it.") || !strings.Contains(got, "Still here.") {
		t.Errorf("replayed agent messages = %q", got)
	}
	var replayedEdit bool
	for _, u := range second.updatesOf("tool_call") {
		if u["toolCallId"] == "toolu_2" && u["kind"] == "edit" {
			replayedEdit = true
		}
	}
	if !replayedEdit {
		t.Errorf("the replay has no Edit tool call: %v", second.updatesOf("tool_call"))
	}
}
