package team

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// Relay gives the lead agent each message once it is recorded, and marks
// it processed only then: one whose recording never came (the lead's
// process died first) is given again by the next lead, one that was
// recorded is not.
func TestRelayProcessesOnceRecorded(t *testing.T) {
	home := t.TempDir()
	tm, err := Open(home, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Mail.Send(Message{ID: "m1", From: "parser", To: LeadName, Text: "parser is done"}); err != nil {
		t.Fatal(err)
	}
	l := &Lead{Team: tm}
	// A lead that never records: the message must come again.
	ctx, cancel := context.WithCancel(context.Background())
	told := make(chan string, 4)
	go func() {
		l.Relay(ctx, func(text string) <-chan struct{} { told <- text; return make(chan struct{}) }, time.Millisecond)
	}()
	if got := <-told; !strings.Contains(got, "parser is done") || !strings.Contains(got, `from="parser"`) {
		t.Fatalf("told %q", got)
	}
	cancel()
	// The next lead records it.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	var mu sync.Mutex
	var texts []string
	// Buffered: the relay may record m1 before this goroutine waits.
	recorded := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Relay(ctx2, func(text string) <-chan struct{} {
			mu.Lock()
			texts = append(texts, text)
			mu.Unlock()
			ch := make(chan struct{})
			close(ch)
			select {
			case recorded <- struct{}{}:
			default:
			}
			return ch
		}, time.Millisecond)
	}()
	<-recorded
	// Let it poll a few more times: nothing more may come.
	if _, err := tm.Mail.Send(Message{ID: "m2", From: "parser", To: LeadName, Text: "second"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(texts)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel2()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(texts) != 2 || !strings.Contains(texts[0], "parser is done") || !strings.Contains(texts[1], "second") {
		t.Errorf("told %q, want each message once", texts)
	}
}
