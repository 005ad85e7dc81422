package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// The first start records config.json's providers and says nothing; a
// provider added since, or one that now points elsewhere, is said once.
func TestNoteProviders(t *testing.T) {
	home := t.TempDir()
	f := &File{Providers: []Provider{{Key: "local", Type: llm.ProviderOllama, BaseURL: "http://127.0.0.1:11434/v1"}}}
	if got, err := NoteProviders(home, f); err != nil || len(got) != 0 {
		t.Fatalf("first start: %q %v, want nothing said", got, err)
	}
	if got, _ := NoteProviders(home, f); len(got) != 0 {
		t.Errorf("nothing changed: %q", got)
	}
	f.Providers = append(f.Providers, Provider{Key: "elsewhere", Type: llm.ProviderOpenAICompatible, BaseURL: "http://203.0.113.9/v1", APIKey: "secret-key"})
	got, err := NoteProviders(home, f)
	if err != nil || len(got) != 1 || !strings.Contains(got[0], `"elsewhere"`) || !strings.Contains(got[0], "http://203.0.113.9/v1") {
		t.Fatalf("a new provider: %q %v", got, err)
	}
	if got, _ := NoteProviders(home, f); len(got) != 0 {
		t.Errorf("said twice: %q", got)
	}
	f.Providers[0].BaseURL = "http://203.0.113.9:11434/v1"
	if got, _ := NoteProviders(home, f); len(got) != 1 || !strings.Contains(got[0], `"local"`) || !strings.Contains(got[0], "now sends requests to") {
		t.Errorf("a provider moved: %q", got)
	}
	data, _ := os.ReadFile(filepath.Join(home, seenFile))
	if strings.Contains(string(data), "secret-key") {
		t.Errorf("the record holds an API key: %s", data)
	}
}
