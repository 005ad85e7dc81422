package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// reply is what one hook run produced.
type reply struct {
	code           int    // exit code; 0 for an http or prompt hook that answered
	stdout, stderr string // stdout is an http hook's body
	// broken says why the hook could not answer: it timed out, could not
	// start, was killed, could not be reached. On a guard event that
	// blocks.
	broken string
	// body says stdout is an http body: it is JSON output or an error,
	// never plain-text context.
	body bool
	// prompt is a prompt hook's verdict.
	prompt *promptVerdict
}

// promptVerdict is the decision JSON of a prompt hook's model.
type promptVerdict struct {
	OK         *bool  `json:"ok"`
	Reason     string `json:"reason"`
	Impossible bool   `json:"impossible"`
}

// jsonOutput is Claude Code's JSON output of a hook.
type jsonOutput struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	// Decision and Reason are the top-level decision: "block" (and, on
	// PreToolUse, the deprecated "approve").
	Decision string    `json:"decision"`
	Reason   string    `json:"reason"`
	Specific *specific `json:"hookSpecificOutput"`
}

type specific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
	UpdatedToolOutput        json.RawMessage `json:"updatedToolOutput"`
	// Decision is PermissionRequest's.
	Decision *struct {
		Behavior     string          `json:"behavior"`
		UpdatedInput json.RawMessage `json:"updatedInput"`
		Message      string          `json:"message"`
		Interrupt    bool            `json:"interrupt"`
	} `json:"decision"`
}

// maxContext is Claude Code's cap on a hook's context and messages.
const maxContext = 10_000

// parseOutput reads stdout as Claude Code does: text that starts with "{"
// and ends with "}" is JSON output (and an error when it does not parse
// or fit the schema); anything else is plain text.
func parseOutput(ev Event, stdout string) (out *jsonOutput, plain string, err error) {
	t := strings.TrimSpace(stdout)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return nil, t, nil
	}
	dec := json.NewDecoder(strings.NewReader(t))
	out = &jsonOutput{}
	if err := dec.Decode(out); err != nil {
		return nil, "", fmt.Errorf("its JSON output does not parse or fit the schema: %v", err)
	}
	if dec.More() {
		return nil, "", fmt.Errorf("its output holds more than one JSON object")
	}
	if s := out.Specific; s != nil && s.HookEventName != string(ev) {
		return nil, "", fmt.Errorf("hookSpecificOutput.hookEventName is %q, want %q", s.HookEventName, ev)
	}
	if s := out.Specific; s != nil && s.UpdatedInput != nil && !isObject(s.UpdatedInput) {
		return nil, "", fmt.Errorf("hookSpecificOutput.updatedInput is not an object")
	}
	return out, "", nil
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

// capped keeps s under Claude Code's 10,000-character cap, saying what
// was cut.
func capped(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxContext {
		return s
	}
	return s[:maxContext] + fmt.Sprintf("\n[... nova cut this hook output at %d of its %d characters]", maxContext, len(s))
}

// reminder wraps text for the model as Claude Code does: a system
// reminder that starts with the hook's name.
func reminder(label, what, text string) string {
	return "<system-reminder>\n" + label + " hook " + what + ": " + capped(text) + "\n</system-reminder>"
}

// firstLine is the first non-empty line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
