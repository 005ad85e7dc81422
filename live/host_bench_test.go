package live

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// BenchmarkHostRetainedHeap is what `nova serve` keeps per open session:
// 200 sessions are created on one host (idle: built, never prompted), then
// each runs one turn (active: its agent, history and replay log kept
// open), and the live heap after a full GC is divided by the sessions at
// each step. It runs in-process, against the fake provider, because only
// the Go heap of the server says what a session costs; the process's RSS
// also counts the binary and the allocator's slack.
func BenchmarkHostRetainedHeap(b *testing.B) {
	const sessions = 200
	answer := "A short answer from the fake provider, kept in the session's history."
	for range b.N {
		turns := make([]llmtest.Turn, sessions+1)
		for i := range turns {
			turns[i] = llmtest.Turn{Text: answer}
		}
		srv := llmtest.New(turns...)
		home := b.TempDir()
		env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
		h := NewHost(context.Background(), Options{NovaHome: filepath.Join(home, ".nova"), Workdir: b.TempDir(), Home: home,
			Getenv: func(k string) string { return env[k] }, NoSandbox: true})
		h.SetMaxSessions(0)
		// The first session pays for what a process builds once (the
		// command table, compiled schemas): it is not a session's cost.
		first, err := h.Create(context.Background(), Spec{})
		if err != nil {
			b.Fatal(err)
		}
		runOnce(b, first, "warm up")
		before := liveHeap()
		open := make([]*Session, 0, sessions)
		for range sessions {
			s, err := h.Create(context.Background(), Spec{})
			if err != nil {
				b.Fatal(err)
			}
			open = append(open, s)
		}
		idle := liveHeap()
		for _, s := range open {
			runOnce(b, s, "say something short")
		}
		active := liveHeap()
		b.ReportMetric(float64(idle-before)/sessions, "idle-B/session")
		b.ReportMetric(float64(active-before)/sessions, "active-B/session")
		runtime.KeepAlive(open)
		h.Close()
		srv.Close()
	}
}

// runOnce runs one prompt in s and fails b unless the run succeeded, so
// the heap measured is that of sessions that did hold a turn.
func runOnce(b *testing.B, s *Session, prompt string) {
	b.Helper()
	var done *agent.Done
	for ev := range s.Run(context.Background(), llm.UserText(prompt)) {
		if ev.Done != nil {
			done = ev.Done
		}
	}
	if done == nil || done.Subtype != agent.SubtypeSuccess {
		b.Fatalf("run of %q did not succeed: %+v", prompt, done)
	}
}

// liveHeap is the bytes of live heap objects after a full collection.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
