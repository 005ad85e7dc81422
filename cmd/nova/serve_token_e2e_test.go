package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/remote"
	"github.com/nova-dev/nova/tools/mcp/mcptest"
)

// A token of the person's for a host other machines reach must be
// strong, unless --insecure-token; --token-file gives one a process
// list does not show; --help says --token is visible there.
func TestServeTokenFlags(t *testing.T) {
	e := newE2E(t)
	r := e.run("", "serve", "--host", "0.0.0.0", "--port", "0", "--token", "1234")
	if r.code != 2 || !strings.Contains(r.stderr, "under the 128 it needs") || !strings.Contains(r.stderr, "--insecure-token") {
		t.Errorf("a 4-digit token on 0.0.0.0: exit %d: %s", r.code, r.stderr)
	}
	e.env = append(e.env, "NOVA_SERVER_TOKEN=12345678")
	if r := e.run("", "serve", "--host", "0.0.0.0", "--port", "0"); r.code != 2 || !strings.Contains(r.stderr, "under the 128") {
		t.Errorf("a weak NOVA_SERVER_TOKEN on 0.0.0.0: exit %d: %s", r.code, r.stderr)
	}
	open := filepath.Join(e.home, "token.txt")
	if err := os.WriteFile(open, []byte(strongToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := e.run("", "serve", "--port", "0", "--token-file", open); r.code != 2 || !strings.Contains(r.stderr, "chmod 600") {
		t.Errorf("a token file others can read: exit %d: %s", r.code, r.stderr)
	}
	if r := e.run("", "serve", "--help"); r.code != 0 || !strings.Contains(r.stdout, "process list") || !strings.Contains(r.stdout, "--token-file") {
		t.Errorf("--help does not say --token shows in the process list:\n%s", r.stdout)
	}

	// The file's token is the one the server takes, and the printed URL
	// carries it in its fragment.
	if err := os.Chmod(open, 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.serve("--token-file", open)
	if s.token != strongToken {
		t.Fatalf("the printed token is %q, want the file's", s.token)
	}
	if code, body, _ := s.do("GET", "/api/providers", ""); code != 200 {
		t.Errorf("the file's token: %d %s", code, body)
	}
}

// On every address (--host 0.0.0.0) nova serve prints a URL for each of
// the machine's addresses, warns that the traffic is not encrypted, and
// answers a Host header naming one of them; any other name is still
// refused (DNS rebinding).
func TestServeOnEveryAddress(t *testing.T) {
	addrs := remote.InterfaceAddrs("0.0.0.0")
	if len(addrs) == 0 {
		t.Skip("this machine has no address besides loopback")
	}
	e := newE2E(t)
	s := e.serve("--host", "0.0.0.0", "--token", strongToken)
	pollUntil(t, "the warning", func() bool { return strings.Contains(s.p.errOut.String(), "not encrypted") }, s.p)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.base, "http://"))
	for _, a := range addrs {
		want := "nova serve: listening on http://" + net.JoinHostPort(a, port) + "/#token=" + strongToken
		if !strings.Contains(s.p.out.String(), want) {
			t.Errorf("no URL for %s; stdout:\n%s", a, s.p.out.String())
		}
	}
	for host, code := range map[string]int{net.JoinHostPort(addrs[0], port): 200, "nova.example:" + port: 403} {
		req, _ := http.NewRequest("GET", s.base+"/api/providers", nil)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+strongToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != code {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, code)
		}
	}
}

