package memory

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/nova-dev/nova/atomicfile"
)

// StoreFile is the name of the memories store in NOVA_HOME.
const StoreFile = "memories.json"

// DefaultListLimit is how many memories List returns when no limit is set.
const DefaultListLimit = 50

// ErrNotFound is returned for a memory id that is not in the store.
var ErrNotFound = errors.New("memory not found")

// Memory scopes: who a memory is about or for.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
	ScopeSession = "session"
	ScopeAgent   = "agent"
	// ScopeAll is a filter only: any scope.
	ScopeAll = "all"
)

// TypeContext is the memory type for background context; the other types
// are KindFact, KindPreference and KindDecision.
const TypeContext = "context"

// Memory is one record of the memories store, as GET /api/memories shows it.
type Memory struct {
	ID         string   `json:"id"` // "mem_" + ULID
	Key        string   `json:"key"`
	Scope      string   `json:"scope"`       // user, project, session or agent
	MemoryType string   `json:"memory_type"` // fact, preference, decision or context
	Summary    string   `json:"summary"`
	Content    string   `json:"content"`
	Tags       []string `json:"tags"`
	SessionID  *string  `json:"session_id"`
	CreatedAt  int64    `json:"created_at"` // Unix milliseconds
	UpdatedAt  int64    `json:"updated_at"` // Unix milliseconds
}

// Filter selects memories for List.
type Filter struct {
	// SessionID, when set, keeps the memories tied to that session.
	SessionID string
	// Scope keeps one scope; "" or "all" keeps any.
	Scope string
	// Limit caps the result; 0 means DefaultListLimit.
	Limit int
}

// Store is the memories store, NOVA_HOME/memories.json. Every change locks
// the file and rewrites it atomically, so several nova processes (a TUI and
// a server) can share it. A Store holds no state of its own.
type Store struct {
	path string
}

// storeDoc is the on-disk shape of the store.
type storeDoc struct {
	Memories []Memory `json:"memories"`
}

