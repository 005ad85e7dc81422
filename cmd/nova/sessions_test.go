package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/session"
)

// sessWorld is an in-process test's NOVA_HOME and workspace, with the
// working directory moved into the workspace.
type sessWorld struct {
	t    *testing.T
	home string // NOVA_HOME
	ws   string
}

func newSessWorld(t *testing.T) *sessWorld {
	t.Helper()
	w := &sessWorld{t: t, home: filepath.Join(t.TempDir(), ".nova"), ws: t.TempDir()}
	if r, err := filepath.EvalSymlinks(w.ws); err == nil {
		w.ws = r
	}
	t.Chdir(w.ws)
	return w
}

// add creates a closed session of workspace ws with the given title (none
// when empty) and user messages.
func (w *sessWorld) add(ws, title string, msgs ...string) string {
	w.t.Helper()
	s, err := session.NewStore(w.home).Create(session.Meta{WorkspaceDir: ws, AgentKey: "main", Model: "anthropic:test"})
	if err != nil {
		w.t.Fatal(err)
	}
	defer s.Close()
	for _, m := range msgs {
		if err := s.AppendMessage(llm.UserText(m)); err != nil {
			w.t.Fatal(err)
		}
	}
	if title != "" {
		if err := s.SetTitle(title); err != nil {
			w.t.Fatal(err)
		}
	}
	return s.ID()
}

// run runs nova in-process with fake streams.
func (w *sessWorld) run(args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, LookupEnv: envMap(map[string]string{"NOVA_HOME": w.home}), Workdir: w.ws}
	code = run(context.Background(), args, s)
	return out.String(), errOut.String(), code
}

func TestSessionsList(t *testing.T) {
	w := newSessWorld(t)
	old := w.add(w.ws, "first task", "one")
	other := w.add("/somewhere/else", "elsewhere", "x")
	newest := w.add(w.ws, "", "two", "three")

	out, errOut, code := w.run("sessions", "ls")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("ls = %q, want a header and this workspace's two sessions", out)
	}
	if !strings.HasPrefix(lines[1], newest) || !strings.Contains(lines[1], "(untitled)") || !strings.Contains(lines[1], " 2 ") {
		t.Errorf("first row = %q, want the newest session, untitled, 2 messages", lines[1])
	}
	if !strings.HasPrefix(lines[2], old) || !strings.Contains(lines[2], "first task") {
		t.Errorf("second row = %q, want the older session and its title", lines[2])
	}
	if strings.Contains(out, other) {
		t.Errorf("ls shows another workspace's session: %s", out)
	}

	out, _, code = w.run("sessions", "ls", "--all")
	if code != 0 || !strings.Contains(out, other) || !strings.Contains(out, "/somewhere/else") || strings.Count(out, "\n") != 4 {
		t.Errorf("ls --all (exit %d) = %q, want every session with its workspace", code, out)
	}

	out, _, code = w.run("sessions", "ls", "--all", "--json")
	var metas []session.Meta
	if err := json.Unmarshal([]byte(out), &metas); err != nil || code != 0 {
		t.Fatalf("ls --json (exit %d): %v\n%s", code, err, out)
	}
	if len(metas) != 3 || metas[0].ID != newest || metas[2].ID != old || metas[0].MessageCount != 2 || metas[2].Title != "first task" {
		t.Errorf("ls --json = %+v, want three sessions newest first", metas)
	}

	empty := newSessWorld(t)
	if out, _, code := empty.run("sessions", "ls", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("ls --json with no sessions = %q (exit %d), want []", out, code)
	}
	if out, _, code := empty.run("sessions", "ls"); code != 0 || !strings.Contains(out, "No sessions") {
		t.Errorf("ls with no sessions = %q (exit %d)", out, code)
	}
}

