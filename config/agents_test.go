package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

func TestValidAgentKey(t *testing.T) {
	for key, want := range map[string]bool{
		"main": true, "researcher": true, "a-1": true, strings.Repeat("a", 32): true,
		"ab": false, strings.Repeat("a", 33): false, "Researcher": false, "a_b": false,
		"../x": false, "a b": false, "": false, "ab.": false,
	} {
		if got := ValidAgentKey(key); got != want {
			t.Errorf("ValidAgentKey(%q) = %v", key, got)
		}
	}
}

func TestAgentStoreMainDefault(t *testing.T) {
	home := t.TempDir()
	s := NewAgentStore(home, envOf(nil))
	main, err := s.Get(MainAgentKey)
	if err != nil || main.Key != "main" || main.Name != "Nova" || main.Model != "" || main.Provider != "" {
		t.Fatalf("main with no provider: %+v, %v", main, err)
	}

	// The environment's provider and its default model.
	s = NewAgentStore(home, envOf(map[string]string{"ANTHROPIC_API_KEY": "k"}))
	sonnet, _ := AliasModel(llm.ProviderAnthropic, "sonnet")
	if main, _ := s.Get(MainAgentKey); main.Provider != "anthropic" || main.Model != sonnet {
		t.Errorf("main from the environment: %+v", main)
	}
	// config.json's default_model wins, as it does for nova without --model.
	if err := SaveFile(home, &File{DefaultModel: "local:qwen", Providers: []Provider{{Key: "local", Type: "ollama", Models: []Model{{Model: "llama"}}}}}); err != nil {
		t.Fatal(err)
	}
	if main, _ := s.Get(MainAgentKey); main.Provider != "local" || main.Model != "qwen" {
		t.Errorf("main from default_model: %+v", main)
	}
	// NOVA_MODEL wins over the file.
	s = NewAgentStore(home, envOf(map[string]string{"NOVA_MODEL": "local:llama"}))
	if main, _ := s.Get(MainAgentKey); main.Model != "llama" {
		t.Errorf("main from NOVA_MODEL: %+v", main)
	}
	// Once set, main keeps its own model.
	if _, err := s.SetModel(MainAgentKey, "local", "mistral"); err != nil {
		t.Fatal(err)
	}
	if main, _ := s.Get(MainAgentKey); main.Model != "mistral" || main.Name != "Nova" {
		t.Errorf("main after SetModel: %+v", main)
	}
	// A broken config.json is an error naming it, not an empty main.
	os.Remove(s.file(MainAgentKey))
	os.WriteFile(filepath.Join(home, "config.json"), []byte("{"), 0o600)
	if _, err := s.Get(MainAgentKey); err == nil || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("main with a broken config: %v", err)
	}
}