// NOVA_SERVER_TOKEN is nova's secret, not its commands': once nova serve
// has read it, neither a Bash command nor an MCP server it starts has it
// in its environment. Another variable of the same environment does (the
// positive control).
func TestServeTokenNotInherited(t *testing.T) {
	const secret = "the-servers-secret-token-0123456789abcdef"
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_env", Name: "Bash",
			Input: jsonInput(map[string]any{"command": `echo "token=${NOVA_SERVER_TOKEN:-unset} marker=${NOVA_E2E_MARKER:-unset}" > env.txt`})}}},
		llmtest.Turn{Text: "Looked."})
	name := fmt.Sprintf("serve-env-%d-%d", os.Getpid(), time.Now().UnixNano())
	env := map[string]string{}
	for _, kv := range mcptest.StdioEnv(mcptest.Options{Name: name}) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"t": map[string]any{"command": os.Args[0], "env": env}}})
	novaHome := filepath.Join(e.home, ".nova")
	if err := os.MkdirAll(novaHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(novaHome, "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "NOVA_SERVER_TOKEN="+secret, "NOVA_E2E_MARKER=visible")
	s := e.serve("--no-sandbox", "--allowedTools", "Bash")
	if s.token != secret {
		t.Fatalf("the server's token is %q, want NOVA_SERVER_TOKEN's", s.token)
	}
	if code, body, _ := s.do("POST", "/api/chat", `{"message":"look at the environment"}`); code != 200 || !strings.Contains(body, "completed") {
		t.Fatalf("the turn: %d %s", code, body)
	}
	if got := strings.TrimSpace(e.read("env.txt")); got != "token=unset marker=visible" {
		t.Errorf("the Bash command's environment: %q, want no token and the marker", got)
	}
	procs := mcpEnvirons(t, name)
	if len(procs) != 1 {
		t.Fatalf("%d MCP server processes, want the session's one", len(procs))
	}
	for _, environ := range procs {
		if bytes.Contains(environ, []byte("NOVA_SERVER_TOKEN=")) || bytes.Contains(environ, []byte(secret)) {
			t.Error("the MCP server inherited NOVA_SERVER_TOKEN")
		}
		if !bytes.Contains(environ, []byte("NOVA_E2E_MARKER=visible")) {
			t.Error("the MCP server did not get nova's environment at all: the check proves nothing")
		}
	}
}

// mcpEnvirons are the environments of the running MCP server processes
// called name (the test binary, told apart by its name).
func mcpEnvirons(t *testing.T, name string) [][]byte {
	t.Helper()
	marker := []byte(mcptest.EnvName + "=" + name + "\x00")
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(dirs) == 0 {
		t.Skip("no /proc to find processes in")
	}
	var out [][]byte
	for _, d := range dirs {
		environ, err := os.ReadFile(filepath.Join(d, "environ"))
		if err == nil && bytes.Contains(environ, marker) && regexp.MustCompile(`^\d+$`).MatchString(filepath.Base(d)) {
			out = append(out, environ)
		}
	}
	return out
}

// A provider that config.json gained since the terminal last started
// (here through nova serve's API) is said on stderr at the next nova -p,
// once; the first start ever records what it finds and says nothing. The
// added provider does not become the default: the prompt still goes to
// the provider it went to.
func TestPrintSaysNewProviders(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"}, llmtest.Turn{Text: "three"})
	if r := e.run("", "-p", "hi"); r.code != 0 || strings.Contains(r.stderr, "not seen before") {
		t.Fatalf("the first start: exit %d: %s", r.code, r.stderr)
	}
	s := e.serve()
	if code, body, _ := s.do("POST", "/api/config/providers", `{"key":"elsewhere","type":"openai-compatible","base_url":"http://127.0.0.1:9/v1"}`); code != 200 {
		t.Fatalf("add a provider: %d %s", code, body)
	}
	r := e.run("", "-p", "hi")
	if r.code != 0 || !strings.Contains(r.stderr, `provider nova has not seen before: "elsewhere" (openai-compatible, http://127.0.0.1:9/v1)`) {
		t.Errorf("after the add: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := e.run("", "-p", "hi"); r.code != 0 || strings.Contains(r.stderr, "not seen before") {
		t.Errorf("the third start: exit %d: %s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 3 {
		t.Errorf("the fake provider got %d prompts, want all 3: the added provider took the default", n)
	}
}
