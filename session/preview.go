package session

import (
	"strings"

	"github.com/nova-dev/nova/llm"
)

// LastExchange returns the transcript's last prompt a person typed (its
// text, without the context nova put ahead of it) and the last text the
// assistant answered after it; "" for either there is none of. /resume's
// preview shows them.
func (t *Transcript) LastExchange() (prompt, answer string) {
	msgs := t.AllMessages()
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Role != llm.RoleUser || IsSummary(m) {
			continue
		}
		text := strings.TrimSpace(WithoutContext(m).Text())
		if text == "" {
			continue // tool results
		}
		for _, a := range msgs[i+1:] {
			if a.Role == llm.RoleAssistant {
				if s := strings.TrimSpace(a.Text()); s != "" {
					answer = s
				}
			}
		}
		return text, answer
	}
	return "", ""
}
