package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/session"
)

// titlePrompt is the system prompt of the title call.
const titlePrompt = `You name conversations between a person and a coding assistant. Reply with a title of 3 to 7 words that says what the person wants done, like "Fix flaky parser test" or "Add CSV export to reports". Reply with the title only: no quotes, no punctuation at the end, no explanation.`

// Limits of the title call. The clips keep it cheap however long the
// first exchange was; the title needs its gist, not its detail.
const (
	titleMaxTokens = 30
	titlePromptMax = 2000 // characters of the first prompt sent
	titleAnswerMax = 1000 // characters of the first answer sent
	titleMaxChars  = 60
	titleMaxWords  = 7
)

// Title asks the session's model for a short title of the conversation,
// from its first prompt and first answer. It is one small call without
// tools or thinking; its tokens count toward the session's usage. It
// fails when the model answers nothing usable, and leaves the
// conversation as it was either way.
func (a *Agent) Title(ctx context.Context) (string, error) {
	a.mu.Lock()
	hist := append([]llm.Message(nil), a.history...)
	a.mu.Unlock()
	prompt, answer := firstExchange(hist)
	if prompt == "" {
		return "", errors.New("title: no prompt to name the conversation after")
	}
	var b strings.Builder
	b.WriteString("<first-prompt>\n")
	b.WriteString(clipText(prompt, titlePromptMax))
	b.WriteString("\n</first-prompt>")
	if answer != "" {
		b.WriteString("\n<first-answer>\n")
		b.WriteString(clipText(answer, titleAnswerMax))
		b.WriteString("\n</first-answer>")
	}
	b.WriteString("\n\nTitle this conversation.")
	req := llm.Request{
		Model:     a.cfg.Model,
		System:    titlePrompt,
		Messages:  []llm.Message{llm.UserText(b.String())},
		MaxTokens: titleMaxTokens,
	}
	text, usage, err := a.completeText(ctx, req, nil)
	a.count(usage)
	if err != nil {
		return "", fmt.Errorf("title: %w", err)
	}
	title := cleanTitle(text)
	if title == "" {
		return "", errors.New("title: the model returned no title")
	}
	return title, nil
}

// FirstPrompt is the text the person typed first in this conversation,
// without the context message nova put ahead of it; "" before the first
// run. Frontends name a session after it when no model title is made.
func (a *Agent) FirstPrompt() string {
	a.mu.Lock()
	hist := append([]llm.Message(nil), a.history...)
	a.mu.Unlock()
	p, _ := firstExchange(hist)
	return p
}

// firstExchange returns the text of the first prompt and the last answer
// text of the first run (the answer the person read, after any tool
// rounds).
func firstExchange(hist []llm.Message) (prompt, answer string) {
	start := -1
	for i, m := range hist {
		if isTurnStart(m) {
			start = i
			break
		}
	}
	if start < 0 {
		return "", ""
	}
	prompt = promptText(hist[start])
	for _, m := range hist[start+1:] {
		if isTurnStart(m) {
			break
		}
		if t := strings.TrimSpace(m.Text()); m.Role == llm.RoleAssistant && t != "" {
			answer = t
		}
	}
	return prompt, answer
}

// promptText is what the person wrote in a user message: the context
// message (<environment> and the instruction files with it) is nova's
// (session.WithoutContext), and "!cmd" output rides along only when
// nothing else was typed.
func promptText(m llm.Message) string {
	var typed, shell []string
	for _, p := range session.WithoutContext(m).Parts {
		t := strings.TrimSpace(p.Text)
		switch {
		case p.Type != llm.PartText || t == "":
		case strings.HasPrefix(t, "<mcp-resource"):
			// An attached resource is the server's text, not the person's.
		case strings.HasPrefix(t, "<shell-command>"):
			shell = append(shell, t)
		default:
			typed = append(typed, t)
		}
	}
	if len(typed) == 0 {
		typed = shell
	}
	return strings.Join(typed, "\n\n")
}

// clipText cuts s to at most n characters (runes), marking the cut.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// cleanTitle makes the model's reply a title: its first non-blank line
// without a "Title:" label, markdown marks, quotes or a closing full stop,
// at most titleMaxWords words and titleMaxChars characters, cut between
// words.
func cleanTitle(s string) string {
	line := ""
	for l := range strings.SplitSeq(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	// Quotes, markdown marks (* # _ `) and end punctuation go from both
	// ends; a closing parenthesis is part of the title.
	trim := func(r rune) bool {
		return unicode.IsSpace(r) || r == '`' || unicode.IsPunct(r) && r != ')'
	}
	line = strings.TrimFunc(line, trim)
	if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimFunc(k, trim), "title") {
		line = strings.TrimFunc(v, trim)
	}
	words := strings.Fields(line)
	if len(words) > titleMaxWords {
		words = words[:titleMaxWords]
	}
	title := ""
	for _, w := range words {
		next := strings.TrimSpace(title + " " + w)
		if len([]rune(next)) > titleMaxChars {
			if title == "" {
				title = string([]rune(w)[:titleMaxChars])
			}
			break
		}
		title = next
	}
	return strings.TrimRightFunc(title, trim)
}
