package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools/display"
)

// ModeSwitch reads and changes the session's permission mode. The
// permission.Checker satisfies it; the plan-mode tools go through it so that
// the checker, the one decision point, is what makes plan mode read-only.
type ModeSwitch interface {
	Mode() permission.Mode
	SetMode(permission.Mode)
}

// The choices of the approval question. A frontend returns the label of the
// option picked, or the person's own words.
const (
	planAcceptEdits = "Yes, and accept edits"
	planAskEdits    = "Yes, ask before each edit"
	planKeep        = "No, keep planning"
)

// planUnavailable is the answer of both tools when the session has no mode
// to switch (a subagent or an embedding that did not wire one).
const planUnavailable = "Plan mode is not available in this session. Do not call EnterPlanMode or ExitPlanMode again; work on the task directly, or describe your plan in your reply."

// EnterPlanMode switches the session to plan mode: read-only research until
// a plan is approved with ExitPlanMode.
type EnterPlanMode struct{ Input[struct{}] }

// Name implements Tool.
func (*EnterPlanMode) Name() string { return "EnterPlanMode" }

// Kind implements Tool: it changes session state, not files.
func (*EnterPlanMode) Kind() permission.Kind { return permission.KindOther }

// Description implements Tool.
func (*EnterPlanMode) Description() string {
	return `Use this tool when you meet a complex task that needs careful planning and exploration before implementation. It switches the session to plan mode, where you explore the codebase and design an approach; nothing can be edited and no command with side effects can run until the user approves your plan.

When to use it — any of:
1. Several valid approaches: the task can be solved in meaningfully different ways and the choice matters.
2. Significant architectural decisions: new patterns, libraries, data models or interfaces.
3. Large changes: the work touches many files or systems.
4. Unclear requirements: you need to explore before you understand what is wanted.
5. The user asks you to plan first, or you want the user's sign-off before writing code.

When NOT to use it:
- Simple, straightforward tasks (a typo, a small bug fix, a one-function change).
- Tasks where the user has already given very specific, step-by-step instructions.
- Pure research or questions about the code, where nothing will be changed.

In plan mode:
1. Explore thoroughly with read-only tools (Read, Glob, Grep, LS, read-only Bash commands).
2. Understand the existing patterns and architecture.
3. Use AskUserQuestion when a choice needs the user.
4. Design the approach, then present it with ExitPlanMode; edit only after it is approved.`
}

// Run implements Tool.
func (*EnterPlanMode) Run(_ context.Context, _ json.RawMessage, env *Env) (Result, error) {
	if env.Modes == nil {
		return Errorf("%s", planUnavailable), nil
	}
	disp := display.OfPlan(display.Plan{Mode: string(permission.ModePlan)})
	if env.Modes.Mode() == permission.ModePlan {
		return Result{Output: "You are already in plan mode. Keep researching with read-only tools, then present your plan with ExitPlanMode.", Display: disp}, nil
	}
	env.Modes.SetMode(permission.ModePlan)
	return Result{Output: `Entered plan mode. You can now only read: file edits and commands with side effects are denied until the user approves a plan.

In plan mode you should:
1. Explore the codebase thoroughly with read-only tools to understand the task and the existing patterns.
2. Ask the user with AskUserQuestion when a choice needs them.
3. Design a concrete implementation approach: the files to change and how, and how to verify it.
4. Present the plan with ExitPlanMode when it is ready. Do not edit anything before it is approved.`, Display: disp}, nil
}

// ExitPlanMode presents a plan for approval and, when a person approves
// it, leaves plan mode so editing can start.
type ExitPlanMode struct{ Input[exitPlanInput] }

type exitPlanInput struct {
	Plan string `json:"plan" jsonschema:"The plan you came up with, that you want the user to approve. Supports Markdown. Keep it concise."`
}

// tuneSchema refuses an empty plan.
func (exitPlanInput) tuneSchema(s *jsonschema.Schema) { prop(s, "plan").MinLength = jsonschema.Ptr(1) }

// Name implements Tool.
func (*ExitPlanMode) Name() string { return "ExitPlanMode" }

// Kind implements Tool: it talks to the user and changes session state.
// Kind other is what keeps it allowed in plan mode, where it is needed most.
func (*ExitPlanMode) Kind() permission.Kind { return permission.KindOther }

