package openai

import (
	"context"
	"fmt"

	sdk "github.com/openai/openai-go/v3"

	"github.com/nova-dev/nova/llm"
)

// ListModels asks an OpenAI-compatible server (or Ollama, or OpenAI) which
// models it serves, in the server's order. nova uses it when a server was
// configured without naming a model.
func ListModels(ctx context.Context, cfg llm.ProviderConfig) ([]string, error) {
	def := DefaultBaseURL
	if cfg.Type == llm.ProviderOllama {
		def = DefaultOllamaBaseURL
	}
	b := newBase(cfg, def)
	svc := sdk.NewModelService(b.opts...)
	page, err := svc.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the models of %s: %w", b.baseURL, err)
	}
	var names []string
	for _, m := range page.Data {
		names = append(names, m.ID)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s lists no models", b.baseURL)
	}
	return names, nil
}
