package headless

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nova-dev/nova/llm"
)

// maxInputLine bounds one stdin message (a user message may carry
// images): a longer line is refused, not read into memory without end.
const maxInputLine = 64 << 20

// Input reads Claude Code's stream-json input: newline-delimited JSON
// messages from the Agent SDK (user messages, control requests and the
// answers to nova's own control requests).
type Input struct {
	r *bufio.Reader
	// held is a message read before Serve started (the first, when it
	// was not an initialize request).
	held *inMessage
	// init is the initialize request read by Initialize, answered by
	// Serve.
	init *InitializeRequest
}

// NewInput reads messages from r.
func NewInput(r io.Reader) *Input {
	return &Input{r: bufio.NewReaderSize(r, 64<<10)}
}

// inMessage is one line of input, decoded as far as routing needs.
type inMessage struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`
	Message   json.RawMessage `json:"message"`
	UUID      string          `json:"uuid"`
	// ShouldQuery false adds the message to the next one instead of
	// starting a turn.
	ShouldQuery *bool `json:"shouldQuery"`

	err error // the line did not decode
}

// next reads the next message; io.EOF when input ended.
func (in *Input) next() (*inMessage, error) {
	if m := in.held; m != nil {
		in.held = nil
		return m, nil
	}
	for {
		line, err := in.readLine()
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		var m inMessage
		if jerr := json.Unmarshal(line, &m); jerr != nil {
			m.err = fmt.Errorf("a line of input is not JSON (%v): %.200s", jerr, line)
		} else if m.Type == "" {
			m.err = fmt.Errorf("a message of input has no type: %.200s", line)
		}
		return &m, nil
	}
}

func (in *Input) readLine() ([]byte, error) {
	var buf []byte
	for {
		part, err := in.r.ReadSlice('\n')
		buf = append(buf, part...)
		if len(buf) > maxInputLine {
			return nil, fmt.Errorf("a line of input is longer than %d MB", maxInputLine>>20)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, err
	}
}

// InitializeRequest is the SDK's initialize control request: what a
// session is set up with before its first turn.
type InitializeRequest struct {
	RequestID string `json:"-"`
	// SystemPrompt replaces nova's system prompt when it holds any text
	// (the SDK sends [""] when the caller gave none).
	SystemPrompt       []string `json:"-"`
	AppendSystemPrompt string   `json:"appendSystemPrompt"`
	// MCPServers are the SDK's mcpServers (sent here under
	// --await-initialize), in .mcp.json's mcpServers shape.
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	// Title names the session.
	Title string `json:"title"`
	// SDKMCPServers name the host's in-process MCP servers
	// (createSdkMcpServer), carried by MCPBridge; SDKMCPServerConfigs
	// are their settings, by name. (sdkMcpServerManifests, a cache of
	// their handshake, is not read: nova performs the handshake.)
	SDKMCPServers       []string                   `json:"sdkMcpServers"`
	SDKMCPServerConfigs map[string]json.RawMessage `json:"sdkMcpServerConfigs"`

	// What nova cannot honour yet; Unsupported names it.
	Hooks      map[string]json.RawMessage `json:"hooks"`
	JSONSchema json.RawMessage            `json:"jsonSchema"`
	Agents     map[string]json.RawMessage `json:"agents"`
	Plugins    []json.RawMessage          `json:"plugins"`

	RawSystemPrompt json.RawMessage `json:"systemPrompt"`
}

// Initialize reads the first message of input. When it is an initialize
// request it is returned (Serve answers it); otherwise it is kept for
// Serve and Initialize returns nil. It blocks until the SDK writes.
func (in *Input) Initialize() (*InitializeRequest, error) {
	m, err := in.next()
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	req, ok, err := parseInitialize(m)
	if err != nil {
		return nil, err
	}
	if !ok {
		in.held = m
		return nil, nil
	}
	in.init = req
	return req, nil
}

func parseInitialize(m *inMessage) (*InitializeRequest, bool, error) {
	if m.err != nil || m.Type != "control_request" || controlSubtype(m.Request) != "initialize" {
		return nil, false, nil
	}
	var req InitializeRequest
	if err := json.Unmarshal(m.Request, &req); err != nil {
		return nil, false, fmt.Errorf("the initialize request does not decode: %v", err)
	}
	req.RequestID = m.RequestID
	switch raw := bytes.TrimSpace(req.RawSystemPrompt); {
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] == '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		req.SystemPrompt = []string{s}
	default:
		if err := json.Unmarshal(raw, &req.SystemPrompt); err != nil {
			return nil, false, fmt.Errorf("initialize: systemPrompt is neither a string nor a list of strings: %v", err)
		}
	}
	return &req, true, nil
}

// System is the system prompt the request asks for: "" to keep nova's.
func (r *InitializeRequest) System() string {
	return strings.TrimSpace(strings.Join(r.SystemPrompt, "\n\n"))
}

// MCPConfig is the request's mcpServers as an inline --mcp-config value,
// or "" when it names none.
func (r *InitializeRequest) MCPConfig() (string, error) {
	if len(r.MCPServers) == 0 {
		return "", nil
	}
	b, err := json.Marshal(struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}{r.MCPServers})
	return string(b), err
}

// AgentDefinition is one of the SDK's agents (its AgentDefinition): a
// subagent type the session's Agent tool offers.
type AgentDefinition struct {
	Description     string   `json:"description"`
	Prompt          string   `json:"prompt"`
	Tools           []string `json:"tools"`
	DisallowedTools []string `json:"disallowedTools"`
	Model           string   `json:"model"`
	MaxTurns        int      `json:"maxTurns"`
}

// AgentDefinitions reads the request's agents, by name; an agent without
// a description or a prompt is refused, naming it.
func (r *InitializeRequest) AgentDefinitions() (map[string]AgentDefinition, error) {
	return agentDefinitions(r.Agents)
}

// ParseAgentDefinitions reads Claude Code's --agents JSON, an object of
// agents by name in the initialize request's shape
// ({"reviewer": {"description": ..., "prompt": ..., "tools": [...], "model": ...}}).
func ParseAgentDefinitions(data []byte) (map[string]AgentDefinition, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("want a JSON object of agents by name: %v", err)
	}
	return agentDefinitions(raw)
}

func agentDefinitions(agents map[string]json.RawMessage) (map[string]AgentDefinition, error) {
	out := map[string]AgentDefinition{}
	for name, raw := range agents {
		var d AgentDefinition
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("agents.%s: %v", name, err)
		}
		if strings.TrimSpace(d.Description) == "" || strings.TrimSpace(d.Prompt) == "" {
			return nil, fmt.Errorf("agents.%s: an agent needs a description and a prompt", name)
		}
		out[name] = d
	}
	return out, nil
}

// Schema is the structured output's JSON schema (the SDK's outputFormat);
// nil for none.
func (r *InitializeRequest) Schema() []byte {
	if t := bytes.TrimSpace(r.JSONSchema); len(t) > 0 && string(t) != "null" {
		return t
	}
	return nil
}

// Unsupported says what of the request nova cannot honour; nil when it
// can honour all of it. Each is refused rather than ignored: a hook or a
// schema the caller relies on must not silently do nothing.
func (r *InitializeRequest) Unsupported() error {
	var what []string
	if len(r.Plugins) > 0 {
		what = append(what, "plugins")
	}
	if len(what) == 0 {
		return nil
	}
	return fmt.Errorf("nova does not support %s yet; see docs/sdk.md for what it supports", strings.Join(what, ", "))
}

func controlSubtype(req json.RawMessage) string {
	var r struct {
		Subtype string `json:"subtype"`
	}
	_ = json.Unmarshal(req, &r)
	return r.Subtype
}

// userInput turns a user message's Anthropic content (a string or a list
// of blocks) into nova's message; skipped names blocks nova has no use for.
func userInput(raw json.RawMessage) (msg llm.Message, skipped []string, err error) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return llm.Message{}, nil, fmt.Errorf("a user message does not decode: %v", err)
	}
	msg.Role = llm.RoleUser
	content := bytes.TrimSpace(m.Content)
	if len(content) > 0 && content[0] == '"' {
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return llm.Message{}, nil, fmt.Errorf("a user message does not decode: %v", err)
		}
		msg.Parts = []llm.Part{llm.TextPart(s)}
		return msg, nil, nil
	}
	var blocks []struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Source *struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
	}
	if err := json.Unmarshal(content, &blocks); err != nil {
		return llm.Message{}, nil, fmt.Errorf("a user message's content is neither text nor content blocks: %v", err)
	}
	for _, b := range blocks {
		switch {
		case b.Type == "text":
			msg.Parts = append(msg.Parts, llm.TextPart(b.Text))
		case b.Type == "image" && b.Source != nil && b.Source.Type == "base64":
			data, err := base64.StdEncoding.DecodeString(b.Source.Data)
			if err != nil {
				return llm.Message{}, nil, fmt.Errorf("an image of a user message is not base64: %v", err)
			}
			msg.Parts = append(msg.Parts, llm.Part{Type: llm.PartImage, MediaType: b.Source.MediaType, Data: data})
		default:
			skipped = append(skipped, b.Type)
		}
	}
	if len(msg.Parts) == 0 {
		return llm.Message{}, skipped, errors.New("a user message holds nothing nova can send (no text or base64 image)")
	}
	return msg, skipped, nil
}
