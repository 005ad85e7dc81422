package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// subagentRunner runs a session's real agent as the subagent of an
// Agent call, the way agent.Event's ParentToolUseID describes a
// subagent's work: the call, the subagent's events marked with it (its
// asks real asks of the session, answered like any), the call's result,
// then the lead's answer. It stands in for the Agent tool in the browser
// test of nesting.
type subagentRunner struct{ inner live.Runner }

// subagentRef is the subagent the runner's events name.
var subagentRef = agent.AgentRef{ID: "a1b2c3d4", Type: "Explore", Description: "Find the parser"}

func (r subagentRunner) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	out := make(chan agent.Event)
	go func() {
		defer close(out)
		ref := subagentRef
		out <- agent.Event{Type: agent.EventTurnStart, Turn: 1}
		out <- agent.Event{Type: agent.EventTextDelta, Turn: 1, Text: "Asking a subagent."}
		out <- agent.Event{Type: agent.EventToolCall, Turn: 1, ToolCall: &llm.ToolCall{ID: "toolu_agent", Name: "Agent",
			Input: []byte(`{"description":"Find the parser","subagent_type":"Explore","prompt":"Find the parser."}`)}}
		result := ""
		for ev := range r.inner.Run(ctx, input) {
			switch ev.Type {
			case agent.EventDone:
				if ev.Done != nil {
					result = ev.Done.Result
				}
				continue
			case agent.EventContext:
				continue
			}
			ev.ParentToolUseID, ev.Agent = "toolu_agent", &ref
			out <- ev
		}
		if ctx.Err() != nil {
			out <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Subtype: agent.SubtypeInterrupted}}
			return
		}
		out <- agent.Event{Type: agent.EventToolResult, Turn: 1, Result: &agent.ToolResult{ID: "toolu_agent", Name: "Agent", Output: result}}
		out <- agent.Event{Type: agent.EventTurnStart, Turn: 2}
		out <- agent.Event{Type: agent.EventTextDelta, Turn: 2, Text: "The subagent found it."}
		out <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Subtype: agent.SubtypeSuccess, Result: "The subagent found it.", NumTurns: 2}}
	}()
	return out
}

// TestWebUILive is the web UI as one of several windows on a session
// (testdata/browser/live.mjs): two pages on one session see each other's
// prompts and a prompt sent over HTTP (as a terminal's is, to the page);
// a question asked by AskUserQuestion is answered in one page and closes
// in the other; an approval given in one closes in the other; the
// project's MCP server waiting for approval is approved in the page; a
// session the server closes under the pages is followed again. Then a
// subagent's work shows nested in its Agent call's row, with its own
// approval that says it is the subagent's.
func TestWebUILive(t *testing.T) {
	t.Parallel()
	node, chromium, dir := browserTools(t)
	ts, model := newHostServer(t,
		llmtest.Turn{Text: "One."},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_q", Name: "AskUserQuestion", Input: twoQuestions}}},
		llmtest.Turn{Text: "Noted your choices."},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_bash", Name: "Bash", Input: `{"command":"until [ -f release ]; do sleep 0.05; done; touch shared.txt && echo shared-ok"}`}}},
		llmtest.Turn{Text: "Made it."},
		llmtest.Turn{Text: "Heard you from afar."},
		llmtest.Turn{Text: "Still here."})
	mcpName := withProjectMCP(t, ts) // approved in the page (see /close)
	fh := newFakeHost(t)
	fh.wrap = func(r live.Runner) live.Runner { return subagentRunner{inner: r} }
	fh.script.push(func(ctx context.Context, emit func(llm.StreamEvent)) error {
		emit(llm.StreamEvent{Type: llm.EventTextDelta, Text: "Looking for it."})
		return callTool("toolu_sub", "Deploy", `{"target":"parser"}`)(ctx, emit)
	}, say("Found it in parse.go."))
	sub := newTestServer(t, func(o *Options) { o.Sessions = fh })

	// The control server lets the script send a prompt from outside the
	// browser: POST /api/chat, as another client (or the terminal) does.
	control := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/release" {
			if err := os.WriteFile(filepath.Join(ts.o.Workdir, "release"), nil, 0o644); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			io.WriteString(w, "ok")
			return
		}
		if r.URL.Path == "/close" {
			// The MCP server approved in the page runs until the close.
			if n := len(mcpProcs(t, mcpName)); n != 1 {
				http.Error(w, fmt.Sprintf("%d processes of the MCP server approved in the page, want 1", n), http.StatusConflict)
				return
			}
			// Moving the session to another workspace closes it under its
			// subscribers, as an idle close does.
			body, _ := json.Marshal(map[string]string{"workspace_dir": t.TempDir()})
			if code, b, _ := ts.do("PUT", "/api/sessions/"+r.URL.Query().Get("session")+"/workspace", string(body)); code != 200 {
				http.Error(w, b, code)
				return
			}
			io.WriteString(w, "ok")
			return
		}
		if r.URL.Path != "/prompt" {
			http.NotFound(w, r)
			return
		}
		body, _ := json.Marshal(map[string]string{"session_id": r.URL.Query().Get("session"), "message": r.URL.Query().Get("text")})
		req, _ := http.NewRequest("POST", ts.url+"/api/chat", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Logf("POST /api/chat from the control: %v", err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Logf("POST /api/chat from the control: %d %s", resp.StatusCode, b)
			}
		}()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(control.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "live.mjs"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NOVA_URL="+ts.url, "SUB_URL="+sub.url, "NOVA_TOKEN="+testToken,
		"CONTROL_URL="+control.URL, "CHROMIUM="+chromium)
	out, err := cmd.CombinedOutput()
	t.Logf("live.mjs:\n%s", out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ts.o.Workdir, "shared.txt")); err != nil {
		t.Errorf("the Bash call allowed in one page did not run: %v", err)
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted turns were not used", n)
	}
	select {
	case <-fh.ran:
	default:
		t.Error("the subagent's call approved in the page did not run")
	}
	reqs := model.Requests()
	if len(reqs) < 3 || !strings.Contains(string(reqs[2].Body), "SQLite") {
		t.Error("the model was not given the page's answer")
	}
}
