package llmtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// The documented limits of Anthropic's prompt cache that the model follows.
const (
	// MaxBreakpoints is how many blocks of one request may carry
	// cache_control; more is a 400.
	MaxBreakpoints = 4
	// Lookback is how many block positions, the breakpoint's own included,
	// are checked for an earlier entry when walking back from a breakpoint.
	Lookback = 20
	// DefaultMinCacheTokens is the shortest prefix written to the cache
	// (Claude Sonnet 4.5, Opus 4.1 and earlier 4.x models; others need more).
	DefaultMinCacheTokens = 1024
	// DefaultTTL is the lifetime of an entry without "ttl"; each hit
	// starts it again.
	DefaultTTL = 5 * time.Minute
	// tailTokens stands for what the API adds after the last block (the
	// start of the assistant turn): never cached, so input_tokens is never 0.
	tailTokens = 3
)

// Cache models Anthropic's prompt cache for the Messages endpoint, as the
// prompt caching documentation describes it:
//
//   - A request's prefix is its tools, then its system blocks, then its
//     message content blocks, in that order; a change to any block changes
//     every prefix that includes it. A deferred tool (defer_loading) is a
//     tool of the prefix like any other, its flag included: the API says
//     it keeps deferred definitions out of the prompt, so a change to one
//     may cost less there than here, never more. A tool_reference is part
//     of the tool_result block that holds it.
//   - An entry is written only at a block that carries cache_control (a
//     breakpoint): the prefix up to and including that block, when it is
//     at least MinTokens long. A top-level cache_control puts a breakpoint
//     on the last block.
//   - A read walks back from each breakpoint over at most Lookback block
//     positions and takes the first prefix that has a live entry; the
//     request reads the longest such prefix.
//   - An entry lives DefaultTTL (or "ttl": "1h") and each hit refreshes it.
//   - More than MaxBreakpoints breakpoints, or one on a thinking block, is
//     an invalid request.
//
// usage then reports cache_read_input_tokens (the prefix read),
// cache_creation_input_tokens (from there to the last breakpoint) and
// input_tokens (the rest), as the API does. Tokens are estimated at four
// bytes of a block's JSON each. A Server uses a Cache after UseCache; the
// scripted turns' token counts are then ignored.
type Cache struct {
	// MinTokens is the shortest cacheable prefix; DefaultMinCacheTokens
	// when 0.
	MinTokens int
	// Now is the cache's clock; time.Now when nil. Tests move it forward to
	// expire entries without waiting.
	Now func() time.Time
	// Lookback is how many positions a read checks walking back from a
	// breakpoint; the documented 20 when 0. 1 credits a read only at a
	// position that is a breakpoint of this request, a stricter model.
	Lookback int

	mu      sync.Mutex
	entries map[[32]byte]cacheEntry
	log     []CacheUsage
}

// CacheUsage is what the cache model did for one request.
type CacheUsage struct {
	InputTokens, CacheReadTokens, CacheWriteTokens int
	// Breakpoints is how many cache_control markers the request carried.
	Breakpoints int
	// Blocks is how many blocks the prefix holds (tools, system, content).
	Blocks int
	// ReadBlocks is how many of them were read from the cache.
	ReadBlocks int
}

// Total is every input token of the request.
func (u CacheUsage) Total() int { return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens }

// ReadShare is the part of the input read from the cache, 0 to 1.
func (u CacheUsage) ReadShare() float64 {
	if u.Total() == 0 {
		return 0
	}
	return float64(u.CacheReadTokens) / float64(u.Total())
}

type cacheEntry struct {
	expires time.Time
	ttl     time.Duration
}

// NewCache returns an empty cache with the documented defaults.
func NewCache() *Cache { return &Cache{} }

// UseCache makes the server answer Messages requests with the usage c
// computes. Call it before the first request.
func (s *Server) UseCache(c *Cache) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache = c
}

