package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
)

// benchMessage returns message i of a typical coding session: a request, a
// tool call, a few KB of tool output, an answer.
func benchMessage(i int) llm.Message {
	switch i % 4 {
	case 0:
		return llm.UserText(fmt.Sprintf("Step %d: ", i) + strings.Repeat("please refactor the handler ", 10))
	case 1:
		return assistantCall(fmt.Sprintf("call_%d", i), "Read", fmt.Sprintf(`{"file_path":"/proj/internal/pkg%d/handler.go","offset":1,"limit":200}`, i))
	case 2:
		return toolResult(fmt.Sprintf("call_%d", i-1), "Read", strings.Repeat("     12\tfunc (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n", 50), false)
	}
	return llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart(strings.Repeat("The handler now validates its input first. ", 20))}}
}

// writeBenchSession writes a closed session of n messages straight to disk
// (no fsync per line, which would only slow the set-up), with a usage
// record per answer and a compaction boundary two thirds in.
func writeBenchSession(b *testing.B, st *Store, n int) (string, int64) {
	b.Helper()
	s, err := st.Create(Meta{WorkspaceDir: "/proj", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	id := s.ID()
	s.Close()
	path := filepath.Join(st.Dir(id), transcriptFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	now := time.Now().UTC()
	put := func(r Record) {
		r.V, r.Time = SchemaVersion, now
		if err := enc.Encode(r); err != nil {
			b.Fatal(err)
		}
	}
	var kept []llm.Message
	for i := range n {
		m := benchMessage(i)
		put(Record{Type: RecordMessage, Message: &m})
		if m.Role == llm.RoleAssistant {
			put(Record{Type: RecordUsage, Usage: &UsageRecord{Turn: llm.Usage{InputTokens: 1000, OutputTokens: 100}}})
		}
		if i >= 2*n/3-4 && i < 2*n/3 {
			kept = append(kept, m)
		}
		if i == 2*n/3 {
			put(Record{Type: RecordCompaction, Compaction: &Compaction{Summary: strings.Repeat("summary ", 200), Kept: kept, Before: i}})
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	return id, fi.Size()
}

// BenchmarkResume5000 opens (locks, loads, rewrites meta) a 5,000-message
// session and builds the history to send. Target: under 300 ms, 100 MB.
func BenchmarkResume5000(b *testing.B) {
	st := newStore(b)
	id, size := writeBenchSession(b, st, 5000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, warns, err := st.Open(id)
		if err != nil || len(warns) != 0 {
			b.Fatal(err, warns)
		}
		if len(s.Messages()) == 0 {
			b.Fatal("no messages")
		}
		s.Close()
	}
	b.ReportMetric(float64(size)/1e6, "MB-transcript")
}

// BenchmarkLoad5000 reads a 5,000-message session without locking it (as
// `nova sessions show|export` does).
func BenchmarkLoad5000(b *testing.B) {
	st := newStore(b)
	id, _ := writeBenchSession(b, st, 5000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		tr, _, err := st.Load(id)
		if err != nil || tr.Meta.MessageCount != 5000 {
			b.Fatal(err, tr.Meta.MessageCount)
		}
	}
}

// BenchmarkList2000 lists one workspace among 2,000 sessions. Target: under
// 100 ms.
func BenchmarkList2000(b *testing.B) {
	st := newStore(b)
	now := time.Now().UTC()
	for i := range 2000 {
		s, err := st.Create(Meta{WorkspaceDir: fmt.Sprintf("/proj/%d", i%10), Model: "m"})
		if err != nil {
			b.Fatal(err)
		}
		s.t.Meta.Title, s.t.Meta.MessageCount, s.t.Meta.UpdatedAt = "a session title of some length", 40, now.Add(time.Duration(i)*time.Second)
		if err := s.writeMeta(); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		metas, err := st.List(Filter{Workspace: "/proj/3"})
		if err != nil || len(metas) != 200 {
			b.Fatal(err, len(metas))
		}
	}
}

// BenchmarkAppendMessage is the cost of saving one message as the agent
// runs: a write, an fsync, and an atomic rewrite of meta.json.
func BenchmarkAppendMessage(b *testing.B) {
	st := newStore(b)
	s := create(b, st, "/proj")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := s.AppendMessage(benchMessage(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
