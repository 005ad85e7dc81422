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
// breaks off mid-answer and is asked for again: text and json show only the
// final answer, stream-json shows the partial deltas, the retry event that
// voids them, then the new deltas.
func TestRetryVoidsPartialOutput(t *testing.T) {
	const partial = "VOIDED the first half of an answer"
	for _, format := range []string{FormatText, FormatJSON, FormatStreamJSON} {
		t.Run(format, func(t *testing.T) {
			srv := llmtest.New(llmtest.Turn{Text: partial, CutAfterText: 2}, llmtest.Turn{Text: "the final answer"})
			defer srv.Close()
			var out, errOut bytes.Buffer
			code := Run(context.Background(), wireAgent(t, srv), Options{Prompt: "q", Format: format, SessionID: "S", Stdout: &out, Stderr: &errOut})
			if code != ExitOK {
				t.Fatalf("exit %d, stderr %s", code, errOut.String())
			}
			switch format {
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
				checkStreamJSON(t, out.String())
			}
			if strings.Contains(out.String(), "VOIDED") && format != FormatStreamJSON {
				t.Errorf("stdout shows voided output: %q", out.String())
			}
		})
	}
}

func checkStreamJSON(t *testing.T, out string) {
	t.Helper()
	var before, after strings.Builder
	retries := 0
	var res Result
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var line struct {
			Type  string         `json:"type"`
			Text  string         `json:"text"`
			Retry *llm.RetryInfo `json:"retry"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		switch line.Type {
		case string(agent.EventRetry):
			retries++
			if line.Retry == nil || !line.Retry.DiscardPartial {
				t.Errorf("retry line %s does not void the partial output", sc.Text())
			}
			if !strings.Contains(sc.Text(), `"discard_partial":true`) {
				t.Errorf("retry line %s lacks discard_partial", sc.Text())
			}
		case string(agent.EventTextDelta):
			if retries == 0 {
				before.WriteString(line.Text)
			} else {
				after.WriteString(line.Text)
			}
		case "result":
			_ = json.Unmarshal(sc.Bytes(), &res)
		}
	}
	if retries != 1 || before.Len() == 0 || !strings.HasPrefix("VOIDED the first half of an answer", before.String()) {
		t.Errorf("%d retries; deltas before %q", retries, before.String())
	}
	if after.String() != "the final answer" || res.Result != "the final answer" {
		t.Errorf("deltas after the retry %q, result %q; want the final answer", after.String(), res.Result)
	}
}
