package remote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

func TestMain(m *testing.M) {
	// The MCP tests start this binary as their stdio server.
	mcptest.MainIfRequested()
	os.Exit(m.Run())
}

// withMCPServer configures one stdio MCP server for every session of the
// server (user scope, NOVA_HOME/settings.json): the test binary, told
// apart from other tests' servers by its name.
func withMCPServer(t *testing.T, ts *testServer) (name string) {
	t.Helper()
	name = fmt.Sprintf("remote-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"t": stdioServer(name)}})
	if err := os.MkdirAll(ts.o.NovaHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ts.o.NovaHome, "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// stdioServer is the configuration of a stdio MCP server that is the
// test binary, called name.
func stdioServer(name string) map[string]any {
	env := map[string]string{}
	for _, kv := range mcptest.StdioEnv(mcptest.Options{Name: name}) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return map[string]any{"command": os.Args[0], "env": env}
}

// mcpProcs are the pids of the running MCP server processes called name
// (found by the environment they were started with).
func mcpProcs(t *testing.T, name string) []int {
	t.Helper()
	marker := []byte(mcptest.EnvName + "=" + name + "\x00")
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(dirs) == 0 {
		t.Skip("no /proc to find processes in")
	}
	var out []int
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, marker) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && pid != os.Getpid() {
			out = append(out, pid)
		}
	}
	return out
}

// waitMCPProcs waits for exactly n server processes called name (they
// start in the background, not before the first prompt) and returns them.
func waitMCPProcs(t *testing.T, name string, n int) []int {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		procs := mcpProcs(t, name)
		if len(procs) == n {
			return procs
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d MCP server processes %s, want %d", len(procs), name, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Each open session runs its own MCP servers, and closing the session
// stops them: deleted, closed by a workspace change (the next turn starts
// them again, in the new workspace), or the server shut down. When the
// close returns, the processes are gone.
func TestSessionMCPServersStopWithTheSession(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"delete", "workspace", "shutdown"} {
		t.Run(how, func(t *testing.T) {
			var host *live.Host
			ts, srv := newWrappedHostServer(t, func(h *live.Host) Host { host = h; return h }, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
			name := withMCPServer(t, ts)
			id := ts.newSession()
			other := ts.newSession()
			procs := waitMCPProcs(t, name, 2) // one per open session
			switch how {
			case "delete":
				code, body, _ := ts.do("DELETE", "/api/sessions/"+id, "")
				wantAction(t, "delete", code, body, "deleted", id)
			case "workspace":
				code, body, _ := ts.do("PUT", "/api/sessions/"+id+"/workspace", fmt.Sprintf(`{"workspace_dir":%q}`, t.TempDir()))
				wantAction(t, "workspace", code, body, "workspace_updated", id)
			case "shutdown":
				host.Close()
			}
			left := mcpProcs(t, name)
			if want := map[string]int{"delete": 1, "workspace": 1, "shutdown": 0}[how]; len(left) != want {
				t.Fatalf("after %s: %d MCP server processes (%v, of %v), want %d", how, len(left), left, procs, want)
			}
			if how == "shutdown" {
				return
			}
			// The other session's server is its own, and runs on.
			if code, body, _ := ts.do("GET", "/api/sessions/"+other+"/context", ""); code != 200 {
				t.Errorf("the other session: %d %s", code, body)
			}
			if how == "workspace" {
				ws, _ := filepath.EvalSymlinks(t.TempDir())
				code, body, _ := ts.do("PUT", "/api/sessions/"+id+"/workspace", fmt.Sprintf(`{"workspace_dir":%q}`, ws))
				wantAction(t, "workspace", code, body, "workspace_updated", id)
				srv.Push(llmtest.Turn{Text: "three"})
				code, body, _ = ts.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"again"}`, id))
				if code != 200 {
					t.Fatalf("a turn after the change: %d %s", code, body)
				}
				var moved bool
				for _, p := range waitMCPProcs(t, name, 2) {
					if cwd, _ := os.Readlink("/proc/" + strconv.Itoa(p) + "/cwd"); cwd == ws {
						moved = true
					}
				}
				if !moved {
					t.Errorf("the reopened session's MCP server does not run in its new workspace %s", ws)
				}
			}
		})
	}
}

// A session that cannot be opened (another nova process has it) is built
// and given up at once: the MCP servers its build started are stopped
// before the 409 is answered.
func TestLockedSessionLeavesNoMCPServer(t *testing.T) {
	t.Parallel()
	ts, _ := newHostServer(t)
	name := withMCPServer(t, ts)
	held, err := session.NewStore(ts.o.NovaHome).Create(session.Meta{WorkspaceDir: ts.o.Workdir, AgentKey: "main"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for range 3 {
		code, body, _ := ts.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"hi"}`, held.ID()))
		wantError(t, "a turn on a locked session", code, body, 409, "open in")
		if procs := mcpProcs(t, name); len(procs) != 0 {
			t.Fatalf("MCP server processes left running: %v", procs)
		}
	}
}

// The first turn of a session has its MCP servers' tools: the server
// starts slowly (it sleeps before it answers), and the turn's first
// request to the model waits for it, lists its tool, and the model's
// call of it runs. The same holds for a session opened again (after a
// restart, an idle close or a workspace change).
func TestFirstTurnHasMCPTools(t *testing.T) {
	t.Parallel()
	ts, model := newHostServer(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_echo", Name: "mcp__t__echo", Input: `{"text":"echoed-by-mcp"}`}}},
		llmtest.Turn{Text: "The server echoed."})
	name := fmt.Sprintf("remote-first-turn-%d-%d", os.Getpid(), time.Now().UnixNano())
	srv := stdioServer(name)
	srv["env"].(map[string]string)[mcptest.EnvStartDelay] = "500ms"
	settings, _ := json.Marshal(map[string]any{
		"mcpServers":  map[string]any{"t": srv},
		"permissions": map[string]any{"allow": []string{"mcp__t__echo"}},
	})
	if err := os.MkdirAll(ts.o.NovaHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ts.o.NovaHome, "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	code, body, _ := ts.do("POST", "/api/chat", `{"message":"echo something"}`)
	if code != 200 {
		t.Fatalf("POST /api/chat: %d %s", code, body)
	}
	resp := decode[chatResponse](t, body)
	if resp.Status != "completed" || resp.Message != "The server echoed." {
		t.Errorf("the turn: %s", body)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model was asked %d times, want 2", len(reqs))
	}
	var first struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &first); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range first.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "mcp__t__echo") {
		t.Errorf("the first request offers %v: no mcp__t__echo", names)
	}
	var second struct {
		Messages []struct {
			Content []struct {
				Type    string `json:"type"`
				IsError bool   `json:"is_error"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &second); err != nil || len(second.Messages) == 0 {
		t.Fatalf("the second request: %v", err)
	}
	var result []string
	for _, c := range second.Messages[len(second.Messages)-1].Content {
		if c.Type == "tool_result" {
			for _, part := range c.Content {
				result = append(result, part.Text)
			}
			if c.IsError {
				result = append(result, "(an error)")
			}
		}
	}
	if got := strings.Join(result, " "); got != "echoed-by-mcp" {
		t.Errorf("the call's result is %q, not the server's echo", got)
	}

	// Moved to another workspace, the session is closed and opened again
	// from its transcript, as after a restart or an idle close: its first
	// turn there has the tools too.
	code, body, _ = ts.do("PUT", "/api/sessions/"+resp.SessionID+"/workspace", fmt.Sprintf(`{"workspace_dir":%q}`, t.TempDir()))
	wantAction(t, "workspace", code, body, "workspace_updated", resp.SessionID)
	model.Push(llmtest.Turn{Text: "Still here."})
	if code, body, _ := ts.do("POST", "/api/chat", fmt.Sprintf(`{"session_id":%q,"message":"again"}`, resp.SessionID)); code != 200 {
		t.Fatalf("the turn after reopening: %d %s", code, body)
	}
	reqs = model.Requests()
	if !strings.Contains(string(reqs[len(reqs)-1].Body), `"name":"mcp__t__echo"`) {
		t.Error("the first request after the session was opened again offers no mcp__t__echo")
	}
}
