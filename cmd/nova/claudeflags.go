package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/headless"
)

// sessionClaudeOptions are Claude Code's flags that shape the session's
// agent: --agents, --agent, --disable-slash-commands, --effort.
type sessionClaudeOptions struct {
	agentsJSON string // --agents as given
	effort     string // --effort as given
	replayUser bool   // --replay-user-messages (stream-json input)
	hookEvents bool   // --include-hook-events (stream-json output)
	// systemFile and appendFile are --system-prompt-file and
	// --append-system-prompt-file: the prompt's text from a file.
	systemFile, appendFile string
}

// effortBudget is --effort's thinking budget, in tokens: what llm/openai
// maps back to the same reasoning effort (up to 4,096 low, up to 16,384
// medium), and on Anthropic an extended-thinking budget.
func effortBudget(effort string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(effort)) {
	case "low":
		return 4_096, true
	case "medium":
		return 16_384, true
	case "high":
		return 32_768, true
	}
	return 0, false
}

// addSessionClaudeFlags adds them, for print mode and the terminal UI.
func addSessionClaudeFlags(fl *pflag.FlagSet, opts *rootOptions) {
	c, o := &opts.claude.session, &opts.session
	fl.StringVar(&c.agentsJSON, "agents", "", `subagent types for this run, as JSON: {"name": {"description": "...", "prompt": "...", "tools": [...], "model": "..."}}`)
	fl.StringVar(&o.mainAgent, "agent", "", "run the session as this agent type: its prompt, tools, model and mode")
	fl.BoolVar(&o.noSlashCommands, "disable-slash-commands", false, "load no skills or commands: /name is sent as typed and the Skill tool is not offered")
	fl.StringVar(&c.effort, "effort", "", "thinking effort: low, medium or high (a thinking budget of 4,096, 16,384 or 32,768 tokens)")
	fl.BoolVar(&c.replayUser, "replay-user-messages", false, "stream-json input: write each user message read back on stdout (isReplay), as Claude Code does")
	_ = fl.SetAnnotation("replay-user-messages", printOnly, []string{"true"})
	fl.BoolVar(&c.hookEvents, "include-hook-events", false, "stream-json: a hook_started and a hook_response system message around each hook nova runs (the Agent SDK's shapes)")
	_ = fl.SetAnnotation("include-hook-events", printOnly, []string{"true"})
	fl.StringVar(&c.systemFile, "system-prompt-file", "", "replace nova's system prompt with this file's text")
	fl.StringVar(&c.appendFile, "append-system-prompt-file", "", "append this file's text to the system prompt")
}

// readPromptFile reads a prompt file (relative to the working
// directory); an empty one is refused, as it would drop the prompt
// without a word.
func (o *rootOptions) readPromptFile(path string) (string, error) {
	if !filepath.IsAbs(path) {
		wd, err := o.io.getwd()
		if err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
		path = filepath.Join(wd, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return text, nil
}

// subagentTypes are agent definitions in Claude Code's shape (--agents,
// the Agent SDK's initialize) as subagent types, by name; source says
// where they came from.
func subagentTypes(defs map[string]headless.AgentDefinition, source string) []agent.SubagentType {
	var out []agent.SubagentType
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		d := defs[name]
		out = append(out, agent.SubagentType{Name: name, Description: d.Description, Prompt: d.Prompt,
			Tools: d.Tools, DisallowedTools: d.DisallowedTools, Model: d.Model, MaxTurns: d.MaxTurns, Source: source})
	}
	return out
}

// completeSessionClaude checks them and applies them to the session's
// options.
func (o *rootOptions) completeSessionClaude(fl *pflag.FlagSet) error {
	c := &o.claude.session
	if fl.Changed("agents") {
		defs, err := headless.ParseAgentDefinitions([]byte(c.agentsJSON))
		if err != nil {
			return usageErr("--agents: %v", err)
		}
		o.session.extraAgents = append(o.session.extraAgents, subagentTypes(defs, "--agents")...)
	}
	if fl.Changed("agent") && strings.TrimSpace(o.session.mainAgent) == "" {
		return usageErr("--agent: want an agent type's name")
	}
	for _, f := range []struct {
		name, other, path string
		to                *string
	}{
		{"system-prompt-file", "system-prompt", c.systemFile, &o.session.systemPrompt},
		{"append-system-prompt-file", "append-system-prompt", c.appendFile, &o.session.appendSystem},
	} {
		if !fl.Changed(f.name) {
			continue
		}
		if fl.Changed(f.other) {
			return usageErr("--%s and --%s contradict each other: give one", f.name, f.other)
		}
		text, err := o.readPromptFile(f.path)
		if err != nil {
			return usageErr("--%s: %v", f.name, err)
		}
		*f.to = text
	}
	if c.replayUser && !o.claude.sdk() {
		return usageErr("--replay-user-messages needs --input-format stream-json: it writes back the user messages read on stdin")
	}
	if fl.Changed("effort") {
		b, ok := effortBudget(c.effort)
		if !ok {
			return usageErr("--effort %q: want low, medium or high", c.effort)
		}
		o.session.thinkingBudget = b
	}
	return nil
}
