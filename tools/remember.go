package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/permission"
)

// Remember saves a memory to the project's MEMORY.md (auto memory), which
// later sessions in the same project load into their prompt.
type Remember struct {
	Input[rememberInput]
	// NovaHome is where auto memory lives (NOVA_HOME).
	NovaHome string
}

type rememberInput struct {
	Memory string `json:"memory" jsonschema:"What to remember: one short, self-contained sentence"`
	Type   string `json:"type,omitempty" jsonschema:"What kind of memory it is (default fact)"`
}

// tuneSchema lists the kinds of memory and refuses an empty one.
func (rememberInput) tuneSchema(s *jsonschema.Schema) {
	prop(s, "memory").MinLength = jsonschema.Ptr(1)
	prop(s, "type").Enum = enum("fact", "preference", "decision")
}

// Name implements Tool.
func (*Remember) Name() string { return "Remember" }

// Kind implements Tool: it writes only nova's own memory, never the workspace.
func (*Remember) Kind() permission.Kind { return permission.KindOther }

// Description implements Tool.
func (*Remember) Description() string {
	return `Saves a memory for future sessions in this project. Saved memories are added to the project's MEMORY.md, which is loaded into the context of every later session started in this directory.

Use it for what a future session needs and could not easily rediscover:
- stable facts about the project (how to build and test it, where things live, quirks of its tooling)
- the user's preferences (coding style, tools to use or avoid, how they like answers)
- decisions made with the user, and why

Do not use it for the state of the current task (what you are doing now, todos, intermediate results), for things already in the code or in NOVACODE.md, or for secrets. Use it when the user asks you to remember something, and sparingly otherwise: one short, self-contained sentence per memory.`
}

// Run implements Tool.
func (t *Remember) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in rememberInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for Remember: %v", err), nil
	}
	if in.Type == "" {
		in.Type = memory.KindFact
	}
	if err := memory.AppendMemory(t.NovaHome, env.Workdir, in.Type, in.Memory); err != nil {
		return Result{}, fmt.Errorf("remember: %w", err)
	}
	path := memory.MemoryPath(t.NovaHome, env.Workdir)
	return Result{Output: fmt.Sprintf("Saved to memory (%s) as a %s. Future sessions in this project will load it.", path, in.Type)}, nil
}
