package session

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// A transcript a nova killed mid-tool left (the call, its decision, no
// result) is answered in memory, once, and the file stays as it was.
func TestCloseDanglingCalls(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "/ws")
	mustAppend(t, s, llm.UserText("look"), assistantCall("toolu_a", "Read", `{"path":"x"}`))
	if err := s.AppendDecision("toolu_a", "Read", allow()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(st.Dir(s.ID()), transcriptFile)
	before, _ := os.ReadFile(file)
	tr, _, err := st.Load(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !tr.CloseDanglingCalls() {
		t.Fatal("CloseDanglingCalls did nothing to a call without a result")
	}
	msgs := tr.AllMessages()
	if err := llm.CheckHistory(msgs); err != nil || len(msgs) != 3 || tr.Meta.MessageCount != 3 {
		t.Errorf("after the repair: %d messages (count %d), check %v; want the call answered", len(msgs), tr.Meta.MessageCount, err)
	}
	if r := msgs[2].Parts[0].ToolResult; r == nil || r.CallID != "toolu_a" || !r.IsError || r.Content[0].Text != NoResultText {
		t.Errorf("answer %+v, want an error result for toolu_a saying it has no result", msgs[2].Parts)
	}
	if tr.CloseDanglingCalls() {
		t.Error("a second repair answered the call again")
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("the repair wrote the file")
	}
	// The control: a history that ends answered, or with the person's
	// words, is left alone.
	for _, last := range []llm.Message{llm.UserText("hi"), {Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("done")}}} {
		if _, ok := DanglingResults(last); ok {
			t.Errorf("DanglingResults answered %+v", last)
		}
	}
}

// InUse sees a session held by another process, and by this one, and
// never creates the lock file.
func TestInUse(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	id, _ := writeSession(t, st, 1)
	if busy, err := st.InUse(id); err != nil || busy {
		t.Fatalf("InUse of a closed session = %v, %v; want false", busy, err)
	}
	cmd, stdin, out := helper(t, st, id, "hold")
	if !out.Scan() || out.Text() != "ready" {
		t.Fatalf("helper did not open the session: %q", out.Text())
	}
	if busy, err := st.InUse(id); err != nil || !busy {
		t.Errorf("InUse while another process holds it = %v, %v; want true", busy, err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if busy, _ := st.InUse(id); !busy {
		t.Error("InUse while this process holds it = false")
	}
	s.Close()
	lock := filepath.Join(st.Dir(id), lockFile)
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if busy, err := st.InUse(id); err != nil || busy {
		t.Errorf("InUse without a lock file = %v, %v", busy, err)
	}
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("InUse created the lock file: %v", err)
	}
}

// A reader probing the lock over and over never makes an Open fail: the
// probe's instant is waited out.
func TestInUseNeverRefusesOpen(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	id, _ := writeSession(t, st, 1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				_, _ = st.InUse(id)
			}
		}
	}()
	failed := 0
	for range 300 {
		s, _, err := st.Open(id)
		if err != nil {
			failed++
			continue
		}
		s.Close()
	}
	close(stop)
	wg.Wait()
	if failed > 0 {
		t.Errorf("%d of 300 Opens failed while a reader probed the lock", failed)
	}
}
