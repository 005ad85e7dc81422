package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// TestMCPBridgeSettings: an in-process server's timeout is honoured, a
// setting nova cannot honour (a per-tool permission policy) is refused,
// naming it.
func TestMCPBridgeSettings(t *testing.T) {
	b, err := NewMCPBridge(&InitializeRequest{SDKMCPServers: []string{"calc", "slow"},
		SDKMCPServerConfigs: map[string]json.RawMessage{"slow": json.RawMessage(`{"timeout":90000}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if s := b.Servers(); len(s) != 2 || s[0].Name != "calc" || s[0].CallTimeout != 0 || s[1].CallTimeout != 90*time.Second {
		t.Errorf("servers = %+v", s)
	}
	_, err = NewMCPBridge(&InitializeRequest{SDKMCPServers: []string{"calc"},
		SDKMCPServerConfigs: map[string]json.RawMessage{"calc": json.RawMessage(`{"tools":[{"name":"add","permission_policy":"always_deny"}]}`)}})
	if err == nil || !strings.Contains(err.Error(), "calc.tools") {
		t.Errorf("a per-tool policy: %v, want refused naming calc.tools", err)
	}
}

// heldRunner answers every turn at once; it fails the test when a turn
// starts before ready is set.
type heldRunner struct {
	ready *atomic.Bool
	early chan struct{} // closed when a turn started too early
	ran   chan struct{}
}

func (r heldRunner) Run(context.Context, llm.Message) <-chan agent.Event {
	if !r.ready.Load() {
		close(r.early)
	}
	ch := make(chan agent.Event, 1)
	ch <- agent.Event{Type: agent.EventDone, Done: &agent.Done{Subtype: agent.SubtypeSuccess, Result: "ok"}}
	close(ch)
	close(r.ran)
	return ch
}

// TestServeCarriesSDKMCP: Serve sends a server's JSON-RPC as mcp_message
// and hands back the SDK's mcp_response; the SDK's own mcp_message goes
// to the server's listener (acknowledged), one for a server nova has not
// got is refused; the first turn waits for WaitMCP; a message still
// unanswered when the input ends fails.
func TestServeCarriesSDKMCP(t *testing.T) {
	b, err := NewMCPBridge(&InitializeRequest{SDKMCPServers: []string{"calc"}})
	if err != nil {
		t.Fatal(err)
	}
	link := b.Servers()[0].Link
	heard := make(chan json.RawMessage, 1)
	link.Listen(func(m json.RawMessage) { heard <- m })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	lines := make(chan map[string]any, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	early := make(chan struct{})
	var ready atomic.Bool
	ran := make(chan struct{})
	handshake := make(chan json.RawMessage, 1)
	code := make(chan int, 1)
	go func() {
		code <- Serve(context.Background(), heldRunner{ready: &ready, early: early, ran: ran}, NewInput(inR), SDKOptions{
			Session: &Session{SessionID: "S1", Tools: func() []string { return nil }, PermissionMode: func() string { return "default" }},
			MCP:     b,
			WaitMCP: func(ctx context.Context) []string {
				reply, err := link.Exchange(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
				if err != nil {
					t.Errorf("exchange: %v", err)
				}
				handshake <- reply
				ready.Store(true)
				return nil
			},
			Stdout: outW, Stderr: io.Discard})
		outW.Close()
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func(match func(map[string]any) bool) map[string]any {
		t.Helper()
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatal("nova's output ended")
				}
				if match(m) {
					return m
				}
			case <-early:
				t.Fatal("a turn started before the in-process MCP servers' handshakes were done")
			}
		}
	}
	isMCPMessage := func(m map[string]any) bool {
		r, _ := m["request"].(map[string]any)
		return m["type"] == "control_request" && r["subtype"] == "mcp_message"
	}
	response := func(id string) func(map[string]any) bool {
		return func(m map[string]any) bool {
			r, _ := m["response"].(map[string]any)
			return m["type"] == "control_response" && r["request_id"] == id
		}
	}

	// A user message comes while the handshake is under way.
	send(`{"type":"user","session_id":"","parent_tool_use_id":null,"message":{"role":"user","content":"hi"}}`)
	req := next(isMCPMessage)
	r := req["request"].(map[string]any)
	if r["server_name"] != "calc" || r["message"].(map[string]any)["method"] != "tools/list" {
		t.Errorf("mcp_message = %v", req)
	}
	send(`{"type":"control_response","response":{"subtype":"success","request_id":` + quote(req["request_id"].(string)) +
		`,"response":{"mcp_response":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}}}`)
	if got := string(<-handshake); got != `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}` {
		t.Errorf("the exchange returned %s", got)
	}
	next(func(m map[string]any) bool { return m["type"] == "result" })
	<-ran

	send(`{"type":"control_request","request_id":"sdk-1","request":{"subtype":"mcp_message","server_name":"calc","message":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}}`)
	if m := next(response("sdk-1")); m["response"].(map[string]any)["subtype"] != "success" {
		t.Errorf("the SDK's mcp_message was answered %v", m)
	}
	if got := string(<-heard); !strings.Contains(got, "list_changed") {
		t.Errorf("the listener heard %s", got)
	}
	send(`{"type":"control_request","request_id":"sdk-2","request":{"subtype":"mcp_message","server_name":"nope","message":{"jsonrpc":"2.0","method":"x"}}}`)
	if m := next(response("sdk-2")); m["response"].(map[string]any)["subtype"] != "error" {
		t.Errorf("an mcp_message for a server nova has not got was answered %v", m)
	}

	// Unanswered when the input ends: an error, not a wait without end.
	failed := make(chan error, 1)
	go func() {
		_, err := link.Exchange(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`))
		failed <- err
	}()
	next(isMCPMessage)
	inW.Close()
	if err := <-failed; err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("an exchange unanswered at the end of input: %v", err)
	}
	for range lines {
	}
	if c := <-code; c != ExitOK {
		t.Errorf("exit %d", c)
	}
	if _, err := link.Exchange(context.Background(), json.RawMessage(`{}`)); err == nil {
		t.Error("an exchange after Serve ended did not fail")
	}
}
