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
	// backlog holds the records whose write failed (a full disk), oldest
	// first, encoded. Every append writes them before its own record, so
	// the transcript never skips one: no later turn is saved without the
	// tool results before it, and once the disk has room again nothing is
	// lost.
	backlog []line
	// torn says a failed write left part of a line that could not be cut
	// off; it is cut before anything else is written.
	torn bool
	// claude is the transcript in Claude Code's format kept in step with
	// this one, for hooks; nil when it could not be made.
	claude *claudeLog
}

// line is a record waiting to be written, with its encoding.
type line struct {
	rec Record
	b   []byte
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
	s.t.decodeLazy()
	t := s.t
	t.Records = t.Records[:len(t.Records):len(t.Records)]
	return &t
}

// AppendMessage records msg (text, tool calls or tool results) and syncs
// it to disk before returning. The session keeps msg's parts as they are:
// do not modify them afterwards. A tool call whose input is not valid JSON
// (a model's slip, or a call cut off at the output limit) is recorded with
// its input as a JSON string (llm.SafeInput), since it could not be
// encoded otherwise.
//
// When the write fails (a full disk) the record waits in memory and is
// written, in order, before the next record or on Close; the error says
// so. Until then the transcript ends before it.
func (s *Session) AppendMessage(msg llm.Message) error {
	msg = llm.SafeMessage(msg)
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
// starts with the summary (after contextMsg, the context message rebuilt
// for it; see SummaryMessage), then kept, then what is appended after.
func (s *Session) AppendCompaction(contextMsg, summary string, kept []llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kept == nil {
		kept = []llm.Message{}
	}
	safe := make([]llm.Message, len(kept))
	for i, m := range kept {
		safe[i] = llm.SafeMessage(m)
	}
	kept = safe
	c := &Compaction{Context: contextMsg, Summary: summary, Kept: kept, Before: s.t.Meta.MessageCount}
	return s.writeLocked(Record{Type: RecordCompaction, Compaction: c})
}

// SetTitle records the session's title.
func (s *Session) SetTitle(title string) error {
	return s.write(Record{Type: RecordTitle, Title: &title})
}

// SetWorkspace records the session's workspace directory; "" clears it.
func (s *Session) SetWorkspace(dir string) error {
	return s.write(Record{Type: RecordWorkspace, Workspace: &dir})
}

// SetModel records the model ("provider:model") the session goes on
// with: Meta().Model says it from then on, in this process and after a
// resume.
func (s *Session) SetModel(id string) error {
	return s.write(Record{Type: RecordModel, Model: &id})
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
	if len(s.backlog) > 0 {
		if werr := s.writeBacklog(); werr != nil {
			err = fmt.Errorf("%d records could not be saved: %w", len(s.backlog), werr)
		}
	}
	if s.dirty {
		if ferr := s.flush(); err == nil {
			err = ferr
		}
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if s.claude != nil {
		s.claude.f.Close()
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
// starts on a clean line, and r waits in the backlog (see Session.backlog)
// behind any records already waiting.
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
	s.backlog = append(s.backlog, line{rec: r, b: append(b, '\n')})
	err = s.writeBacklog()
	if err != nil && len(s.backlog) > 0 {
		return fmt.Errorf("session %s: %s record not saved yet (%d records wait to be written with the next one): %w",
			s.t.Meta.ID, r.Type, len(s.backlog), err)
	}
	return err // written; a sync or meta.json failure says so itself
}

// writeBacklog writes the waiting records, oldest first, and syncs if one
// of them ends a step. It stops at the first that fails, which waits on
// with those after it.
func (s *Session) writeBacklog() error {
	if s.torn {
		if err := s.f.Truncate(s.size); err != nil {
			return fmt.Errorf("cut off a partly written record: %w", err)
		}
		s.torn = false
	}
	step := false
	var mirrorErr error
	for len(s.backlog) > 0 {
		w := s.backlog[0]
		if _, err := s.f.Write(w.b); err != nil {
			if s.f.Truncate(s.size) != nil {
				s.torn = true
			}
			if step {
				_ = s.flush() // what was written is synced; the failure is the news
			}
			return fmt.Errorf("write %s record: %w", w.rec.Type, err)
		}
		s.backlog[0] = line{}
		s.backlog = s.backlog[1:]
		s.size += int64(len(w.b))
		s.t.add(w.rec)
		if s.claude != nil && w.rec.Type == RecordMessage && w.rec.Message != nil {
			if err := s.claude.add(s.t.Meta, *w.rec.Message, w.rec.Time); err != nil && mirrorErr == nil {
				mirrorErr = fmt.Errorf("session %s: %w", s.t.Meta.ID, err)
			}
		}
		s.dirty = true
		step = step || (w.rec.Type != RecordDecision && w.rec.Type != RecordUsage)
	}
	s.backlog = nil
	if step {
		if err := s.flush(); err != nil {
			return err
		}
	}
	return mirrorErr
}

// flush syncs the transcript and then rewrites meta.json, so meta.json
// never describes records that are not yet on disk.
func (s *Session) flush() error {
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("session %s: sync transcript: %w", s.t.Meta.ID, err)
	}
	if s.claude != nil {
		// A hook reads it as soon as the message is in: it is as
		// durable as the transcript it mirrors. A failure to sync it
		// costs only a power cut's worth of hooks' copy.
		_ = s.claude.f.Sync()
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
	// Not synced: the transcript, which is, is the truth, and Open
	// rebuilds meta.json from it.
	if err := atomicfile.WriteCache(filepath.Join(s.dir, metaFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("session %s: record saved, but listing metadata not updated: %w", s.t.Meta.ID, err)
	}
	return nil
}
