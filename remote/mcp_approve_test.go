package remote

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm/llmtest"
)

// withProjectMCP makes the server's workspace a trusted project whose
// .mcp.json adds one stdio server (the test binary, called name).
func withProjectMCP(t *testing.T, ts *testServer) (name string) {
	t.Helper()
	name = fmt.Sprintf("remote-proj-%d-%d", os.Getpid(), time.Now().UnixNano())
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"proj": stdioServer(name)}})
	if err := os.WriteFile(filepath.Join(ts.o.Workdir, ".mcp.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := config.NewTrustStore(ts.o.NovaHome).Trust(ts.o.Workdir); err != nil {
		t.Fatal(err)
	}
	return name
}

// A project's MCP server waits for approval in a served session, as in
// the terminal: listed as pending, not started; approved over the API it
// starts at once, the answer is remembered for the workspace (a later
// session starts it by itself), and a second answer is 404. Rejected, it
// stays off and is not asked again.
func TestSessionApproveProjectMCP(t *testing.T) {
	t.Parallel()
	for _, approve := range []bool{true, false} {
		t.Run(fmt.Sprint("approved=", approve), func(t *testing.T) {
			ts, _ := newHostServer(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
			name := withProjectMCP(t, ts)
			id := ts.newSession()
			code, body, _ := ts.do("GET", "/api/sessions/"+id+"/mcp/pending", "")
			var list struct{ Items []pendingMCPItem }
			if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list.Items) != 1 {
				t.Fatalf("pending: %d %s", code, body)
			}
			if p := list.Items[0]; p.Name != "proj" || p.Command != os.Args[0] || p.Transport != "stdio" || !strings.HasSuffix(p.Source, ".mcp.json") {
				t.Errorf("pending item %+v", p)
			}
			if n := len(mcpProcs(t, name)); n != 0 {
				t.Fatalf("%d processes of the unapproved server", n)
			}
			for _, bad := range []struct {
				body string
				code int
			}{{`{"name":"proj"}`, 400}, {`{"name":"nope","approved":true}`, 404}} {
				if c, b, _ := ts.do("POST", "/api/sessions/"+id+"/mcp/approve", bad.body); c != bad.code {
					t.Errorf("%s: %d %s, want %d", bad.body, c, b, bad.code)
				}
			}
			if c, b, _ := ts.do("POST", "/api/sessions/nope/mcp/approve", `{"name":"proj","approved":true}`); c != 404 {
				t.Errorf("an unknown session: %d %s", c, b)
			}
			code, body, _ = ts.do("POST", "/api/sessions/"+id+"/mcp/approve", fmt.Sprintf(`{"name":"proj","approved":%v}`, approve))
			if code != 200 || !strings.Contains(body, `"resolved"`) {
				t.Fatalf("approve: %d %s", code, body)
			}
			want := 0
			if approve {
				want = 1
				waitMCPProcs(t, name, 1)
			}
			settings, err := os.ReadFile(filepath.Join(ts.o.Workdir, ".nova", "settings.local.json"))
			key := map[bool]string{true: "enabledMcpjsonServers", false: "disabledMcpjsonServers"}[approve]
			if err != nil || !strings.Contains(string(settings), key) || !strings.Contains(string(settings), `"proj"`) {
				t.Errorf("the answer was not remembered: %s %v", settings, err)
			}
			if c, b, _ := ts.do("POST", "/api/sessions/"+id+"/mcp/approve", `{"name":"proj","approved":true}`); c != 404 {
				t.Errorf("a second answer: %d %s", c, b)
			}
			if _, body, _ := ts.do("GET", "/api/sessions/"+id+"/mcp/pending", ""); !strings.Contains(body, `"items":[]`) {
				t.Errorf("pending after the answer: %s", body)
			}
			other := ts.newSession()
			if _, body, _ := ts.do("GET", "/api/sessions/"+other+"/mcp/pending", ""); !strings.Contains(body, `"items":[]`) {
				t.Errorf("a later session asks again: %s", body)
			}
			if approve {
				want = 2 // the later session started it by itself
			}
			waitMCPProcs(t, name, want)
		})
	}
}

// The terminal's shared session leaves its MCP servers to the terminal,
// which asks about them itself: the list is a 409 that says so, and an
// approval, which the workspace would remember for every session, is
// beyond what a share's link may do (403).
func TestSharedSessionMCPApprovalIsTheTerminals(t *testing.T) {
	t.Parallel()
	e := newSharedEnv(t)
	sid := e.rt.Session.ID()
	for _, r := range []struct {
		method, path, body string
		code               int
	}{
		{"GET", "/api/sessions/" + sid + "/mcp/pending", "", 409},
		{"POST", "/api/sessions/" + sid + "/mcp/approve", `{"name":"proj","approved":true}`, 403},
	} {
		if code, body, _ := e.do(r.method, r.path, r.body); code != r.code || !strings.Contains(body, "terminal") {
			t.Errorf("%s %s: %d %s, want %d saying the terminal asks", r.method, r.path, code, body, r.code)
		}
	}
}
