package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// api is one of the two wire protocols under test.
type api struct {
	name string
	typ  llm.ProviderType
	path string
	new  func(cfg llm.ProviderConfig) llm.Client
}

func apis() []api {
	return []api{
		{"chat", llm.ProviderOpenAICompatible, "/v1/chat/completions", func(cfg llm.ProviderConfig) llm.Client { return NewChat(cfg) }},
		{"responses", llm.ProviderOpenAIResponse, "/v1/responses", func(cfg llm.ProviderConfig) llm.Client { return NewResponses(cfg) }},
	}
}

// forEachAPI runs f as a subtest for both protocols.
func forEachAPI(t *testing.T, f func(t *testing.T, a api)) {
	t.Helper()
	for _, a := range apis() {
		t.Run(a.name, func(t *testing.T) { f(t, a) })
	}
}

func config(a api, url string) llm.ProviderConfig {
	return llm.ProviderConfig{
		Key: "test", Type: a.typ, BaseURL: url + "/v1", APIKey: "sk-test", KeyHint: "NOVA_TEST_KEY",
		FirstByteTimeout: 10 * time.Second, IdleTimeout: 10 * time.Second,
	}
}

func request() llm.Request {
	return llm.Request{Model: "gpt-test", Messages: []llm.Message{llm.UserText("hi")}}
}

// stream runs one Stream call with a deadline that only a broken client hits.
func stream(t *testing.T, c llm.Client, req llm.Request) ([]llm.StreamEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []llm.StreamEvent
	err := c.Stream(ctx, req, func(ev llm.StreamEvent) { evs = append(evs, ev) })
	return evs, err
}

func collect(evs []llm.StreamEvent, typ llm.EventType) (n int, text string) {
	for _, ev := range evs {
		if ev.Type == typ {
			n++
			text += ev.Text
		}
	}
	return n, text
}

func toolCalls(evs []llm.StreamEvent) []llm.ToolCall {
	var calls []llm.ToolCall
	for _, ev := range evs {
		if ev.Type == llm.EventToolCall {
			calls = append(calls, *ev.ToolCall)
		}
	}
	return calls
}

func lastUsage(evs []llm.StreamEvent) *llm.Usage {
	var u *llm.Usage
	for _, ev := range evs {
		if ev.Type == llm.EventUsage {
			u = ev.Usage
		}
	}
	return u
}

func stopOf(t *testing.T, evs []llm.StreamEvent) llm.StopReason {
	t.Helper()
	if len(evs) == 0 || evs[len(evs)-1].Type != llm.EventStop {
		t.Fatalf("last event is not stop: %+v", evs)
	}
	return evs[len(evs)-1].StopReason
}

func wantKind(t *testing.T, err error, kind llm.ErrorKind) *llm.APIError {
	t.Helper()
	ae, ok := llm.AsAPIError(err)
	if !ok {
		t.Fatalf("error %v (%T) is not an *llm.APIError", err, err)
	}
	if ae.Kind != kind {
		t.Fatalf("kind = %s, want %s (%v)", ae.Kind, kind, err)
	}
	return ae
}

func sameJSON(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("input %q is not JSON: %v", got, err)
	}
	_ = json.Unmarshal([]byte(want), &w)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("input = %s, want %s", got, want)
	}
}

