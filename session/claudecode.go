package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/llm"
)

// ClaudeTranscriptFile is the session's transcript in Claude Code's
// format, beside transcript.jsonl: hooks get it as transcript_path, so
// the hooks, usage counters and viewers written for Claude Code's
// transcripts read nova's (issue 24). It is derived from transcript.jsonl
// (rebuilt when a session is opened and it is missing or lags, appended
// to with each message)
// and never read back by nova.
const ClaudeTranscriptFile = "transcript.claude.jsonl"

// ClaudeTranscriptPath returns the path of the session's transcript in
// Claude Code's format (ClaudeTranscriptFile).
func (s *Session) ClaudeTranscriptPath() string { return filepath.Join(s.dir, ClaudeTranscriptFile) }

// claudeLine is one line of a Claude Code transcript: a message, chained
// to the one before it by parentUuid.
type claudeLine struct {
	ParentUUID  *string       `json:"parentUuid"`
	IsSidechain bool          `json:"isSidechain"`
	UserType    string        `json:"userType"`
	Cwd         string        `json:"cwd"`
	SessionID   string        `json:"sessionId"`
	Type        string        `json:"type"`
	Message     claudeMessage `json:"message"`
	UUID        string        `json:"uuid"`
	Timestamp   string        `json:"timestamp"`
}

// claudeMessage is the message of a line, as the Anthropic API has it: a
// user prompt's content is a string, everything else content blocks.
type claudeMessage struct {
	ID      string `json:"id,omitempty"`
	Type    string `json:"type,omitempty"`
	Role    string `json:"role"`
	Model   string `json:"model,omitempty"`
	Content any    `json:"content"`
}

// claudeLog appends a session's messages to its ClaudeTranscriptFile.
// It is used under the Session's mutex.
type claudeLog struct {
	f        *os.File
	n        int    // messages written, which numbers the next one's uuid
	parent   string // uuid of the last message written
	size     int64  // bytes of whole lines in the file
	reported bool   // a write failure was told once
}

// claudeUUID is message i's uuid in session id's Claude Code transcript:
// derived, not random, so a transcript rebuilt on reopening has the same
// ones and a tool that remembered one still finds it.
func claudeUUID(id string, i int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("nova-claude-transcript:%s:%d", id, i)))
	h[6] = h[6]&0x0f | 0x40 // the shape of a version 4 UUID
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// line encodes message msg (the log's next) of meta's session, sent at ts.
func (c *claudeLog) line(meta Meta, msg llm.Message, ts time.Time) ([]byte, string) {
	uuid := claudeUUID(meta.ID, c.n)
	l := claudeLine{UserType: "external", Cwd: meta.WorkspaceDir, SessionID: meta.ID, UUID: uuid,
		Timestamp: ts.UTC().Format("2006-01-02T15:04:05.000Z")}
	if c.parent != "" {
		p := c.parent
		l.ParentUUID = &p
	}
	if msg.Role == llm.RoleAssistant {
		l.Type = "assistant"
		l.Message = claudeMessage{ID: "msg_" + uuid, Type: "message", Role: "assistant", Model: meta.Model, Content: claudeBlocks(msg.Parts)}
	} else {
		l.Type = "user"
		msg = WithoutContext(msg)
		var content any = claudeBlocks(msg.Parts)
		if len(msg.Parts) == 1 && msg.Parts[0].Type == llm.PartText {
			content = msg.Parts[0].Text
		}
		l.Message = claudeMessage{Role: "user", Content: content}
	}
	b, err := json.Marshal(l)
	if err != nil {
		// Every field is a string, a number or parts made safe by
		// llm.SafeMessage; a failure here is a bug, told in the line.
		b, _ = json.Marshal(map[string]string{"type": "error", "error": err.Error()})
	}
	return append(b, '\n'), uuid
}

// claudeBlocks turns parts into Anthropic content blocks.
func claudeBlocks(parts []llm.Part) []any {
	out := make([]any, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case llm.PartText:
			out = append(out, map[string]any{"type": "text", "text": p.Text})
		case llm.PartThinking:
			out = append(out, map[string]any{"type": "thinking", "thinking": p.Text, "signature": p.Signature})
		case llm.PartImage:
			out = append(out, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": p.MediaType, "data": p.Data}})
		case llm.PartToolCall:
			if c := p.ToolCall; c != nil {
				input := c.Input
				if len(input) == 0 {
					input = json.RawMessage(`{}`)
				}
				out = append(out, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input})
			}
		case llm.PartToolResult:
			if r := p.ToolResult; r != nil {
				var content any = claudeBlocks(r.Content)
				if len(r.Content) == 1 && r.Content[0].Type == llm.PartText {
					content = r.Content[0].Text
				}
				out = append(out, map[string]any{"type": "tool_result", "tool_use_id": r.CallID, "content": content, "is_error": r.IsError})
			}
		case llm.PartToolReference:
			out = append(out, map[string]any{"type": "tool_reference", "tool_name": p.ToolName})
		}
	}
	return out
}

