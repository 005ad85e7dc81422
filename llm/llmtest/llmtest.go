// Package llmtest is a fake model provider for tests: an httptest server
// that speaks the providers' real streaming wire formats (Anthropic Messages
// SSE, OpenAI chat completions SSE, OpenAI Responses SSE), driven by
// scripted turns, recording every request. The official SDK clients in llm/
// talk to it, so tests exercise the real parsing code.
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
	"unicode/utf8"
)

// ToolCall is a scripted tool call. Input is the raw JSON the model "sends";
// it is split across several chunks on the wire.
type ToolCall struct {
	ID    string
	Name  string
	Input string
}

// Turn is one scripted model response, or one failure.
type Turn struct {
	// Content, emitted in this order: thinking, text, tool calls.
	Thinking  string
	Text      string
	ToolCalls []ToolCall
	// StopReason overrides the natural one ("tool_use" with calls, else "end_turn").
	StopReason string
	// Usage reported by the response; zero means small made-up counts.
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int

	// Status, when not 0 or 200, answers with that HTTP error instead of a
	// stream, with ErrorType/ErrorMessage in the provider's error body.
	Status       int
	ErrorType    string // e.g. "overloaded_error", "rate_limit_error", "authentication_error"
	ErrorMessage string
	// RetryAfter and RetryAfterMS are the values of the retry-after and
	// retry-after-ms headers, sent with an HTTP error or a stream.
	RetryAfter   string
	RetryAfterMS string

	// CutAfter, when > 0, drops the connection after that many SSE events.
	CutAfter int
	// CutAfterText, when > 0, drops the connection after that many text
	// deltas, in every wire format alike: a stream that breaks mid-answer.
	CutAfterText int
	// StreamError sends the provider's in-stream error event after the
	// content instead of a normal end (Anthropic "error" event, an OpenAI
	// error chunk, a Responses "error" event).
	StreamError bool
	// ChunkDelay waits between SSE events.
	ChunkDelay time.Duration
	// Hang accepts the request and sends nothing until the client goes away.
	Hang bool
	// Reset answers the request by resetting the TCP connection (RST, no
	// response at all): a transport fault, as a proxy or a load balancer
	// dropping the connection makes it.
	Reset bool
	// Match, when set, makes the turn answer only a request whose body
	// contains it: the first waiting turn that matches a request answers
	// it (a turn without Match matches any). Requests that arrive side by
	// side (parallel subagents) each get their own script.
	Match string
	// Await holds the response until a request whose body contains Await
	// has arrived (before or after this one): a test that two requests
	// are in flight at once. After 10 s without it the turn fails with a
	// 500 that says so.
	Await string
}

// Request is one recorded request.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte
}

// JSON decodes the request body into a generic map.
func (r Request) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Server is the fake provider. Endpoints:
//
//	POST /v1/messages          Anthropic Messages (base URL: URL)
//	POST /v1/chat/completions  OpenAI chat completions (base URL: URL+"/v1")
//	POST /v1/responses         OpenAI Responses (base URL: URL+"/v1")
//	GET  /v1/models            the Models list (OpenAI format)
//
// Each request takes the next scripted turn (see Turn.Match), whatever
// its endpoint.
type Server struct {
	URL string
	// Models is what GET /v1/models lists (OpenAI format); it does not take
	// a turn and is not recorded.
	Models []string

	srv   *httptest.Server
	mu    sync.Mutex
	turns []Turn
	reqs  []Request
	slept time.Duration // total ChunkDelay waited, for overhead benchmarks
	cache *Cache        // the prompt cache model, when UseCache set one
	// arrived is closed, and replaced, whenever a request is recorded:
	// what a turn's Await waits on.
	arrived chan struct{}
}

