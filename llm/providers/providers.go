// Package providers builds the llm.Client for a configured provider type.
// It is the one place that knows every provider package.
package providers

import (
	"fmt"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/anthropic"
	"github.com/nova-dev/nova/llm/openai"
)

// New returns a client for cfg, wrapped so that failures before any output
// are retried with backoff (each retry an EventRetry).
func New(cfg llm.ProviderConfig, retry llm.RetryPolicy) (llm.Client, error) {
	var c llm.Client
	switch cfg.Type {
	case llm.ProviderAnthropic:
		c = anthropic.New(cfg)
	case llm.ProviderOpenAIResponse:
		c = openai.NewResponses(cfg)
	case llm.ProviderOpenAICompatible, llm.ProviderOllama:
		c = openai.NewChat(cfg)
	default:
		return nil, fmt.Errorf("provider %q: unknown type %q (want anthropic, openai-response, openai-compatible or ollama)", cfg.Key, cfg.Type)
	}
	return llm.WithRetry(c, retry), nil
}