func TestStreamContent(t *testing.T) {
	calls := []llmtest.ToolCall{
		{ID: "call_a", Name: "Read", Input: `{"path":"/tmp/some/long/path/file.go","offset":10,"limit":200}`},
		{ID: "call_b", Name: "Bash", Input: `{"command":"go test ./... -run 'TestX' | tail -n 20","note":"héllo ✓"}`},
		{ID: "call_c", Name: "Ls", Input: ``},
	}
	cases := []struct {
		name      string
		turn      llmtest.Turn
		thinking  string
		text      string
		calls     []llmtest.ToolCall
		stop      llm.StopReason
		minDeltas int
	}{
		{name: "text", turn: llmtest.Turn{Text: "Hello there, this is a streamed answer."}, text: "Hello there, this is a streamed answer.", stop: llm.StopEndTurn, minDeltas: 3},
		{name: "thinking", turn: llmtest.Turn{Thinking: "Let me think about it.", Text: "Done."}, thinking: "Let me think about it.", text: "Done.", stop: llm.StopEndTurn, minDeltas: 1},
		{name: "tools", turn: llmtest.Turn{Text: "Running.", ToolCalls: calls}, text: "Running.", calls: calls, stop: llm.StopToolUse, minDeltas: 1},
		{name: "max tokens", turn: llmtest.Turn{Text: "cut", StopReason: "max_tokens"}, text: "cut", stop: llm.StopMaxTokens, minDeltas: 1},
		{name: "refusal", turn: llmtest.Turn{Text: "no", StopReason: "refusal"}, text: "no", stop: llm.StopRefusal, minDeltas: 1},
	}
	forEachAPI(t, func(t *testing.T, a api) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				srv := llmtest.New(tc.turn)
				defer srv.Close()
				evs, err := stream(t, a.new(config(a, srv.URL)), request())
				if err != nil {
					t.Fatal(err)
				}
				n, text := collect(evs, llm.EventTextDelta)
				if text != tc.text || n < tc.minDeltas {
					t.Errorf("text = %q in %d deltas, want %q in >= %d", text, n, tc.text, tc.minDeltas)
				}
				if _, thinking := collect(evs, llm.EventThinkingDelta); thinking != tc.thinking {
					t.Errorf("thinking = %q, want %q", thinking, tc.thinking)
				}
				if tc.thinking != "" {
					assertThinkingClosedBeforeText(t, evs)
				}
				got := toolCalls(evs)
				if len(got) != len(tc.calls) {
					t.Fatalf("got %d tool calls, want %d: %+v", len(got), len(tc.calls), got)
				}
				for i, want := range tc.calls {
					if got[i].ID != want.ID || got[i].Name != want.Name {
						t.Errorf("call %d = %s %s, want %s %s", i, got[i].ID, got[i].Name, want.ID, want.Name)
					}
					in := want.Input
					if in == "" {
						in = "{}"
					}
					sameJSON(t, got[i].Input, in)
				}
				if lastUsage(evs) == nil {
					t.Error("no usage event")
				}
				if stop := stopOf(t, evs); stop != tc.stop {
					t.Errorf("stop = %s, want %s", stop, tc.stop)
				}
			})
		}
	})
}

func assertThinkingClosedBeforeText(t *testing.T, evs []llm.StreamEvent) {
	t.Helper()
	done := -1
	for i, ev := range evs {
		switch ev.Type {
		case llm.EventThinkingDone:
			done = i
		case llm.EventTextDelta:
			if done < 0 {
				t.Fatalf("text before thinking_done: %+v", evs)
			}
			return
		}
	}
}

func TestUsage(t *testing.T) {
	forEachAPI(t, func(t *testing.T, a api) {
		srv := llmtest.New(llmtest.Turn{Text: "ok", InputTokens: 100, OutputTokens: 20, CacheReadTokens: 30, CacheWriteTokens: 5})
		defer srv.Close()
		evs, err := stream(t, a.new(config(a, srv.URL)), request())
		if err != nil {
			t.Fatal(err)
		}
		want := llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 30, CacheWriteTokens: 5}
		if u := lastUsage(evs); u == nil || *u != want {
			t.Fatalf("usage = %+v, want %+v", u, want)
		}
	})
}

func TestRetries(t *testing.T) {
	forEachAPI(t, func(t *testing.T, a api) {
		srv := llmtest.New(
			llmtest.Turn{Status: 429, RetryAfter: "2"},
			llmtest.Turn{Status: 429, RetryAfterMS: "1500"},
			llmtest.Turn{Status: 500},
			llmtest.Turn{StreamError: true}, // an error chunk before any output
			llmtest.Turn{Text: "finally"},
		)
		defer srv.Close()
		var mu sync.Mutex
		var delays []time.Duration
		c := llm.WithRetry(a.new(config(a, srv.URL)), llm.RetryPolicy{
			MaxAttempts: 5, BaseDelay: 100 * time.Millisecond, MaxDelay: 10 * time.Second,
			Sleep: func(ctx context.Context, d time.Duration) error {
				mu.Lock()
				defer mu.Unlock()
				delays = append(delays, d)
				return nil
			},
		})
		evs, err := stream(t, c, request())
		if err != nil {
			t.Fatal(err)
		}
		if _, text := collect(evs, llm.EventTextDelta); text != "finally" {
			t.Errorf("text = %q", text)
		}
		var kinds []llm.ErrorKind
		for _, ev := range evs {
			if ev.Type == llm.EventRetry {
				kinds = append(kinds, ev.Retry.Kind)
			}
		}
		wantKinds := []llm.ErrorKind{llm.ErrRateLimit, llm.ErrRateLimit, llm.ErrServer, llm.ErrServer}
		if !reflect.DeepEqual(kinds, wantKinds) {
			t.Errorf("retry kinds = %v, want %v", kinds, wantKinds)
		}
		if len(delays) != 4 || delays[0] != 2*time.Second || delays[1] != 1500*time.Millisecond {
			t.Errorf("delays = %v, want [2s 1.5s backoff backoff]", delays)
		}
		if n := len(srv.Requests()); n != 5 {
			t.Errorf("%d requests, want 5", n)
		}
	})
}