func TestSessionsShowAndExport(t *testing.T) {
	w := newSessWorld(t)
	id := w.add(w.ws, "a title", "why does the build fail?")

	for _, arg := range []string{id, strings.ToLower(id[:12])} {
		out, errOut, code := w.run("sessions", "show", arg)
		if code != 0 || !strings.Contains(out, "# a title") || !strings.Contains(out, "why does the build fail?") {
			t.Errorf("show %s (exit %d, %s) = %q, want the Markdown transcript", arg, code, errOut, out)
		}
	}

	out, _, code := w.run("sessions", "export", id[:10], "--format", "json")
	var doc struct {
		Meta    session.Meta     `json:"meta"`
		Records []session.Record `json:"records"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("export json (exit %d): %v", code, err)
	}
	if doc.Meta.ID != id || len(doc.Records) != 3 { // session, message, title
		t.Errorf("export json = %+v, want the session's three records", doc)
	}

	file := filepath.Join(t.TempDir(), "chat.md")
	out, errOut, code := w.run("sessions", "export", id, "-o", file)
	b, err := os.ReadFile(file)
	if code != 0 || err != nil || out != "" || !strings.Contains(string(b), "why does the build fail?") {
		t.Errorf("export -o (exit %d, stdout %q, stderr %q): %v %q", code, out, errOut, err, b)
	}

	// A session open in this process (as it would be in another) still shows.
	s, _, err := session.NewStore(w.home).Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if out, _, code := w.run("sessions", "show", id); code != 0 || !strings.Contains(out, "why does the build fail?") {
		t.Errorf("show of an open session: exit %d", code)
	}
}

func TestSessionsUsageErrors(t *testing.T) {
	w := newSessWorld(t)
	a := w.add(w.ws, "", "x")
	b := w.add(w.ws, "", "y")
	common := 0
	for common < len(a) && a[common] == b[common] {
		common++
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "show", "01ZZZZZZZZZZZZZZZZZZZZZZZZ"}, "no session"},
		{[]string{"sessions", "show", "nope"}, "no session"},
		{[]string{"sessions", "rm", "01ZZZZZZZZZZZZZZZZZZZZZZZZ"}, "no session"},
		{[]string{"sessions", "export", "01ZZZZ"}, "no session"},
		{[]string{"sessions", "show", a[:common]}, "ambiguous"},
		{[]string{"sessions", "export", a, "--format", "yaml"}, "want md or json"},
		{[]string{"sessions", "show"}, "want one session id"},
		{[]string{"sessions", "rm"}, "at least one"},
		{[]string{"sessions", "frobnicate"}, "unknown command"},
		{[]string{"sessions", "ls", "--bogus"}, "unknown flag"},
	} {
		_, errOut, code := w.run(tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// A bad id among good ones deletes nothing.
	if _, _, code := w.run("sessions", "rm", a, "01ZZZZZZZZZZZZZZZZZZZZZZZZ"); code != 2 {
		t.Errorf("rm with a bad id: exit %d, want 2", code)
	}
	if _, _, err := session.NewStore(w.home).Load(a); err != nil {
		t.Errorf("rm with a bad id deleted %s: %v", a, err)
	}
}

func TestSessionsRemove(t *testing.T) {
	w := newSessWorld(t)
	keep := w.add(w.ws, "", "keep me")
	gone := w.add(w.ws, "", "delete me")
	open := w.add(w.ws, "", "busy")
	mems := memory.NewStore(w.home)
	for _, sid := range []string{gone, gone, keep} {
		if _, err := mems.Create(memory.Memory{Scope: memory.ScopeSession, Summary: "noted in " + sid, SessionID: &sid}); err != nil {
			t.Fatal(err)
		}
	}

	st := session.NewStore(w.home)
	s, _, err := st.Open(open)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := w.run("sessions", "rm", "--delete-memories", gone, open)
	if code != 1 {
		t.Errorf("rm of an open session: exit %d, want 1", code)
	}
	if !strings.Contains(out, "Deleted session "+gone+" and 2 memories") {
		t.Errorf("stdout = %q, want the deleted session and its memories", out)
	}
	if !strings.Contains(errOut, open) || !strings.Contains(errOut, "already open") || !strings.Contains(errOut, "not deleted") {
		t.Errorf("stderr = %q, want a clear refusal naming the open session", errOut)
	}
	if _, _, err := st.Load(open); err != nil {
		t.Errorf("the open session was deleted: %v", err)
	}
	if _, _, err := st.Load(gone); err == nil {
		t.Errorf("session %s still exists", gone)
	}
	left, err := mems.List(memory.Filter{})
	if err != nil || len(left) != 1 || *left[0].SessionID != keep {
		t.Errorf("memories left = %+v (%v), want only the kept session's", left, err)
	}
	s.Close()

	// Without --delete-memories the memories stay.
	out, _, code = w.run("sessions", "rm", keep[:20])
	if code != 0 || strings.TrimSpace(out) != "Deleted session "+keep {
		t.Errorf("rm by prefix: exit %d stdout %q", code, out)
	}
	if left, _ := mems.List(memory.Filter{}); len(left) != 1 {
		t.Errorf("rm without --delete-memories removed memories: %+v", left)
	}
	if out, _, _ := w.run("sessions", "ls"); strings.Contains(out, keep) || !strings.Contains(out, open) {
		t.Errorf("ls after rm = %q", out)
	}
}

func TestSessionsShortTitle(t *testing.T) {
	long := "Refactor the session store so that listing thousands of sessions stays fast and never reads transcripts"
	for _, tc := range []struct{ in, want string }{
		{"fix the failing test", "fix the failing test"},
		{"\n\n  fix   the\tbug  \nand more lines", "fix the bug"},
		{long, "Refactor the session store so that listing thousands of…"},
		{strings.Repeat("x", 100), strings.Repeat("x", 59) + "…"},
		{"Why, when I run the build with the race detector, does it fail, and how?", "Why, when I run the build with the race detector, does it…"},
		{strings.Repeat("é", 60), strings.Repeat("é", 60)},
		{"", ""},
	} {
		got := live.ShortTitle(tc.in)
		if got != tc.want {
			t.Errorf("live.ShortTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > live.TitleMax {
			t.Errorf("live.ShortTitle(%q) has %d characters", tc.in, n)
		}
	}
}

// TestSessionsBinary drives nova sessions through the built binary, with a
// session made by a real print-mode run.
func TestSessionsBinary(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "the answer is 42"})
	r := e.run("", "-p", "--output-format", "json", "what is the answer?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	id := res.SessionID
	if r := e.run("", "sessions", "ls"); r.code != 0 || !strings.Contains(r.stdout, id) {
		t.Errorf("ls (exit %d) = %q, want session %s", r.code, r.stdout, id)
	}
	r = e.run("", "sessions", "show", id[:8])
	if r.code != 0 || !strings.Contains(r.stdout, "what is the answer?") || !strings.Contains(r.stdout, "the answer is 42") {
		t.Errorf("show (exit %d) = %q", r.code, r.stdout)
	}
	if r := e.run("", "sessions", "show", "01ZZZZZZZZ"); r.code != 2 || !strings.Contains(r.stderr, "no session") {
		t.Errorf("show of an unknown id: exit %d stderr %q", r.code, r.stderr)
	}
	if r := e.run("", "sessions", "rm", id); r.code != 0 {
		t.Errorf("rm: exit %d %s", r.code, r.stderr)
	}
	if r := e.run("", "sessions", "ls", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("ls after rm = %q", r.stdout)
	}
}
