package remote

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// stepClock is a clock a test moves by hand.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// The attack of issue 23: a four-digit token, brute-forced from this
// machine. Every guess is answered, the loop is bounded in time, and it
// never gets in: after 2 + 12 wrong guesses every request that carries a
// token is a 429, the right one included, so a guess tells nothing. The
// right token worked before the attack (the positive control) and works
// again once the client's budget has refilled.
func TestTokenBruteForceIsRefused(t *testing.T) {
	t.Parallel()
	const token = "7391"
	ts := newTestServer(t, func(o *Options) { o.Token = token })
	clock := &stepClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	ts.srv.limiter.now = clock.Now
	if code, body, _ := ts.do("GET", "/api/providers", "", "Authorization", "Bearer "+token); code != 200 {
		t.Fatalf("the right token before the attack: %d %s", code, body)
	}

	deadline := time.Now().Add(10 * time.Second)
	codes := map[int]int{}
	tried, reachedRight := 0, false
	for i := 0; i < 10000 && time.Now().Before(deadline); i++ {
		guess := fmt.Sprintf("%04d", i)
		code, body, h := ts.do("GET", "/api/providers", "", "Authorization", "Bearer "+guess)
		tried++
		codes[code]++
		switch {
		case code == 200:
			t.Fatalf("guess %d (%s) got in", tried, guess)
		case tried <= perMinute+perHour && code != 401:
			t.Fatalf("guess %d: %d %s, want 401 while the budget lasts", tried, code, body)
		case tried > perMinute+perHour && (code != 429 || h.Get("Retry-After") == "" || !strings.Contains(body, "too many wrong tokens")):
			t.Fatalf("guess %d: %d %s, want 429 with Retry-After", tried, code, body)
		}
		if guess == token {
			reachedRight = true
		}
	}
	t.Logf("%d guesses in the time bound: %v (the right one among them: %v)", tried, codes, reachedRight)
	if tried <= perMinute+perHour {
		t.Fatalf("only %d guesses were made", tried)
	}
	// The other ways to present a token share the budget.
	if code, _, _ := ts.do("GET", "/?token="+token, "", "Authorization", ""); code != 429 {
		t.Errorf("an old link with the right token during the lockout: %d, want 429", code)
	}
	e := &wsEnv{testServer: ts}
	_, resp, err := e.dial(http.Header{"Sec-WebSocket-Protocol": {wsProtocol + ", " + WSTokenProtocol(token)}}, "")
	if err == nil || resp == nil || resp.StatusCode != 429 {
		t.Errorf("a WebSocket with the right token during the lockout: %v %v, want 429", err, resp)
	}

	// A minute later the budget holds two tries again: the right token
	// gets in.
	clock.add(time.Minute)
	if code, body, _ := ts.do("GET", "/api/providers", "", "Authorization", "Bearer "+token); code != 200 {
		t.Errorf("the right token after a minute: %d %s", code, body)
	}
}

// The budget is per client: another address is not held up by one that
// guessed, and an IPv6 address counts by its /64.
func TestLimiterPerClient(t *testing.T) {
	t.Parallel()
	var l limiter
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := clientKey("127.0.0.1:5000")
	for range perMinute + perHour {
		if l.blocked(a, now) > 0 {
			t.Fatal("blocked before the budget is spent")
		}
		l.fail(a, now)
	}
	if wait := l.blocked(a, now); wait <= 0 || wait > time.Minute/perMinute {
		t.Errorf("after the budget: wait %s, want up to %s", wait, time.Minute/perMinute)
	}
	if l.blocked(clientKey("192.0.2.1:1"), now) > 0 {
		t.Error("another client is blocked")
	}
	if clientKey("[2001:db8::1]:1") != clientKey("[2001:db8::ffff]:2") || clientKey("[2001:db8::1]:1") == clientKey("[2001:db8:0:1::1]:1") {
		t.Error("IPv6 clients are not keyed by their /64")
	}
	if l.blocked(a, now.Add(time.Minute)) > 0 {
		t.Error("still blocked after the minute's budget refilled")
	}
}

func TestTokenBits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		token    string
		min, max float64
	}{
		{"7391", 13, 14},
		{"correcthorsebattery", 89, 90}, // 19 lowercase letters
		{strings.Repeat("ab12", 16), 330, 331},
		{"f3A9-kq7Z_x2Lm8Pw4Rt6Yb1", 156, 158}, // 24 of four classes
		{"", 0, 0},
		{"aaaa", 18, 19}, // an upper bound: it does not see repetition
	} {
		if got := TokenBits(tt.token); got < tt.min || got > tt.max {
			t.Errorf("TokenBits(%q) = %.1f, want %.0f to %.0f", tt.token, got, tt.min, tt.max)
		}
	}
	tok, err := NewToken()
	if err != nil || TokenBits(tok) < MinTokenBits {
		t.Errorf("a generated token has %.0f bits", TokenBits(tok))
	}
}
