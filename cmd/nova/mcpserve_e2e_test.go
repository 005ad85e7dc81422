package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/nova-dev/nova/llm/llmtest"
)

// elicitAnswer answers every elicitation with one decision.
type elicitAnswer struct {
	decision string
	asked    chan string
}

func (a elicitAnswer) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	a.asked <- req.Params.Message
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"decision": a.decision},
	}}, nil
}

// dialNovaMCP starts nova mcp serve and connects mcp-go's client to it;
// with elicit, the client offers elicitation and answers with it.
func dialNovaMCP(t *testing.T, e *e2e, elicit client.ElicitationHandler) *client.Client {
	t.Helper()
	// Without the sandbox, a command that writes asks: the sandbox would
	// let it run inside the workspace.
	tr := transport.NewStdio(novaBin, e.env, "mcp", "serve", "--no-sandbox")
	var opts []client.ClientOption
	if elicit != nil {
		opts = append(opts, client.WithElicitationHandler(elicit))
	}
	c := client.NewClient(tr, opts...)
	if err := c.Start(t.Context()); err != nil {
		t.Fatalf("start nova mcp serve: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	var req mcp.InitializeRequest
	// Elicitation as a request of the server's: the protocol before
	// 2026-07-28 (SEP-2322), which clients such as Claude Code speak.
	req.Params.ProtocolVersion = "2025-06-18"
	req.Params.ClientInfo = mcp.Implementation{Name: "nova-mcp-serve-test", Version: "0"}
	if elicit != nil {
		req.Params.Capabilities.Elicitation = &mcp.ElicitationCapability{}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize nova mcp serve: %v", err)
	}
	return c
}

// callNova calls one of nova's tools and returns its texts and its
// structured content.
func callNova(t *testing.T, c *client.Client, tool string, args map[string]any) (string, map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	var texts []string
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	var structured map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &structured)
	return strings.Join(texts, "\n"), structured, res.IsError
}

// lastToolResult is the end of the provider's last request: the tool
// result the model saw.
func lastToolResult(e *e2e) string {
	reqs := e.srv.Requests()
	if len(reqs) == 0 {
		return ""
	}
	b := string(reqs[len(reqs)-1].Body)
	if i := strings.LastIndex(b, "tool_result"); i >= 0 {
		return b[i:]
	}
	return b
}

// TestMCPServe drives nova mcp serve with mcp-go's client over stdio: the
// nova tool writes a file in a temp workspace under the caller's
// permission mode; nova-reply continues the same session (the provider
// sees the earlier messages); an ask with no elicitation is denied with
// words that say why, and with elicitation it is put to the client.
func TestMCPServe(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{Match: "write hello.txt", ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Write", Input: jsonInput(map[string]any{"file_path": "hello.txt", "content": "hello from nova\n"})}}},
		llmtest.Turn{Text: "Wrote hello.txt."},
		llmtest.Turn{Match: "now run a command", ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Bash", Input: jsonInput(map[string]any{"command": "python3 -c \"open('ran.txt', 'w')\""})}}},
		llmtest.Turn{Text: "The command was denied."},
	)
	c := dialNovaMCP(t, e, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "nova,nova-reply" && strings.Join(names, ",") != "nova-reply,nova" {
		t.Errorf("tools = %v, want nova and nova-reply", names)
	}

	text, st, isErr := callNova(t, c, "nova", map[string]any{"prompt": "write hello.txt", "cwd": e.ws, "permissionMode": "acceptEdits"})
	if isErr || !strings.Contains(text, "Wrote hello.txt.") {
		t.Fatalf("nova = %q (error %v)", text, isErr)
	}
	if got := e.read("hello.txt"); got != "hello from nova\n" {
		t.Errorf("hello.txt = %q", got)
	}
	id, _ := st["sessionId"].(string)
	if id == "" || !strings.Contains(text, id) {
		t.Fatalf("structured content %v, text %q: want the session id in both", st, text)
	}

	// nova-reply: the same session; the client offers no elicitation, so
	// the Bash ask is denied and the model is told why.
	text, st, isErr = callNova(t, c, "nova-reply", map[string]any{"sessionId": id, "prompt": "now run a command"})
	if isErr || !strings.Contains(text, "The command was denied.") || st["sessionId"] != id {
		t.Fatalf("nova-reply = %q, %v (error %v)", text, st, isErr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "ran.txt")); err == nil {
		t.Error("the Bash call ran with nobody to approve it")
	}
	reqs := e.srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "write hello.txt") || !strings.Contains(last, "Wrote hello.txt.") {
		t.Errorf("nova-reply's request lacks the session's earlier messages: %.400s", last)
	}
	if !strings.Contains(last, "elicitation") {
		t.Errorf("the model was not told why the call was denied: %.2000s", last)
	}

	// A caller cannot lift nova's checks without the command line's leave.
	text, _, isErr = callNova(t, c, "nova", map[string]any{"prompt": "anything", "cwd": e.ws, "permissionMode": "bypassPermissions"})
	if !isErr || !strings.Contains(text, "--allow-dangerously-skip-permissions") {
		t.Errorf("nova with bypassPermissions = %q (error %v), want it refused", text, isErr)
	}
}

// TestMCPServeElicitation: with a client that offers elicitation, an ask
// is put to it, and its "allow" runs the call.
func TestMCPServeElicitation(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Bash", Input: jsonInput(map[string]any{"command": "python3 -c \"open('ran.txt', 'w')\""})}}},
		llmtest.Turn{Text: "Ran it."},
	)
	asked := make(chan string, 4)
	c := dialNovaMCP(t, e, elicitAnswer{decision: "allow", asked: asked})
	text, _, isErr := callNova(t, c, "nova", map[string]any{"prompt": "run a command", "cwd": e.ws})
	if isErr || !strings.Contains(text, "Ran it.") {
		t.Fatalf("nova = %q (error %v)", text, isErr)
	}
	select {
	case msg := <-asked:
		if !strings.Contains(msg, "Bash") {
			t.Errorf("elicitation message = %q, want the call", msg)
		}
	default:
		t.Fatalf("the client was never asked; the model saw: %.600s", lastToolResult(e))
	}
	if _, err := os.Stat(filepath.Join(e.ws, "ran.txt")); err != nil {
		t.Errorf("the allowed Bash call did not run: %v; the model saw: %.600s", err, lastToolResult(e))
	}
}
