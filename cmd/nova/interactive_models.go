package main

import "github.com/nova-dev/nova/tui"

// The TUI finds /model's dialog by type assertion.
var _ tui.ModelCatalog = (*interactiveBackend)(nil)

// ModelEntries implements tui.ModelCatalog: the models Models lists, each
// named and priced, the model in use among them
// (live.Controller.ModelEntries).
func (b *interactiveBackend) ModelEntries() []tui.ModelEntry {
	entries, def := b.ctl.ModelEntries()
	out := make([]tui.ModelEntry, 0, len(entries))
	for _, e := range entries {
		te := tui.ModelEntry{ID: e.ID, Name: e.Name, Alias: e.Alias, ContextWindow: e.ContextWindow, Default: e.ID == def}
		if e.Priced {
			te.Price = e.Price.Short()
		}
		out = append(out, te)
	}
	return out
}

// SetDefaultModel implements tui.ModelCatalog
// (live.Controller.SetDefaultModel). NOVA_MODEL, when set, still comes
// first.
func (b *interactiveBackend) SetDefaultModel(id string) (string, error) {
	file, err := b.ctl.SetDefaultModel(id)
	if err != nil {
		return "", err
	}
	where := "default_model in " + displayDir(file, b.runtime().Home)
	if env := b.io.Getenv("NOVA_MODEL"); env != "" {
		where += "; NOVA_MODEL=" + env + " still comes first where it is set"
	}
	return where, nil
}
