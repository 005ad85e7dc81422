package session

import (
	"errors"
	"testing"
)

// TestCreateWithID: a new session takes the id it is given (Claude
// Code's --session-id), once; an id that is none is refused.
func TestCreateWithID(t *testing.T) {
	t.Parallel()
	st := NewStore(t.TempDir())
	const id = "0BHSZN4V0X99ZRS4GAAS4CE7SV"
	s, err := st.Create(Meta{ID: id, WorkspaceDir: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != id {
		t.Errorf("id %s, want %s", s.ID(), id)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(Meta{ID: id}); !errors.Is(err, ErrExists) {
		t.Errorf("the same id again: %v, want ErrExists", err)
	}
	if _, err := st.Create(Meta{ID: "../escape"}); err == nil {
		t.Error("an id that is no session id was taken")
	}
	tr, _, err := st.Load(id)
	if err != nil || tr.Meta.ID != id {
		t.Errorf("load %s: %v %+v", id, err, tr)
	}
}
