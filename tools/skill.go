package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/permission"
)

// Skill loads a skill (SKILL.md, or a command file) into the conversation:
// the model is told the skills there are, by name and description, in the
// messages (see the skills package), and calls Skill to get one's
// instructions when a task matches it.
type Skill struct {
	Input[skillInput]
	// Loader finds and renders skills; nil means the session has none.
	Loader SkillLoader
}

// SkillLoader renders a skill for the model: its body, with the
// skill's base directory, its arguments substituted and its shell lines
// run through the pipeline. The skills package implements it.
type SkillLoader interface {
	LoadSkill(ctx context.Context, name, args string, env *Env) (Result, error)
}

type skillInput struct {
	Skill string `json:"skill" jsonschema:"The name of the skill to load, as the list of available skills gives it (e.g. \"review-pr\"), without a leading slash"`
	Args  string `json:"args,omitempty" jsonschema:"Arguments for the skill, as a person would type them after /name"`
}

// tuneSchema refuses an empty name.
func (skillInput) tuneSchema(s *jsonschema.Schema) {
	prop(s, "skill").MinLength = jsonschema.Ptr(1)
}

// Name implements Tool.
func (*Skill) Name() string { return "Skill" }

// Kind implements Tool: loading instructions changes nothing; what the
// skill then asks for is checked call by call.
func (*Skill) Kind() permission.Kind { return permission.KindOther }

// Description implements Tool. It names no skill: the list is in the
// messages, so the tool list (part of the cached prefix) stays the same
// when skills come and go.
func (*Skill) Description() string {
	return `Loads a skill: instructions, and often scripts and reference files, for a kind of task. The skills available are listed in the conversation (a <skills> block) by name and description.

When a task matches a skill's description, call Skill with its name before you start, and follow the instructions it returns. The result begins with the skill's base directory: paths the instructions mention are relative to it, and you may read its files there.

- Pass what the task is about in args when the skill takes arguments (as a person would type after /name).
- Load a skill once per task; do not call it for a skill that is already loaded in this conversation.
- Only skills in the list can be loaded.`
}

// skillResolver is a SkillLoader that knows the name a skill goes by
// however a call spells it (an alias such as namespace:name), so a rule
// naming the skill is not passed by another spelling.
type skillResolver interface {
	ResolveSkill(name string) string
}

// Permission implements Permissioner: the skill's name is the call's
// target, which Skill(name) rules match.
func (t *Skill) Permission(input json.RawMessage, _ *Env) permission.Request {
	var in skillInput
	_ = json.Unmarshal(input, &in) // a garbled input names no skill
	name := strings.TrimPrefix(strings.TrimSpace(in.Skill), "/")
	if r, ok := t.Loader.(skillResolver); ok && name != "" {
		name = r.ResolveSkill(name)
	}
	return permission.Request{Target: name}
}

// Run implements Tool.
func (t *Skill) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in skillInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for Skill: %v", err), nil
	}
	if t.Loader == nil {
		return Errorf("no skills are available in this session"), nil
	}
	return t.Loader.LoadSkill(ctx, in.Skill, in.Args, env)
}
