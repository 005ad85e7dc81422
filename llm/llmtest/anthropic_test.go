package llmtest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// sseEvent is one raw event as it crossed the wire.
type sseEvent struct {
	name string
	data map[string]any
}

// postMessages sends a Messages request to srv and returns the response.
func postMessages(t *testing.T, srv *Server, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readSSE parses the body into events, and reports any read error (a cut).
func readSSE(t *testing.T, r io.Reader) ([]sseEvent, error) {
	t.Helper()
	var (
		evs  []sseEvent
		name string
	)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("data of %s is not JSON: %v", name, err)
			}
			if m["type"] != name {
				t.Errorf("event %q carries type %v", name, m["type"])
			}
			evs = append(evs, sseEvent{name: name, data: m})
		}
	}
	return evs, sc.Err()
}

func names(evs []sseEvent) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.name)
	}
	return strings.Join(s, ",")
}

func TestAnthropicStreamShape(t *testing.T) {
	srv := New(Turn{
		Thinking: "Let me think about it carefully.",
		Text:     "Here is the answer, in pieces.",
		ToolCalls: []ToolCall{
			{ID: "toolu_a", Name: "Read", Input: `{"path":"x.go"}`},
			{ID: "toolu_b", Name: "Bash", Input: `{"command":"echo ✓ done"}`},
		},
		InputTokens: 50, OutputTokens: 20, CacheReadTokens: 7, CacheWriteTokens: 3,
	})
	defer srv.Close()

	resp := postMessages(t, srv, `{"model":"claude-echo","max_tokens":10,"messages":[]}`)
	if ct := resp.Header.Get("content-type"); ct != "text/event-stream" {
		t.Errorf("content-type = %q", ct)
	}
	evs, err := readSSE(t, resp.Body)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if len(evs) < 2 || evs[0].name != "message_start" || evs[1].name != "ping" {
		t.Fatalf("events = %s", names(evs))
	}
	msg := evs[0].data["message"].(map[string]any)
	usage := msg["usage"].(map[string]any)
	if msg["model"] != "claude-echo" || !strings.HasPrefix(msg["id"].(string), "msg_") ||
		usage["input_tokens"] != 50.0 || usage["cache_read_input_tokens"] != 7.0 || usage["cache_creation_input_tokens"] != 3.0 {
		t.Errorf("message_start = %v", msg)
	}
	last := evs[len(evs)-2:]
	if last[0].name != "message_delta" || last[1].name != "message_stop" {
		t.Fatalf("ends with %s", names(last))
	}
	delta := last[0].data
	if delta["delta"].(map[string]any)["stop_reason"] != "tool_use" || delta["usage"].(map[string]any)["output_tokens"] != 20.0 {
		t.Errorf("message_delta = %v", delta)
	}

	// Rebuild each block from its deltas.
	type rebuilt struct {
		start  map[string]any
		deltas map[string]int
		text   strings.Builder
		sig    string
		input  strings.Builder
		closed bool
	}
	var blocks []*rebuilt
	for _, e := range evs[2 : len(evs)-2] {
		idx := int(e.data["index"].(float64))
		switch e.name {
		case "content_block_start":
			if idx != len(blocks) {
				t.Fatalf("block %d started out of order", idx)
			}
			blocks = append(blocks, &rebuilt{start: e.data["content_block"].(map[string]any), deltas: map[string]int{}})
		case "content_block_delta":
			b, d := blocks[idx], e.data["delta"].(map[string]any)
			b.deltas[d["type"].(string)]++
			switch d["type"] {
			case "thinking_delta":
				b.text.WriteString(d["thinking"].(string))
			case "text_delta":
				b.text.WriteString(d["text"].(string))
			case "signature_delta":
				b.sig = d["signature"].(string)
			case "input_json_delta":
				b.input.WriteString(d["partial_json"].(string))
			}
		case "content_block_stop":
			blocks[idx].closed = true
		default:
			t.Errorf("unexpected %s inside the content", e.name)
		}
	}
	if len(blocks) != 4 {
		t.Fatalf("got %d blocks, want thinking, text, 2 tool_use", len(blocks))
	}
	for i, b := range blocks {
		if !b.closed {
			t.Errorf("block %d never stopped", i)
		}
	}
	if b := blocks[0]; b.start["type"] != "thinking" || b.text.String() != "Let me think about it carefully." ||
		b.deltas["thinking_delta"] < 2 || b.sig != AnthropicSignature("Let me think about it carefully.") {
		t.Errorf("thinking block: start %v, text %q, deltas %v, sig %q", b.start, b.text.String(), b.deltas, b.sig)
	}
	if b := blocks[1]; b.start["type"] != "text" || b.text.String() != "Here is the answer, in pieces." || b.deltas["text_delta"] < 2 {
		t.Errorf("text block: start %v, text %q, deltas %v", b.start, b.text.String(), b.deltas)
	}
	for i, want := range []ToolCall{{"toolu_a", "Read", `{"path":"x.go"}`}, {"toolu_b", "Bash", `{"command":"echo ✓ done"}`}} {
		b := blocks[2+i]
		in, _ := b.start["input"].(map[string]any)
		if b.start["type"] != "tool_use" || b.start["id"] != want.ID || b.start["name"] != want.Name || in == nil || len(in) != 0 {
			t.Errorf("tool block %d start = %v", i, b.start)
		}
		if b.input.String() != want.Input || b.deltas["input_json_delta"] < 3 {
			t.Errorf("tool block %d input = %q in %d chunks, want %q in at least 3", i, b.input.String(), b.deltas["input_json_delta"], want.Input)
		}
	}
}