func TestErrors(t *testing.T) {
	type check func(t *testing.T, ae *llm.APIError)
	cases := []struct {
		name     string
		turn     func(a api) llmtest.Turn
		kind     llm.ErrorKind
		requests int
		check    check
	}{
		{
			name: "auth not retried", kind: llm.ErrAuth, requests: 1,
			turn: func(api) llmtest.Turn { return llmtest.Turn{Status: 401} },
			check: func(t *testing.T, ae *llm.APIError) {
				if ae.StatusCode != 401 || !strings.Contains(ae.Error(), "NOVA_TEST_KEY") || ae.Provider != "test" {
					t.Errorf("error %q: want status 401, provider test and the key named", ae)
				}
			},
		},
		{
			name: "bad request", kind: llm.ErrBadRequest, requests: 1,
			turn: func(api) llmtest.Turn { return llmtest.Turn{Status: 400, ErrorMessage: "context too long"} },
			check: func(t *testing.T, ae *llm.APIError) {
				if !strings.Contains(ae.Message, "context too long") {
					t.Errorf("message = %q", ae.Message)
				}
			},
		},
		{
			name: "cut after output", kind: llm.ErrStream, requests: 1,
			turn: func(a api) llmtest.Turn {
				cut := 3 // role chunk and two text chunks
				if a.name == "responses" {
					cut = 6 // created, in_progress, item added, part added, two deltas
				}
				return llmtest.Turn{Text: "one two three four five six seven eight", CutAfter: cut}
			},
		},
		{
			name: "error chunk after output", kind: llm.ErrStream, requests: 1,
			turn: func(api) llmtest.Turn {
				return llmtest.Turn{Text: "partial", StreamError: true, ErrorMessage: "boom"}
			},
			check: func(t *testing.T, ae *llm.APIError) {
				if !strings.Contains(ae.Message, "boom") {
					t.Errorf("message = %q", ae.Message)
				}
			},
		},
	}
	forEachAPI(t, func(t *testing.T, a api) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				srv := llmtest.New(tc.turn(a), llmtest.Turn{Text: "should not be reached"})
				defer srv.Close()
				c := llm.WithRetry(a.new(config(a, srv.URL)), llm.RetryPolicy{
					MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond,
					Sleep: func(context.Context, time.Duration) error { return nil },
				})
				_, err := stream(t, c, request())
				ae := wantKind(t, err, tc.kind)
				if tc.check != nil {
					tc.check(t, ae)
				}
				if n := len(srv.Requests()); n != tc.requests {
					t.Errorf("%d requests, want %d", n, tc.requests)
				}
			})
		}
	})
}

func TestFirstByteTimeout(t *testing.T) {
	forEachAPI(t, func(t *testing.T, a api) {
		srv := llmtest.New(llmtest.Turn{Hang: true})
		defer srv.Close()
		cfg := config(a, srv.URL)
		cfg.FirstByteTimeout = 100 * time.Millisecond
		_, err := stream(t, a.new(cfg), request())
		wantKind(t, err, llm.ErrTimeout)
	})
}

// TestIdleTimeout checks that a stream gone silent after output fails as
// a timeout rather than hanging the turn.
func TestIdleTimeout(t *testing.T) {
	forEachAPI(t, func(t *testing.T, a api) {
		srv := llmtest.New(llmtest.Turn{Text: "ab", ChunkDelay: 150 * time.Millisecond})
		defer srv.Close()
		cfg := config(a, srv.URL)
		cfg.IdleTimeout = 30 * time.Millisecond
		_, err := stream(t, a.new(cfg), request())
		wantKind(t, err, llm.ErrTimeout)
	})
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	forEachAPI(t, func(t *testing.T, a api) {
		_, err := stream(t, a.new(config(a, url)), request())
		wantKind(t, err, llm.ErrConnection)
	})
}

// signalTransport closes sent when a request goes out.
type signalTransport struct {
	sent chan struct{}
	once sync.Once
}

func (s *signalTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	s.once.Do(func() { close(s.sent) })
	return http.DefaultTransport.RoundTrip(r)
}

