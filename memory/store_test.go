package memory

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStoreCRUD(t *testing.T) {
	s := NewStore(t.TempDir())
	sess := "01HSESSION"
	m, err := s.Create(Memory{Key: "k", Scope: "project", MemoryType: "fact", Summary: "Uses Bun", Content: "The TUI uses Bun", SessionID: &sess})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.ID, "mem_") || len(m.ID) != 4+26 || m.CreatedAt == 0 || m.UpdatedAt != m.CreatedAt {
		t.Errorf("created %+v", m)
	}
	got, err := s.Get(m.ID)
	if err != nil || got.Content != "The TUI uses Bun" || got.Tags == nil {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	got.Content = "changed"
	got.CreatedAt = 1
	up, err := s.Update(got)
	if err != nil {
		t.Fatal(err)
	}
	if up.CreatedAt != m.CreatedAt || up.UpdatedAt < m.UpdatedAt {
		t.Errorf("timestamps after update: %+v", up)
	}
	if again, _ := s.Get(m.ID); again.Content != "changed" {
		t.Errorf("update not saved: %+v", again)
	}
	if err := s.Delete(m.ID); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"get":    func() error { _, err := s.Get(m.ID); return err }(),
		"delete": s.Delete(m.ID),
		"update": func() error { _, err := s.Update(got); return err }(),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s after delete: %v, want ErrNotFound", name, err)
		}
	}
}

func TestStoreValidation(t *testing.T) {
	tests := []struct {
		name string
		m    Memory
		want string
	}{
		{"bad scope", Memory{Scope: "all", Content: "x"}, "unknown scope"},
		{"bad type", Memory{MemoryType: "todo", Content: "x"}, "unknown memory type"},
		{"empty", Memory{}, "summary or content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(t.TempDir())
			if _, err := s.Create(tt.m); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	m, err := NewStore(t.TempDir()).Create(Memory{Content: "defaults"})
	if err != nil || m.Scope != ScopeProject || m.MemoryType != KindFact {
		t.Errorf("defaults: %+v, %v", m, err)
	}
}

func TestStoreListAndDeleteBySession(t *testing.T) {
	s := NewStore(t.TempDir())
	a, b := "sess-a", "sess-b"
	seed := []Memory{
		{Scope: "user", Content: "1"},
		{Scope: "project", Content: "2", SessionID: &a},
		{Scope: "session", Content: "3", SessionID: &a},
		{Scope: "session", Content: "4", SessionID: &b},
		{Scope: "agent", Content: "5"},
	}
	for _, m := range seed {
		if _, err := s.Create(m); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		f    Filter
		want string // contents in order
	}{
		{"all newest first", Filter{}, "54321"},
		{"all scope", Filter{Scope: "all"}, "54321"},
		{"by session", Filter{SessionID: a}, "32"},
		{"by scope", Filter{Scope: "session"}, "43"},
		{"session and scope", Filter{SessionID: a, Scope: "project"}, "2"},
		{"limit", Filter{Limit: 2}, "54"},
		{"none", Filter{SessionID: "nope"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := s.List(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if ms == nil {
				t.Error("List returned nil, want an empty list")
			}
			var got strings.Builder
			for _, m := range ms {
				got.WriteString(m.Content)
			}
			if got.String() != tt.want {
				t.Errorf("List = %q, want %q", got.String(), tt.want)
			}
		})
	}
	if _, err := s.List(Filter{Scope: "bogus"}); err == nil {
		t.Error("List with a bad scope succeeded")
	}
	n, err := s.DeleteBySession(a)
	if err != nil || n != 2 {
		t.Fatalf("DeleteBySession = %d, %v", n, err)
	}
	if ms, _ := s.List(Filter{}); len(ms) != 3 {
		t.Errorf("%d left, want 3", len(ms))
	}
	if n, err := s.DeleteBySession(a); err != nil || n != 0 {
		t.Errorf("second DeleteBySession = %d, %v", n, err)
	}
}

func TestStoreDefaultLimit(t *testing.T) {
	s := NewStore(t.TempDir())
	for range DefaultListLimit + 5 {
		if _, err := s.Create(Memory{Content: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := s.List(Filter{})
	if err != nil || len(ms) != DefaultListLimit {
		t.Errorf("List = %d memories, %v", len(ms), err)
	}
}

func TestStoreCorruptFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, StoreFile)
	corrupt := []byte(`{"memories": [{"id": "mem_1",`)
	if err := os.WriteFile(path, corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewStore(home)
	if _, err := s.List(Filter{}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("List err = %v, want one naming %s", err, path)
	}
	if _, err := s.Create(Memory{Content: "x"}); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Create err = %v, want one naming %s", err, path)
	}
	if data, _ := os.ReadFile(path); string(data) != string(corrupt) {
		t.Errorf("corrupt file was rewritten: %q", data)
	}
}

func TestStoreJSONShape(t *testing.T) {
	s := NewStore(t.TempDir())
	m, err := s.Create(Memory{Key: "k", Summary: "s"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "key", "scope", "memory_type", "summary", "content", "tags", "session_id", "created_at", "updated_at"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, data)
		}
	}
	if fields["session_id"] != nil || fields["tags"] == nil {
		t.Errorf("session_id should be null and tags []: %s", data)
	}
}

func TestStoreConcurrentCreate(t *testing.T) {
	s := NewStore(t.TempDir())
	const n = 16
	errs := make(chan error, n)
	for range n {
		go func() { _, err := s.Create(Memory{Content: "x"}); errs <- err }()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if ms, err := s.List(Filter{}); err != nil || len(ms) != n {
		t.Errorf("List = %d memories, %v; want %d", len(ms), err, n)
	}
}

func TestStoreLoadFillsTags(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, StoreFile), []byte(`{"memories": [{"id": "mem_1", "scope": "user", "memory_type": "fact", "content": "x", "created_at": 1, "updated_at": 1}]}`), 0o600)
	m, err := NewStore(home).Get("mem_1")
	if err != nil || m.Tags == nil || m.SessionID != nil {
		t.Errorf("Get = %+v, %v; want tags [] and no session", m, err)
	}
}