func TestAnthropicStreamError(t *testing.T) {
	tests := []struct {
		name     string
		turn     Turn
		wantType string
		wantMsg  string
	}{
		{"default overloaded", Turn{StreamError: true}, "overloaded_error", "Overloaded"},
		{"scripted", Turn{Text: "hi", StreamError: true, ErrorType: "api_error", ErrorMessage: "boom"}, "api_error", "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(tt.turn)
			defer srv.Close()
			evs, err := readSSE(t, postMessages(t, srv, `{"model":"m"}`).Body)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			last := evs[len(evs)-1]
			if last.name != "error" {
				t.Fatalf("events = %s, want an error last", names(evs))
			}
			for _, e := range evs {
				if e.name == "message_delta" || e.name == "message_stop" {
					t.Errorf("%s sent alongside the error", e.name)
				}
			}
			e := last.data["error"].(map[string]any)
			if e["type"] != tt.wantType || e["message"] != tt.wantMsg {
				t.Errorf("error = %v", e)
			}
		})
	}
}

func TestAnthropicErrorBody(t *testing.T) {
	tests := []struct {
		turn     Turn
		wantType string
	}{
		{Turn{Status: 400}, "invalid_request_error"},
		{Turn{Status: 401}, "authentication_error"},
		{Turn{Status: 403}, "permission_error"},
		{Turn{Status: 429}, "rate_limit_error"},
		{Turn{Status: 500}, "api_error"},
		{Turn{Status: 529}, "overloaded_error"},
		{Turn{Status: 503, ErrorType: "overloaded_error", ErrorMessage: "try later"}, "overloaded_error"},
	}
	for _, tt := range tests {
		srv := New(tt.turn)
		resp := postMessages(t, srv, `{"model":"m"}`)
		var body struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		err := json.NewDecoder(resp.Body).Decode(&body)
		srv.Close()
		if err != nil {
			t.Fatalf("status %d: %v", tt.turn.Status, err)
		}
		if resp.StatusCode != tt.turn.Status || body.Type != "error" || body.Error.Type != tt.wantType || body.Error.Message == "" {
			t.Errorf("status %d: got %d %+v, want type %s", tt.turn.Status, resp.StatusCode, body, tt.wantType)
		}
		if tt.turn.ErrorMessage != "" && body.Error.Message != tt.turn.ErrorMessage {
			t.Errorf("message = %q, want %q", body.Error.Message, tt.turn.ErrorMessage)
		}
	}
}

func TestAnthropicCutAfter(t *testing.T) {
	srv := New(Turn{Text: "this will not all arrive", CutAfter: 3})
	defer srv.Close()
	evs, err := readSSE(t, postMessages(t, srv, `{"model":"m"}`).Body)
	if err == nil {
		t.Error("a cut stream read cleanly")
	}
	if len(evs) != 3 {
		t.Errorf("got %d events before the cut, want 3: %s", len(evs), names(evs))
	}
}
