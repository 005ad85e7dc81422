package live

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// The secret and public words the attack looks for in what the model
// was sent: the secret's must never be there, the public one's must (the
// positive control: the tool did run and report).
const (
	secretWord = "SENTINEL-SECRET-7f3a"
	secretName = "SENTINEL-SECRETNAME-5d1e"
	publicWord = "SENTINEL-PUBLIC-91c2"
)

// TestReadRuleHoldsForEveryReader runs the attack through the real
// Build: a workspace with secret/ covered by a Read rule of the user's
// settings, and each tool that reads files asked to read, search or list
// it. Whatever the rule's kind (deny, or ask with nobody to ask), the
// secret's content (and, for listings, its name) never reaches the
// model, while the public file beside it does.
func TestReadRuleHoldsForEveryReader(t *testing.T) {
	calls := map[string][]llmtest.ToolCall{
		"Read": {
			{ID: "r1", Name: "Read", Input: `{"file_path": "public/` + publicWord + `.txt"}`},
			{ID: "r2", Name: "Read", Input: `{"file_path": "secret/key.txt"}`},
		},
		"Grep content": {{ID: "g1", Name: "Grep", Input: `{"pattern": "SENTINEL", "output_mode": "content"}`}},
		"Grep files":   {{ID: "g2", Name: "Grep", Input: `{"pattern": "SENTINEL-", "output_mode": "files_with_matches"}`}},
		"Grep in dir":  {{ID: "g3", Name: "Grep", Input: `{"pattern": "SENTINEL", "path": "secret", "output_mode": "content"}`}, {ID: "g4", Name: "Grep", Input: `{"pattern": "SENTINEL", "path": "public", "output_mode": "content"}`}},
		"Glob":         {{ID: "o1", Name: "Glob", Input: `{"pattern": "**/*.txt"}`}},
		"LS":           {{ID: "l1", Name: "LS", Input: `{"path": "."}`}, {ID: "l2", Name: "LS", Input: `{"path": "secret"}`}, {ID: "l3", Name: "LS", Input: `{"path": "public"}`}},
	}
	for _, kind := range []string{"deny", "ask"} {
		for name, cs := range calls {
			t.Run(kind+"/"+name, func(t *testing.T) {
				srv := llmtest.New(llmtest.Turn{ToolCalls: cs}, llmtest.Turn{Text: "done"})
				t.Cleanup(srv.Close)
				home := t.TempDir()
				ws, err := filepath.EvalSymlinks(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				novaHome := filepath.Join(home, ".nova")
				for path, text := range map[string]string{
					filepath.Join(novaHome, "settings.json"):       `{"permissions": {"` + kind + `": ["Read(./secret/**)"]}}`,
					filepath.Join(ws, "secret", "key.txt"):         "key " + secretWord + "\n",
					filepath.Join(ws, "secret", secretName+".txt"): "key " + secretWord + "\n",
					filepath.Join(ws, "public", publicWord+".txt"): "note " + publicWord + "\n",
				} {
					if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
				rt, err := Build(context.Background(), Options{NovaHome: novaHome, Workdir: ws, Home: home, NoSandbox: true,
					Getenv: func(k string) string { return env[k] }})
				if err != nil {
					t.Fatal(err)
				}
				defer rt.Close()
				for range rt.Live.Run(context.Background(), llm.UserText("look around")) {
				}
				reqs := srv.Requests()
				if len(reqs) < 2 {
					t.Fatalf("%d requests: the tool results never went back to the model", len(reqs))
				}
				sent := string(reqs[len(reqs)-1].Body)
				for _, w := range []string{secretWord, secretName} {
					if strings.Contains(sent, w) {
						t.Errorf("the secret reached the model:\n%s", excerpt(sent, w))
					}
				}
				if !strings.Contains(sent, publicWord) {
					t.Errorf("positive control: the public file did not reach the model either, so the tool did not run:\n%s", sent)
				}
			})
		}
	}
}

// excerpt is s around the first word.
func excerpt(s, word string) string {
	i := strings.Index(s, word)
	return s[max(0, i-300):min(len(s), i+200)]
}
