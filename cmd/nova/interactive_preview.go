package main

import "github.com/nova-dev/nova/session"

// SessionPreview implements tui.SessionPreviewer: the last exchange of a
// session of this directory, for /resume's preview.
func (b *interactiveBackend) SessionPreview(id string) (prompt, answer string, err error) {
	t, _, err := session.NewStore(b.runtime().NovaHome).Load(id)
	if err != nil {
		return "", "", err
	}
	prompt, answer = t.LastExchange()
	return prompt, answer, nil
}
