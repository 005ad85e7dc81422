package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// ProviderType is the wire protocol a provider speaks. The names are the
// ones of the server API (seed 000).
type ProviderType string

// The provider types nova speaks.
const (
	ProviderAnthropic        ProviderType = "anthropic"
	ProviderOpenAIResponse   ProviderType = "openai-response"
	ProviderOpenAICompatible ProviderType = "openai-compatible"
	ProviderOllama           ProviderType = "ollama"
)

// ProviderConfig is what a provider client needs to connect.
type ProviderConfig struct {
	Key     string       // the alias used in "key:model"
	Type    ProviderType // wire protocol
	Name    string       // display name
	BaseURL string       // empty means the provider's default
	APIKey  string
	// KeyHint names where the key came from, for auth error messages
	// ("ANTHROPIC_API_KEY", "api_key of provider \"work\" in ~/.nova/config.json").
	KeyHint string
	// ConnectTimeout bounds dialing; FirstByteTimeout bounds the wait for
	// response headers; IdleTimeout bounds silence inside a streamed body.
	ConnectTimeout   time.Duration
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
	// HTTPClient, when set, is used as is (tests); otherwise NewHTTPClient builds one.
	HTTPClient *http.Client
}

// Default timeouts: an unreachable or silent provider fails in seconds.
const (
	DefaultConnectTimeout   = 10 * time.Second
	DefaultFirstByteTimeout = 30 * time.Second
	DefaultIdleTimeout      = 90 * time.Second
)

// NewHTTPClient returns the HTTP client a provider should use: cfg's own
// when set, otherwise one whose dial, response-header and body-idle waits
// are bounded by cfg's timeouts (defaults when zero).
func NewHTTPClient(cfg ProviderConfig) *http.Client {
	if cfg.HTTPClient != nil {
		return cfg.HTTPClient
	}
	connect := orDefault(cfg.ConnectTimeout, DefaultConnectTimeout)
	firstByte := orDefault(cfg.FirstByteTimeout, DefaultFirstByteTimeout)
	idle := orDefault(cfg.IdleTimeout, DefaultIdleTimeout)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = connect
	tr.ResponseHeaderTimeout = firstByte
	return &http.Client{Transport: idleTimeoutTransport{base: tr, idle: idle}}
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// ErrIdleTimeout is returned by a response body that stayed silent too long.
var ErrIdleTimeout = errors.New("no data from provider within the idle timeout")

// idleTimeoutTransport closes a response body that delivers no bytes for
// longer than idle, so a provider that stalls mid-stream cannot hang a turn.
type idleTimeoutTransport struct {
	base http.RoundTripper
	idle time.Duration
}

func (t idleTimeoutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	resp.Body = newIdleBody(resp.Body, t.idle)
	return resp, nil
}

type idleBody struct {
	rc    io.ReadCloser
	timer *time.Timer
	idle  time.Duration
	mu    sync.Mutex
	fired bool
}

func newIdleBody(rc io.ReadCloser, idle time.Duration) *idleBody {
	b := &idleBody{rc: rc, idle: idle}
	b.timer = time.AfterFunc(idle, func() {
		b.mu.Lock()
		b.fired = true
		b.mu.Unlock()
		rc.Close()
	})
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	fired := b.fired
	b.mu.Unlock()
	if fired {
		return n, ErrIdleTimeout
	}
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.rc.Close()
}

// SleepFunc waits d or until ctx ends; tests swap it to avoid real waits.
type SleepFunc func(ctx context.Context, d time.Duration) error