// New starts a server with the given turns. Close it when done.
func New(turns ...Turn) *Server {
	s := &Server{turns: turns, Models: []string{"test-model"}, arrived: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// SetModels replaces what GET /v1/models lists. Use it rather than
// assigning Models once the server has been asked: it takes the lock the
// handler reads under.
func (s *Server) SetModels(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Models = names
}

// Push appends turns to the script.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// ScriptedDelay is the total time the server spent in ChunkDelay waits: the
// latency a benchmark subtracts to find the client's own overhead.
func (s *Server) ScriptedDelay() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slept
}

// Remaining reports how many scripted turns have not been used.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/v1/models" {
		s.serveModels(w)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	var turn Turn
	ok := false
	for i, t := range s.turns {
		if t.Match == "" || bytes.Contains(body, []byte(t.Match)) {
			turn, ok = t, true
			s.turns = append(s.turns[:i:i], s.turns[i+1:]...)
			break
		}
	}
	cache := s.cache
	close(s.arrived)
	s.arrived = make(chan struct{})
	s.mu.Unlock()
	if ok && turn.Await != "" && !s.await(r, turn.Await) {
		http.Error(w, fmt.Sprintf(`{"error":{"type":"api_error","message":"llmtest: no request containing %q arrived within 10s"}}`, turn.Await), http.StatusInternalServerError)
		return
	}
	if ok && r.URL.Path == "/v1/messages" {
		turn = cacheTurn(cache, anthropicCheck(turn, body), body)
	}
	if !ok {
		http.Error(w, `{"error":{"type":"api_error","message":"llmtest: no scripted turn left"}}`, http.StatusInternalServerError)
		return
	}
	if turn.Hang {
		<-r.Context().Done()
		return
	}
	if turn.Reset {
		resetConn(w)
		return
	}
	var f format
	switch r.URL.Path {
	case "/v1/messages":
		f = anthropicFormat{}
	case "/v1/chat/completions":
		f = chatFormat{}
	case "/v1/responses":
		f = responsesFormat{}
	default:
		http.Error(w, fmt.Sprintf("llmtest: unknown path %s", r.URL.Path), http.StatusNotFound)
		return
	}
	if turn.RetryAfter != "" {
		w.Header().Set("retry-after", turn.RetryAfter)
	}
	if turn.RetryAfterMS != "" {
		w.Header().Set("retry-after-ms", turn.RetryAfterMS)
	}
	if turn.Status != 0 && turn.Status != http.StatusOK {
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(turn.Status)
		_, _ = w.Write(f.errorBody(turn))
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.WriteHeader(http.StatusOK)
	sse := &sseWriter{w: w, turn: turn, srv: s, done: r.Context().Done()}
	f.stream(sse, turn, body)
}

// await waits until a request whose body contains want has been
// recorded, for at most 10 s or until r's client goes away.
func (s *Server) await(r *http.Request, want string) bool {
	timeout := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		for _, q := range s.reqs {
			if bytes.Contains(q.Body, []byte(want)) {
				s.mu.Unlock()
				return true
			}
		}
		ch := s.arrived
		s.mu.Unlock()
		select {
		case <-ch:
		case <-timeout:
			return false
		case <-r.Context().Done():
			return false
		}
	}
}

func (s *Server) serveModels(w http.ResponseWriter) {
	s.mu.Lock()
	names := append([]string(nil), s.Models...)
	s.mu.Unlock()
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, n := range names {
		list.Data = append(list.Data, model{ID: n, Object: "model", Created: 1_700_000_000, OwnedBy: "llmtest"})
	}
	w.Header().Set("content-type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// format writes one provider's wire format.
type format interface {
	// errorBody is the JSON body of an HTTP error response.
	errorBody(t Turn) []byte
	// stream writes the SSE events of a successful (or cut) response. reqBody
	// is the request, for echoing the model name.
	stream(w *sseWriter, t Turn, reqBody []byte)
}

// sseWriter writes SSE events, honouring the turn's delay and cut.
type sseWriter struct {
	done <-chan struct{} // the request's end: stop waiting when the client leaves
	srv  *Server
	w    http.ResponseWriter
	turn Turn
	n    int
	text int // text deltas written
	cut  bool
}

// Event writes one SSE event; name may be empty (OpenAI chat uses data-only
// events). data is marshalled to JSON unless it is a string. After the
// turn's CutAfter events it aborts the connection and writes nothing more.
func (s *sseWriter) Event(name string, data any) {
	if s.cut {
		return
	}
	if s.turn.CutAfter > 0 && s.n >= s.turn.CutAfter {
		s.drop()
		return
	}
	if s.n > 0 && s.turn.ChunkDelay > 0 {
		t := time.NewTimer(s.turn.ChunkDelay)
		select {
		case <-t.C:
		case <-s.done:
			t.Stop()
			s.cut = true
			return
		}
		if s.srv != nil {
			s.srv.mu.Lock()
			s.srv.slept += s.turn.ChunkDelay
			s.srv.mu.Unlock()
		}
	}
	s.n++
	var payload string
	switch d := data.(type) {
	case string:
		payload = d
	default:
		b, err := json.Marshal(d)
		if err != nil {
			panic(err)
		}
		payload = string(b)
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	fmt.Fprintf(s.w, "data: %s\n\n", payload)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// TextEvent is Event for an event that carries a text delta, which counts
// toward the turn's CutAfterText.
func (s *sseWriter) TextEvent(name string, data any) {
	if s.cut {
		return
	}
	if s.turn.CutAfterText > 0 && s.text >= s.turn.CutAfterText {
		s.drop()
		return
	}
	s.text++
	s.Event(name, data)
}

// drop aborts the connection mid-stream, as a network failure would.
func (s *sseWriter) drop() {
	s.cut = true
	if hj, ok := s.w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// Cut reports whether the connection was dropped.
func (s *sseWriter) Cut() bool { return s.cut }

// SplitText splits s into about n roughly equal chunks (at least one, ""
// for an empty s) without breaking a UTF-8 character, the way providers
// stream text and tool-call arguments in several deltas.
func SplitText(s string, n int) []string {
	if n < 1 {
		n = 1
	}
	if len(s) == 0 {
		return []string{""}
	}
	size := (len(s) + n - 1) / n
	var out []string
	for i := 0; i < len(s); {
		j := min(i+size, len(s))
		for j < len(s) && !utf8.RuneStart(s[j]) {
			j++ // never split a multi-byte character
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// resetConn closes the connection under w with a TCP reset: with a zero
// linger, closing a TCP socket sends RST instead of FIN.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, `{"error":{"type":"api_error","message":"llmtest: the connection cannot be hijacked to reset it"}}`, http.StatusInternalServerError)
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
