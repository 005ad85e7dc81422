package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// cacheReq builds a Messages request body: a system prompt of sysBytes
// bytes and n user text blocks of blockBytes bytes each, with cache_control
// on the system prompt when sysBP and on the content blocks listed in bps.
func cacheReq(sysBytes int, sysBP bool, n, blockBytes int, bps ...int) string {
	sys := map[string]any{"type": "text", "text": strings.Repeat("s", sysBytes)}
	if sysBP {
		sys["cache_control"] = map[string]any{"type": "ephemeral"}
	}
	var content []map[string]any
	for i := range n {
		b := map[string]any{"type": "text", "text": fmt.Sprintf("%04d%s", i, strings.Repeat("x", blockBytes))}
		for _, bp := range bps {
			if bp == i {
				b["cache_control"] = map[string]any{"type": "ephemeral"}
			}
		}
		content = append(content, b)
	}
	body, _ := json.Marshal(map[string]any{
		"model": "claude-test", "max_tokens": 100, "system": []any{sys},
		"messages": []any{map[string]any{"role": "user", "content": content}},
	})
	return string(body)
}

// cacheUsage posts body and returns the usage of message_start.
func cacheUsage(t *testing.T, srv *Server, body string) (input, read, write float64) {
	t.Helper()
	resp := postMessages(t, srv, body)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	evs, err := readSSE(t, resp.Body)
	if err != nil || len(evs) == 0 || evs[0].name != "message_start" {
		t.Fatalf("events %s, %v", names(evs), err)
	}
	u := evs[0].data["message"].(map[string]any)["usage"].(map[string]any)
	return u["input_tokens"].(float64), u["cache_read_input_tokens"].(float64), u["cache_creation_input_tokens"].(float64)
}

// newCacheServer serves n plain turns against a fresh cache on a clock
// the test moves.
func newCacheServer(t *testing.T, n int) (*Server, *Cache, *time.Time) {
	t.Helper()
	turns := make([]Turn, n)
	for i := range turns {
		turns[i] = Turn{Text: "ok", InputTokens: 999_999}
	}
	srv := New(turns...)
	t.Cleanup(srv.Close)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := &Cache{Now: func() time.Time { return now }}
	srv.UseCache(c)
	return srv, c, &now
}

func TestCacheWritesAtBreakpointsAndReadsThePrefix(t *testing.T) {
	srv, c, _ := newCacheServer(t, 3)
	// 8,000 bytes of system prompt: about 2,000 tokens, above the minimum.
	in1, r1, w1 := cacheUsage(t, srv, cacheReq(8000, true, 3, 400, 2))
	if r1 != 0 || w1 == 0 || in1 != tailTokens {
		t.Fatalf("first request: input %v, read %v, write %v; want everything written up to the last breakpoint", in1, r1, w1)
	}
	// The same prefix and two blocks more, the breakpoint moved to the end:
	// the old last block is within the lookback, so all of it is read.
	in2, r2, w2 := cacheUsage(t, srv, cacheReq(8000, true, 5, 400, 4))
	if r2 != w1 || w2 == 0 || in2 != tailTokens {
		t.Fatalf("second request: input %v, read %v, write %v; want the first request's %v read", in2, r2, w2, w1)
	}
	// The scripted counts are ignored: usage is the cache's.
	u := c.Usage()
	if len(u) != 2 || u[1].CacheReadTokens != int(r2) || u[1].Breakpoints != 2 || u[1].ReadBlocks != 4 {
		t.Fatalf("usage log = %+v", u)
	}
	// A changed system prompt changes every prefix: nothing is read.
	_, r3, _ := cacheUsage(t, srv, cacheReq(8001, true, 5, 400, 4))
	if r3 != 0 {
		t.Errorf("after a system change read %v, want 0", r3)
	}
}

func TestCacheMinimumLength(t *testing.T) {
	srv, _, _ := newCacheServer(t, 2)
	// About 300 tokens: below 1,024, nothing is written, all is input.
	in1, _, w1 := cacheUsage(t, srv, cacheReq(1000, true, 1, 100, 0))
	_, r2, _ := cacheUsage(t, srv, cacheReq(1000, true, 1, 100, 0))
	if w1 != 0 || r2 != 0 || in1 < 250 {
		t.Errorf("short prefix: input %v, write %v, then read %v; want no entry", in1, w1, r2)
	}
}

