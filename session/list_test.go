package session

import (
	"errors"
	"reflect"
	"testing"

	"github.com/nova-dev/nova/llm"
)

func TestListAndLatest(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	// Created in this order; the clock moves forward at every write.
	a1 := create(t, st, "/proj/a")
	b1 := create(t, st, "/proj/b")
	a2 := create(t, st, "/proj/a/")
	a3 := create(t, st, "/proj/a")
	mustAppend(t, a1, llm.UserText("a1 is touched last")) // a1 becomes the newest

	tests := []struct {
		name   string
		filter Filter
		want   []*Session
	}{
		{"all, newest update first", Filter{}, []*Session{a1, a3, a2, b1}},
		{"one workspace", Filter{Workspace: "/proj/a"}, []*Session{a1, a3, a2}},
		{"workspace path is cleaned", Filter{Workspace: "/proj/b/."}, []*Session{b1}},
		{"limit", Filter{Workspace: "/proj/a", Limit: 2}, []*Session{a1, a3}},
		{"no such workspace", Filter{Workspace: "/elsewhere"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			metas, err := st.List(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []string
			for _, m := range metas {
				got = append(got, m.ID)
			}
			for _, s := range tc.want {
				want = append(want, s.ID())
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("List(%+v) = %v, want %v", tc.filter, got, want)
			}
		})
	}

	latest := []struct {
		workspace string
		want      *Session
	}{{"/proj/a", a1}, {"/proj/b", b1}, {"", a1}}
	for _, tc := range latest {
		m, err := st.Latest(tc.workspace)
		if err != nil || m.ID != tc.want.ID() {
			t.Errorf("Latest(%q) = %s, %v; want %s", tc.workspace, m.ID, err, tc.want.ID())
		}
	}
	if _, err := st.Latest("/elsewhere"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Latest of a workspace without sessions: err = %v, want ErrNotFound", err)
	}
	if m, _ := st.Latest("/proj/a"); m.MessageCount != 1 || m.AgentKey != "build" || m.Model != "claude-test" {
		t.Errorf("listed meta = %+v", m)
	}
}

func TestListEmptyHome(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	metas, err := st.List(Filter{})
	if err != nil || len(metas) != 0 {
		t.Errorf("List on a fresh home = %v, %v; want nothing and no error", metas, err)
	}
}
