package session

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// compactedSession writes a closed session with a title, a model switch
// and usage before a compaction, and messages after it; it returns the id
// and the transcript's path.
func compactedSession(t *testing.T, st *Store) (string, string) {
	t.Helper()
	s := create(t, st, "/ws")
	mustAppend(t, s, llm.UserText("first"), assistantCall("toolu_1", "Read", `{"path":"a"}`))
	if err := s.AppendDecision("toolu_1", "Read", allow()); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendUsage(llm.Usage{InputTokens: 7, OutputTokens: 1}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, toolResult("toolu_1", "Read", "one", false))
	if err := s.SetTitle("early title"); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendUsage(llm.Usage{InputTokens: 10, OutputTokens: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetModel("anthropic:early"); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("read it")}}, llm.UserText("second"))
	if err := s.AppendCompaction("ctx", "the summary", []llm.Message{llm.UserText("second")}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("after")}}, llm.UserText("third"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.ID(), filepath.Join(st.Dir(s.ID()), transcriptFile)
}

// A resumed session, which leaves the records before its compaction
// undecoded, has the meta, the history to send and, once asked, every
// record a full load has: nothing is lost by not decoding them at once.
func TestResumeLeavesNothingOut(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	id, _ := compactedSession(t, st)
	full, warns, err := st.Load(id)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	s, warns, err := st.Open(id)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	defer s.Close()
	if len(s.t.lazy) == 0 {
		t.Fatal("the resume decoded every record: nothing was left for later")
	}
	if got, want := s.Meta(), full.Meta; !reflect.DeepEqual(got, want) {
		t.Errorf("meta of the resume\n%+v\nwant the full load's\n%+v", got, want)
	}
	if got, want := texts(s.Messages()), texts(full.Messages()); !reflect.DeepEqual(got, want) {
		t.Errorf("history to send %v, want %v", got, want)
	}
	if got, want := s.AllMessages(), full.AllMessages(); !reflect.DeepEqual(got, want) {
		t.Errorf("all messages %v, want %v", texts(got), texts(want))
	}
	if got, want := s.Transcript().Records, full.Records; !reflect.DeepEqual(got, want) {
		t.Errorf("records differ from the full load's:\n%+v\n%+v", got, want)
	}
	// Appending goes on after the records decoded late.
	mustAppend(t, s, llm.UserText("fourth"))
	if got := texts(s.Messages()); got[len(got)-1] != "user:fourth" {
		t.Errorf("history after an append: %v", got)
	}
}

// A message line before the compaction that is damaged is dropped when it
// is decoded, with the warning a load gives, as a load drops it.
func TestResumeDamagedLineBeforeCompaction(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	id, path := compactedSession(t, st)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// "first"'s line keeps its head but its message is cut short.
	i := bytes.Index(data, []byte(`"text":"first"`))
	end := i + bytes.IndexByte(data[i:], '\n')
	data = append(data[:i:i], append([]byte(`"text":"fir`), data[end:]...)...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	full, fullWarns, err := st.Load(id)
	if err != nil || len(fullWarns) != 1 {
		t.Fatalf("load: %v, warnings %v; want one", err, fullWarns)
	}
	if err := os.Remove(filepath.Join(st.Dir(id), ClaudeTranscriptFile)); err != nil {
		t.Fatal(err)
	}
	// Without hooks' copy the resume rebuilds it, which decodes every
	// message: the warning comes with the resume.
	s, warns, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(warns) != 1 || warns[0].Line != fullWarns[0].Line || !strings.Contains(warns[0].Msg, "unreadable") {
		t.Errorf("resume warnings %v, want the load's %v", warns, fullWarns)
	}
	if got, want := s.Meta().MessageCount, full.Meta.MessageCount; got != want {
		t.Errorf("message count %d, want the load's %d", got, want)
	}
	if got, want := texts(s.AllMessages()), texts(full.AllMessages()); !reflect.DeepEqual(got, want) {
		t.Errorf("all messages %v, want %v", got, want)
	}
	if got, want := s.Transcript().Records, full.Records; !reflect.DeepEqual(got, want) {
		t.Errorf("records differ from the full load's")
	}
	if got, want := texts(s.Messages()), texts(full.Messages()); !reflect.DeepEqual(got, want) {
		t.Errorf("history to send %v, want %v", got, want)
	}
}

// A resume in step with hooks' copy leaves that copy as it is; one that
// rebuilds it writes what a full load would.
func TestResumeKeepsHooksCopy(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	id, _ := compactedSession(t, st)
	claude := filepath.Join(st.Dir(id), ClaudeTranscriptFile)
	before, err := os.ReadFile(claude)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.t.lazy) == 0 {
		t.Error("the copy in step made the resume decode every record")
	}
	s.Close()
	if after, _ := os.ReadFile(claude); !bytes.Equal(after, before) {
		t.Error("a resume in step rewrote hooks' copy")
	}
	if err := os.Remove(claude); err != nil {
		t.Fatal(err)
	}
	s, _, err = st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Rebuilt, every message has its line again, with the same uuids
	// (the model of each is the session's, as a rebuild always wrote).
	after, _ := os.ReadFile(claude)
	if got, want := uuids(t, after), uuids(t, before); !reflect.DeepEqual(got, want) {
		t.Errorf("rebuilt hooks' copy has uuids %v, want %v", got, want)
	}
}

func uuids(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var v struct {
			UUID string `json:"uuid"`
		}
		if err := json.Unmarshal(l, &v); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
		out = append(out, v.UUID)
	}
	return out
}

// peek reads only the head nova writes; anything else is decoded whole.
func TestPeek(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{`{"v":1,"type":"message","ts":"2026-01-02T03:04:05.5Z","message":{"role":"user"}}`, true},
		{`{"v":1,"type":"usage","ts":"2026-01-02T03:04:05Z","usage":{}}`, true},
		{`{"type":"message","v":1,"ts":"2026-01-02T03:04:05Z","message":{}}`, false},
		{`{"v":2,"type":"message","ts":"2026-01-02T03:04:05Z","message":{}}`, false},
		{`{"v":1,"type":"message","ts":"2026-01-02T03:04:05Z","message":null}`, false},
		{`{"v":1,"type":"message","ts":"yesterday","message":{}}`, false},
		{`{"v":1,"type":"message","ts":"2026-01-02T03:04:05Z"`, false},
	} {
		if got := peek([]byte(c.line)).ok; got != c.ok {
			t.Errorf("peek(%s).ok = %v, want %v", c.line, got, c.ok)
		}
	}
}
