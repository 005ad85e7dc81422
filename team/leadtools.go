package team

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// LeadTools are the lead's tools: every member's, and starting teammates
// and merging their work.
func LeadTools(l *Lead) []tools.Tool {
	return append(MemberTools(&Self{Team: l.Team, Name: LeadName}), &TeamSpawn{Lead: l}, &TeamMerge{Lead: l})
}

// TeamSpawn starts a teammate.
type TeamSpawn struct {
	tools.Input[spawnInput]
	Lead *Lead
}

type spawnInput struct {
	Name   string `json:"name" jsonschema:"The teammate's name, how messages and the board call it: letters, digits, '.', '_' or '-' (\"parser\", \"tests-1\")"`
	Prompt string `json:"prompt" jsonschema:"The teammate's first instructions: the task in full, what to read, how to know it is done. It does not see your conversation"`
	Model  string `json:"model,omitempty" jsonschema:"The model it runs (\"provider:model\"); yours when left out"`
}

// Name implements tools.Tool.
func (*TeamSpawn) Name() string { return "TeamSpawn" }

// Kind implements tools.Tool: the teammate runs under the lead's checks.
func (*TeamSpawn) Kind() permission.Kind { return permission.KindOther }

// Description implements tools.Tool.
func (*TeamSpawn) Description() string {
	return `Starts a teammate: a separate nova agent working in its own git worktree of this repository, on its own branch (nova/team/<team>/<name>), with your permission rules, sandbox and hooks. It runs in the background; this call returns once it has started.

- Its first prompt is prompt; later, each SendMessage to it is its next prompt. Its answer at the end of each of its turns comes to you as a message.
- Teammates share the task board (TaskCreate, TaskList, TaskUpdate): create tasks, and tell teammates which to claim.
- A teammate commits its work on its branch; merge it with TeamMerge when it reports done.
- Give each teammate an independent part of the work: they edit separate worktrees, and conflicting edits only meet at merge time.`
}

// Run implements tools.Tool.
func (t *TeamSpawn) Run(ctx context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	var in spawnInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input for TeamSpawn: %v", err), nil
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return tools.Errorf("the teammate needs a prompt: its task in full"), nil
	}
	m, err := t.Lead.Spawn(ctx, in.Name, in.Prompt, in.Model)
	if err != nil {
		return tools.Errorf("teammate not started: %v", err), nil
	}
	return tools.Result{Output: fmt.Sprintf("Teammate %s started (pid %d) in %s on branch %s. Its answers will come to you as messages; merge its branch with TeamMerge when it is done.",
		m.Name, m.PID, m.Worktree, m.Branch)}, nil
}

// TeamMerge merges a teammate's branch.
type TeamMerge struct {
	tools.Input[mergeInput]
	Lead *Lead
}

type mergeInput struct {
	Name string `json:"name" jsonschema:"The teammate whose branch to merge"`
}

// Name implements tools.Tool.
func (*TeamMerge) Name() string { return "TeamMerge" }

// Kind implements tools.Tool: it changes the lead's files, as an edit does.
func (*TeamMerge) Kind() permission.Kind { return permission.KindEdit }

// Description implements tools.Tool.
func (*TeamMerge) Description() string {
	return `Merges a teammate's branch into your current branch (git merge --no-ff). Only what the teammate committed is merged.

On a conflict the merge is aborted, your branch is left as it was, and the conflicting files are listed: resolve it by asking the teammate to rebase or change its work, or merge by hand. A merge is never forced.`
}

// Run implements tools.Tool.
func (t *TeamMerge) Run(ctx context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	var in mergeInput
	if err := json.Unmarshal(input, &in); err != nil {
		return tools.Errorf("invalid input for TeamMerge: %v", err), nil
	}
	r, err := t.Lead.Merge(ctx, in.Name)
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	note := ""
	if r.Uncommitted {
		note = fmt.Sprintf("\nNote: %s's worktree has uncommitted changes; they are not merged (ask it to commit them).", in.Name)
	}
	switch {
	case len(r.Conflicts) > 0:
		return tools.Errorf("Merging %s's branch conflicted in: %s. The merge was aborted; your branch is unchanged.%s",
			in.Name, strings.Join(r.Conflicts, ", "), note), nil
	case !r.Merged:
		return tools.Result{Output: fmt.Sprintf("Nothing to merge: %s's branch has no commits your branch lacks.%s", in.Name, note)}, nil
	}
	return tools.Result{Output: fmt.Sprintf("Merged %s's branch.\n%s%s", in.Name, r.Output, note)}, nil
}
