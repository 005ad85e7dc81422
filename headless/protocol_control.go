package headless

import (
	"encoding/json"
	"strings"
)

// The control protocol: the requests nova and the SDK put to each other
// beside the messages, and their answers (the SDK's SDKControlRequest,
// SDKControlResponse, SDKControlCancelRequest and the requests inside).

// sdkControlRequest is the SDK's SDKControlRequest. Request is one of the
// *Request types below.
type sdkControlRequest struct {
	Type      string `json:"type"` // control_request
	RequestID string `json:"request_id"`
	Request   any    `json:"request"`
}

// controlRequest is the one place a control_request is made: nova's
// requests to the SDK (can_use_tool, hook_callback, mcp_message).
func controlRequest(id string, request any) sdkControlRequest {
	return sdkControlRequest{Type: "control_request", RequestID: id, Request: request}
}

// sdkControlResponse is the SDK's SDKControlResponse; Response is a
// controlSuccessBody or a controlErrorBody.
type sdkControlResponse struct {
	Type     string `json:"type"` // control_response
	Response any    `json:"response"`
}

// controlSuccessBody is the SDK's ControlResponse; Response is the
// request's own answer (one of the *Response types below).
type controlSuccessBody struct {
	Subtype   string `json:"subtype"` // success
	RequestID string `json:"request_id"`
	Response  any    `json:"response"`
}

// controlErrorBody is the SDK's ControlErrorResponse.
type controlErrorBody struct {
	Subtype   string `json:"subtype"` // error
	RequestID string `json:"request_id"`
	Error     string `json:"error"`
}

func controlError(id, msg string) sdkControlResponse {
	return sdkControlResponse{Type: "control_response", Response: controlErrorBody{Subtype: "error", RequestID: id, Error: msg}}
}

func controlSuccess(id string, response any) sdkControlResponse {
	return sdkControlResponse{Type: "control_response", Response: controlSuccessBody{Subtype: "success", RequestID: id, Response: response}}
}

// sdkControlCancelRequest is the SDK's SDKControlCancelRequest: nova
// withdraws a can_use_tool request the run no longer waits for.
type sdkControlCancelRequest struct {
	Type      string `json:"type"` // control_cancel_request
	RequestID string `json:"request_id"`
}

// canUseToolRequest is the SDK's SDKControlPermissionRequest: a tool
// call for its canUseTool to approve.
type canUseToolRequest struct {
	Subtype               string             `json:"subtype"` // can_use_tool
	ToolName              string             `json:"tool_name"`
	Input                 json.RawMessage    `json:"input"` // the tool's own
	ToolUseID             string             `json:"tool_use_id"`
	DecisionReason        string             `json:"decision_reason"`
	DecisionReasonType    string             `json:"decision_reason_type"`
	PermissionSuggestions []permissionUpdate `json:"permission_suggestions"`
	BlockedPath           string             `json:"blocked_path,omitempty"`
	AgentID               string             `json:"agent_id,omitempty"`
}

// permissionUpdate is the SDK's PermissionUpdate: what nova suggests
// (addRules) and what the SDK's answers apply (updatedPermissions).
type permissionUpdate struct {
	Type        string           `json:"type"` // addRules, setMode ...
	Rules       []permissionRule `json:"rules,omitempty"`
	Behavior    string           `json:"behavior,omitempty"`
	Destination string           `json:"destination"`
	Mode        string           `json:"mode,omitempty"`
	Directories []string         `json:"directories,omitempty"`
}

// permissionRule is the SDK's PermissionRuleValue.
type permissionRule struct {
	ToolName    string `json:"toolName"`
	RuleContent string `json:"ruleContent,omitempty"`
}

// suggestions are nova's suggested rules ("Tool" or "Tool(content)") as
// the SDK's permission updates.
func suggestions(rules []string) []permissionUpdate {
	out := []permissionUpdate{}
	for _, r := range rules {
		tool, content := r, ""
		if i := strings.IndexByte(r, '('); i > 0 && strings.HasSuffix(r, ")") {
			tool, content = r[:i], r[i+1:len(r)-1]
		}
		out = append(out, permissionUpdate{Type: "addRules", Rules: []permissionRule{{ToolName: tool, RuleContent: content}},
			Behavior: "allow", Destination: "localSettings"})
	}
	return out
}

// hookCallbackRequest is the SDK's SDKHookCallbackRequest. Input is the
// hook's input, the hook contract's, as the engine made it.
type hookCallbackRequest struct {
	Subtype    string          `json:"subtype"` // hook_callback
	CallbackID string          `json:"callback_id"`
	Input      json.RawMessage `json:"input"`
	ToolUseID  string          `json:"tool_use_id,omitempty"`
}

// mcpMessageRequest is the SDK's SDKControlMcpMessageRequest, both ways:
// nova's message for an in-process server, and one the server sends
// unasked. Message is the server's JSON-RPC, passed through.
type mcpMessageRequest struct {
	Subtype    string          `json:"subtype"` // mcp_message
	ServerName string          `json:"server_name"`
	Message    json.RawMessage `json:"message"`
}

// The answers nova gives the SDK's requests.

// initializeResponse is the SDK's SDKControlInitializeResponse.
type initializeResponse struct {
	Commands              []Command `json:"commands"`
	Agents                []Agent   `json:"agents"`
	OutputStyle           string    `json:"output_style"`
	AvailableOutputStyles []string  `json:"available_output_styles"`
	Models                []Model   `json:"models"`
	Account               Account   `json:"account"`
	ClaudeCodeVersion     string    `json:"claude_code_version"`
	CurrentPermissionMode string    `json:"current_permission_mode"`
	// MCPServersApplied says initialize's mcpServers were taken (the SDK
	// ends the session unless it is told so).
	MCPServersApplied bool `json:"mcp_servers_applied,omitempty"`
}

// interruptResponse is the SDK's SDKControlInterruptResponse.
type interruptResponse struct {
	StillQueued []string `json:"still_queued"`
}

// setPermissionModeResponse is the SDK's SDKControlSetPermissionModeResponse.
type setPermissionModeResponse struct {
	Mode string `json:"mode"`
}

// mcpStatusResponse is the SDK's SDKControlMcpStatusResponse.
type mcpStatusResponse struct {
	MCPServers []MCPServer `json:"mcpServers"`
}

// emptyResponse is the answer with nothing in it (set_model's, an
// acknowledged mcp_message's), as Claude Code gives it.
type emptyResponse struct{}

// What nova reads: the SDK's requests and its answers to nova's.

// setPermissionModeRequest is the SDK's SDKControlSetPermissionModeRequest.
type setPermissionModeRequest struct {
	Mode string `json:"mode"`
}

// setModelRequest is the SDK's SDKControlSetModelRequest; Model "" asks
// for the default.
type setModelRequest struct {
	Model string `json:"model"`
}

// controlAnswer is the response of an SDK's control_response: its answer
// to a request of nova's, Response being that request's own answer.
type controlAnswer struct {
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response"`
	Error     string          `json:"error"`
}

// permissionResult is the SDK's PermissionResult, canUseTool's answer.
type permissionResult struct {
	Behavior           string            `json:"behavior"` // allow or deny
	UpdatedInput       json.RawMessage   `json:"updatedInput"`
	Message            string            `json:"message"`
	Interrupt          bool              `json:"interrupt"`
	UpdatedPermissions []json.RawMessage `json:"updatedPermissions"`
}

// mcpMessageResponse is the SDK's answer to nova's mcp_message: the
// server's JSON-RPC reply.
type mcpMessageResponse struct {
	MCPResponse json.RawMessage `json:"mcp_response"`
}
