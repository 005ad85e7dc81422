package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

func TestListModels(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	srv.Models = []string{"qwen2.5-coder", "llama3:8b"}
	got, err := ListModels(context.Background(), llm.ProviderConfig{Type: llm.ProviderOpenAICompatible, BaseURL: srv.URL + "/v1"})
	if err != nil || strings.Join(got, ",") != "qwen2.5-coder,llama3:8b" {
		t.Fatalf("ListModels = %v, %v", got, err)
	}
	srv.Models = nil
	if _, err := ListModels(context.Background(), llm.ProviderConfig{Type: llm.ProviderOllama, BaseURL: srv.URL + "/v1"}); err == nil || !strings.Contains(err.Error(), "lists no models") {
		t.Errorf("empty list: err = %v", err)
	}
	if _, err := ListModels(context.Background(), llm.ProviderConfig{Type: llm.ProviderOpenAICompatible, BaseURL: "http://127.0.0.1:1/v1"}); err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("unreachable: err = %v", err)
	}
}
