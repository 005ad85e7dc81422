package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
)

// streamChunks decodes the chunks of an SSE chat stream body.
func streamChunks(t *testing.T, body []byte) []uiChunk {
	t.Helper()
	var out []uiChunk
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c uiChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("stream frame %q: %v", data, err)
		}
		out = append(out, c)
	}
	return out
}

// A run stopped at its turn limit, or at its budget, finishes with the ai
// package's "other" (it did not fail): no error part, so a useChat client
// does not show a failure, and a notice that says why it stopped. The runs
// are real: a served session with a turn limit of 1 (or a budget the first
// answer spends) whose model calls a tool.
func TestChatStreamMaxTurnsFinishesOther(t *testing.T) {
	t.Parallel()
	t.Run("turns", func(t *testing.T) { limitedRun(t, live.Options{MaxTurns: 1}, "maximum of 1 turns") })
	t.Run("budget", func(t *testing.T) { limitedRun(t, live.Options{MaxBudgetUSD: 0.000001}, "budget") })
}

// limitedRun serves a session with lim's limit and checks how its stop
// reads through the ai package; notice is a word the notice must say.
func limitedRun(t *testing.T, lim live.Options, want string) {
	prov := llmtest.New(llmtest.Turn{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Input: `{"file_path":"a.txt"}`}}},
		llmtest.Turn{Text: "not asked for"})
	t.Cleanup(prov.Close)
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": prov.URL}
	var host *live.Host
	ts := newConfigServer(t, env, func(o *Options) {
		host = live.NewHost(context.Background(), live.Options{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home,
			Getenv: o.Getenv, NoSandbox: true, MaxTurns: lim.MaxTurns, MaxBudgetUSD: lim.MaxBudgetUSD})
		o.Sessions = host
	})
	t.Cleanup(host.Close)
	if err := os.WriteFile(filepath.Join(ts.o.Workdir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", ts.url+"/api/chat/stream", strings.NewReader(`{"message":"read a.txt"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("chat stream: %d %v\n%s", resp.StatusCode, err, body)
	}
	if n := len(prov.Requests()); n != 1 {
		t.Fatalf("%d model requests, want 1 (the limit)", n)
	}
	chunks := streamChunks(t, body)
	var finish *uiChunk
	notice := ""
	for i, c := range chunks {
		switch c.Type {
		case "error":
			t.Errorf("an error part for a run stopped at its limit: %q", c.ErrorText)
		case "finish":
			finish = &chunks[i]
		case "data-nova-notice":
			var d struct{ Text string }
			_ = json.Unmarshal(c.Data, &d)
			notice += d.Text
		}
	}
	if finish == nil || finish.FinishReason != "other" {
		t.Errorf("finish %+v, want finishReason other\n%s", finish, body)
	}
	if !strings.Contains(notice, want) {
		t.Errorf("notices %q do not say the run stopped at its limit (%q)", notice, want)
	}
	// The ai package's own parser takes it, and reports no error.
	if p := parseWithAISDK(t, body); len(p.Rejected) > 0 || len(p.Errors) > 0 || part(p, "data-nova-notice") == nil {
		t.Errorf("the ai package: rejected %v, errors %v, notice part %v", p.Rejected, p.Errors, part(p, "data-nova-notice"))
	}
}