// createClaudeLog starts an empty Claude Code transcript in dir.
func createClaudeLog(dir string) (*claudeLog, error) {
	f, err := os.OpenFile(filepath.Join(dir, ClaudeTranscriptFile), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create the Claude Code transcript: %w", err)
	}
	return &claudeLog{f: f}, nil
}

// openClaudeLog opens dir's Claude Code transcript for appending when it
// is whole and in step with t (one line per message, the last with the
// uuid of t's last message: the uuids are derived, so that is the line
// nova wrote for it), and rebuilds it otherwise. Rebuilding re-encodes
// every message, which was 40 % of opening a long session; it decodes the
// records a resume left undecoded, and returns the warnings of those that
// are unreadable.
func openClaudeLog(dir string, t *Transcript) (*claudeLog, []Warning, error) {
	n := 0
	for _, r := range t.Records {
		if r.Type == RecordMessage { // a message left undecoded has no Message yet
			n++
		}
	}
	path := filepath.Join(dir, ClaudeTranscriptFile)
	if size, ok := claudeInStep(path, t.Meta.ID, n); ok {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
		if err == nil {
			c := &claudeLog{f: f, n: n, size: size}
			if n > 0 {
				c.parent = claudeUUID(t.Meta.ID, n-1)
			}
			return c, nil, nil
		}
	}
	warns := t.decodeLazy()
	c, err := rebuildClaudeLog(dir, t)
	return c, warns, err
}

// claudeInStep reports whether the file at path is n whole lines, the
// last one message n-1's of session id, and how long it is. It reads the
// file in pieces rather than whole: it is as long as the transcript, and
// only its line count and its last line matter.
func claudeInStep(path, id string, n int) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	var size, lastNL, prevNL int64 = 0, -1, -1
	lines := 0
	for {
		k, err := f.Read(buf)
		for i := 0; i < k; {
			j := bytes.IndexByte(buf[i:k], '\n')
			if j < 0 {
				break
			}
			prevNL, lastNL = lastNL, size+int64(i+j)
			lines++
			i += j + 1
		}
		size += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, false
		}
	}
	if n == 0 || size == 0 {
		return size, n == 0 && size == 0
	}
	if lastNL != size-1 || lines != n {
		return 0, false
	}
	last := make([]byte, lastNL-prevNL-1)
	if _, err := f.ReadAt(last, prevNL+1); err != nil {
		return 0, false
	}
	var l struct {
		UUID string `json:"uuid"`
	}
	return size, json.Unmarshal(last, &l) == nil && l.UUID == claudeUUID(id, n-1)
}

// rebuildClaudeLog writes dir's Claude Code transcript afresh from t's
// messages (one written by an older nova, or left behind by a crash,
// may be missing or lag) and opens it for appending.
func rebuildClaudeLog(dir string, t *Transcript) (*claudeLog, error) {
	t.decodeLazy()
	c := &claudeLog{}
	var buf bytes.Buffer
	for _, r := range t.Records {
		if r.Type != RecordMessage || r.Message == nil {
			continue
		}
		b, uuid := c.line(t.Meta, *r.Message, r.Time)
		buf.Write(b)
		c.n, c.parent = c.n+1, uuid
	}
	path := filepath.Join(dir, ClaudeTranscriptFile)
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return nil, fmt.Errorf("rebuild the Claude Code transcript: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the Claude Code transcript: %w", err)
	}
	c.f, c.size = f, int64(buf.Len())
	return c, nil
}

// add appends msg. A failed write is cut back off and the message
// skipped, so the file stays whole lines and the chain unbroken; only
// the first failure is returned, since the transcript that matters
// (transcript.jsonl) has its own errors.
func (c *claudeLog) add(meta Meta, msg llm.Message, ts time.Time) error {
	b, uuid := c.line(meta, msg, ts)
	if _, err := c.f.Write(b); err != nil {
		_ = c.f.Truncate(c.size)
		c.n++ // the uuid is spent: the next message must not reuse it
		if c.reported {
			return nil
		}
		c.reported = true
		return fmt.Errorf("hooks' copy of the transcript in Claude Code's format (%s) misses a message: %w", c.f.Name(), err)
	}
	c.size += int64(len(b))
	c.n, c.parent = c.n+1, uuid
	return nil
}
