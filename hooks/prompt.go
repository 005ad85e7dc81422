package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nova-dev/nova/llm"
)

// promptSystem tells the judging model what it is for and what to answer,
// in the schema Claude Code's prompt hooks use.
const promptSystem = `You evaluate one event of a coding assistant's session for a hook its user configured. ` +
	`The user's instructions and the event, as JSON, follow. Answer with one JSON object and nothing else: ` +
	`{"ok": true} when the condition holds or the action may go on, or {"ok": false, "reason": "why, in a sentence"} when it does not. ` +
	`Add "impossible": true to a false answer only when the condition can never be met.`

// promptMaxTokens bounds the judge's answer: a verdict is one line.
const promptMaxTokens = 1024

// runPrompt has the session's model judge the event: the hook's prompt
// with $ARGUMENTS replaced by the event's JSON (appended when the prompt
// has no $ARGUMENTS; \$ stands for a plain $), answered with
// {"ok": true|false, "reason": "..."}. A model that fails, times out or
// answers anything else is a hook that could not answer.
func (e *Engine) runPrompt(ctx context.Context, h *Hook, ev Event, payload []byte) reply {
	if e.s.Client == nil {
		return reply{broken: "cannot run: no model is configured to judge it"}
	}
	limit := timeout(h, ev)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	model := h.Model
	if model == "" {
		model = e.s.Model
	}
	req := llm.Request{Model: model, System: promptSystem, Messages: []llm.Message{llm.UserText(promptText(h.Prompt, string(payload)))},
		MaxTokens: promptMaxTokens}
	var text strings.Builder
	err := e.s.Client.Stream(ctx, req, func(ev llm.StreamEvent) {
		if ev.Type == llm.EventTextDelta {
			text.WriteString(ev.Text)
		}
	})
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return reply{broken: fmt.Sprintf("timed out after %s waiting for the model", seconds(limit))}
	case err != nil:
		return reply{broken: fmt.Sprintf("could not ask the model: %v", err)}
	}
	v, err := parseVerdict(text.String())
	if err != nil {
		return reply{broken: err.Error()}
	}
	return reply{prompt: &v}
}

// promptText is the hook's prompt with the event put in.
func promptText(prompt, event string) string {
	var b strings.Builder
	found := false
	for i := 0; i < len(prompt); i++ {
		switch {
		case prompt[i] == '\\' && i+1 < len(prompt) && prompt[i+1] == '$':
			b.WriteByte('$')
			i++
		case strings.HasPrefix(prompt[i:], "$ARGUMENTS"):
			b.WriteString(event)
			i += len("$ARGUMENTS") - 1
			found = true
		default:
			b.WriteByte(prompt[i])
		}
	}
	if !found {
		b.WriteString("\n\n" + event)
	}
	return b.String()
}

// parseVerdict reads the decision JSON out of the model's answer, which
// may wrap it in prose or a code fence.
func parseVerdict(answer string) (promptVerdict, error) {
	start, end := strings.Index(answer, "{"), strings.LastIndex(answer, "}")
	var v promptVerdict
	if start < 0 || end < start || json.Unmarshal([]byte(answer[start:end+1]), &v) != nil || v.OK == nil {
		a := strings.Join(strings.Fields(answer), " ")
		if len(a) > 200 {
			a = a[:200] + "..."
		}
		return v, fmt.Errorf(`got an answer from the model that is not {"ok": true|false, "reason": ...}: %q`, a)
	}
	return v, nil
}

// agentSystem is an agent hook's task, before the user's prompt: the
// subagent may read and search before it answers, in the prompt hook's
// verdict schema.
const agentSystem = `You verify one event of a coding assistant's session for a hook its user configured. ` +
	`The user's instructions and the event, as JSON, follow. You may read and search the workspace to check them. ` +
	`End with one JSON object and nothing after it: {"ok": true} when the condition holds or the action may go on, ` +
	`or {"ok": false, "reason": "why, in a sentence"} when it does not.`

// runAgent has a subagent judge the event (Session.Judge): a prompt hook
// that can look at the files first. Like a prompt hook, one that fails,
// times out or answers anything but the verdict could not answer.
func (e *Engine) runAgent(ctx context.Context, h *Hook, ev Event, payload []byte) reply {
	if e.s.Judge == nil {
		return reply{broken: "cannot run: this session has no subagents to judge it (its model has no tools)"}
	}
	limit := timeout(h, ev)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	answer, err := e.s.Judge(ctx, agentSystem+"\n\n"+promptText(h.Prompt, string(payload)), h.Model)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return reply{broken: fmt.Sprintf("timed out after %s waiting for the subagent", seconds(limit))}
	case err != nil:
		return reply{broken: fmt.Sprintf("the subagent could not judge it: %v", err)}
	}
	v, err := parseVerdict(answer)
	if err != nil {
		return reply{broken: err.Error()}
	}
	return reply{prompt: &v}
}
