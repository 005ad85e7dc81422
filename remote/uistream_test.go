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

// A run stopped at its turn limit finishes with the ai package's "other"
// (it did not fail): no error part, so a useChat client does not show a
// failure, and a notice that says why it stopped. The run is real: a
// served session with a turn limit of 1 whose model calls a tool.
func TestChatStreamMaxTurnsFinishesOther(t *testing.T) {
	t.Parallel()
	prov := llmtest.New(llmtest.Turn{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Input: `{"file_path":"a.txt"}`}}},
		llmtest.Turn{Text: "not asked for"})
	t.Cleanup(prov.Close)
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": prov.URL}
	var host *live.Host
	ts := newConfigServer(t, env, func(o *Options) {
		host = live.NewHost(context.Background(), live.Options{NovaHome: o.NovaHome, Workdir: o.Workdir, Home: o.Home,
			Getenv: o.Getenv, NoSandbox: true, MaxTurns: 1})
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
		t.Fatalf("%d model requests, want 1 (the turn limit)", n)
	}
	chunks := streamChunks(t, body)
	var finish *uiChunk
	notice := ""
	for i, c := range chunks {
		switch c.Type {
		case "error":
			t.Errorf("an error part for a run stopped at its turn limit: %q", c.ErrorText)
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
	if !strings.Contains(notice, "maximum of 1 turns") {
		t.Errorf("notices %q do not say the run stopped at its turn limit", notice)
	}
	// The ai package's own parser takes it, and reports no error.
	if p := parseWithAISDK(t, body); len(p.Rejected) > 0 || len(p.Errors) > 0 || part(p, "data-nova-notice") == nil {
		t.Errorf("the ai package: rejected %v, errors %v, notice part %v", p.Rejected, p.Errors, part(p, "data-nova-notice"))
	}
}
