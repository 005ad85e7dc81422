package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// The filter hands the SDK the client's messages and answers the lines
// the SDK would only log, so the client is never left waiting.
func TestFilter(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`not json`,
		``,
		`[1,2]`,
		`{"jsonrpc":"2.0","id":"x"}`,
		`{"jsonrpc":"2.0","method":""}`,
		`{"jsonrpc":"2.0","id":7,"result":{}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
	}, "\n") + "\n"
	pr, pw := io.Pipe()
	var replies bytes.Buffer
	go filter(strings.NewReader(in), pw, &replies)
	passed, _ := io.ReadAll(pr)
	want := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":7,"result":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` + "\n"
	if string(passed) != want {
		t.Errorf("passed to the SDK:\n%s\nwant\n%s", passed, want)
	}
	type reply struct {
		ID    json.RawMessage      `json:"id"`
		Error *acpsdk.RequestError `json:"error"`
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(replies.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Error == nil {
			t.Fatalf("reply %q is no JSON-RPC error: %v", line, err)
		}
		got = append(got, string(r.ID)+" "+itoa(r.Error.Code))
	}
	if strings.Join(got, ", ") != `null -32700, null -32600, "x" -32600, null -32600` {
		t.Errorf("replies = %v", got)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// The client's MCP servers become one inline --mcp-config.
func TestMCPConfigs(t *testing.T) {
	got, err := mcpConfigs([]acpsdk.McpServer{
		{Stdio: &acpsdk.McpServerStdio{Name: "fs", Command: "fs-mcp", Args: []string{"-r"}, Env: []acpsdk.EnvVariable{{Name: "K", Value: "v"}}}},
		{Http: &acpsdk.McpServerHttpInline{Name: "api", Type: "http", Url: "https://example.com/mcp", Headers: []acpsdk.HttpHeader{{Name: "Authorization", Value: "Bearer t"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"mcpServers":{"api":{"type":"http","url":"https://example.com/mcp","headers":{"Authorization":"Bearer t"}},"fs":{"command":"fs-mcp","args":["-r"],"env":{"K":"v"}}}}`
	if len(got) != 1 || got[0] != want {
		t.Errorf("mcpConfigs = %v, want %s", got, want)
	}
	if _, err := mcpConfigs([]acpsdk.McpServer{{Stdio: &acpsdk.McpServerStdio{Command: "x"}}}); err == nil {
		t.Error("a server without a name was taken")
	}
}

// clip never cuts a character in two.
func TestClip(t *testing.T) {
	if got := clip("héllo", 2); got != "h…" {
		t.Errorf("clip = %q", got)
	}
	if got := clip("abc", 5); got != "abc" {
		t.Errorf("clip = %q", got)
	}
}
