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

// AskUserQuestion puts multiple-choice questions to the user through the
// frontend and returns the answers.
type AskUserQuestion struct{ Input[askUserInput] }

type askUserInput struct {
	Questions []Question `json:"questions" jsonschema:"Questions to ask the user (1-4 questions)"`
}

// tuneSchema bounds the lists and requires a header, which Question
// leaves out of its JSON when empty.
func (askUserInput) tuneSchema(s *jsonschema.Schema) {
	qs := prop(s, "questions")
	qs.MinItems, qs.MaxItems = jsonschema.Ptr(1), jsonschema.Ptr(4)
	q := qs.Items
	if q == nil {
		return
	}
	q.Required = []string{"question", "header", "options"}
	prop(q, "question").MinLength = jsonschema.Ptr(1)
	opts := prop(q, "options")
	opts.MinItems, opts.MaxItems = jsonschema.Ptr(2), jsonschema.Ptr(4)
	if opts.Items != nil {
		prop(opts.Items, "label").MinLength = jsonschema.Ptr(1)
	}
}

// Name implements Tool.
func (*AskUserQuestion) Name() string { return "AskUserQuestion" }

// Kind implements Tool: it only talks to the user.
func (*AskUserQuestion) Kind() permission.Kind { return permission.KindOther }

// Description implements Tool.
func (*AskUserQuestion) Description() string {
	return `Use this tool when you need to ask the user questions during execution. This allows you to:
1. Gather user preferences or requirements
2. Clarify ambiguous instructions
3. Get decisions on implementation choices as you work
4. Offer choices to the user about what direction to take.

Usage notes:
- Ask 1 to 4 questions at once. Each has a short header (a chip label, at most 12 characters, e.g. "Auth method"), the question itself (clear, ending with "?"), and 2 to 4 options, each with a concise label (1-5 words) and a description of what it means or implies.
- Set multiSelect: true when several options may be chosen together.
- Users can always answer in their own words instead of picking an option, so do not add an "Other" option.
- If you recommend an option, put it first and add "(Recommended)" to its label.
- In a non-interactive session nobody can answer: the result says so, and you should proceed with your best judgement and state your assumptions.`
}

// Run implements Tool.
func (*AskUserQuestion) Run(ctx context.Context, input json.RawMessage, env *Env) (Result, error) {
	var in askUserInput
	if err := json.Unmarshal(input, &in); err != nil {
		return Errorf("invalid input for AskUserQuestion: %v", err), nil
	}
	if err := askUserValidate(in.Questions); err != nil {
		return Errorf("%v", err), nil
	}
	if env.Ask == nil {
		return Result{Output: "Nobody can answer questions in this mode (the session is not interactive). Do not ask again: proceed with your best judgement, choose the option you would recommend for each question, and state the assumptions you made in your final answer."}, nil
	}
	answers, err := env.Ask.AskQuestions(ctx, in.Questions)
	if ctx.Err() != nil {
		return Result{}, fmt.Errorf("ask the user: %w", ctx.Err())
	}
	if err != nil {
		return Errorf("The user did not answer (%v). Proceed with your best judgement and state your assumptions, or ask again if you cannot go on without an answer.", err), nil
	}
	var b strings.Builder
	b.WriteString("The user answered your questions:\n")
	for i, q := range in.Questions {
		a := "(no answer)"
		if i < len(answers) && strings.TrimSpace(answers[i]) != "" {
			a = answers[i]
		}
		fmt.Fprintf(&b, "%s → %s\n", q.Question, a)
	}
	b.WriteString("Continue with these answers in mind.")
	return Result{Output: b.String(), Display: questionsDisplay(in.Questions, answers)}, nil
}

// questionsDisplay pairs each question with its answer for frontends.
func questionsDisplay(qs []Question, answers []string) *display.Display {
	q := display.Questions{Questions: make([]string, len(qs)), Answers: make([]string, len(qs))}
	for i, x := range qs {
		q.Questions[i] = x.Question
		if i < len(answers) {
			q.Answers[i] = answers[i]
		}
	}
	return display.OfQuestions(q)
}

// askUserValidate checks what the schema cannot: distinct questions and
// distinct option labels, so answers map back unambiguously.
func askUserValidate(qs []Question) error {
	if len(qs) < 1 || len(qs) > 4 {
		return fmt.Errorf("ask 1 to 4 questions, not %d", len(qs))
	}
	seen := map[string]bool{}
	for i, q := range qs {
		text := strings.TrimSpace(q.Question)
		if text == "" {
			return fmt.Errorf("questions[%d]: question is empty", i)
		}
		if seen[text] {
			return fmt.Errorf("questions[%d]: %q is asked twice; questions must be distinct", i, text)
		}
		seen[text] = true
		if len(q.Options) < 2 || len(q.Options) > 4 {
			return fmt.Errorf("questions[%d] (%q): give 2 to 4 options, not %d", i, text, len(q.Options))
		}
		labels := map[string]bool{}
		for j, o := range q.Options {
			l := strings.TrimSpace(o.Label)
			if l == "" {
				return fmt.Errorf("questions[%d].options[%d]: label is empty", i, j)
			}
			if labels[l] {
				return fmt.Errorf("questions[%d] (%q): option %q appears twice", i, text, l)
			}
			labels[l] = true
		}
	}
	return nil
}
