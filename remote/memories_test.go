package remote

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/memory"
)

// addMemory puts a memory in the server's store.
func (ts *testServer) addMemory(m memory.Memory) memory.Memory {
	ts.t.Helper()
	m, err := memory.NewStore(ts.o.NovaHome).Create(m)
	if err != nil {
		ts.t.Fatal(err)
	}
	return m
}

func TestMemoriesList(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, nil)
	if code, body, _ := ts.do("GET", "/api/memories", ""); code != 200 || strings.TrimSpace(body) != `{"items":[]}` {
		t.Errorf("empty store: %d %s", code, body)
	}
	sess := "01HSESSION"
	m := ts.addMemory(memory.Memory{Key: "project-conventions", Scope: "project", MemoryType: "fact",
		Summary: "Uses Bun for the TUI", Content: "The TUI uses Bun and OpenTUI...", Tags: []string{"tui"}})
	ts.addMemory(memory.Memory{Scope: "session", MemoryType: "decision", Content: "linked", SessionID: &sess})

	code, body, _ := ts.do("GET", "/api/memories", "")
	if code != 200 {
		t.Fatalf("list: %d %s", code, body)
	}
	var raw struct {
		Items []map[string]json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &raw); err != nil || len(raw.Items) != 2 {
		t.Fatalf("list = %s", body)
	}
	// Newest first; seed 000's MemoryRecord, timestamps in milliseconds.
	rec := raw.Items[1]
	for k, want := range map[string]string{"id": `"` + m.ID + `"`, "key": `"project-conventions"`, "scope": `"project"`, "memory_type": `"fact"`,
		"summary": `"Uses Bun for the TUI"`, "content": `"The TUI uses Bun and OpenTUI..."`, "tags": `["tui"]`, "session_id": "null"} {
		if got := string(rec[k]); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	var created, updated int64
	json.Unmarshal(rec["created_at"], &created)
	json.Unmarshal(rec["updated_at"], &updated)
	if created != m.CreatedAt || created < 1_000_000_000_000 || updated != created || len(rec) != 10 {
		t.Errorf("record = %v", rec)
	}
	if string(raw.Items[0]["session_id"]) != `"01HSESSION"` || string(raw.Items[0]["tags"]) != "[]" {
		t.Errorf("linked record = %v", raw.Items[0])
	}

	for _, tt := range []struct{ query, want string }{
		{"session_id=01HSESSION", "linked"},
		{"session_id=other", ""},
		{"scope=project", m.Content},
		{"scope=all", "linked," + m.Content},
		{"session_id=01HSESSION&scope=project", ""},
	} {
		code, body, _ := ts.do("GET", "/api/memories?"+tt.query, "")
		var got []string
		for _, r := range decode[MemoryListResponse](t, body).Items {
			got = append(got, r.Content)
		}
		if code != 200 || strings.Join(got, ",") != tt.want {
			t.Errorf("?%s: %d %v, want %q", tt.query, code, got, tt.want)
		}
	}
	code, body, _ = ts.do("GET", "/api/memories?scope=global", "")
	wantError(t, "bad scope", code, body, 400, "unknown scope")
}

func TestMemoriesLimit(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, nil)
	sess := "s1"
	for range 60 {
		ts.addMemory(memory.Memory{Content: "x", SessionID: &sess})
	}
	// Across all scopes: at most 50. A session's: all of them.
	for query, want := range map[string]int{"": 50, "?session_id=s1": 60} {
		code, body, _ := ts.do("GET", "/api/memories"+query, "")
		if n := len(decode[MemoryListResponse](t, body).Items); code != 200 || n != want {
			t.Errorf("GET /api/memories%s: %d, %d items, want %d", query, code, n, want)
		}
	}
}

func TestMemoriesDelete(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, nil)
	m := ts.addMemory(memory.Memory{Content: "forget me"})
	keep := ts.addMemory(memory.Memory{Content: "keep me"})
	code, body, _ := ts.do("DELETE", "/api/memories/"+m.ID, "")
	if code != 200 || strings.TrimSpace(body) != `{"status":"deleted","memory_id":"`+m.ID+`"}` {
		t.Errorf("delete: %d %s", code, body)
	}
	data, _ := os.ReadFile(filepath.Join(ts.o.NovaHome, memory.StoreFile))
	if strings.Contains(string(data), m.ID) || !strings.Contains(string(data), keep.ID) {
		t.Errorf("store after delete: %s", data)
	}
	for _, id := range []string{m.ID, "mem_nope"} {
		code, body, _ := ts.do("DELETE", "/api/memories/"+id, "")
		wantError(t, "delete "+id, code, body, 404, "not found")
	}
}

func TestMemoriesCorruptStore(t *testing.T) {
	t.Parallel()
	ts := newConfigServer(t, nil)
	os.MkdirAll(ts.o.NovaHome, 0o700)
	path := filepath.Join(ts.o.NovaHome, memory.StoreFile)
	os.WriteFile(path, []byte(`{"memories": [`), 0o600)
	code, body, _ := ts.do("GET", "/api/memories", "")
	wantError(t, "list", code, body, 500, path)
	code, body, _ = ts.do("DELETE", "/api/memories/mem_1", "")
	wantError(t, "delete", code, body, 500, path)
	if data, _ := os.ReadFile(path); string(data) != `{"memories": [` {
		t.Errorf("corrupt store rewritten: %s", data)
	}
}
