package main

// SessionPreview implements tui.SessionPreviewer
// (live.Controller.SessionPreview): /resume's preview.
func (b *interactiveBackend) SessionPreview(id string) (prompt, answer string, err error) {
	return b.ctl.SessionPreview(id)
}