// Usage returns what the cache did for each successful Messages request,
// in order.
func (c *Cache) Usage() []CacheUsage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]CacheUsage(nil), c.log...)
}

// cacheTurn applies the cache to one Messages request: the turn gets the
// cache's token counts, or becomes the API's 400 for a request the cache
// rejects. A turn that fails or hangs anyway leaves the cache untouched.
func cacheTurn(c *Cache, t Turn, body []byte) Turn {
	if c == nil || t.Hang || (t.Status != 0 && t.Status != http.StatusOK) {
		return t
	}
	u, err := c.apply(body)
	if err != nil {
		return Turn{Status: http.StatusBadRequest, ErrorType: "invalid_request_error", ErrorMessage: err.Error()}
	}
	t.InputTokens, t.CacheReadTokens, t.CacheWriteTokens = u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens
	return t
}

// cacheBlock is one position of a request's prefix.
type cacheBlock struct {
	prefix     [32]byte // hash of everything up to and including this block
	cumTokens  int      // tokens up to and including this block
	breakpoint bool
	ttl        time.Duration
}

// apply computes the usage of one request and updates the entries.
func (c *Cache) apply(body []byte) (CacheUsage, error) {
	blocks, err := cacheBlocks(body)
	if err != nil {
		return CacheUsage{}, err
	}
	var bps []int
	for i, b := range blocks {
		if b.breakpoint {
			bps = append(bps, i)
		}
	}
	if len(bps) > MaxBreakpoints {
		// The API's own words, capital and full stop included.
		return CacheUsage{}, fmt.Errorf("A maximum of %d blocks with cache_control may be provided. Found %d.", MaxBreakpoints, len(bps))
	}
	minTokens := c.MinTokens
	if minTokens <= 0 {
		minTokens = DefaultMinCacheTokens
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	if c.entries == nil {
		c.entries = map[[32]byte]cacheEntry{}
	}
	live := func(i int) bool {
		e, ok := c.entries[blocks[i].prefix]
		return ok && now.Before(e.expires)
	}

	lookback := c.Lookback
	if lookback <= 0 {
		lookback = Lookback
	}
	read := -1 // the last block read from the cache
	for _, bp := range bps {
		for p := bp; p >= 0 && p > bp-lookback; p-- {
			if live(p) {
				read = max(read, p)
				break
			}
		}
	}
	readTokens := 0
	if read >= 0 {
		readTokens = blocks[read].cumTokens
		e := c.entries[blocks[read].prefix]
		e.expires = now.Add(e.ttl)
		c.entries[blocks[read].prefix] = e
	}
	writeTokens := 0
	for _, bp := range bps {
		b := blocks[bp]
		if bp <= read || b.cumTokens < minTokens {
			continue
		}
		c.entries[b.prefix] = cacheEntry{expires: now.Add(b.ttl), ttl: b.ttl}
		writeTokens = b.cumTokens - readTokens
	}
	total := tailTokens
	if len(blocks) > 0 {
		total += blocks[len(blocks)-1].cumTokens
	}
	u := CacheUsage{
		InputTokens: total - readTokens - writeTokens, CacheReadTokens: readTokens, CacheWriteTokens: writeTokens,
		Breakpoints: len(bps), Blocks: len(blocks), ReadBlocks: read + 1,
	}
	c.log = append(c.log, u)
	return u, nil
}

// cacheRequest is the part of a Messages request that makes up its prefix.
type cacheRequest struct {
	Model        string            `json:"model"`
	Tools        []json.RawMessage `json:"tools"`
	System       json.RawMessage   `json:"system"`
	Messages     []cacheMessage    `json:"messages"`
	Thinking     json.RawMessage   `json:"thinking"`
	ToolChoice   json.RawMessage   `json:"tool_choice"`
	CacheControl json.RawMessage   `json:"cache_control"`
}

type cacheMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// cacheBlocks splits a request into its prefix positions. Each block is
// hashed without its cache_control, so moving a breakpoint does not change
// the prefix. Tool definitions and the system prompt depend only on the
// model; messages also on the thinking and tool_choice settings, whose
// change the documentation lists as invalidating the message cache.
func cacheBlocks(body []byte) ([]cacheBlock, error) {
	var req cacheRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("request body is not JSON: %v", err)
	}
	var (
		out    []cacheBlock
		prefix = sha256.Sum256([]byte("model:" + req.Model))
		tokens int
	)
	// add appends one block; head marks what precedes it in the rendered
	// prompt (its kind, and the role where a message starts).
	add := func(head string, raw json.RawMessage) error {
		canon, bp, ttl, err := canonicalBlock(raw)
		if err != nil {
			return err
		}
		if kind := blockType(raw); bp && (kind == "thinking" || kind == "redacted_thinking") {
			return fmt.Errorf("messages: cache_control cannot be set on %s blocks", kind)
		}
		h := sha256.New()
		h.Write(prefix[:])
		h.Write([]byte(head))
		h.Write(canon)
		copy(prefix[:], h.Sum(nil))
		tokens += max(1, (len(canon)+3)/4)
		out = append(out, cacheBlock{prefix: prefix, cumTokens: tokens, breakpoint: bp, ttl: ttl})
		return nil
	}
	for _, t := range req.Tools {
		if err := add("tool", t); err != nil {
			return nil, err
		}
	}
	for _, s := range systemBlocks(req.System) {
		if err := add("system", s); err != nil {
			return nil, err
		}
	}
	if len(req.Messages) > 0 {
		h := sha256.New()
		h.Write(prefix[:])
		h.Write(req.Thinking)
		h.Write(req.ToolChoice)
		copy(prefix[:], h.Sum(nil))
	}
	for _, m := range req.Messages {
		for i, b := range contentBlocks(m.Content) {
			head := "block"
			if i == 0 {
				// A message boundary is part of the prefix.
				head = "message:" + m.Role
			}
			if err := add(head, b); err != nil {
				return nil, err
			}
		}
	}
	if len(req.CacheControl) > 0 && string(req.CacheControl) != "null" && len(out) > 0 {
		// Automatic caching: the breakpoint goes on the last block.
		out[len(out)-1].breakpoint = true
		out[len(out)-1].ttl = ttlOf(req.CacheControl)
	}
	return out, nil
}

