package headless

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/anthropic"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// wireAgent is a real agent talking to srv through the Anthropic client and
// llm.WithRetry, waiting no real time between attempts.
func wireAgent(t *testing.T, srv *llmtest.Server) *agent.Agent {
	t.Helper()
	p := llm.DefaultRetryPolicy()
	p.Sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	checker, err := permission.NewChecker(permission.Config{Mode: permission.ModeDefault, Workspace: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(agent.Config{
		Client: llm.WithRetry(anthropic.New(llm.ProviderConfig{Type: llm.ProviderAnthropic, BaseURL: srv.URL, APIKey: "k"}), p),
		Model:  "claude-test", Pipeline: &tools.Pipeline{Registry: tools.NewRegistry(), Checker: checker},
		Env: tools.NewEnv(t.TempDir()), ContextWindow: 100_000, MaxTokens: 4_000,
	})
}

// TestRetryVoidsPartialOutput runs print mode through a response that
// breaks off mid-answer and is asked for again: text, json and
// stream-json's assistant messages show only the final answer; with
// partial messages, stream-json shows the partial deltas, the api_retry
// message that voids them, then the new response.
func TestRetryVoidsPartialOutput(t *testing.T) {
	const partial = "VOIDED the first half of an answer"
	for _, format := range []string{FormatText, FormatJSON, FormatStreamJSON, FormatStreamJSON + "+partial"} {
		t.Run(format, func(t *testing.T) {
			srv := llmtest.New(llmtest.Turn{Text: partial, CutAfterText: 2}, llmtest.Turn{Text: "the final answer"})
			defer srv.Close()
			var out, errOut bytes.Buffer
			f, withPartial := strings.CutSuffix(format, "+partial")
			code := Run(context.Background(), wireAgent(t, srv), Options{Prompt: "q", Format: f, Partial: withPartial, SessionID: "S", Stdout: &out, Stderr: &errOut})
			if code != ExitOK {
				t.Fatalf("exit %d, stderr %s", code, errOut.String())
			}
			switch f {
			case FormatText:
				if out.String() != "the final answer\n" {
					t.Errorf("stdout = %q, want only the final answer", out.String())
				}
				if !strings.Contains(errOut.String(), "partial response is discarded") {
					t.Errorf("stderr = %q: the retry is not reported", errOut.String())
				}
			case FormatJSON:
				var res Result
				if err := json.Unmarshal(out.Bytes(), &res); err != nil {
					t.Fatalf("stdout %q: %v", out.String(), err)
				}
				if res.Result != "the final answer" || res.IsError {
					t.Errorf("result = %+v", res)
				}
			case FormatStreamJSON:
				checkStreamJSON(t, out.String(), withPartial)
			}
			if strings.Contains(out.String(), "VOIDED") && !withPartial {
				t.Errorf("stdout shows voided output: %q", out.String())
			}
		})
	}
}

func checkStreamJSON(t *testing.T, out string, partial bool) {
	t.Helper()
	var before, after, texts strings.Builder
	retries, starts := 0, 0
	var res Result
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var line struct {
			Type           string `json:"type"`
			Subtype        string `json:"subtype"`
			DiscardPartial bool   `json:"discard_partial"`
			Message        struct {
				Content []struct{ Type, Text string } `json:"content"`
			} `json:"message"`
			Event struct {
				Type  string                `json:"type"`
				Delta struct{ Text string } `json:"delta"`
			} `json:"event"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		switch {
		case line.Type == "system" && line.Subtype == "api_retry":
			retries++
			if !line.DiscardPartial {
				t.Errorf("retry line %s does not void the partial output", sc.Text())
			}
		case line.Type == "assistant":
			for _, c := range line.Message.Content {
				texts.WriteString(c.Text)
			}
		case line.Type == "stream_event" && line.Event.Type == "message_start":
			starts++
		case line.Type == "stream_event" && line.Event.Type == "content_block_delta":
			if retries == 0 {
				before.WriteString(line.Event.Delta.Text)
			} else {
				after.WriteString(line.Event.Delta.Text)
			}
		case line.Type == "result":
			_ = json.Unmarshal(sc.Bytes(), &res)
		}
	}
	if retries != 1 {
		t.Errorf("%d api_retry messages, want 1", retries)
	}
	if texts.String() != "the final answer" || res.Result != "the final answer" {
		t.Errorf("assistant text %q, result %q; want only the final answer", texts.String(), res.Result)
	}
	if !partial {
		return
	}
	if before.Len() == 0 || !strings.HasPrefix("VOIDED the first half of an answer", before.String()) || starts != 2 {
		t.Errorf("deltas before the retry %q, %d message_starts; want the partial deltas and a new message after the retry", before.String(), starts)
	}
	if after.String() != "the final answer" {
		t.Errorf("deltas after the retry %q, want the final answer", after.String())
	}
}
