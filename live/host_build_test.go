package live

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nova-dev/nova/session"
)

// savedSession makes a session on disk, closed, as one a server opened
// before a restart.
func savedSession(t *testing.T, h *Host) string {
	t.Helper()
	s, err := session.NewStore(h.base.NovaHome).Create(session.Meta{WorkspaceDir: h.base.Workdir, AgentKey: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.ID()
}

// opened runs Open(id) on its own goroutine; the channel gets its result.
func opened(h *Host, id string) <-chan openResult {
	out := make(chan openResult, 1)
	go func() {
		s, err := h.Open(context.Background(), id)
		out <- openResult{s, err}
	}()
	return out
}

type openResult struct {
	sess *Session
	err  error
}

// within waits for an open's result; the bound only turns a deadlock
// into a failure, it measures nothing.
func within(t *testing.T, what string, ch <-chan openResult) openResult {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("%s: %v", what, r.err)
		}
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not return: the host is stuck behind another session's build", what)
	}
	return openResult{}
}

// A session whose build waits (on a model list, on MCP servers) holds up
// no other: an unrelated session opens while it waits. Two opens of the
// waiting session build it once and get the same session.
func TestHostBuildsOutsideItsLock(t *testing.T) {
	h, _ := newTestHost(t)
	slow, quick := savedSession(t, h), savedSession(t, h)
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	var slowBuilds atomic.Int32
	h.build = func(ctx context.Context, o Options) (*Runtime, error) {
		if o.Resume == slow {
			slowBuilds.Add(1)
			entered <- struct{}{}
			<-release
		}
		return Build(ctx, o)
	}
	first := opened(h, slow)
	<-entered // the slow build has started, and waits
	second := opened(h, slow)

	within(t, "opening an unrelated session", opened(h, quick))
	if _, err := h.Context(context.Background(), quick, "", ""); err != nil {
		t.Errorf("the unrelated session is not usable: %v", err)
	}

	close(release)
	a, b := within(t, "the slow open", first), within(t, "the second open of the slow session", second)
	if a.sess != b.sess {
		t.Error("two opens of one session got two sessions")
	}
	if n := slowBuilds.Load(); n != 1 {
		t.Errorf("the slow session was built %d times, want once", n)
	}
}

// A delete that comes while the session is being built waits for the
// build, then deletes it: the transcript is not removed under a runtime
// that holds it.
func TestHostDeleteWaitsForBuild(t *testing.T) {
	h, _ := newTestHost(t)
	id := savedSession(t, h)
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	h.build = func(ctx context.Context, o Options) (*Runtime, error) {
		entered <- struct{}{}
		<-release
		return Build(ctx, o)
	}
	open := opened(h, id)
	<-entered
	deleted := make(chan error, 1)
	go func() { deleted <- h.Delete(id, false) }()
	close(release)
	within(t, "the open", open)
	if err := <-deleted; err != nil {
		t.Fatalf("delete: %v", err)
	}
	if h.isOpen(id) {
		t.Error("the deleted session is still open")
	}
	if _, err := h.Load(id); !errors.Is(err, ErrNoSession) {
		t.Errorf("after delete: %v, want no session", err)
	}
}

// Past SetMaxSessions, opening or creating another session is
// ErrTooManySessions; one closed makes room again.
func TestHostMaxSessions(t *testing.T) {
	h, _ := newTestHost(t)
	h.SetMaxSessions(2)
	a, b, c := savedSession(t, h), savedSession(t, h), savedSession(t, h)
	for _, id := range []string{a, b} {
		if _, err := h.Open(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Open(context.Background(), a); err != nil {
		t.Errorf("opening one already open: %v", err)
	}
	if _, err := h.Open(context.Background(), c); !errors.Is(err, ErrTooManySessions) {
		t.Errorf("a third: %v, want ErrTooManySessions", err)
	}
	if _, err := h.Create(context.Background(), Spec{}); !errors.Is(err, ErrTooManySessions) {
		t.Errorf("a new one: %v, want ErrTooManySessions", err)
	}
	if h.isOpen(c) {
		t.Error("the refused session was opened")
	}
	if err := h.Delete(a, false); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Open(context.Background(), c); err != nil {
		t.Errorf("after one was deleted: %v", err)
	}
}