func TestCancel(t *testing.T) {
	forEachAPI(t, func(t *testing.T, a api) {
		t.Run("waiting for headers", func(t *testing.T) {
			srv := llmtest.New(llmtest.Turn{Hang: true})
			defer srv.Close()
			tr := &signalTransport{sent: make(chan struct{})}
			cfg := config(a, srv.URL)
			cfg.HTTPClient = &http.Client{Transport: tr}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-tr.sent
				cancel()
			}()
			err := a.new(cfg).Stream(ctx, request(), func(llm.StreamEvent) {})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
		t.Run("mid stream", func(t *testing.T) {
			srv := llmtest.New(llmtest.Turn{Text: strings.Repeat("word ", 40), ChunkDelay: 20 * time.Millisecond})
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			err := a.new(config(a, srv.URL)).Stream(ctx, request(), func(ev llm.StreamEvent) {
				if ev.Type == llm.EventTextDelta {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	})
}

func TestOllamaWithoutKey(t *testing.T) {
	srv := llmtest.New(llmtest.Turn{Text: "local"})
	defer srv.Close()
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	c := NewChat(llm.ProviderConfig{Key: "ollama", Type: llm.ProviderOllama, BaseURL: srv.URL + "/v1"})
	evs, err := stream(t, c, llm.Request{Model: "qwen3", Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, text := collect(evs, llm.EventTextDelta); text != "local" {
		t.Errorf("text = %q", text)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q, want none", h)
	}
}

func TestDefaultBaseURL(t *testing.T) {
	cases := []struct {
		typ  llm.ProviderType
		want string
	}{
		{llm.ProviderOllama, DefaultOllamaBaseURL},
		{llm.ProviderOpenAICompatible, DefaultBaseURL},
	}
	for _, tc := range cases {
		if got := NewChat(llm.ProviderConfig{Type: tc.typ}).baseURL; got != tc.want {
			t.Errorf("%s: base URL = %q, want %q", tc.typ, got, tc.want)
		}
	}
	if got := NewResponses(llm.ProviderConfig{Type: llm.ProviderOpenAIResponse}).baseURL; got != DefaultBaseURL {
		t.Errorf("responses: base URL = %q", got)
	}
}

func TestRetryAfter(t *testing.T) {
	cases := []struct {
		name, ms, s string
		want        time.Duration
	}{
		{"none", "", "", 0},
		{"seconds", "", "3", 3 * time.Second},
		{"fraction", "", "0.5", 500 * time.Millisecond},
		{"ms wins", "250", "3", 250 * time.Millisecond},
		{"bad ms falls back", "x", "1", time.Second},
		{"garbage", "", "soon", 0},
	}
	for _, tc := range cases {
		h := http.Header{}
		if tc.ms != "" {
			h.Set("retry-after-ms", tc.ms)
		}
		if tc.s != "" {
			h.Set("retry-after", tc.s)
		}
		if got := llm.RetryAfter(h); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestUndecodableErrorBody checks that an error page that is not OpenAI
// JSON (a proxy's HTML) still maps by status.
func TestUndecodableErrorBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", "text/html")
		w.Header().Set("retry-after", "7")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("<html>bad gateway</html>"))
	}))
	defer srv.Close()
	forEachAPI(t, func(t *testing.T, a api) {
		_, err := stream(t, a.new(config(a, srv.URL)), request())
		ae := wantKind(t, err, llm.ErrServer)
		if ae.StatusCode != http.StatusBadGateway || ae.RetryAfter != 7*time.Second {
			t.Errorf("status %d retry-after %v", ae.StatusCode, ae.RetryAfter)
		}
	})
}

// TestRetryMixedFaults: 429, then 529, then 500, then a TCP reset, then an
// answer: under the default policy the request recovers, each fault
// retried on its own budget.
func TestRetryMixedFaults(t *testing.T) {
	forEachAPI(t, func(t *testing.T, a api) {
		srv := llmtest.New(
			llmtest.Turn{Status: 429}, llmtest.Turn{Status: 529}, llmtest.Turn{Status: 500},
			llmtest.Turn{Reset: true}, llmtest.Turn{Text: "recovered"},
		)
		defer srv.Close()
		p := llm.DefaultRetryPolicy()
		p.Sleep = func(ctx context.Context, d time.Duration) error { return nil }
		evs, err := stream(t, llm.WithRetry(a.new(config(a, srv.URL)), p), request())
		if err != nil {
			t.Fatal(err)
		}
		if _, text := collect(evs, llm.EventTextDelta); text != "recovered" {
			t.Errorf("text = %q", text)
		}
		var kinds []llm.ErrorKind
		for _, ev := range evs {
			if ev.Type == llm.EventRetry {
				kinds = append(kinds, ev.Retry.Kind)
			}
		}
		if want := []llm.ErrorKind{llm.ErrRateLimit, llm.ErrOverloaded, llm.ErrServer, llm.ErrConnection}; !reflect.DeepEqual(kinds, want) {
			t.Errorf("retries %v, want %v", kinds, want)
		}
		if n := len(srv.Requests()); n != 5 {
			t.Errorf("%d requests, want 5", n)
		}
	})
}