// Description implements Tool.
func (*ExitPlanMode) Description() string {
	return `Use this tool when you are in plan mode and have finished planning, to present your plan to the user for approval. It asks the user; if they approve, plan mode ends and you may start editing.

IMPORTANT: Only use this tool when the task requires planning the implementation steps of a task that requires writing code. For research tasks where you are gathering information, searching or reading files, or trying to understand the codebase, do NOT use this tool: just answer.

Examples:
1. "Search for and understand the implementation of vim mode in the codebase": do not use ExitPlanMode; you are not planning implementation steps.
2. "Help me implement yank mode for vim": use ExitPlanMode once you have finished planning the implementation steps.

The plan is Markdown: concise, but specific enough to act on (the files to change, the approach, how to verify it). Resolve open questions with AskUserQuestion before presenting it. If the user does not approve, you stay in plan mode: revise the plan with their feedback and present it again. If nobody can approve it (a non-interactive session), stop and give the plan as your final answer.`
}

// Run implements Tool.
func (*ExitPlanMode) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in exitPlanInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for ExitPlanMode: %v", err), nil
	}
	plan := strings.TrimSpace(in.Plan)
	if plan == "" {
		return Errorf("plan is empty: give the plan, in Markdown, that the user should approve"), nil
	}
	if env.Modes == nil {
		return Errorf("%s", planUnavailable), nil
	}
	mode := env.Modes.Mode()
	if mode != permission.ModePlan {
		// Asking would be theatre: outside plan mode the checker already
		// governs edits, and approving must not loosen the user's mode.
		return Result{Output: fmt.Sprintf("You are not in plan mode (the permission mode is %s), so there is nothing to approve. Carry on with the task.", mode),
			Display: display.OfPlan(display.Plan{Plan: plan, Mode: string(mode)})}, nil
	}
	notApproved := display.OfPlan(display.Plan{Plan: plan, Mode: string(permission.ModePlan)})
	if env.Ask == nil {
		return Result{Output: "The plan was not approved: nobody can approve it in this mode (the session is not interactive), and you are still in plan mode, so nothing can be edited. Do not call ExitPlanMode again. Stop here and give the plan as your final answer.",
			Display: notApproved}, nil
	}
	answers, err := env.Ask.AskQuestions(ctx, []Question{{
		Question: "Approve this plan and start editing?\n\n" + plan,
		Header:   "Plan",
		Options:  []Option{{Label: planAcceptEdits}, {Label: planAskEdits}, {Label: planKeep}},
	}})
	if ctx.Err() != nil {
		return Result{}, fmt.Errorf("ask the user to approve the plan: %w", ctx.Err())
	}
	if err != nil {
		return Result{Output: fmt.Sprintf("The plan was not approved: the user did not answer (%v). You are still in plan mode. Ask the user how to proceed, or refine the plan and present it again with ExitPlanMode.", err),
			Display: notApproved}, nil
	}
	answer := ""
	if len(answers) > 0 {
		answer = strings.TrimSpace(answers[0])
	}
	var next permission.Mode
	switch {
	case strings.EqualFold(answer, planAcceptEdits):
		next = permission.ModeAcceptEdits
	case strings.EqualFold(answer, planAskEdits):
		next = permission.ModeDefault
	case answer == "" || strings.EqualFold(answer, planKeep):
		return Result{Output: "The user did not approve the plan and wants to keep planning. You are still in plan mode: keep researching, ask the user what to change if it is unclear, and present a revised plan with ExitPlanMode.",
			Display: notApproved}, nil
	default:
		return Result{Output: "The user did not approve the plan and said:\n" + answer + "\n\nYou are still in plan mode: revise the plan with this feedback and present it again with ExitPlanMode.",
			Display: notApproved}, nil
	}
	env.Modes.SetMode(next)
	how := "file edits inside the workspace run without asking"
	if next == permission.ModeDefault {
		how = "the user is asked before each edit"
	}
	return Result{Output: fmt.Sprintf("Your plan was approved; you may now edit. The permission mode is now %s (%s). Start with updating your todo list if applicable, then carry out the plan.", next, how),
		Display: display.OfPlan(display.Plan{Plan: plan, Approved: true, Mode: string(next)})}, nil
}
