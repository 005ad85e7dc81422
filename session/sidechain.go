package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// sidechainDir is where a session keeps its subagents' transcripts.
const sidechainDir = "subagents"

// Sidechain is the transcript of one subagent of a session (Claude Code's
// agent-<id>.jsonl): the same records as a session's, in a file of its
// own beside it, so the parent's history holds only the call and its
// result. Messages are synced to disk before Append returns.
type Sidechain struct {
	mu    sync.Mutex
	f     *os.File
	path  string
	total llm.Usage
}

// OpenSidechain creates the transcript of subagent id (a name unique in
// the session) under the session's directory.
func (s *Session) OpenSidechain(id string) (*Sidechain, error) {
	dir := filepath.Join(s.dir, sidechainDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("subagent transcript: %w", err)
	}
	path := filepath.Join(dir, "agent-"+id+".jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("subagent transcript: %w", err)
	}
	return &Sidechain{f: f, path: path}, nil
}

// Path is the transcript's file (what SubagentStop hooks are told).
func (c *Sidechain) Path() string { return c.path }

// AppendMessage records msg and syncs it to disk.
func (c *Sidechain) AppendMessage(msg llm.Message) error {
	msg = llm.SafeMessage(msg)
	return c.write(Record{Type: RecordMessage, Message: &msg}, true)
}

// AppendDecision records the permission decision about one call.
func (c *Sidechain) AppendDecision(callID, tool string, d permission.Decision) error {
	return c.write(Record{Type: RecordDecision, Decision: &Decision{CallID: callID, Tool: tool, Decision: d}}, false)
}

// AppendUsage records one turn's usage and the subagent's running total.
func (c *Sidechain) AppendUsage(turn llm.Usage) error {
	c.mu.Lock()
	c.total.Add(turn)
	total := c.total
	c.mu.Unlock()
	return c.write(Record{Type: RecordUsage, Usage: &UsageRecord{Turn: turn, Total: total}}, false)
}

func (c *Sidechain) write(r Record, sync bool) error {
	r.V, r.Time = SchemaVersion, time.Now().UTC()
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("subagent transcript: encode %s record: %w", r.Type, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return fmt.Errorf("subagent transcript %s: %w", c.path, ErrClosed)
	}
	if _, err := c.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("subagent transcript %s: %w", c.path, err)
	}
	if sync {
		if err := c.f.Sync(); err != nil {
			return fmt.Errorf("subagent transcript %s: sync: %w", c.path, err)
		}
	}
	return nil
}

// Close syncs and closes the transcript; it is safe to call twice.
func (c *Sidechain) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Sync()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	c.f = nil
	return err
}

// LoadSidechain reads a subagent's transcript: its messages in order. A
// torn last line is skipped, as in a session's transcript.
func LoadSidechain(path string) ([]llm.Message, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, _, _, err := readTranscript(f, filepath.Base(path), false)
	if err != nil {
		return nil, err
	}
	return t.AllMessages(), nil
}
