package live

import (
	"context"
	"fmt"

	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/session"
)

// selectResumed is SelectModel for a runtime that resumes a session with
// no model named (--model, /model): the session goes on with the model it
// last used (its meta's, which a /model switch records), ahead of
// NOVA_MODEL and default_model, as a person who chose a model for a
// session expects it back with `nova -c`. A model no longer configured
// falls back to the usual choice, with a warning that says so.
func selectResumed(ctx context.Context, o Options, file *config.File) (config.Selection, []string, error) {
	prev := resumedModel(o)
	if prev == "" {
		return chooseModel(ctx, o, file)
	}
	with := o
	with.Model = prev
	sel, warns, err := SelectModel(ctx, with, file)
	if err == nil {
		return sel, warns, nil
	}
	sel, warns, err2 := chooseModel(ctx, o, file)
	if err2 != nil {
		return sel, warns, err2
	}
	return sel, append(warns, fmt.Sprintf("the session used %s, which is not available now (%v): it goes on with %s", prev, err, sel.ID())), nil
}

// resumedModel is the model recorded by the session o resumes, or "" when
// o starts a new one, names a model, or the session cannot be read (the
// resume itself then says why).
func resumedModel(o Options) string {
	if o.Model != "" || (o.Resume == "" && !o.Continue) {
		return ""
	}
	store := session.NewStore(o.NovaHome)
	if o.Resume == "" {
		meta, err := store.Latest(o.Workdir)
		if err != nil {
			return ""
		}
		return meta.Model
	}
	id, err := store.Resolve(o.Resume)
	if err != nil {
		return ""
	}
	t, _, err := store.Load(id)
	if err != nil {
		return ""
	}
	return t.Meta.Model
}

// recordModel notes in the session the model it goes on with when that
// is not the one it last recorded (a /model switch, --model on a resume),
// so the next resume takes it up.
func (rt *Runtime) recordModel(sel config.Selection) {
	if rt.Session.Meta().Model != sel.ID() {
		if err := rt.Session.SetModel(sel.ID()); err != nil {
			rt.Warnings = append(rt.Warnings, fmt.Sprintf("the session's model could not be recorded (a resume may take another): %v", err))
		}
	}
}
