package anthropic

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// newTestClient returns a Client talking to srv with a test key.
func newTestClient(srv *llmtest.Server, mod ...func(*llm.ProviderConfig)) *Client {
	cfg := llm.ProviderConfig{Type: llm.ProviderAnthropic, BaseURL: srv.URL, APIKey: "sk-test-key"}
	for _, m := range mod {
		m(&cfg)
	}
	return New(cfg)
}

// run streams req through c and collects every event.
func run(ctx context.Context, c llm.Client, req llm.Request) ([]llm.StreamEvent, error) {
	var evs []llm.StreamEvent
	err := c.Stream(ctx, req, func(ev llm.StreamEvent) { evs = append(evs, ev) })
	return evs, err
}

func simpleRequest() llm.Request {
	return llm.Request{Model: "claude-test-1", Messages: []llm.Message{llm.UserText("hi")}}
}

func ofType(evs []llm.StreamEvent, t llm.EventType) []llm.StreamEvent {
	var out []llm.StreamEvent
	for _, ev := range evs {
		if ev.Type == t {
			out = append(out, ev)
		}
	}
	return out
}

func joinText(evs []llm.StreamEvent, t llm.EventType) string {
	var b strings.Builder
	for _, ev := range ofType(evs, t) {
		b.WriteString(ev.Text)
	}
	return b.String()
}

func TestStreamText(t *testing.T) {
	const text = "Hello there — this answer arrives in several pieces, in order."
	srv := llmtest.New(llmtest.Turn{Text: text})
	defer srv.Close()

	evs, err := run(t.Context(), newTestClient(srv), simpleRequest())
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	deltas := ofType(evs, llm.EventTextDelta)
	if len(deltas) < 2 {
		t.Errorf("got %d text deltas, want several", len(deltas))
	}
	if got := joinText(evs, llm.EventTextDelta); got != text {
		t.Errorf("text = %q, want %q", got, text)
	}
	last := evs[len(evs)-1]
	if last.Type != llm.EventStop || last.StopReason != llm.StopEndTurn {
		t.Errorf("last event = %+v, want stop end_turn", last)
	}
	if n := len(ofType(evs, llm.EventUsage)); n != 1 {
		t.Errorf("got %d usage events, want 1", n)
	}
}

func TestStreamToolCalls(t *testing.T) {
	tests := []struct {
		name  string
		calls []llmtest.ToolCall
		want  []string // the inputs the tool_call events must carry
	}{
		{
			name: "two calls with multi-chunk inputs",
			calls: []llmtest.ToolCall{
				{ID: "toolu_1", Name: "Read", Input: `{"file_path":"/tmp/a.go","offset":10,"limit":200}`},
				{ID: "toolu_2", Name: "Bash", Input: `{"command":"go test ./... -run 'TestX$'","description":"run \"tests\" ✓"}`},
			},
			want: []string{
				`{"file_path":"/tmp/a.go","offset":10,"limit":200}`,
				`{"command":"go test ./... -run 'TestX$'","description":"run \"tests\" ✓"}`,
			},
		},
		{
			name:  "empty input becomes an empty object",
			calls: []llmtest.ToolCall{{ID: "toolu_3", Name: "LS", Input: ""}},
			want:  []string{`{}`},
		},
		{
			name:  "invalid JSON is passed on raw",
			calls: []llmtest.ToolCall{{ID: "toolu_4", Name: "Edit", Input: `{"path": "x", "new`}},
			want:  []string{`{"path": "x", "new`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(llmtest.Turn{Text: "Let me look.", ToolCalls: tt.calls})
			defer srv.Close()

			evs, err := run(t.Context(), newTestClient(srv), simpleRequest())
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			calls := ofType(evs, llm.EventToolCall)
			if len(calls) != len(tt.want) {
				t.Fatalf("got %d tool calls, want %d: %+v", len(calls), len(tt.want), calls)
			}
			for i, ev := range calls {
				tc := ev.ToolCall
				if tc.ID != tt.calls[i].ID || tc.Name != tt.calls[i].Name {
					t.Errorf("call %d = %s %s, want %s %s", i, tc.ID, tc.Name, tt.calls[i].ID, tt.calls[i].Name)
				}
				if string(tc.Input) != tt.want[i] {
					t.Errorf("call %d input = %s, want %s", i, tc.Input, tt.want[i])
				}
			}
			if stop := evs[len(evs)-1]; stop.StopReason != llm.StopToolUse {
				t.Errorf("stop = %q, want tool_use", stop.StopReason)
			}
		})
	}
}

func TestStreamThinkingThenToolCall(t *testing.T) {
	const thinking = "The user wants the file listed. I should call LS on the workspace root first."
	srv := llmtest.New(llmtest.Turn{
		Thinking:  thinking,
		ToolCalls: []llmtest.ToolCall{{ID: "toolu_9", Name: "LS", Input: `{"path":"."}`}},
	})
	defer srv.Close()

	evs, err := run(t.Context(), newTestClient(srv), simpleRequest())
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if got := joinText(evs, llm.EventThinkingDelta); got != thinking {
		t.Errorf("thinking = %q, want %q", got, thinking)
	}
	var order []llm.EventType
	for _, ev := range evs {
		if len(order) == 0 || order[len(order)-1] != ev.Type {
			order = append(order, ev.Type)
		}
	}
	want := []llm.EventType{llm.EventThinkingDelta, llm.EventThinkingDone, llm.EventToolCall, llm.EventUsage, llm.EventStop}
	if !slices.Equal(order, want) {
		t.Errorf("event order = %v, want %v", order, want)
	}
	done := ofType(evs, llm.EventThinkingDone)
	if len(done) != 1 || done[0].Signature != llmtest.AnthropicSignature(thinking) {
		t.Errorf("thinking_done = %+v, want signature %q", done, llmtest.AnthropicSignature(thinking))
	}
}