func TestAgentStoreCRUD(t *testing.T) {
	home := t.TempDir()
	s := NewAgentStore(home, envOf(nil))
	ws := "/work/project"
	a := Agent{Key: "researcher", Name: "Researcher", Description: "Helps", Model: "m", Provider: "p", Tools: []string{"Read"}, WorkspaceDir: &ws}
	got, err := s.Create(a)
	if err != nil || got.Key != "researcher" {
		t.Fatalf("Create = %+v, %v", got, err)
	}
	data, err := os.ReadFile(filepath.Join(home, "agents", "researcher", "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk Agent
	if err := json.Unmarshal(data, &onDisk); err != nil || onDisk.Name != "Researcher" || *onDisk.WorkspaceDir != ws || onDisk.Tools[0] != "Read" {
		t.Errorf("agent.json = %s (%v)", data, err)
	}
	if _, err := s.Create(a); !errors.Is(err, ErrAgentExists) {
		t.Errorf("second Create: %v, want ErrAgentExists", err)
	}
	if _, err := s.Create(Agent{Key: "main", Name: "x", Model: "m", Provider: "p"}); !errors.Is(err, ErrAgentExists) {
		t.Errorf("Create main: %v, want ErrAgentExists", err)
	}
	for _, bad := range []Agent{
		{Key: "ab", Name: "n", Model: "m", Provider: "p"},
		{Key: "abc", Name: " ", Model: "m", Provider: "p"},
		{Key: "abc", Name: "n", Provider: "p"},
		{Key: "abc", Name: "n", Model: "m"},
	} {
		var ie *InputError
		if _, err := s.Create(bad); !errors.As(err, &ie) {
			t.Errorf("Create(%+v) = %v, want an InputError", bad, err)
		}
	}
	if _, err := s.Create(Agent{Key: "aaa-writer", Name: "W", Model: "m", Provider: "p"}); err != nil {
		t.Fatal(err)
	}
	// A directory without agent.json is no agent.
	os.MkdirAll(filepath.Join(home, "agents", "stray"), 0o700)
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, a := range list {
		keys = append(keys, a.Key)
	}
	if strings.Join(keys, ",") != "main,aaa-writer,researcher" {
		t.Errorf("List keys = %v", keys)
	}

	up, err := s.SetModel("researcher", "p2", "m2")
	if err != nil || up.Model != "m2" || up.Provider != "p2" || up.Name != "Researcher" {
		t.Errorf("SetModel = %+v, %v", up, err)
	}
	if again, _ := s.Get("researcher"); again.Model != "m2" || *again.WorkspaceDir != ws {
		t.Errorf("after SetModel: %+v", again)
	}
	if _, err := s.SetModel("nobody", "p", "m"); !errors.Is(err, ErrAgentNotFound) {
		t.Errorf("SetModel of a missing agent: %v", err)
	}

	if err := s.Delete(MainAgentKey); !errors.Is(err, ErrMainAgent) {
		t.Errorf("Delete main: %v", err)
	}
	if err := s.Delete("researcher"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir("researcher")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory left after Delete: %v", err)
	}
	for _, key := range []string{"researcher", "stray", "../etc", "x"} {
		if err := s.Delete(key); !errors.Is(err, ErrAgentNotFound) {
			t.Errorf("Delete(%q): %v, want ErrAgentNotFound", key, err)
		}
		if _, err := s.Get(key); !errors.Is(err, ErrAgentNotFound) {
			t.Errorf("Get(%q): %v, want ErrAgentNotFound", key, err)
		}
	}
}

func TestAgentStoreCorruptFile(t *testing.T) {
	home := t.TempDir()
	s := NewAgentStore(home, envOf(nil))
	os.MkdirAll(s.Dir("broken"), 0o700)
	os.WriteFile(s.file("broken"), []byte("{\n \"name\": }"), 0o600)
	if _, err := s.Get("broken"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("Get of a corrupt agent: %v", err)
	}
	if _, err := s.List(); err == nil || !strings.Contains(err.Error(), s.file("broken")) {
		t.Errorf("List with a corrupt agent: %v", err)
	}
	// It can still be deleted.
	if err := s.Delete("broken"); err != nil {
		t.Errorf("Delete of a corrupt agent: %v", err)
	}
}

func TestAgentStoreConcurrentCreate(t *testing.T) {
	s := NewAgentStore(t.TempDir(), envOf(nil))
	const n = 12
	errs := make(chan error, 2*n)
	for i := range n {
		for range 2 { // every key twice: one wins, one is refused
			go func() {
				_, err := s.Create(Agent{Key: fmt.Sprintf("agent-%02d", i), Name: "n", Model: "m", Provider: "p"})
				errs <- err
			}()
		}
	}
	exists := 0
	for range 2 * n {
		if err := <-errs; errors.Is(err, ErrAgentExists) {
			exists++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.List()
	if err != nil || len(list) != n+1 || exists != n {
		t.Errorf("List = %d agents (%v), %d refused; want %d and %d", len(list), err, exists, n+1, n)
	}
}

func TestValidProviderKey(t *testing.T) {
	for key, want := range map[string]bool{
		"anthropic": true, "my-proxy.v2_x": true, "9x": true, strings.Repeat("a", 64): true,
		"": false, "-x": false, ".x": false, "a:b": false, "a b": false, strings.Repeat("a", 65): false, "é": false,
	} {
		if got := ValidProviderKey(key); got != want {
			t.Errorf("ValidProviderKey(%q) = %v", key, got)
		}
	}
}
