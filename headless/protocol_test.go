package headless

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/permission"
)

// sdkTypes is the Agent SDK's TypeScript declaration of its messages.
var sdkTypes = filepath.Join("testdata", "agentsdk", "node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.d.ts")

// protocolCase is one message type of protocol.go, encoded from a typed
// value and held to what defines it: Claude Code's recorded line of its
// kind (recorded, in fixture's file), the SDK's TypeScript type
// (sdkType), or both.
type protocolCase struct {
	name  string
	value any
	// fixture and recorded find Claude Code's line: the first of kind
	// recorded (see recordedKind) in fixtureDir/<fixture>.jsonl.
	fixture, recorded string
	// sdkType names the SDK's type of the message; at selects a nested
	// object of nova's message to hold to it instead ("request").
	sdkType, at string
	// novaOnly are nova's fields that neither defines (its additions);
	// optional are fields either side may leave out.
	novaOnly, optional []string
}

// TestProtocolGolden encodes every message type nova writes and each
// answer it gives, and compares the JSON with Claude Code's recorded
// line of the same kind and with the SDK's type: a field Claude Code
// writes or the SDK's type requires that nova's lacks, one of another
// JSON type, or one of nova's neither knows (a renamed field), fails.
func TestProtocolGolden(t *testing.T) {
	parent := "toolu_agent"
	stop := "end_turn"
	exitZero := 0
	msg := apiMessage{ID: "msg_1", Type: "message", Role: "assistant", Model: "claude-test", Content: []any{}}
	withContent := func(block any) apiMessage { m := msg; m.Content = []any{block}; return m }
	hdr := func(sub string) systemHeader {
		return systemHeader{Type: "system", Subtype: sub, SessionID: "S", UUID: "U"}
	}
	cases := []protocolCase{
		{name: "system/init", value: sdkSystemMessage{Type: "system", Subtype: "init", Cwd: "/w", SessionID: "S", Tools: []string{"Read"},
			MCPServers: []MCPServer{{Name: "m", Status: "connected"}}, Model: "claude-test", PermissionMode: "default", SlashCommands: []string{"c"},
			APIKeySource: "none", ClaudeCodeVersion: "1", OutputStyle: "default", Agents: []string{"a"}, Skills: []string{"s"}, Plugins: []string{}, UUID: "U"},
			fixture: "text", recorded: "system/init", sdkType: "SDKSystemMessage"},
		{name: "assistant:text", value: sdkAssistantMessage{Type: "assistant", Message: withContent(textBlock{Type: "text", Text: "hi"}),
			SessionID: "S", UUID: "U", Timestamp: "T", Aborted: true},
			fixture: "interrupt", recorded: "assistant:text", sdkType: "SDKAssistantMessage", novaOnly: []string{"timestamp", "supersedes"}, optional: []string{"aborted"}},
		{name: "assistant:thinking", value: sdkAssistantMessage{Type: "assistant", Message: withContent(thinkingBlock{Type: "thinking", Thinking: "hm"}),
			SessionID: "S", UUID: "U", Timestamp: "T"},
			fixture: "partial", recorded: "assistant:thinking", sdkType: "SDKAssistantMessage", novaOnly: []string{"timestamp"}},
		{name: "assistant:tool_use", value: sdkAssistantMessage{Type: "assistant", Message: withContent(toolUseBlock{Type: "tool_use", ID: "toolu_1", Name: "Read",
			Input: json.RawMessage(`{"file_path":"a"}`)}), ParentToolUseID: &parent, SessionID: "S", UUID: "U", Timestamp: "T"},
			fixture: "tool", recorded: "assistant:tool_use", sdkType: "SDKAssistantMessage", novaOnly: []string{"timestamp"}},
		{name: "user:tool_result", value: sdkUserMessage{Type: "user", Message: apiUserMessage{Role: "user", Content: []any{
			toolResultBlock{Type: "tool_result", ToolUseID: "toolu_1", Content: "hello"}}}, SessionID: "S", UUID: "U", Timestamp: "T"},
			fixture: "tool", recorded: "user:tool_result", sdkType: "SDKUserMessage", novaOnly: []string{"is_error"}},
		{name: "user replay", value: sdkUserMessageReplay{Type: "user", Message: json.RawMessage(`{"role":"user","content":"hi"}`), SessionID: "S", UUID: "U", IsReplay: true},
			sdkType: "SDKUserMessageReplay"},
		{name: "stream_event/message_start", value: sdkPartialAssistantMessage{Type: "stream_event", Event: messageStartEvent{Type: "message_start", Message: msg},
			SessionID: "S", UUID: "U"}, fixture: "partial", recorded: "stream_event/message_start", sdkType: "SDKPartialAssistantMessage"},
		{name: "stream_event/content_block_start:text", value: stream(contentBlockStartEvent{Type: "content_block_start", ContentBlock: textBlock{Type: "text"}}),
			fixture: "partial", recorded: "stream_event/content_block_start:text"},
		{name: "stream_event/content_block_start:thinking", value: stream(contentBlockStartEvent{Type: "content_block_start", ContentBlock: thinkingBlock{Type: "thinking"}}),
			fixture: "partial", recorded: "stream_event/content_block_start:thinking"},
		{name: "stream_event/content_block_start:tool_use", value: stream(contentBlockStartEvent{Type: "content_block_start", Index: 2,
			ContentBlock: toolUseBlock{Type: "tool_use", ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{}`)}}),
			fixture: "partial", recorded: "stream_event/content_block_start:tool_use"},
		{name: "stream_event/content_block_delta:text_delta", value: stream(contentBlockDeltaEvent{Type: "content_block_delta", Delta: textDelta{Type: "text_delta", Text: "a"}}),
			fixture: "partial", recorded: "stream_event/content_block_delta:text_delta"},
		{name: "stream_event/content_block_delta:thinking_delta", value: stream(contentBlockDeltaEvent{Type: "content_block_delta",
			Delta: thinkingDelta{Type: "thinking_delta", Thinking: "a"}}), fixture: "partial", recorded: "stream_event/content_block_delta:thinking_delta"},
		{name: "stream_event/content_block_delta:input_json_delta", value: stream(contentBlockDeltaEvent{Type: "content_block_delta", Index: 2,
			Delta: inputJSONDelta{Type: "input_json_delta", PartialJSON: `{"a":1}`}}), fixture: "partial", recorded: "stream_event/content_block_delta:input_json_delta"},
		{name: "stream_event/content_block_stop", value: stream(contentBlockStopEvent{Type: "content_block_stop"}),
			fixture: "partial", recorded: "stream_event/content_block_stop"},
		{name: "stream_event/message_delta", value: stream(messageDeltaEvent{Type: "message_delta", Delta: messageDeltaBody{StopReason: &stop}}),
			// interrupt's message_delta has the whole usage, as nova's.
			fixture: "interrupt", recorded: "stream_event/message_delta"},
		{name: "stream_event/message_stop", value: stream(messageStopEvent{Type: "message_stop"}), fixture: "partial", recorded: "stream_event/message_stop"},
		{name: "result/success", value: Result{Type: "result", Subtype: "success", Result: "done", StopReason: &stop, SessionID: "S",
			ModelUsage: map[string]ModelUsage{"claude-test": {}}, PermissionDenials: []agent.Denial{}, UUID: "U", IgnoredProjectSettings: []IgnoredSetting{}, Model: "m"},
			fixture: "text", recorded: "result/success", sdkType: "SDKResultSuccess",
			novaOnly: []string{"ignored_project_settings", "model", "error"}, optional: []string{"structured_output", "errors"}},
		{name: "result/error", value: Result{Type: "result", Subtype: "error_during_execution", IsError: true, SessionID: "S",
			ModelUsage: map[string]ModelUsage{"claude-test": {}}, PermissionDenials: []agent.Denial{}, Errors: []string{"boom"}, Error: "boom",
			UUID: "U", IgnoredProjectSettings: []IgnoredSetting{}, Model: "m"},
			fixture: "interrupt", recorded: "result/error_during_execution", sdkType: "SDKResultError",
			novaOnly: []string{"ignored_project_settings", "model", "error", "result"}, optional: []string{"structured_output"}},
		{name: "system/informational", value: sdkInformationalMessage{systemHeader: hdr("informational"), Content: "c", Level: "warning"},
			sdkType: "SDKInformationalMessage", novaOnly: []string{"parent_tool_use_id", "agent_id"}},
		{name: "system/compact_boundary", value: sdkCompactBoundaryMessage{systemHeader: hdr("compact_boundary"),
			CompactMetadata: compactMetadata{Trigger: "auto", PreTokens: 9, PostTokens: 1}},
			sdkType: "SDKCompactBoundaryMessage", novaOnly: []string{"parent_tool_use_id", "agent_id"}},
		{name: "system/permission_denied", value: sdkPermissionDeniedMessage{systemHeader: hdr("permission_denied"), ToolName: "Bash", ToolUseID: "t",
			DecisionReasonType: permission.LayerMode, DecisionReason: "r", Message: "m"},
			sdkType: "SDKPermissionDeniedMessage", novaOnly: []string{"parent_tool_use_id"}},
		{name: "system/api_retry", value: sdkAPIRetryMessage{systemHeader: hdr("api_retry"), Attempt: 1, MaxRetries: 3, RetryDelayMS: 500, Error: "overloaded", Text: "t"},
			sdkType: "SDKAPIRetryMessage", novaOnly: []string{"parent_tool_use_id", "agent_id", "discard_partial", "text"}},
		{name: "system/session_state_changed", value: sdkSessionStateChangedMessage{Type: "system", Subtype: "session_state_changed", State: "idle",
			SDKHostOnly: true, SessionID: "S", UUID: "U"}, sdkType: "SDKSessionStateChangedMessage", novaOnly: []string{"sdk_host_only"}},
		{name: "tool_progress", value: sdkToolProgressMessage{Type: "tool_progress", ToolUseID: "t", ToolName: "Bash", ElapsedTimeSeconds: 1, Progress: 1,
			Total: 2, Message: "half", SessionID: "S", UUID: "U"}, sdkType: "SDKToolProgressMessage", novaOnly: []string{"progress", "total", "message"}},
		{name: "control_request", value: controlRequest("R", hookCallbackRequest{Subtype: "hook_callback"}), sdkType: "SDKControlRequest"},
		{name: "control_request/can_use_tool", value: controlRequest("R", canUseToolRequest{Subtype: "can_use_tool", ToolName: "Bash",
			Input: json.RawMessage(`{"command":"ls"}`), ToolUseID: "t", DecisionReason: "r", DecisionReasonType: "mode",
			PermissionSuggestions: suggestions([]string{"Bash(ls:*)"}), BlockedPath: "/p", AgentID: "a"}),
			at: "request", sdkType: "SDKControlPermissionRequest"},
		{name: "control_request/hook_callback", value: controlRequest("R", hookCallbackRequest{Subtype: "hook_callback", CallbackID: "hook_0",
			Input: json.RawMessage(`{"hook_event_name":"PreToolUse"}`), ToolUseID: "t"}), at: "request", sdkType: "SDKHookCallbackRequest"},
		{name: "control_request/mcp_message", value: controlRequest("R", mcpMessageRequest{Subtype: "mcp_message", ServerName: "s",
			Message: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}), at: "request", sdkType: "SDKControlMcpMessageRequest"},
		{name: "control_response", value: controlSuccess("R", emptyResponse{}), sdkType: "SDKControlResponse"},
		{name: "control_response/success", value: controlSuccess("R", emptyResponse{}), at: "response", sdkType: "ControlResponse"},
		{name: "control_response/error", value: controlError("R", "no"), at: "response", sdkType: "ControlErrorResponse"},
		{name: "control_cancel_request", value: sdkControlCancelRequest{Type: "control_cancel_request", RequestID: "R"}, sdkType: "SDKControlCancelRequest"},
		{name: "initialize response", value: initializeResponse{Commands: []Command{}, Agents: []Agent{}, OutputStyle: "default",
			AvailableOutputStyles: []string{"default"}, Models: []Model{}, ClaudeCodeVersion: "1", CurrentPermissionMode: "default", MCPServersApplied: true},
			sdkType: "SDKControlInitializeResponse", novaOnly: []string{"current_permission_mode"}},
		{name: "interrupt response", value: interruptResponse{StillQueued: []string{}}, sdkType: "SDKControlInterruptResponse"},
		{name: "set_permission_mode response", value: setPermissionModeResponse{Mode: "plan"}, sdkType: "SDKControlSetPermissionModeResponse"},
		{name: "system/hook_started", value: sdkHookStartedMessage{Type: "system", Subtype: "hook_started", HookID: "h", HookName: "PreToolUse:Bash",
			HookEvent: "PreToolUse", UUID: "U", SessionID: "S"}, sdkType: "SDKHookStartedMessage"},
		{name: "system/hook_response", value: sdkHookResponseMessage{Type: "system", Subtype: "hook_response", HookID: "h", HookName: "PreToolUse:Bash",
			HookEvent: "PreToolUse", Output: "o", Stdout: "o", ExitCode: &exitZero, Outcome: "success", UUID: "U", SessionID: "S"}, sdkType: "SDKHookResponseMessage"},
		// What nova reads of the SDK's requests: each field it reads is
		// the SDK's (the subtype it routes by, controlSubtype, apart).
		{name: "set_permission_mode request", value: setPermissionModeRequest{Mode: "plan"}, sdkType: "SDKControlSetPermissionModeRequest",
			optional: []string{"subtype"}},
		{name: "set_model request", value: setModelRequest{Model: "haiku"}, sdkType: "SDKControlSetModelRequest", optional: []string{"subtype"}},
		{name: "mcp_message request (read)", value: mcpMessageRequest{Subtype: "mcp_message", ServerName: "s", Message: json.RawMessage(`{}`)},
			sdkType: "SDKControlMcpMessageRequest"},
		{name: "mcp_status response", value: mcpStatusResponse{MCPServers: []MCPServer{}}, sdkType: "SDKControlMcpStatusResponse"},
	}
	types, err := os.ReadFile(sdkTypes)
	if err != nil {
		t.Skipf("the Agent SDK is not installed (npm ci in testdata/agentsdk): %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.value)
			if err != nil {
				t.Fatal(err)
			}
			var nova map[string]any
			if err := json.Unmarshal(b, &nova); err != nil {
				t.Fatal(err)
			}
			if c.recorded != "" {
				claude := recordedLine(t, c.fixture, c.recorded)
				only := onlyFields(t, strings.SplitN(strings.SplitN(c.recorded, ":", 2)[0], "/", 2)[0], c.recorded)
				sameShape(t, c.recorded, claude, nova, only, c.novaOnly, c.optional)
			}
			if c.sdkType != "" {
				obj := nova
				if c.at != "" {
					obj, _ = nova[c.at].(map[string]any)
				}
				required, optional := sdkFields(t, string(types), c.sdkType)
				for _, k := range required {
					if _, ok := obj[k]; !ok && !slices.Contains(c.optional, k) {
						t.Errorf("%s lacks %q, which the SDK's %s requires", c.name, k, c.sdkType)
					}
				}
				for _, k := range slices.Sorted(maps.Keys(obj)) {
					if !slices.Contains(required, k) && !slices.Contains(optional, k) && !slices.Contains(c.novaOnly, k) {
						t.Errorf("%s has %q, which the SDK's %s does not have", c.name, k, c.sdkType)
					}
				}
			}
		})
	}
}

// stream wraps a stream event in its message.
func stream(ev any) sdkPartialAssistantMessage {
	return sdkPartialAssistantMessage{Type: "stream_event", Event: ev, SessionID: "S", UUID: "U"}
}

// recordedKind names a recorded message finely enough to pick its shape:
// type, /subtype, /event type, :content block or delta type.
func recordedKind(m map[string]any) string {
	k, _ := m["type"].(string)
	switch k {
	case "system", "result":
		k += "/" + fmt.Sprint(m["subtype"])
	case "stream_event":
		ev, _ := m["event"].(map[string]any)
		k += "/" + fmt.Sprint(ev["type"])
		if b, ok := ev["content_block"].(map[string]any); ok {
			k += ":" + fmt.Sprint(b["type"])
		}
		if d, ok := ev["delta"].(map[string]any); ok && d["type"] != nil {
			k += ":" + fmt.Sprint(d["type"])
		}
	case "assistant", "user":
		msg, _ := m["message"].(map[string]any)
		if blocks, ok := msg["content"].([]any); ok && len(blocks) > 0 {
			b, _ := blocks[0].(map[string]any)
			k += ":" + fmt.Sprint(b["type"])
		}
	}
	return k
}

// recordedLine is Claude Code's first message of kind in the fixture.
func recordedLine(t *testing.T, fixture, kind string) map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir, fixture+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Msg map[string]any `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if recordedKind(line.Msg) == kind {
			return line.Msg
		}
	}
	t.Fatalf("%s.jsonl records no %s message", fixture, kind)
	return nil
}

// onlyFields are the fields only.json lets Claude Code's messages of
// kind carry alone.
func onlyFields(t *testing.T, kind, full string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, "only.json"))
	if err != nil {
		t.Fatal(err)
	}
	var only map[string]any
	if err := json.Unmarshal(b, &only); err != nil {
		t.Fatal(err)
	}
	if kind == "system" {
		kind = full
	}
	return asList(only[kind])
}

// sameShape fails for each field of Claude Code's message (nested
// objects, and the first element of lists, included) nova's lacks or
// holds as another JSON type, and for each of nova's Claude Code's has
// not; only are fields Claude Code's alone carry, novaOnly nova's, and
// optional fields either may leave out.
func sameShape(t *testing.T, path string, claude, nova map[string]any, only, novaOnly, optional []string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(claude)) {
		nv, ok := nova[k]
		switch {
		case slices.Contains(only, k):
			continue
		case !ok && slices.Contains(optional, k):
			continue
		case !ok:
			t.Errorf("%s: nova's lacks %q, which Claude Code's has", path, k)
			continue
		}
		cv := claude[k]
		if k == "modelUsage" {
			// Keyed by model: compare one model's entry with one model's.
			cv, nv = firstValue(cv), firstValue(nv)
		}
		if cv == nil || nv == nil {
			continue // null where the other has a value: both are the type's
		}
		if jsonKind(cv) != jsonKind(nv) {
			t.Errorf("%s.%s: nova's is a %s, Claude Code's a %s", path, k, jsonKind(nv), jsonKind(cv))
			continue
		}
		if cl, ok := cv.([]any); ok && len(cl) > 0 {
			if nl := nv.([]any); len(nl) > 0 {
				cv, nv = cl[0], nl[0]
			}
		}
		cm, cok := cv.(map[string]any)
		nm, nok := nv.(map[string]any)
		if cok && nok {
			sameShape(t, path+"."+k, cm, nm, only, novaOnly, optional)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(nova)) {
		if _, ok := claude[k]; !ok && !slices.Contains(novaOnly, k) && !slices.Contains(optional, k) {
			t.Errorf("%s: nova's has %q, which Claude Code's has not", path, k)
		}
	}
}

func firstValue(v any) any {
	m, _ := v.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		return m[k]
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "list"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

var sdkField = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)(\??):`)

// sdkFields reads the fields of the SDK's object type name from its
// declaration: those it requires and those it may have.
func sdkFields(t *testing.T, src, name string) (required, optional []string) {
	t.Helper()
	src = strings.ReplaceAll(src, "\r\n", "\n")
	start := -1
	for _, decl := range []string{"export declare type " + name + " = {", "declare type " + name + " = {"} {
		if i := strings.Index(src, "\n"+decl+"\n"); i >= 0 {
			start = i + 1 + len(decl) + 1
			break
		}
	}
	if start < 0 {
		t.Fatalf("sdk.d.ts declares no object type %s", name)
	}
	depth, inComment := 1, false
	for _, line := range strings.Split(src[start:], "\n") {
		trimmed := strings.TrimSpace(line)
		if inComment || strings.HasPrefix(trimmed, "/*") || strings.HasPrefix(trimmed, "*") || strings.HasPrefix(trimmed, "//") {
			inComment = !strings.Contains(trimmed, "*/") && (inComment || strings.HasPrefix(trimmed, "/*"))
			continue
		}
		if depth == 1 {
			if m := sdkField.FindStringSubmatch(line); m != nil {
				if m[2] == "?" {
					optional = append(optional, m[1])
				} else {
					required = append(required, m[1])
				}
			}
		}
		depth += strings.Count(line, "{") - strings.Count(line, "}")
		if depth <= 0 {
			return required, optional
		}
	}
	t.Fatalf("sdk.d.ts: the type %s does not end", name)
	return nil, nil
}
