package session

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

func TestRoundTripEveryRecordType(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	ws := t.TempDir()
	s := create(t, st, ws)
	id := s.ID()
	if fi, err := os.Stat(s.SpillDir()); err != nil || !fi.IsDir() {
		t.Fatalf("SpillDir %s does not exist: %v", s.SpillDir(), err)
	}
	if want := filepath.Join(st.Dir(id), "tool-results"); s.SpillDir() != want {
		t.Errorf("SpillDir = %s, want %s", s.SpillDir(), want)
	}

	msgs := []llm.Message{
		llm.UserText("list the files"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{
			{Type: llm.PartThinking, Text: "use ls", Signature: "sig"},
			llm.TextPart("Let me look."),
			{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_1", Name: "Bash", Input: []byte(`{"command":"ls"}`)}},
		}},
		toolResult("call_1", "Bash", "a.go\nb.go", false),
		{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartImage, MediaType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}},
	}
	mustAppend(t, s, msgs[:2]...)
	if err := s.AppendDecision("call_1", "Bash", allow()); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, msgs[2:]...)
	turns := []llm.Usage{{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 5, CacheWriteTokens: 7}, {InputTokens: 50, OutputTokens: 10}}
	for _, u := range turns {
		if err := s.AppendUsage(u); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetTitle("List the files"); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendCompaction("", "we listed files", msgs[2:3]); err != nil {
		t.Fatal(err)
	}
	before := s.Meta()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	wantUsage := llm.Usage{InputTokens: 150, OutputTokens: 30, CacheReadTokens: 5, CacheWriteTokens: 7}
	check := func(name string, tr *Transcript, warns []Warning) {
		t.Helper()
		if len(warns) != 0 {
			t.Errorf("%s: warnings %v", name, warns)
		}
		if !reflect.DeepEqual(tr.AllMessages(), msgs) {
			t.Errorf("%s: AllMessages differ:\n got %+v\nwant %+v", name, tr.AllMessages(), msgs)
		}
		m := tr.Meta
		if m.ID != id || m.Title != "List the files" || m.WorkspaceDir != ws || m.AgentKey != "build" || m.Model != "claude-test" || m.MessageCount != 4 || m.Usage != wantUsage {
			t.Errorf("%s: meta = %+v", name, m)
		}
		if !m.UpdatedAt.Equal(before.UpdatedAt) || !m.CreatedAt.Equal(before.CreatedAt) || !m.UpdatedAt.After(m.CreatedAt) {
			t.Errorf("%s: times = %v / %v, want %v / %v", name, m.CreatedAt, m.UpdatedAt, before.CreatedAt, before.UpdatedAt)
		}
		var types []RecordType
		var dec *Decision
		for _, r := range tr.Records {
			types = append(types, r.Type)
			if r.V != SchemaVersion {
				t.Errorf("%s: record %s has version %d", name, r.Type, r.V)
			}
			if r.Decision != nil {
				dec = r.Decision
			}
		}
		wantTypes := []RecordType{RecordSession, RecordMessage, RecordMessage, RecordDecision, RecordMessage, RecordMessage, RecordUsage, RecordUsage, RecordTitle, RecordCompaction}
		if !reflect.DeepEqual(types, wantTypes) {
			t.Errorf("%s: record types %v, want %v", name, types, wantTypes)
		}
		if dec == nil || dec.CallID != "call_1" || dec.Tool != "Bash" || !reflect.DeepEqual(dec.Decision, allow()) {
			t.Errorf("%s: decision = %+v", name, dec)
		}
	}

	tr, warns, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	check("Load", tr, warns)

	s2, warns, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	check("Open", s2.Transcript(), warns)
	if s2.Meta() != tr.Meta {
		t.Errorf("Open meta %+v != Load meta %+v", s2.Meta(), tr.Meta)
	}
	listed, err := st.List(Filter{})
	if err != nil || len(listed) != 1 || listed[0] != tr.Meta {
		t.Errorf("List = %+v, %v; want [%+v]", listed, err, tr.Meta)
	}
	// Usage keeps accumulating across a resume.
	if err := s2.AppendUsage(llm.Usage{InputTokens: 1}); err != nil {
		t.Fatal(err)
	}
	if got := s2.Meta().Usage.InputTokens; got != 151 {
		t.Errorf("usage after resume = %d, want 151", got)
	}
}

