package hooks

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

// TestObserve: each hook run is told as it starts and as it ends, with
// what it wrote, its exit code and its outcome; a hook that blocks (exit
// 2) is an error, one that answers is a success.
func TestObserve(t *testing.T) {
	w := newWorld(t)
	ok := w.script("ok.sh", "#!/bin/sh\necho fine\necho note >&2\n")
	block := w.script("block.sh", "#!/bin/sh\necho no rm >&2\nexit 2\n")
	var mu sync.Mutex
	var seen []Observation
	e := w.engine(`{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"`+ok+`"}]},
		{"matcher":"Read","hooks":[{"type":"command","command":"`+block+`"}]}]}`, func(s *Session) {
		s.Observe = func(o Observation) { mu.Lock(); defer mu.Unlock(); seen = append(seen, o) }
	})
	defer e.Close()
	e.Fire(context.Background(), ToolInput("Bash", json.RawMessage(`{"command":"ls"}`), "toolu_1"))
	if out := e.Fire(context.Background(), ToolInput("Read", json.RawMessage(`{"file_path":"a"}`), "toolu_2")); !out.Block {
		t.Fatalf("the blocking hook did not block: %+v", out)
	}
	if len(seen) != 4 {
		t.Fatalf("%d observations, want a start and an end of each of 2 runs: %+v", len(seen), seen)
	}
	start, end := seen[0], seen[1]
	if start.Done || !end.Done || start.ID == "" || start.ID != end.ID || start.Name != "PreToolUse:Bash" || start.Event != PreToolUse {
		t.Fatalf("first run: start %+v, end %+v", start, end)
	}
	if end.Outcome != OutcomeSuccess || end.ExitCode == nil || *end.ExitCode != 0 || end.Stdout != "fine\n" || end.Stderr != "note\n" || end.Output != "fine\nnote\n" { // as Claude Code joins them
		t.Errorf("first run's end: %+v", end)
	}
	b := seen[3]
	if seen[2].ID == start.ID || b.Name != "PreToolUse:Read" || b.Outcome != OutcomeError || b.ExitCode == nil || *b.ExitCode != 2 || b.Stderr != "no rm\n" {
		t.Errorf("blocking run's end: %+v", b)
	}
}