// NewStore returns the store kept in novaHome.
func NewStore(novaHome string) *Store {
	return &Store{path: filepath.Join(novaHome, StoreFile)}
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Create validates m, gives it a new id and timestamps, and saves it. An
// empty scope means project and an empty type means fact.
func (s *Store) Create(m Memory) (Memory, error) {
	if err := normalize(&m); err != nil {
		return Memory{}, fmt.Errorf("create memory: %w", err)
	}
	now := time.Now().UnixMilli()
	m.ID = "mem_" + ulid.Make().String()
	m.CreatedAt, m.UpdatedAt = now, now
	err := s.change(func(ms []Memory) ([]Memory, error) {
		return append(ms, m), nil
	})
	if err != nil {
		return Memory{}, fmt.Errorf("create memory: %w", err)
	}
	return m, nil
}

// Get returns the memory with id, or ErrNotFound.
func (s *Store) Get(id string) (Memory, error) {
	ms, err := s.load()
	if err != nil {
		return Memory{}, err
	}
	for _, m := range ms {
		if m.ID == id {
			return m, nil
		}
	}
	return Memory{}, fmt.Errorf("get memory %s: %w", id, ErrNotFound)
}

// Update replaces the memory with m.ID (ErrNotFound when there is none),
// keeping its creation time and setting its update time.
func (s *Store) Update(m Memory) (Memory, error) {
	if err := normalize(&m); err != nil {
		return Memory{}, fmt.Errorf("update memory %s: %w", m.ID, err)
	}
	err := s.change(func(ms []Memory) ([]Memory, error) {
		i := slices.IndexFunc(ms, func(o Memory) bool { return o.ID == m.ID })
		if i < 0 {
			return nil, ErrNotFound
		}
		m.CreatedAt = ms[i].CreatedAt
		m.UpdatedAt = max(time.Now().UnixMilli(), ms[i].UpdatedAt)
		ms[i] = m
		return ms, nil
	})
	if err != nil {
		return Memory{}, fmt.Errorf("update memory %s: %w", m.ID, err)
	}
	return m, nil
}

// Delete removes the memory with id, or returns ErrNotFound.
func (s *Store) Delete(id string) error {
	err := s.change(func(ms []Memory) ([]Memory, error) {
		i := slices.IndexFunc(ms, func(o Memory) bool { return o.ID == id })
		if i < 0 {
			return nil, ErrNotFound
		}
		return slices.Delete(ms, i, i+1), nil
	})
	if err != nil {
		return fmt.Errorf("delete memory %s: %w", id, err)
	}
	return nil
}

// List returns the memories f selects, newest first.
func (s *Store) List(f Filter) ([]Memory, error) {
	if f.Scope != "" && f.Scope != ScopeAll && !validScope(f.Scope) {
		return nil, fmt.Errorf("list memories: unknown scope %q (want user, project, session, agent or all)", f.Scope)
	}
	ms, err := s.load()
	if err != nil {
		return nil, err
	}
	out := []Memory{}
	for _, m := range ms {
		if f.SessionID != "" && (m.SessionID == nil || *m.SessionID != f.SessionID) {
			continue
		}
		if f.Scope != "" && f.Scope != ScopeAll && m.Scope != f.Scope {
			continue
		}
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b Memory) int {
		return cmp.Or(cmp.Compare(b.CreatedAt, a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultListLimit
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// DeleteBySession removes every memory tied to sessionID and says how many
// went; it is what deleting a session with delete_memories=true calls.
func (s *Store) DeleteBySession(sessionID string) (int, error) {
	if sessionID == "" {
		return 0, errors.New("delete memories: no session id")
	}
	n := 0
	err := s.change(func(ms []Memory) ([]Memory, error) {
		kept := ms[:0]
		for _, m := range ms {
			if m.SessionID != nil && *m.SessionID == sessionID {
				n++
				continue
			}
			kept = append(kept, m)
		}
		return kept, nil
	})
	if err != nil {
		return 0, fmt.Errorf("delete memories of session %s: %w", sessionID, err)
	}
	return n, nil
}

// load reads the store. Readers take no lock: writers replace the file by
// renaming, so a read sees one whole version. A missing file is an empty
// store; a corrupt one is an error, never treated as empty, so the next
// write cannot wipe what it held.
func (s *Store) load() ([]Memory, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read memories: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc storeDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("memories file %s is corrupt (fix it or move it aside; nova will not overwrite it): %w", s.path, err)
	}
	for i := range doc.Memories {
		// A record written by hand or by another tool may lack tags; the
		// API shows [] for none, as for records nova wrote.
		if doc.Memories[i].Tags == nil {
			doc.Memories[i].Tags = []string{}
		}
	}
	return doc.Memories, nil
}

// change runs fn on the stored memories under the lock and saves what it
// returns; when fn fails nothing is written.
func (s *Store) change(fn func([]Memory) ([]Memory, error)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("save memories: %w", err)
	}
	return withLock(s.path, func() error {
		ms, err := s.load()
		if err != nil {
			return err
		}
		ms, err = fn(ms)
		if err != nil {
			return err
		}
		if ms == nil {
			ms = []Memory{}
		}
		data, err := json.MarshalIndent(storeDoc{Memories: ms}, "", "  ")
		if err != nil {
			return fmt.Errorf("save memories: %w", err)
		}
		return atomicfile.Write(s.path, append(data, '\n'), 0o600)
	})
}

// normalize fills a memory's defaults and checks its scope and type.
func normalize(m *Memory) error {
	if m.Scope == "" {
		m.Scope = ScopeProject
	}
	if m.MemoryType == "" {
		m.MemoryType = KindFact
	}
	if !validScope(m.Scope) {
		return fmt.Errorf("unknown scope %q (want user, project, session or agent)", m.Scope)
	}
	switch m.MemoryType {
	case KindFact, KindPreference, KindDecision, TypeContext:
	default:
		return fmt.Errorf("unknown memory type %q (want fact, preference, decision or context)", m.MemoryType)
	}
	if m.Summary == "" && m.Content == "" {
		return errors.New("a memory needs a summary or content")
	}
	if m.Tags == nil {
		m.Tags = []string{} // the API shows [] rather than null
	}
	if m.SessionID != nil && *m.SessionID == "" {
		m.SessionID = nil
	}
	return nil
}

func validScope(s string) bool {
	switch s {
	case ScopeUser, ScopeProject, ScopeSession, ScopeAgent:
		return true
	}
	return false
}