func TestCompactionBoundary(t *testing.T) {
	t.Parallel()
	u := func(s string) llm.Message { return llm.UserText(s) }
	a := func(s string) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart(s)}}
	}
	type step struct {
		msg          *llm.Message
		ctx, summary string
		kept         []llm.Message
	}
	m := func(x llm.Message) step { return step{msg: &x} }
	compact := func(sum string, kept ...llm.Message) step { return step{summary: sum, kept: kept} }
	ctxCompact := func(ctx, sum string, kept ...llm.Message) step { return step{ctx: ctx, summary: sum, kept: kept} }
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"no boundary", []step{m(u("1")), m(a("2")), m(u("3"))},
			[]string{"user:1", "assistant:2", "user:3"}},
		{"summary, kept, later", []step{m(u("1")), m(a("2")), m(u("3")), m(a("4")), compact("S1", u("3"), a("4")), m(u("5")), m(a("6"))},
			[]string{"user:" + summaryPreamble + "S1", "user:3", "assistant:4", "user:5", "assistant:6"}},
		{"nothing kept", []step{m(u("1")), m(a("2")), compact("S1"), m(u("3"))},
			[]string{"user:" + summaryPreamble + "S1", "user:3"}},
		{"last boundary wins", []step{m(u("1")), compact("S1", u("1")), m(a("2")), m(u("3")), compact("S2", u("3")), m(a("4"))},
			[]string{"user:" + summaryPreamble + "S2", "user:3", "assistant:4"}},
		// The context message rides ahead of the summary, a part of its own.
		{"context kept apart", []step{m(u("1")), m(a("2")), ctxCompact(ContextTag+"E</environment>", "S1"), m(u("3"))},
			[]string{"user:" + ContextTag + "E</environment>" + summaryPreamble + "S1", "user:3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			s := create(t, st, "/ws")
			var all []string
			for _, sp := range tc.steps {
				if sp.msg != nil {
					mustAppend(t, s, *sp.msg)
					all = append(all, texts([]llm.Message{*sp.msg})...)
				} else if err := s.AppendCompaction(sp.ctx, sp.summary, sp.kept); err != nil {
					t.Fatal(err)
				}
			}
			if got := texts(s.Messages()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("live Messages() = %q, want %q", got, tc.want)
			}
			s.Close()
			s2, _, err := st.Open(s.ID())
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if got := texts(s2.Messages()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("resumed Messages() = %q, want %q", got, tc.want)
			}
			if got := texts(s2.AllMessages()); !reflect.DeepEqual(got, all) {
				t.Errorf("AllMessages() = %q, want %q", got, all)
			}
		})
	}
}

func TestLockRefusesSecondWriter(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "/ws")
	mustAppend(t, s, llm.UserText("hi"))
	other := NewStore(filepath.Dir(st.root)) // a second Store on the same home

	_, _, err := other.Open(s.ID())
	var le *LockedError
	if !errors.As(err, &le) || le.ID != s.ID() || le.PID != os.Getpid() {
		t.Fatalf("Open of an open session: err = %v, want a *LockedError naming pid %d", err, os.Getpid())
	}
	if !strings.Contains(err.Error(), s.ID()) || !strings.Contains(err.Error(), "is already open") {
		t.Errorf("error text %q does not say which session is open where", err)
	}
	if err := other.Delete(s.ID()); !errors.As(err, &le) {
		t.Errorf("Delete of an open session: err = %v, want *LockedError", err)
	}
	if _, _, err := other.Load(s.ID()); err != nil {
		t.Errorf("Load (read-only) of an open session: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(llm.UserText("late")); !errors.Is(err, ErrClosed) {
		t.Errorf("append after Close: err = %v, want ErrClosed", err)
	}
	s2, _, err := other.Open(s.ID())
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	s2.Close()
}