func TestCacheLookbackIsTwentyBlocks(t *testing.T) {
	tests := []struct {
		name  string
		added int // blocks after the cached one
		hit   bool
	}{
		{"19 blocks later", Lookback - 1, true},
		{"20 blocks later", Lookback, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, _ := newCacheServer(t, 2)
			// No system breakpoint: the only entry is the one at block 0.
			_, _, w1 := cacheUsage(t, srv, cacheReq(8000, false, 1, 100, 0))
			_, r2, _ := cacheUsage(t, srv, cacheReq(8000, false, 1+tt.added, 100, tt.added))
			if hit := r2 == w1; hit != tt.hit {
				t.Errorf("read %v of the %v cached; hit = %v, want %v", r2, w1, hit, tt.hit)
			}
		})
	}
	// A second breakpoint where the first request's was finds it at any
	// distance: what a request must do after a turn of many blocks.
	srv, _, _ := newCacheServer(t, 2)
	_, _, w1 := cacheUsage(t, srv, cacheReq(8000, false, 1, 100, 0))
	_, r2, _ := cacheUsage(t, srv, cacheReq(8000, false, 40, 100, 0, 39))
	if r2 != w1 {
		t.Errorf("with a breakpoint on the old end: read %v, want %v", r2, w1)
	}
}

func TestCacheTTL(t *testing.T) {
	srv, _, now := newCacheServer(t, 4)
	body := cacheReq(8000, true, 1, 100, 0)
	_, _, w := cacheUsage(t, srv, body)
	*now = now.Add(4 * time.Minute)
	if _, r, _ := cacheUsage(t, srv, body); r != w {
		t.Fatalf("after 4 minutes read %v, want %v", r, w)
	}
	// The hit refreshed the entry: 8 minutes after the write it still lives.
	*now = now.Add(4 * time.Minute)
	if _, r, _ := cacheUsage(t, srv, body); r != w {
		t.Fatalf("4 minutes after a hit read %v, want %v", r, w)
	}
	*now = now.Add(5*time.Minute + time.Second)
	if _, r, w2 := cacheUsage(t, srv, body); r != 0 || w2 != w {
		t.Errorf("5 minutes after the last hit: read %v, write %v; want the entry expired and written again", r, w2)
	}
}

func TestCacheOneHourTTL(t *testing.T) {
	srv, _, now := newCacheServer(t, 2)
	body := strings.Replace(cacheReq(8000, true, 1, 100), `"type":"ephemeral"`, `"ttl":"1h","type":"ephemeral"`, 1)
	_, _, w := cacheUsage(t, srv, body)
	*now = now.Add(59 * time.Minute)
	if _, r, _ := cacheUsage(t, srv, body); r != w || w == 0 {
		t.Errorf("1h entry after 59 minutes: read %v, want %v", r, w)
	}
}

func TestCacheAutomaticBreakpoint(t *testing.T) {
	srv, _, _ := newCacheServer(t, 2)
	auto := func(n int) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(cacheReq(8000, false, n, 100)), &m)
		m["cache_control"] = map[string]any{"type": "ephemeral"}
		b, _ := json.Marshal(m)
		return string(b)
	}
	_, _, w := cacheUsage(t, srv, auto(2))
	if _, r, _ := cacheUsage(t, srv, auto(3)); r != w || w == 0 {
		t.Errorf("top-level cache_control: read %v, want %v", r, w)
	}
}

func TestCacheRejectsWhatTheAPIRejects(t *testing.T) {
	thinking := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s","cache_control":{"type":"ephemeral"}}]}]}`
	tests := []struct {
		name, body, want string
	}{
		{"five breakpoints", cacheReq(8000, true, 5, 10, 0, 1, 2, 3), "A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{"breakpoint on thinking", thinking, "cannot be set on thinking blocks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, c, _ := newCacheServer(t, 1)
			resp := postMessages(t, srv, tt.body)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), tt.want) || !strings.Contains(string(b), "invalid_request_error") {
				t.Errorf("status %d, body %s; want 400 saying %q", resp.StatusCode, b, tt.want)
			}
			if len(c.Usage()) != 0 {
				t.Errorf("a rejected request was counted")
			}
		})
	}
	// Four is allowed.
	srv, _, _ := newCacheServer(t, 1)
	cacheUsage(t, srv, cacheReq(8000, true, 5, 10, 0, 1, 2))
}

func TestCacheLeavesFailuresAlone(t *testing.T) {
	srv := New(Turn{Status: 529}, Turn{Text: "ok"})
	defer srv.Close()
	c := NewCache()
	srv.UseCache(c)
	body := cacheReq(8000, true, 1, 100, 0)
	if resp := postMessages(t, srv, body); resp.StatusCode != 529 {
		t.Fatalf("status %d, want the scripted 529", resp.StatusCode)
	}
	if _, r, w := cacheUsage(t, srv, body); r != 0 || w == 0 {
		t.Errorf("after a failed request: read %v, write %v; want a first write", r, w)
	}
}