func TestStreamUsage(t *testing.T) {
	srv := llmtest.New(llmtest.Turn{
		Text: "cached", InputTokens: 1200, OutputTokens: 42, CacheReadTokens: 900, CacheWriteTokens: 250,
	})
	defer srv.Close()

	evs, err := run(t.Context(), newTestClient(srv), simpleRequest())
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	us := ofType(evs, llm.EventUsage)
	if len(us) == 0 {
		t.Fatal("no usage event")
	}
	want := llm.Usage{InputTokens: 1200, OutputTokens: 42, CacheReadTokens: 900, CacheWriteTokens: 250}
	if got := *us[len(us)-1].Usage; got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
}

func TestStreamEndsWithoutMessageStop(t *testing.T) {
	// A server that ends the body cleanly, but early, as a proxy might.
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/event-stream")
		_, _ = w.Write([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"))
	}))
	defer hs.Close()

	c := New(llm.ProviderConfig{BaseURL: hs.URL, APIKey: "k"})
	_, err := run(t.Context(), c, simpleRequest())
	ae, ok := llm.AsAPIError(err)
	if !ok || ae.Kind != llm.ErrStream {
		t.Fatalf("err = %v, want stream error", err)
	}
}

func TestStreamFailures(t *testing.T) {
	tests := []struct {
		name     string
		turn     llmtest.Turn
		cfg      func(*llm.ProviderConfig)
		kind     llm.ErrorKind
		status   int
		contains []string
	}{
		{
			name: "auth with configured key hint", turn: llmtest.Turn{Status: 401},
			cfg:  func(c *llm.ProviderConfig) { c.Key = "work"; c.KeyHint = `api_key of provider "work"` },
			kind: llm.ErrAuth, status: 401, contains: []string{"work:", `check api_key of provider "work"`, "invalid x-api-key"},
		},
		{
			name: "auth with default key hint", turn: llmtest.Turn{Status: 401, ErrorMessage: "bad key"},
			kind: llm.ErrAuth, status: 401, contains: []string{"anthropic:", "check ANTHROPIC_API_KEY", "bad key"},
		},
		{
			name: "bad request", turn: llmtest.Turn{Status: 400, ErrorMessage: "messages: field required"},
			kind: llm.ErrBadRequest, status: 400, contains: []string{"messages: field required"},
		},
		{
			name: "server error", turn: llmtest.Turn{Status: 500},
			kind: llm.ErrServer, status: 500, contains: []string{"HTTP 500"},
		},
		{
			name: "overloaded type on a 503", turn: llmtest.Turn{Status: 503, ErrorType: "overloaded_error"},
			kind: llm.ErrOverloaded, status: 503,
		},
		{
			name: "in-stream error", turn: llmtest.Turn{StreamError: true, ErrorMessage: "busy right now"},
			kind: llm.ErrOverloaded, contains: []string{"busy right now"},
		},
		{
			name: "cut after output", turn: llmtest.Turn{Text: "a partial answer that never ends", CutAfter: 5},
			kind: llm.ErrStream,
		},
		{
			// llmtest sleeps out every ChunkDelay even after the client has
			// gone, so the delay is kept short to keep Close short.
			name: "idle body", turn: llmtest.Turn{Text: "slow", ChunkDelay: 150 * time.Millisecond},
			cfg:  func(c *llm.ProviderConfig) { c.IdleTimeout = 20 * time.Millisecond },
			kind: llm.ErrTimeout,
		},
		{
			name: "no response headers", turn: llmtest.Turn{Hang: true},
			cfg:  func(c *llm.ProviderConfig) { c.FirstByteTimeout = 50 * time.Millisecond },
			kind: llm.ErrTimeout,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(tt.turn)
			defer srv.Close()
			var mods []func(*llm.ProviderConfig)
			if tt.cfg != nil {
				mods = append(mods, tt.cfg)
			}
			// The deadline only keeps a broken test from hanging; the
			// client's own timeouts must fire long before it.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()

			_, err := run(ctx, newTestClient(srv, mods...), simpleRequest())
			ae, ok := llm.AsAPIError(err)
			if !ok {
				t.Fatalf("err = %v (%T), want *llm.APIError", err, err)
			}
			if ae.Kind != tt.kind || ae.StatusCode != tt.status {
				t.Errorf("kind, status = %s, %d, want %s, %d (%v)", ae.Kind, ae.StatusCode, tt.kind, tt.status, err)
			}
			for _, s := range tt.contains {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1 (the SDK must not retry)", n)
			}
		})
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	c := New(llm.ProviderConfig{BaseURL: "http://" + addr, APIKey: "k"})
	_, err = run(t.Context(), c, simpleRequest())
	ae, ok := llm.AsAPIError(err)
	if !ok || ae.Kind != llm.ErrConnection {
		t.Fatalf("err = %v, want connection error", err)
	}
	if !ae.Retryable() {
		t.Error("connection errors must be retryable")
	}
}

func TestCancelMidStream(t *testing.T) {
	text := strings.Repeat("word ", 40)
	srv := llmtest.New(llmtest.Turn{Text: text, ChunkDelay: 20 * time.Millisecond})
	defer srv.Close()

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got strings.Builder
	err := newTestClient(srv).Stream(ctx, simpleRequest(), func(ev llm.StreamEvent) {
		if ev.Type == llm.EventTextDelta {
			got.WriteString(ev.Text)
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, isAPI := llm.AsAPIError(err); isAPI {
		t.Errorf("a cancelled stream is not a provider failure: %v", err)
	}
	if got.String() == text {
		t.Error("the whole answer arrived; cancel did not stop the stream")
	}
}