func TestDelete(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	keep := create(t, st, "/ws")
	gone := create(t, st, "/ws")
	mustAppend(t, gone, llm.UserText("bye"))
	if err := os.WriteFile(filepath.Join(gone.SpillDir(), "call_1.txt"), []byte("big"), 0o600); err != nil {
		t.Fatal(err)
	}
	gone.Close()
	if err := st.Delete(gone.ID()); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := os.Stat(st.Dir(gone.ID())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session directory still there after Delete: %v", err)
	}
	metas, _ := st.List(Filter{})
	if len(metas) != 1 || metas[0].ID != keep.ID() {
		t.Errorf("List after Delete = %+v, want only %s", metas, keep.ID())
	}
	for _, id := range []string{gone.ID(), "01ARZ3NDEKTSV4RRFFQ69G5FAV", "../../etc", ""} {
		if _, _, err := st.Open(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Open(%q): err = %v, want ErrNotFound", id, err)
		}
		if err := st.Delete(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Delete(%q): err = %v, want ErrNotFound", id, err)
		}
	}
}

func TestResolvePrefix(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "/ws")
	id := s.ID()
	got, err := st.Resolve(strings.ToLower(id[:20]))
	if err != nil || got != id {
		t.Errorf("Resolve(prefix) = %q, %v; want %q", got, err, id)
	}
	if _, err := st.Resolve("ZZZZ"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve(unknown): err = %v, want ErrNotFound", err)
	}
	create(t, st, "/ws")
	if _, err := st.Resolve("0"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("Resolve(shared prefix): err = %v, want ambiguous", err)
	}
}

func TestDecisionAndUsageWithoutALaterMessage(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	s := create(t, st, "/ws")
	d := permission.Decision{Behavior: permission.Ask, Layer: permission.LayerPath, Reason: "outside the workspace", Suggestions: []string{"Read(/etc/**)"}}
	if err := s.AppendDecision("c9", "Read", d); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendUsage(llm.Usage{OutputTokens: 42}); err != nil {
		t.Fatal(err)
	}
	// No message follows: Close is what makes these durable and listed.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tr, _, err := st.Load(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	dec := tr.Records[len(tr.Records)-2]
	if dec.Decision == nil || !reflect.DeepEqual(dec.Decision.Decision, d) {
		t.Errorf("decision = %+v, want %+v", dec.Decision, d)
	}
	if m, err := st.Latest("/ws"); err != nil || m.Usage.OutputTokens != 42 {
		t.Errorf("listed usage = %+v, %v; want 42 output tokens", m.Usage, err)
	}
}

// A workspace set on a session is what it reopens with, and what lists
// show; clearing it records "".
func TestSetWorkspace(t *testing.T) {
	t.Parallel()
	st := NewStore(t.TempDir())
	s, err := st.Create(Meta{WorkspaceDir: "/a", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if err := s.SetWorkspace("/b"); err != nil {
		t.Fatal(err)
	}
	if s.Meta().WorkspaceDir != "/b" {
		t.Errorf("meta after set: %q", s.Meta().WorkspaceDir)
	}
	s.Close()
	tr, _, err := st.Load(id)
	if err != nil || tr.Meta.WorkspaceDir != "/b" {
		t.Fatalf("reloaded: %v %q", err, tr.Meta.WorkspaceDir)
	}
	s, _, err = st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetWorkspace(""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if tr, _, _ := st.Load(id); tr.Meta.WorkspaceDir != "" {
		t.Errorf("after clear: %q", tr.Meta.WorkspaceDir)
	}
}

// TestSetModel: the model a session goes on with is kept in its
// transcript and listed in its meta, in this process and after a reload.
func TestSetModel(t *testing.T) {
	t.Parallel()
	st := NewStore(t.TempDir())
	s, err := st.Create(Meta{WorkspaceDir: "/a", Model: "anthropic:claude-sonnet-5-5"})
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if err := s.SetModel("anthropic:claude-opus-5-5"); err != nil {
		t.Fatal(err)
	}
	if m := s.Meta().Model; m != "anthropic:claude-opus-5-5" {
		t.Errorf("meta after set: %q", m)
	}
	s.Close()
	tr, warns, err := st.Load(id)
	if err != nil || len(warns) > 0 || tr.Meta.Model != "anthropic:claude-opus-5-5" {
		t.Fatalf("reloaded: %v %v %q", err, warns, tr.Meta.Model)
	}
	list, err := st.List(Filter{Workspace: "/a"})
	if err != nil || len(list) != 1 || list[0].Model != "anthropic:claude-opus-5-5" {
		t.Errorf("listed: %v %+v", err, list)
	}
}
