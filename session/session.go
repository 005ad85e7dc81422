package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/nova-dev/nova/atomicfile"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// ErrClosed is returned by writes to a closed Session.
var ErrClosed = errors.New("session is closed")

// Session is an open, locked session: the only writer of its transcript.
// Its methods are safe to call from several goroutines.
type Session struct {
	store *Store
	dir   string

	mu     sync.Mutex
	lock   *sessionLock
	f      *os.File
	size   int64 // bytes of whole records in the transcript
	t      Transcript
	closed bool
	// dirty says records were written since the last sync and meta.json
	// rewrite; see append.
	dirty bool
}

// ID returns the session's ULID.
func (s *Session) ID() string { return s.t.Meta.ID }

// Dir returns the directory holding the session's files.
func (s *Session) Dir() string { return s.dir }

// SpillDir returns the directory where large tool results of this session
// are written (NOVA_HOME/sessions/<id>/tool-results). It exists.
func (s *Session) SpillDir() string { return filepath.Join(s.dir, spillDir) }

// Meta returns the session's current meta.
func (s *Session) Meta() Meta {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Meta
}

// Messages returns the history the next model request should carry; see
// Transcript.Messages. The messages share their parts with the session:
// read them, do not modify them.
func (s *Session) Messages() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.Messages()
}

// AllMessages returns every message ever appended, compaction ignored.
func (s *Session) AllMessages() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.t.AllMessages()
}

// Transcript returns a snapshot of everything recorded so far, for export.
// Later appends do not show in it.
func (s *Session) Transcript() *Transcript {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.t
	t.Records = t.Records[:len(t.Records):len(t.Records)]
	return &t
}

// AppendMessage records msg (text, tool calls or tool results) and syncs
// it to disk before returning. The session keeps msg's parts as they are:
// do not modify them afterwards.
func (s *Session) AppendMessage(msg llm.Message) error {
	return s.write(Record{Type: RecordMessage, Message: &msg})
}

// AppendDecision records the permission decision d about tool call callID.
// It is synced to disk with the next message (the call's result), or on Close.
func (s *Session) AppendDecision(callID, tool string, d permission.Decision) error {
	return s.write(Record{Type: RecordDecision, Decision: &Decision{CallID: callID, Tool: tool, Decision: d}})
}

// AppendUsage records one turn's token usage; the record also carries the
// session's running total, which Meta().Usage reports. It is synced to disk
// with the next message, or on Close.
func (s *Session) AppendUsage(turn llm.Usage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	total := s.t.Meta.Usage
	total.Add(turn)
	return s.writeLocked(Record{Type: RecordUsage, Usage: &UsageRecord{Turn: turn, Total: total}})
}

// AppendCompaction records a compaction boundary: from now on Messages()
// starts with the summary, then kept, then what is appended after.
func (s *Session) AppendCompaction(summary string, kept []llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kept == nil {
		kept = []llm.Message{}
	}
	c := &Compaction{Summary: summary, Kept: kept, Before: s.t.Meta.MessageCount}
	return s.writeLocked(Record{Type: RecordCompaction, Compaction: c})
}

// SetTitle records the session's title.
func (s *Session) SetTitle(title string) error {
	return s.write(Record{Type: RecordTitle, Title: &title})
}

// Close releases the lock and the transcript. It is safe to call twice.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.dirty {
		err = s.flush()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if uerr := s.lock.release(); err == nil {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("close session %s: %w", s.t.Meta.ID, err)
	}
	return nil
}

func (s *Session) write(r Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked(r)
}

func (s *Session) writeLocked(r Record) error {
	if s.closed {
		return fmt.Errorf("session %s: %w", s.t.Meta.ID, ErrClosed)
	}
	r.Time = s.store.now()
	return s.append(r)
}

// append writes r as one line with a single write and updates the
// in-memory transcript. A failed write is cut back off so the next record
// starts on a clean line.
//
// Records that end a step (messages, compaction, title) are synced to disk
// and meta.json is rewritten before append returns. Decisions and usage
// always come just before or after a message, so they ride on its sync
// rather than costing two more: a killed process loses nothing (the bytes
// are in the kernel), and a power cut can lose at most those since the last
// message.
func (s *Session) append(r Record) error {
	r.V = SchemaVersion
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("session %s: encode %s record: %w", s.t.Meta.ID, r.Type, err)
	}
	line := append(b, '\n')
	if _, err := s.f.Write(line); err != nil {
		s.f.Truncate(s.size)
		return fmt.Errorf("session %s: write %s record: %w", s.t.Meta.ID, r.Type, err)
	}
	s.size += int64(len(line))
	s.t.add(r)
	s.dirty = true
	if r.Type == RecordDecision || r.Type == RecordUsage {
		return nil
	}
	return s.flush()
}

// flush syncs the transcript and then rewrites meta.json, so meta.json
// never describes records that are not yet on disk.
func (s *Session) flush() error {
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("session %s: sync transcript: %w", s.t.Meta.ID, err)
	}
	if err := s.writeMeta(); err != nil {
		return err
	}
	s.dirty = false
	return nil
}

// writeMeta rewrites meta.json from the in-memory meta. If it fails the
// record is still safe in the transcript, and the next Open rebuilds it.
func (s *Session) writeMeta() error {
	b, err := json.MarshalIndent(s.t.Meta, "", "  ")
	if err != nil {
		return fmt.Errorf("session %s: encode meta: %w", s.t.Meta.ID, err)
	}
	if err := atomicfile.Write(filepath.Join(s.dir, metaFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("session %s: record saved, but listing metadata not updated: %w", s.t.Meta.ID, err)
	}
	return nil
}
