package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/remote"
)

// TestTUIRemoteEndToEnd shares a real nova's session from the start
// (nova --remote, in tmux) and plays the browser: it opens the URL the
// terminal shows, as a phone that scanned the code would (the token in
// its fragment), and sends a prompt over the WebSocket. The prompt and
// the answer show up in the terminal, the answer streams on the socket,
// and /remote off closes the listener.
func TestTUIRemoteEndToEnd(t *testing.T) {
	const token = "e2e-shared-session-token"
	e := newE2E(t,
		llmtest.Turn{Text: "Hello from the terminal's nova.", ChunkDelay: 5 * time.Millisecond},
		llmtest.Turn{Text: "Greeting the phone"}, // the session title, asked for after the first run
	)
	e.env = append(e.env, "NOVA_SERVER_TOKEN="+token)
	tm := e.startTUI("--remote", "--port", "0")
	screen := tm.waitFor("/remote off stops it")
	link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/#token=\S+`).FindString(screen)
	if !strings.HasSuffix(link, "#token="+token) {
		t.Fatalf("no URL with the token in its fragment on the screen:\n%s", screen)
	}
	if !strings.Contains(screen, "▀") {
		t.Errorf("no QR code on the screen:\n%s", screen)
	}
	tm.waitFor(" · default · shared · ") // the status line says so
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}

	// The page the URL opens asks where it leads (the session's page),
	// with the token from the fragment as a bearer header.
	req, _ := http.NewRequest("GET", "http://"+u.Host+"/api/landing", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var landing struct{ Path string }
	err = json.NewDecoder(resp.Body).Decode(&landing)
	resp.Body.Close()
	sid, ok := strings.CutPrefix(landing.Path, "/s/")
	if err != nil || resp.StatusCode != http.StatusOK || !ok {
		t.Fatalf("GET /api/landing: %d %+v %v", resp.StatusCode, landing, err)
	}
	// The page's WebSocket: the token as its subprotocol, its own origin.
	h := http.Header{"Sec-WebSocket-Protocol": {"nova.v1, " + remote.WSTokenProtocol(token)}, "Origin": {"http://" + u.Host}}
	c, _, err := websocket.DefaultDialer.Dial("ws://"+u.Host+"/ws", h)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WriteJSON(map[string]any{"type": "prompt", "session_id": sid, "text": "hello from the phone"}); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("hello from the phone")
	tm.waitFor("Sent from the browser")
	tm.waitFor("Hello from the terminal's nova.")

	var answer strings.Builder
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		var m struct {
			Type   string `json:"type"`
			Detail string `json:"detail"`
			Event  struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"event"`
		}
		if err := c.ReadJSON(&m); err != nil {
			t.Fatalf("the socket: %v (answer so far %q)", err, answer.String())
		}
		if m.Type == "error" {
			t.Fatalf("the socket: error %s", m.Detail)
		}
		if m.Event.Type == "text_delta" {
			answer.WriteString(m.Event.Text)
		}
		if m.Event.Type == "done" {
			break
		}
	}
	if answer.String() != "Hello from the terminal's nova." {
		t.Errorf("the socket got %q", answer.String())
	}

	tm.typeText("/remote off")
	tm.keys("Enter")
	tm.waitFor("Stopped sharing this session")
	tm.waitGone(" · shared · ")
	if conn, err := net.DialTimeout("tcp", u.Host, 2*time.Second); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after /remote off", u.Host)
	}
	tm.typeText("/exit")
	tm.keys("Enter")
	tm.waitExit()
}
