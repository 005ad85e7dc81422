package llm

// Tool search, provider-neutral. A deferred tool (ToolSpec.Deferred) is
// loaded by a tool_reference part in a tool result: the answer of a tool
// that searched the deferred tools. Anthropic's Messages API does the
// loading itself (defer_loading on the tool, tool_reference blocks in the
// result); for the providers that cannot, LoadedTools is the tool list
// the history has loaded.

// ReferencedTools returns the tools the tool_reference parts of msgs
// name, each once, in the order they were first named.
func ReferencedTools(msgs []Message) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type != PartToolResult || p.ToolResult == nil {
				continue
			}
			for _, c := range p.ToolResult.Content {
				if c.Type == PartToolReference && c.ToolName != "" && !seen[c.ToolName] {
					seen[c.ToolName] = true
					names = append(names, c.ToolName)
				}
			}
		}
	}
	return names
}

// LoadedTools returns the tools to send a provider that has no deferred
// loading: every tool that is not deferred, in order, then the deferred
// tools the history has loaded, in the order they were first referenced.
// Loading a tool so appends it to the end of the list: what was sent
// before stays a prefix, so the provider's prompt cache of it survives;
// only the first request after a load is sent a longer list. A reference
// to a tool that is not among req.Tools (its server went away) loads
// nothing. The specs returned have Deferred cleared.
func LoadedTools(req Request) []ToolSpec {
	var out []ToolSpec
	deferred := map[string]ToolSpec{}
	for _, t := range req.Tools {
		if t.Deferred {
			deferred[t.Name] = t
			continue
		}
		out = append(out, t)
	}
	if len(deferred) == 0 {
		return out
	}
	for _, name := range ReferencedTools(req.Messages) {
		if t, ok := deferred[name]; ok {
			t.Deferred = false
			out = append(out, t)
		}
	}
	return out
}
