package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
)

// served is a running nova serve and how to reach it.
type served struct {
	t     *testing.T
	p     *bgNova
	base  string
	token string
}

// serve starts nova serve on a free port and waits for its URL line.
func (e *e2e) serve(args ...string) *served {
	e.t.Helper()
	p := e.start(append([]string{"serve", "--port", "0"}, args...)...)
	re := regexp.MustCompile(`^nova serve: listening on (http://[^/]+)/#token=(\S+)$`)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(p.out.String(), "\n") {
			if m := re.FindStringSubmatch(line); m != nil {
				tok, _ := url.QueryUnescape(m[2])
				return &served{t: e.t, p: p, base: m[1], token: tok}
			}
		}
		select {
		case <-p.done:
			e.t.Fatalf("nova serve exited: %s", p.errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	e.t.Fatalf("no URL line from nova serve; stdout %q stderr %q", p.out.String(), p.errOut.String())
	return nil
}

func (s *served) do(method, path, body string) (int, string, http.Header) {
	s.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, s.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+s.token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data), resp.Header
}

// TestServeE2E drives the real binary's server through a session: a
// streamed answer that reads a file, the session in the list with its
// messages and context, rename, workspace, delete, and a clean exit on
// SIGINT.
func TestServeE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Read", Input: jsonInput(map[string]any{"file_path": "notes.txt"})}}},
		llmtest.Turn{Text: "The notes say hello."},
	)
	e.write("notes.txt", "hello from the notes\n")
	s := e.serve()
	if !strings.HasPrefix(s.base, "http://127.0.0.1:") || len(s.token) < 32 {
		t.Fatalf("URL %s token %q", s.base, s.token)
	}
	if code, body, _ := s.do("GET", "/health", ""); code != 200 || !strings.Contains(body, `"service":"nova"`) {
		t.Errorf("health: %d %s", code, body)
	}
	req, _ := http.NewRequest("GET", s.base+"/api/sessions", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 401 {
		t.Errorf("no token: %v %v", resp.StatusCode, err)
	}

	req, _ = http.NewRequest("POST", s.base+"/api/chat/stream", strings.NewReader(`{"message":"what do the notes say?"}`))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("chat stream: %v %v", resp.StatusCode, err)
	}
	id := resp.Header.Get("x-nova-session-id")
	var types []string
	var output string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	done := false
	for sc.Scan() {
		line := sc.Text()
		if line == "data: [DONE]" {
			done = true
			break
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var part map[string]any
			if json.Unmarshal([]byte(d), &part) == nil {
				types = append(types, part["type"].(string))
				if part["type"] == "tool-output-available" {
					out, _ := json.Marshal(part["output"])
					output = string(out)
				}
			}
		}
	}
	resp.Body.Close()
	if !done || !strings.Contains(output, "hello from the notes") || !strings.Contains(strings.Join(types, " "), "text-delta") {
		t.Fatalf("stream: done %v, parts %v, tool output %s", done, types, output)
	}

	code, body, _ := s.do("GET", "/api/sessions", "")
	if code != 200 || !strings.Contains(body, id) || !strings.Contains(body, `"agent_key":"main"`) {
		t.Errorf("sessions: %d %s", code, body)
	}
	code, body, _ = s.do("GET", "/api/sessions/"+id+"/messages", "")
	if code != 200 || !strings.Contains(body, `"role":"tool"`) || !strings.Contains(body, "The notes say hello.") || !strings.Contains(body, "what do the notes say?") {
		t.Errorf("messages: %d %s", code, body)
	}
	code, body, _ = s.do("GET", "/api/sessions/"+id+"/context", "")
	var ctxUse struct{ Used, Limit, Percent, MessageCount int }
	if code != 200 || json.Unmarshal([]byte(body), &ctxUse) != nil || ctxUse.Limit == 0 || ctxUse.Used == 0 {
		t.Errorf("context: %d %s", code, body)
	}
	if code, body, _ := s.do("PATCH", "/api/sessions/"+id, `{"title":"Notes"}`); code != 200 || !strings.Contains(body, `"status":"renamed"`) {
		t.Errorf("rename: %d %s", code, body)
	}
	if code, _, _ := s.do("PATCH", "/api/sessions/"+id, `{"title":""}`); code != 422 {
		t.Errorf("empty title: %d", code)
	}
	if code, _, _ := s.do("PATCH", "/api/sessions/01NOPE", `{"title":"x"}`); code != 404 {
		t.Errorf("rename unknown: %d", code)
	}
	other := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws-link")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	if code, body, _ := s.do("PUT", "/api/sessions/"+id+"/workspace", fmt.Sprintf(`{"workspace_dir":%q}`, link)); code != 200 || !strings.Contains(body, "workspace_updated") {
		t.Errorf("workspace: %d %s", code, body)
	}
	realOther, _ := filepath.EvalSymlinks(other)
	if _, body, _ := s.do("GET", "/api/sessions", ""); !strings.Contains(body, `"title":"Notes"`) || !strings.Contains(body, realOther) {
		t.Errorf("after rename and workspace: %s", body)
	}
	if code, body, _ := s.do("DELETE", "/api/sessions/"+id, ""); code != 200 || !strings.Contains(body, `"status":"deleted"`) {
		t.Errorf("delete: %d %s", code, body)
	}
	if code, _, _ := s.do("GET", "/api/sessions/"+id+"/messages", ""); code != 404 {
		t.Errorf("messages after delete: %d", code)
	}

	_ = s.p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.p.done:
	case <-time.After(20 * time.Second):
		t.Fatal("nova serve did not stop on SIGINT")
	}
	if code := s.p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGINT: %s", code, s.p.errOut.String())
	}
}

func TestServeRefusesOpenHostWithoutToken(t *testing.T) {
	e := newE2E(t)
	r := e.run("", "serve", "--host", "0.0.0.0", "--port", "0")
	if r.code != 2 || !strings.Contains(r.stderr, "--token") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

func TestServeRefusesNegativeIdleTimeout(t *testing.T) {
	e := newE2E(t)
	r := e.run("", "serve", "--port", "0", "--idle-timeout", "-1m")
	if r.code != 2 || !strings.Contains(r.stderr, "--idle-timeout") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}
