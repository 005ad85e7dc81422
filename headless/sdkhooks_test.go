package headless

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestHookBridgeRefusesAndEnds: an SDK hook on an event nova does not
// fire is refused, not dropped; once Serve has ended a hook gets an error
// at once rather than waiting for an SDK that is gone.
func TestHookBridgeRefusesAndEnds(t *testing.T) {
	b := NewHookBridge()
	_, err := b.Hooks(&InitializeRequest{Hooks: map[string]json.RawMessage{"NoSuchEvent": json.RawMessage(`[{"hookCallbackIds":["hook_0"]}]`)}})
	if err == nil || !strings.Contains(err.Error(), "NoSuchEvent") {
		t.Errorf("a hook on NoSuchEvent: %v, want refused", err)
	}
	hs, err := b.Hooks(&InitializeRequest{Hooks: map[string]json.RawMessage{"PreToolUse": json.RawMessage(`[{"matcher":"Bash","hookCallbackIds":["hook_0","hook_1"],"timeout":5}]`)}})
	if err != nil || len(hs) != 2 || hs[0].Matcher != "Bash" || hs[1].Timeout.Seconds() != 5 {
		t.Fatalf("hooks = %+v, %v", hs, err)
	}
	close(b.gone)
	if _, err := hs[0].Call(context.Background(), []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "ended") {
		t.Errorf("a hook after the session ended: %v, want an error", err)
	}
}
