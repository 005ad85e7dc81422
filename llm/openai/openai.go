// Package openai implements llm.Client on the official OpenAI Go SDK, for
// two wire protocols: chat completions (ChatClient: OpenAI and every
// OpenAI-compatible server, Ollama included) and the Responses API
// (ResponsesClient).
//
// Both clients leave retries to llm.WithRetry (the SDK's own are off) and
// report every failure as an *llm.APIError. Usage is normalised to
// Anthropic's meaning: InputTokens counts only uncached input, because
// OpenAI's prompt/input token counts include the cached tokens.
package openai

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3/option"

	"github.com/nova-dev/nova/llm"
)

// Default endpoints.
const (
	DefaultBaseURL       = "https://api.openai.com/v1"
	DefaultOllamaBaseURL = "http://localhost:11434/v1"
	defaultKeyHint       = "OPENAI_API_KEY"
)

// base is what both clients share: SDK options and naming for errors.
type base struct {
	provider string // for messages: the provider key, or its type
	keyHint  string // where the key came from, for auth errors
	baseURL  string
	opts     []option.RequestOption
}

func newBase(cfg llm.ProviderConfig, defaultURL string) base {
	b := base{provider: cfg.Key, keyHint: cfg.KeyHint, baseURL: cfg.BaseURL}
	if b.provider == "" {
		b.provider = string(cfg.Type)
	}
	if b.keyHint == "" {
		b.keyHint = defaultKeyHint
	}
	if b.baseURL == "" {
		b.baseURL = defaultURL
	}
	// The services are built from these options alone, not openai.NewClient,
	// so that OPENAI_* variables in the environment never override the
	// configured provider (a stray OPENAI_API_KEY must not reach Ollama).
	b.opts = []option.RequestOption{
		option.WithHTTPClient(llm.NewHTTPClient(cfg)),
		option.WithBaseURL(b.baseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
	}
	return b
}

// isOpenAI reports whether the base URL is OpenAI's own API, which wants
// max_completion_tokens where compatible servers want max_tokens.
func (b base) isOpenAI() bool {
	u, err := url.Parse(b.baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// dataURL encodes an image part as the data: URL both APIs accept.
func dataURL(p llm.Part) string {
	mt := p.MediaType
	if mt == "" {
		mt = http.DetectContentType(p.Data)
	}
	return "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// schemaMap decodes a tool's JSON schema into the map the SDK wants; an
// empty or unreadable schema becomes an object without properties, which
// every server accepts.
func schemaMap(raw json.RawMessage) map[string]any {
	var m map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &m) == nil && m != nil {
		return m
	}
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// inputString is the arguments text of a recorded call sent back to the
// model; a call without input sends an empty object.
func inputString(in json.RawMessage) string {
	if strings.TrimSpace(string(in)) == "" {
		return "{}"
	}
	return string(in)
}

// validInput returns streamed arguments as the JSON a tool receives: "{}"
// when the model sent none. Text that is not JSON (a model slip) travels as
// a JSON string, so events stay marshalable and the tool's schema check
// tells the model what went wrong.
func validInput(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// resultText flattens a tool result's text parts; an error result says so,
// since neither OpenAI API has an is_error flag. Tool references are not
// text: the tools they load join the tool list instead (llm.LoadedTools),
// and only a result with no text of its own names them.
func resultText(r *llm.ToolResult) string {
	var sb strings.Builder
	var loaded []string
	for _, p := range r.Content {
		switch p.Type {
		case llm.PartText:
			sb.WriteString(p.Text)
		case llm.PartToolReference:
			loaded = append(loaded, p.ToolName)
		}
	}
	if sb.Len() == 0 && len(loaded) > 0 {
		sb.WriteString("Loaded tools: " + strings.Join(loaded, ", "))
	}
	s := sb.String()
	if r.IsError {
		s = "Error: " + s
	}
	if s == "" {
		s = "(no output)"
	}
	return s
}

// resultImages returns the image parts of a tool result.
func resultImages(r *llm.ToolResult) []llm.Part {
	var imgs []llm.Part
	for _, p := range r.Content {
		if p.Type == llm.PartImage {
			imgs = append(imgs, p)
		}
	}
	return imgs
}

// usage converts OpenAI counts (input including cache hits) to llm.Usage.
func usage(input, output, cacheRead, cacheWrite int64) *llm.Usage {
	return &llm.Usage{
		InputTokens:      int(max(0, input-cacheRead-cacheWrite)),
		OutputTokens:     int(output),
		CacheReadTokens:  int(cacheRead),
		CacheWriteTokens: int(cacheWrite),
	}
}

// emitter wraps emit to remember whether any output reached the caller:
// before that, a failure is safe to retry.
type emitter struct {
	emit    func(llm.StreamEvent)
	started bool
}

func (e *emitter) send(ev llm.StreamEvent) {
	e.started = true
	e.emit(ev)
}
