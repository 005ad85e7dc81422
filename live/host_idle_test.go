package live

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

func (h *Host) isOpen(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.open[id] != nil
}

// An idle session is closed (its lock let go) and opened again, with
// its history, by the next request; a session that runs, is watched or
// was used lately stays open.
func TestHostClosesIdleSessions(t *testing.T) {
	h, model := newTestHost(t, llmtest.Turn{Text: "first"}, llmtest.Turn{Text: "again"})
	sess, err := h.Create(context.Background(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	for range sess.Run(context.Background(), llm.UserText("remember the word kumquat")) {
	}
	const idle = time.Minute
	h.reap(idle, time.Now().Add(idle/2))
	if !h.isOpen(id) {
		t.Fatal("closed before it was idle")
	}
	release := sess.Watch()
	h.reap(idle, time.Now().Add(2*idle))
	if !h.isOpen(id) {
		t.Fatal("a watched session was closed")
	}
	release()
	release() // a second release does not count twice
	if sess.Watched() {
		t.Fatal("still watched after release")
	}
	h.reap(idle, time.Now().Add(4*idle))
	if h.isOpen(id) {
		t.Fatal("an idle session stayed open")
	}
	if _, err := sess.Start(llm.UserText("x")); err == nil {
		t.Fatal("the closed session still runs")
	}

	again, err := h.Open(context.Background(), id)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	if again == sess {
		t.Fatal("the closed session was handed out again")
	}
	for range again.Run(context.Background(), llm.UserText("what was the word?")) {
	}
	reqs := model.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "kumquat") {
		t.Errorf("the reopened session lost its history: %s", last)
	}
}

// CloseIdle's clock closes an unused session by itself.
func TestHostCloseIdleClock(t *testing.T) {
	h, _ := newTestHost(t)
	sess, err := h.Create(context.Background(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	stop := h.CloseIdle(30 * time.Millisecond)
	defer stop()
	for deadline := time.Now().Add(10 * time.Second); h.isOpen(sess.ID()); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the idle session is still open after 10 s")
		}
	}
}
