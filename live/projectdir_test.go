package live

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// TestProjectDirRulesHoldInAnotherWorkdir: a session working in one
// directory (a teammate's worktree) under another's project settings (the
// lead's) is held by the deny rule of that project's
// .nova/settings.local.json, a file no worktree has. The control: the same
// call in the same worktree without ProjectDir runs, by the user's allow.
func TestProjectDirRulesHoldInAnotherWorkdir(t *testing.T) {
	for _, tc := range []struct {
		name       string
		projectDir bool
		wantMade   bool
	}{{"lead's rules", true, false}, {"control: the worktree's own", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newHookWorld(t, `{}`,
				llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "Bash", Input: `{"command":"touch pwned"}`}}},
				llmtest.Turn{Text: "ok"})
			os.WriteFile(filepath.Join(w.novaHome, "settings.json"), []byte(`{"permissions": {"allow": ["Bash(touch:*)"]}}`), 0o600)
			lead := t.TempDir()
			if d, err := filepath.EvalSymlinks(lead); err == nil {
				lead = d
			}
			os.MkdirAll(filepath.Join(lead, ".nova"), 0o700)
			os.WriteFile(filepath.Join(lead, ".nova", "settings.local.json"), []byte(`{"permissions": {"deny": ["Bash(touch:*)"]}}`), 0o600)
			o := Options{}
			if tc.projectDir {
				o.ProjectDir = lead
			}
			rt, err := w.build(o)
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			for range rt.Live.Run(context.Background(), llm.UserText("go")) {
			}
			_, err = os.Stat(filepath.Join(w.ws, "pwned"))
			if made := err == nil; made != tc.wantMade {
				t.Errorf("pwned made = %v, want %v", made, tc.wantMade)
			}
		})
	}
}
