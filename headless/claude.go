package headless

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// This file turns nova's events into Claude Code's stream-json messages:
// what `claude -p --output-format stream-json --verbose` prints and what
// the Claude Agent SDK reads. The shapes were taken from Claude Code
// 2.1.333 driven by @anthropic-ai/claude-agent-sdk 0.3.333 against
// llm/llmtest (docs/sdk.md).

// Usage is a result's token counts under Anthropic's names.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

func usageOf(u llm.Usage) Usage {
	return Usage{InputTokens: u.InputTokens, CacheCreationInputTokens: u.CacheWriteTokens,
		CacheReadInputTokens: u.CacheReadTokens, OutputTokens: u.OutputTokens}
}

// ModelUsage is one model's totals in a result's modelUsage.
type ModelUsage struct {
	InputTokens              int     `json:"inputTokens"`
	OutputTokens             int     `json:"outputTokens"`
	CacheReadInputTokens     int     `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int     `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int     `json:"contextWindow"`
	MaxOutputTokens          int     `json:"maxOutputTokens"`
}

// Session describes the session the messages belong to: the init
// message's fields and what results name.
type Session struct {
	SessionID string
	// Model is the model as nova names it (provider:model).
	Model string
	Cwd   string
	// Tools returns the tools the model is offered now (MCP servers add
	// theirs as they connect).
	Tools func() []string
	// MCPServers returns the MCP servers and how each stands.
	MCPServers func() []MCPServer
	// PermissionMode returns the permission mode in force.
	PermissionMode func() string
	// Version is nova's version, the init message's claude_code_version.
	Version string
	// ContextWindow and MaxOutput are the model's limits, in tokens.
	ContextWindow, MaxOutput int
	// Commands returns the session's slash commands and skills (what a
	// user message "/name args" runs); nil when it has none.
	Commands func() []Command
	// Agents returns the names of the Agent tool's types, the init
	// message's agents; nil when the session has none.
	Agents func() []string
}

// agents are the init message's agents.
func (s *Session) agents() []string {
	if s == nil || s.Agents == nil {
		return []string{}
	}
	return s.Agents()
}

// MCPServer is an MCP server as the init message lists it.
type MCPServer struct {
	Name string `json:"name"`
	// Status is Claude Code's word: connected, pending, failed or needs-auth.
	Status string `json:"status"`
}

func (s *Session) tools() []string {
	if s.Tools == nil {
		return []string{}
	}
	if t := s.Tools(); t != nil {
		return t
	}
	return []string{}
}

func (s *Session) mcpServers() []MCPServer {
	if s.MCPServers == nil {
		return []MCPServer{}
	}
	if m := s.MCPServers(); m != nil {
		return m
	}
	return []MCPServer{}
}

func (s *Session) commands() []Command {
	if s.Commands == nil {
		return []Command{}
	}
	if c := s.Commands(); c != nil {
		return c
	}
	return []Command{}
}

// slashCommands are the init message's slash_commands: every command's
// name (skills included, as Claude Code lists them).
func (s *Session) slashCommands() []string {
	out := []string{}
	for _, c := range s.commands() {
		out = append(out, c.Name)
	}
	return out
}

// skills are the init message's skills: the commands that are skills.
func (s *Session) skills() []string {
	out := []string{}
	for _, c := range s.commands() {
		if c.Skill {
			out = append(out, c.Name)
		}
	}
	return out
}

// apiModel is the model as its provider's API names it, without nova's
// "provider:" prefix: what Claude Code writes in init, in each assistant
// message and as modelUsage's key (claude-sonnet-5-5).
func (s *Session) apiModel() string {
	if _, m, ok := strings.Cut(s.Model, ":"); ok {
		return m
	}
	return s.Model
}

func (s *Session) mode() string {
	if s.PermissionMode == nil {
		return "default"
	}
	return s.PermissionMode()
}

// Result is the result message of the json and stream-json formats: Claude
// Code's, with nova's own fields after its.
type Result struct {
	Type          string `json:"type"`
	Subtype       string `json:"subtype"`
	IsError       bool   `json:"is_error"`
	DurationMS    int64  `json:"duration_ms"`
	DurationAPIMS int64  `json:"duration_api_ms"`
	NumTurns      int    `json:"num_turns"`
	Result        string `json:"result"`
	// StopReason is the model's last stop reason; null when it gave none.
	StopReason *string `json:"stop_reason"`
	SessionID  string  `json:"session_id"`
	// TotalCostUSD is what the run cost at the model's known prices
	// (config/catalog.go, config.json's); 0 for a model without prices.
	TotalCostUSD      float64               `json:"total_cost_usd"`
	Usage             Usage                 `json:"usage"`
	ModelUsage        map[string]ModelUsage `json:"modelUsage"`
	PermissionDenials []agent.Denial        `json:"permission_denials"`
	// Errors says what went wrong when IsError (the Agent SDK reads it).
	Errors []string `json:"errors,omitempty"`
	UUID   string   `json:"uuid"`
	// Error is Errors in one string, as nova's results always had it.
	Error string `json:"error,omitempty"`
	// IgnoredProjectSettings lists the project grants that did not apply
	// because the folder is not trusted; empty when none.
	IgnoredProjectSettings []IgnoredSetting `json:"ignored_project_settings"`
	Model                  string           `json:"model,omitempty"`
	// StructuredOutput is the turn's answer as the JSON schema asked
	// (--json-schema); absent without one or when the model gave none.
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// safeEvent returns ev with a tool call input that marshals: the agent
// sends it so, and the debug output does not trust that.
func safeEvent(ev agent.Event) agent.Event {
	if ev.ToolCall != nil {
		c := *ev.ToolCall
		c.Input = llm.SafeInput(c.Input)
		ev.ToolCall = &c
	}
	return ev
}
