package llmtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// These tests hold the fake OpenAI formats to the official SDK: if its
// decoders and accumulator accept them, so will the real clients.

func openaiOptions(s *Server) []option.RequestOption {
	return []option.RequestOption{option.WithBaseURL(s.URL + "/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0)}
}

func openaiChatParams() sdk.ChatCompletionNewParams {
	return sdk.ChatCompletionNewParams{
		Model:         "gpt-test",
		Messages:      []sdk.ChatCompletionMessageParamUnion{sdk.UserMessage("hi")},
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
}

func openaiResponsesParams() responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: "gpt-test", Input: responses.ResponseNewParamsInputUnion{OfString: sdk.String("hi")}}
}

// openaiFullTurn has every kind of content, with non-ASCII text.
func openaiFullTurn() Turn {
	return Turn{
		Thinking: "I should look — carefully.",
		Text:     "Looking at both files now.",
		ToolCalls: []ToolCall{
			{ID: "call_1", Name: "Read", Input: `{"path":"a/b/c.go","limit":100}`},
			{ID: "call_2", Name: "Grep", Input: `{"pattern":"héllo ✓","glob":"**/*.go"}`},
		},
		InputTokens: 50, OutputTokens: 7, CacheReadTokens: 20,
	}
}

func TestChatFormatAccumulates(t *testing.T) {
	turn := openaiFullTurn()
	s := New(turn)
	defer s.Close()
	svc := sdk.NewChatCompletionService(openaiOptions(s)...)
	stream := svc.NewStreaming(context.Background(), openaiChatParams())
	var acc sdk.ChatCompletionAccumulator
	var thinking strings.Builder
	finished := 0
	for stream.Next() {
		ch := stream.Current()
		if !acc.AddChunk(ch) {
			t.Fatalf("accumulator rejected chunk %s", ch.RawJSON())
		}
		if _, ok := acc.JustFinishedToolCall(); ok {
			finished++
		}
		for _, c := range ch.Choices {
			if f, ok := c.Delta.JSON.ExtraFields["reasoning_content"]; ok {
				var s string
				_ = json.Unmarshal([]byte(f.Raw()), &s)
				thinking.WriteString(s)
			}
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	msg := acc.Choices[0].Message
	if msg.Content != turn.Text || thinking.String() != turn.Thinking {
		t.Errorf("content %q thinking %q", msg.Content, thinking.String())
	}
	if len(msg.ToolCalls) != 2 || finished < 1 {
		t.Fatalf("tool calls %+v, %d finished", msg.ToolCalls, finished)
	}
	for i, want := range turn.ToolCalls {
		got := msg.ToolCalls[i]
		if got.ID != want.ID || got.Function.Name != want.Name || got.Function.Arguments != want.Input {
			t.Errorf("call %d = %s %s %s", i, got.ID, got.Function.Name, got.Function.Arguments)
		}
	}
	if fr := acc.Choices[0].FinishReason; fr != "tool_calls" {
		t.Errorf("finish_reason = %q", fr)
	}
	if u := acc.Usage; u.PromptTokens != 70 || u.CompletionTokens != 7 || u.PromptTokensDetails.CachedTokens != 20 {
		t.Errorf("usage = %+v", u)
	}
}

func TestResponsesFormatDecodes(t *testing.T) {
	turn := openaiFullTurn()
	s := New(turn)
	defer s.Close()
	svc := responses.NewResponseService(openaiOptions(s)...)
	stream := svc.NewStreaming(context.Background(), openaiResponsesParams())
	var text, summary strings.Builder
	args := map[string]*strings.Builder{}
	var final responses.Response
	seq := int64(0)
	for stream.Next() {
		ev := stream.Current()
		if ev.SequenceNumber != seq {
			t.Errorf("%s: sequence_number %d, want %d", ev.Type, ev.SequenceNumber, seq)
		}
		seq++
		if ev.AsAny() == nil {
			t.Errorf("event %s does not decode to a variant", ev.Type)
		}
		switch e := ev.AsAny().(type) {
		case responses.ResponseTextDeltaEvent:
			text.WriteString(e.Delta)
		case responses.ResponseReasoningSummaryTextDeltaEvent:
			summary.WriteString(e.Delta)
		case responses.ResponseFunctionCallArgumentsDeltaEvent:
			if args[e.ItemID] == nil {
				args[e.ItemID] = &strings.Builder{}
			}
			args[e.ItemID].WriteString(e.Delta)
		case responses.ResponseCompletedEvent:
			final = e.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if text.String() != turn.Text || summary.String() != turn.Thinking {
		t.Errorf("text %q summary %q", text.String(), summary.String())
	}
	if final.OutputText() != turn.Text || final.Status != "completed" {
		t.Errorf("final output text %q status %q", final.OutputText(), final.Status)
	}
	var calls []responses.ResponseOutputItemUnion
	for _, item := range final.Output {
		if item.Type == "function_call" {
			calls = append(calls, item)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("final output has %d calls", len(calls))
	}
	for i, want := range turn.ToolCalls {
		fc := calls[i].AsFunctionCall()
		if fc.CallID != want.ID || fc.Name != want.Name || fc.Arguments != want.Input || args[fc.ID].String() != want.Input {
			t.Errorf("call %d = %+v (deltas %q)", i, fc, args[fc.ID])
		}
	}
	if u := final.Usage; u.InputTokens != 70 || u.OutputTokens != 7 || u.InputTokensDetails.CachedTokens != 20 {
		t.Errorf("usage = %+v", u)
	}
}

// openaiSSEEvent is one raw SSE event.
type openaiSSEEvent struct{ name, data string }

func openaiReadSSE(t *testing.T, s *Server, path string) []openaiSSEEvent {
	t.Helper()
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var evs []openaiSSEEvent
	var cur openaiSSEEvent
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			evs = append(evs, cur)
			cur = openaiSSEEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return evs
}

func TestWireShape(t *testing.T) {
	cases := []struct {
		path  string
		check func(t *testing.T, evs []openaiSSEEvent)
	}{
		{"/v1/chat/completions", func(t *testing.T, evs []openaiSSEEvent) {
			if last := evs[len(evs)-1]; last.data != "[DONE]" || last.name != "" {
				t.Errorf("last event %+v, want data-only [DONE]", last)
			}
			for _, e := range evs[:len(evs)-1] {
				var m map[string]any
				if e.name != "" || json.Unmarshal([]byte(e.data), &m) != nil || m["object"] != "chat.completion.chunk" {
					t.Errorf("bad chunk %+v", e)
				}
			}
		}},
		{"/v1/responses", func(t *testing.T, evs []openaiSSEEvent) {
			for _, e := range evs {
				var m map[string]any
				if json.Unmarshal([]byte(e.data), &m) != nil || m["type"] != e.name || m["sequence_number"] == nil {
					t.Errorf("event %q: data %s", e.name, e.data)
				}
			}
			if last := evs[len(evs)-1]; last.name != "response.completed" {
				t.Errorf("last event %q", last.name)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			turn := openaiFullTurn()
			s := New(turn)
			defer s.Close()
			tc.check(t, openaiReadSSE(t, s, tc.path))
		})
	}
}

func TestOpenAIErrors(t *testing.T) {
	cases := []struct {
		turn     Turn
		wantType string
		wantMsg  string
	}{
		{Turn{Status: 401}, "invalid_request_error", "Incorrect API key provided"},
		{Turn{Status: 429, RetryAfter: "3"}, "requests", "Rate limit reached for requests"},
		{Turn{Status: 503, ErrorType: "overloaded", ErrorMessage: "busy"}, "overloaded", "busy"},
	}
	for _, tc := range cases {
		s := New(tc.turn, tc.turn)
		for _, path := range []string{"chat", "responses"} {
			var err error
			if path == "chat" {
				svc := sdk.NewChatCompletionService(openaiOptions(s)...)
				err = svc.NewStreaming(context.Background(), openaiChatParams()).Err()
			} else {
				svc := responses.NewResponseService(openaiOptions(s)...)
				err = svc.NewStreaming(context.Background(), openaiResponsesParams()).Err()
			}
			var apiErr *sdk.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("%s %d: err %v", path, tc.turn.Status, err)
			}
			if apiErr.StatusCode != tc.turn.Status || apiErr.Type != tc.wantType || apiErr.Message != tc.wantMsg {
				t.Errorf("%s: got %d %q %q", path, apiErr.StatusCode, apiErr.Type, apiErr.Message)
			}
			if got := apiErr.Response.Header.Get("retry-after"); got != tc.turn.RetryAfter {
				t.Errorf("%s: retry-after %q", path, got)
			}
		}
		s.Close()
	}
}

func TestOpenAIStreamFailures(t *testing.T) {
	cases := []struct {
		name string
		turn Turn
	}{
		{"stream error", Turn{Text: "partial", StreamError: true, ErrorMessage: "boom"}},
		{"cut", Turn{Text: "one two three four five", CutAfter: 3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.turn, tc.turn)
			defer s.Close()

			chatSvc := sdk.NewChatCompletionService(openaiOptions(s)...)
			chat := chatSvc.NewStreaming(context.Background(), openaiChatParams())
			var sawFinish bool
			for chat.Next() {
				for _, c := range chat.Current().Choices {
					sawFinish = sawFinish || c.FinishReason != ""
				}
			}
			var se *ssestream.StreamError
			if sawFinish || chat.Err() == nil || (tc.turn.StreamError && !errors.As(chat.Err(), &se)) {
				t.Errorf("chat: finish %v, err %v", sawFinish, chat.Err())
			}

			resSvc := responses.NewResponseService(openaiOptions(s)...)
			res := resSvc.NewStreaming(context.Background(), openaiResponsesParams())
			var last responses.ResponseStreamEventUnion
			for res.Next() {
				last = res.Current()
			}
			switch {
			case tc.turn.StreamError && (last.Type != "error" || last.Message != "boom"):
				t.Errorf("responses: last event %q %q", last.Type, last.Message)
			case !tc.turn.StreamError && res.Err() == nil:
				t.Errorf("responses: cut stream ended without error (last %q)", last.Type)
			}
		})
	}
}

func TestSplitText(t *testing.T) {
	cases := []struct {
		in string
		n  int
	}{
		{"", 3}, {"ab", 5}, {`{"a":"héllo ✓ wörld"}`, 7}, {"✓✓✓", 3}, {"plain ascii text", 4},
		{"a", 3}, {"hello world", 4}, {"✓✓✓✓", 3}, {"日本語のテキスト", 5},
	}
	for _, tc := range cases {
		parts := SplitText(tc.in, tc.n)
		if got := strings.Join(parts, ""); got != tc.in {
			t.Errorf("%q: joined %q", tc.in, got)
		}
		for _, p := range parts {
			if !utf8.ValidString(p) || (tc.in != "" && p == "") {
				t.Errorf("%q: piece %q is empty or splits a character", tc.in, p)
			}
		}
		if tc.in != "" && len(parts) > max(tc.n, len(tc.in)) {
			t.Errorf("%q: %d pieces", tc.in, len(parts))
		}
	}
	if got := SplitText("abcdef", 3); !reflect.DeepEqual(got, []string{"ab", "cd", "ef"}) {
		t.Errorf("SplitText(abcdef, 3) = %q", got)
	}
}
