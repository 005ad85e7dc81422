package tools

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/permission"
)

// Agent starts a subagent: a fresh agent, with a tool subset and a system
// prompt of its type, that works on one task and returns its final
// answer as the call's result (Claude Code's Agent tool, called Task in
// older versions). The types there are are listed to the model in the
// messages (an <agents> block), not here, so the tool list (part of the
// cached prefix) stays the same when agent files come and go.
type Agent struct {
	Input[agentInput]
	// Runner runs subagents; the agent package implements it.
	Runner SubagentRunner
}

// SubagentRunner runs one subagent to its end (or, in the background,
// starts it) and returns what the parent's model reads.
type SubagentRunner interface {
	RunSubagent(ctx context.Context, task SubagentTask, env *Env) (Result, error)
}

// SubagentTask is one Agent call's input.
type SubagentTask struct {
	// CallID is the Agent call's id: the subagent's events carry it.
	CallID      string
	Description string
	Prompt      string
	// Type is the agent type; "" is general-purpose.
	Type string
	// Model, when set, overrides the type's model: an alias (sonnet,
	// opus, haiku), "inherit" or a model as --model takes it.
	Model string
	// Background returns at once; the parent is told when it ends.
	Background bool
	// Isolation is "" (the parent's workspace) or "worktree".
	Isolation string
}

type agentInput struct {
	Description string `json:"description" jsonschema:"A short (3-5 word) description of the task"`
	Prompt      string `json:"prompt" jsonschema:"The task for the agent to perform: everything it needs to know, since it sees none of this conversation"`
	Type        string `json:"subagent_type,omitempty" jsonschema:"The type of agent to use (one of the types listed in the conversation); general-purpose when omitted"`
	Model       string `json:"model,omitempty" jsonschema:"Optional model for this agent: sonnet, opus, haiku or inherit; the agent type's model (or this conversation's) when omitted"`
	Background  bool   `json:"run_in_background,omitempty" jsonschema:"Run the agent in the background: the call returns at once and you are told when the agent finishes"`
	Isolation   string `json:"isolation,omitempty" jsonschema:"worktree: the agent works in a fresh git worktree of the repository, so its changes stay apart from yours"`
}

// tuneSchema refuses empty tasks and names the isolation there is.
func (agentInput) tuneSchema(s *jsonschema.Schema) {
	prop(s, "description").MinLength = jsonschema.Ptr(1)
	prop(s, "prompt").MinLength = jsonschema.Ptr(1)
	prop(s, "isolation").Enum = []any{"worktree"}
}

// Name implements Tool.
func (*Agent) Name() string { return "Agent" }

// Kind implements Tool: starting an agent changes nothing; what the
// subagent then does is checked call by call, by the same checker.
func (*Agent) Kind() permission.Kind { return permission.KindOther }

// RunsBeside implements concurrentTool: subagents of one turn are
// independent tasks and run side by side (bounded by the runner); each of
// their own calls is checked when it runs.
func (*Agent) RunsBeside(_ json.RawMessage, d permission.Decision) bool {
	return d.Behavior == permission.Allow
}

// Permission implements Permissioner: Agent(type) rules name the agent
// type a call starts.
func (*Agent) Permission(input json.RawMessage, _ *Env) permission.Request {
	var in agentInput
	_ = json.Unmarshal(input, &in)
	if in.Type == "" {
		in.Type = "general-purpose"
	}
	return permission.Request{Tool: "Agent", Kind: permission.KindOther, Target: in.Type}
}

// Description implements Tool. It names no agent type: those are listed
// in the messages.
func (*Agent) Description() string {
	return `Launches a new agent to handle a complex, multi-step task on its own. Each agent type has its own tools and instructions; the types available are listed in the conversation (an <agents> block) with their descriptions and tools.

When to use it:
- Open-ended searches across a codebase (the Explore type), planning (Plan), or a self-contained task that would fill this conversation with detail (general-purpose).
- Several independent tasks: call Agent several times in one message and they run in parallel.

How it works:
- The agent sees none of this conversation: its prompt must say everything it needs (the goal, the files, what to return).
- Its final message comes back to you as the result; the user does not see it until you pass it on.
- It works under the same permissions as you; it cannot do what you could not.
- With run_in_background the call returns at once and you are told when the agent finishes.
- With isolation "worktree" it works in a fresh git worktree; if it changed files, the result names the worktree and branch.`
}

// Run implements Tool.
func (t *Agent) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in agentInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for Agent: %v", err), nil
	}
	if t.Runner == nil {
		return Errorf("subagents are not available in this session"), nil
	}
	call, _ := CallOf(ctx)
	return t.Runner.RunSubagent(ctx, SubagentTask{CallID: call.ID, Description: in.Description, Prompt: in.Prompt, Type: in.Type,
		Model: in.Model, Background: in.Background, Isolation: in.Isolation}, env)
}