// systemBlocks returns the system prompt's blocks: a string is one.
func systemBlocks(raw json.RawMessage) []json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil
		}
		b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
		return []json.RawMessage{b}
	}
	var blocks []json.RawMessage
	_ = json.Unmarshal(raw, &blocks)
	return blocks
}

// contentBlocks returns a message's content blocks: a string is one text
// block.
func contentBlocks(raw json.RawMessage) []json.RawMessage {
	return systemBlocks(raw)
}

func blockType(raw json.RawMessage) string {
	var b struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &b)
	return b.Type
}

// canonicalBlock returns the block without cache_control, with sorted
// keys, and whether it carried a breakpoint and with what lifetime.
func canonicalBlock(raw json.RawMessage) ([]byte, bool, time.Duration, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false, 0, fmt.Errorf("a block is not a JSON object: %v", err)
	}
	cc, bp := m["cache_control"]
	bp = bp && cc != nil
	delete(m, "cache_control")
	canon, err := json.Marshal(m)
	if err != nil {
		return nil, false, 0, err
	}
	ttl := DefaultTTL
	if bp {
		raw, _ := json.Marshal(cc)
		ttl = ttlOf(raw)
	}
	return canon, bp, ttl, nil
}

// ttlOf reads a cache_control's lifetime: "1h", or the default.
func ttlOf(raw json.RawMessage) time.Duration {
	var cc struct {
		TTL string `json:"ttl"`
	}
	if json.Unmarshal(raw, &cc) == nil && cc.TTL == "1h" {
		return time.Hour
	}
	return DefaultTTL
}
