package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/session"
)

// History is the conversation as the person typed it: the context the
// model got ahead of the first message (the positive control: it is in
// the agent's history) is not shown.
func TestControllerHistory(t *testing.T) {
	e := newTestController(t, "", Options{}, llmtest.Turn{Text: "SENTINEL-ANSWER"})
	e.run(t, "SENTINEL-PROMPT")
	if raw := e.c.Runtime().Agent.History(); len(raw) == 0 || !session.IsContext(raw[0].Parts[0]) {
		t.Fatalf("positive control: the agent's first message carries no context: %+v", raw)
	}
	h := e.c.History()
	if len(h) != 2 || h[0].Role != llm.RoleUser || h[0].Text() != "SENTINEL-PROMPT" || !strings.Contains(h[1].Text(), "SENTINEL-ANSWER") {
		t.Fatalf("History = %+v", h)
	}
	for _, p := range h[0].Parts {
		if session.IsContext(p) {
			t.Errorf("History shows the context: %+v", h[0].Parts)
		}
	}
}

// /resume's preview of an earlier session is its last prompt and answer,
// read from its transcript on disk; an unknown session is an error.
func TestControllerSessionPreview(t *testing.T) {
	e := newTestController(t, "", Options{}, llmtest.Turn{Text: "The parser is fixed."}, llmtest.Turn{Text: "Parser title"})
	e.run(t, "fix the parser")
	old := e.c.Runtime().Session.ID()
	e.c.Runtime().WaitTitle()
	if err := e.c.Clear(); err != nil {
		t.Fatal(err)
	}
	prompt, answer, err := e.c.SessionPreview(old)
	if err != nil || prompt != "fix the parser" || answer != "The parser is fixed." {
		t.Errorf("preview = %q, %q, %v", prompt, answer, err)
	}
	if _, _, err := e.c.SessionPreview("01NOSUCHSESSION"); err == nil {
		t.Error("no error for a session that does not exist")
	}
}

// The skill commands are those on disk now: a skill added or edited
// after the first listing is in the next one, its description on one
// line.
func TestControllerSkillCommands(t *testing.T) {
	e := newTestController(t, "", Options{})
	skill := filepath.Join(e.novaHome, "skills", "deploy", "SKILL.md")
	writeTestFile(t, skill, "---\ndescription: Deploy\n  the app\nargument-hint: \"[env]\"\n---\nx\n")
	cmds := e.c.SkillCommands()
	i := slices.IndexFunc(cmds, func(c SkillCommand) bool { return c.Name == "deploy" })
	if i < 0 || cmds[i].Description != "Deploy the app" || cmds[i].ArgumentHint != "[env]" || cmds[i].Source == "" {
		t.Fatalf("SkillCommands = %+v", cmds)
	}
	writeTestFile(t, filepath.Join(e.novaHome, "skills", "later", "SKILL.md"), "---\ndescription: Added later\n---\nx\n")
	writeTestFile(t, skill, "---\ndescription: Ship it, now\n---\nx\n")
	cmds = e.c.SkillCommands()
	if !slices.ContainsFunc(cmds, func(c SkillCommand) bool { return c.Name == "later" }) {
		t.Errorf("a skill added on disk is not listed: %+v", cmds)
	}
	if !slices.ContainsFunc(cmds, func(c SkillCommand) bool { return c.Name == "deploy" && c.Description == "Ship it, now" }) {
		t.Errorf("an edited skill keeps its old description: %+v", cmds)
	}
}

// CreateAgent writes an agent file that AgentTypes then lists, with the
// tools the file names; a second one of the same name and a bad name are
// refused, and an untrusted project gets none.
func TestControllerCreateAgentAndTypes(t *testing.T) {
	e := newTestController(t, "", Options{})
	if slices.ContainsFunc(e.c.AgentTypes(), func(a AgentType) bool { return a.Name == "reviewer" }) {
		t.Fatal("positive control: reviewer is listed before it is created")
	}
	if _, err := e.c.CreateAgent("reviewer", false); err == nil {
		t.Error("an agent file was made in a folder not trusted")
	}
	path, err := e.c.CreateAgent("reviewer", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the agent file is not on disk: %v", err)
	}
	types := e.c.AgentTypes()
	i := slices.IndexFunc(types, func(a AgentType) bool { return a.Name == "reviewer" })
	if i < 0 || types[i].Source != path || !slices.Equal(types[i].Tools, []string{"Read", "Glob", "Grep"}) || types[i].Prompt == "" {
		t.Fatalf("AgentTypes = %+v", types)
	}
	if _, err := e.c.CreateAgent("reviewer", true); err == nil {
		t.Error("a second reviewer overwrote the first")
	}
	if _, err := e.c.CreateAgent("Bad Name", true); err == nil {
		t.Error("a bad name was taken")
	}
}

// An @file is read through the session's pipeline: its text comes back,
// a deny rule holds (the secret never comes back, the plain file, the
// positive control, does), and a word that names no file is ErrNotAFile.
func TestControllerReadMentionedFile(t *testing.T) {
	e := newTestController(t, `{"permissions": {"deny": ["Read(./secret/**)"]}}`, Options{})
	writeTestFile(t, filepath.Join(e.ws, "notes.txt"), "SENTINEL-PLAIN\n")
	writeTestFile(t, filepath.Join(e.ws, "secret", "key.txt"), "SENTINEL-SECRET\n")
	ctx := context.Background()
	if text, err := e.c.ReadMentionedFile(ctx, "notes.txt"); err != nil || !strings.Contains(text, "SENTINEL-PLAIN") {
		t.Fatalf("notes.txt = %q, %v", text, err)
	}
	text, err := e.c.ReadMentionedFile(ctx, "secret/key.txt")
	if err == nil || strings.Contains(text, "SENTINEL-SECRET") || strings.Contains(err.Error(), "SENTINEL-SECRET") {
		t.Errorf("a denied file was attached: %q, %v", text, err)
	}
	if _, err := e.c.ReadMentionedFile(ctx, "someone"); !errors.Is(err, ErrNotAFile) {
		t.Errorf("@someone: %v, want ErrNotAFile", err)
	}
}

// The status line command gets the session's figures as JSON on stdin
// and its first line is the status line; with no setting there is none.
func TestControllerStatusLine(t *testing.T) {
	none := newTestController(t, "", Options{})
	if none.c.HasStatusLine() {
		t.Fatal("a status line without a statusLine setting")
	}
	if _, err := none.c.StatusLine(context.Background(), StatusLineInput{}); err == nil {
		t.Error("a status line ran without a setting")
	}
	e := newTestController(t, `{"statusLine": {"type": "command", "command": "cat; echo; echo SECOND"}}`, Options{})
	if !e.c.HasStatusLine() {
		t.Fatal("the statusLine setting is not seen")
	}
	cost := 1.25
	line, err := e.c.StatusLine(context.Background(), StatusLineInput{CostUSD: &cost})
	if err != nil {
		t.Fatal(err)
	}
	model := e.c.Runtime().Selection.ID()
	if !strings.Contains(line, `"display_name":"`+model+`"`) || !strings.Contains(line, `"total_cost_usd":1.25`) || !strings.Contains(line, e.ws) {
		t.Errorf("the command did not get the session's figures: %q", line)
	}
	if strings.Contains(line, "SECOND") {
		t.Errorf("more than the first line: %q", line)
	}
}

// Team is what the runtime's TeamStatus writes, on every runtime the
// controller's builder makes (a /clear keeps it the lead); a session
// that leads no team says so.
func TestControllerTeam(t *testing.T) {
	none := newTestController(t, "", Options{})
	if _, err := none.c.Team(); !errors.Is(err, ErrNoTeam) {
		t.Errorf("a session leading no team: %v, want ErrNoTeam", err)
	}

	srv := llmtest.New()
	t.Cleanup(srv.Close)
	home := t.TempDir()
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	o := Options{NovaHome: filepath.Join(home, ".nova"), Workdir: t.TempDir(), Home: home,
		Getenv: func(k string) string { return env[k] }, NoSandbox: true}
	builds := 0
	lead := func(ctx context.Context, o Options) (*Runtime, error) {
		rt, err := Build(ctx, o)
		if err != nil {
			return nil, err
		}
		builds++
		n := builds
		rt.TeamStatus = func(w io.Writer) error {
			_, err := fmt.Fprintf(w, "Team alpha (runtime %d)\n", n)
			return err
		}
		return rt, nil
	}
	c, err := NewController(context.Background(), o, lead)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close("") })
	if text, err := c.Team(); err != nil || text != "Team alpha (runtime 1)\n" {
		t.Errorf("Team = %q, %v", text, err)
	}
	if err := c.Clear(); err != nil {
		t.Fatal(err)
	}
	if text, err := c.Team(); err != nil || text != "Team alpha (runtime 2)\n" {
		t.Errorf("after /clear Team = %q, %v", text, err)
	}
}

// Status is the session's figures: the tokens and cost of its turns, the
// context after one, kept across a model switch (the same session) and
// started again by /clear (a new one); the branch is the workspace's.
func TestControllerStatus(t *testing.T) {
	e := newTestController(t, "", Options{}, llmtest.Turn{Text: "Hello.", InputTokens: 1_000, OutputTokens: 100})
	st := e.c.Status()
	if st.Context != nil || st.Usage != (llm.Usage{}) || st.Cwd != e.ws || st.SessionID == "" || st.Mode != "default" || st.Branch != "" {
		t.Fatalf("positive control: before the first turn, outside a repository %+v", st)
	}
	if out, err := exec.Command("git", "-C", e.ws, "init", "-q", "-b", "feature-x").CombinedOutput(); err != nil {
		t.Skipf("no git: %v %s", err, out)
	}
	e.run(t, "hi")
	st = e.c.Status()
	want := llm.Usage{InputTokens: 1_000, OutputTokens: 100}
	if st.Usage != want || st.CostUSD == nil || *st.CostUSD <= 0 || st.Context == nil || st.Model != e.c.Runtime().Selection.ID() {
		t.Fatalf("after a turn: %+v (cost %v)", st, st.CostUSD)
	}
	cost, id := *st.CostUSD, st.SessionID
	if err := e.c.SetModel("haiku"); err != nil {
		t.Fatal(err)
	}
	st = e.c.Status()
	if st.Model != "anthropic:claude-haiku-5-5" || st.SessionID != id || st.Usage != want || st.CostUSD == nil || *st.CostUSD != cost || st.Context == nil {
		t.Errorf("the switch lost the figures: %+v", st)
	}
	if st.Branch != "feature-x" { // read again for the switch's runtime
		t.Errorf("branch %q, want feature-x", st.Branch)
	}
	if err := e.c.Clear(); err != nil {
		t.Fatal(err)
	}
	if st = e.c.Status(); st.Usage != (llm.Usage{}) || st.SessionID == id || st.Context != nil {
		t.Errorf("a new session starts with the old figures: %+v", st)
	}
}

// Run sends the prompt to the provider in the current session and its
// events carry the answer.
func TestControllerRun(t *testing.T) {
	e := newTestController(t, "", Options{}, llmtest.Turn{Text: "SENTINEL-ANSWER"})
	var final string
	for ev := range e.c.Run(context.Background(), llm.UserText("SENTINEL-PROMPT")) {
		if ev.Done != nil {
			final = ev.Done.Result
		}
	}
	if final != "SENTINEL-ANSWER" {
		t.Errorf("the run's final text %q", final)
	}
	if raw, _ := json.Marshal(e.last(t)["messages"]); !strings.Contains(string(raw), "SENTINEL-PROMPT") {
		t.Errorf("the provider did not get the prompt: %s", raw)
	}
}

// SetDefaultModel writes default_model for the next session (the one
// NewController then starts on it), leaves the running session on its
// model, and refuses a model no provider has without writing.
func TestControllerSetDefaultModel(t *testing.T) {
	e := newTestController(t, "", Options{})
	before := e.c.Runtime().Selection.ID()
	if before == "anthropic:claude-haiku-5-5" {
		t.Fatal("positive control: the session already uses haiku")
	}
	file, err := e.c.SetDefaultModel("anthropic:claude-haiku-5-5")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		DefaultModel string `json:"default_model"`
	}
	if data, err := os.ReadFile(file); err != nil || json.Unmarshal(data, &doc) != nil || doc.DefaultModel != "anthropic:claude-haiku-5-5" {
		t.Fatalf("%s: %s, %v", file, data, err)
	}
	if got := e.c.Runtime().Selection.ID(); got != before {
		t.Errorf("the running session moved to %s", got)
	}
	if err := e.c.Clear(); err != nil {
		t.Fatal(err)
	}
	if got := e.c.Runtime().Selection.ID(); got != "anthropic:claude-haiku-5-5" {
		t.Errorf("a new session is on %s, want the new default", got)
	}
	var ue *UnknownModelError
	if _, err := e.c.SetDefaultModel("anthropic:no-such-model-9"); !errors.As(err, &ue) {
		t.Errorf("unknown default: %v, want *UnknownModelError", err)
	}
	if data, _ := os.ReadFile(file); strings.Contains(string(data), "no-such-model") {
		t.Errorf("an unknown default was written: %s", data)
	}
}

// ForeignRuns delivers the runs this process's frontend did not start (a
// server's !cmd), not the terminal's own (Local), follows the session
// through a model switch to its new runtime, and ends when the
// controller closes.
func TestControllerForeignRuns(t *testing.T) {
	e := newTestController(t, "", Options{})
	ctx := context.Background()
	runs := e.c.ForeignRuns(ctx)
	if _, err := e.c.TerminalShell(ctx, "echo local"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Shell(ctx, "echo one"); err != nil {
		t.Fatal(err)
	}
	fr := <-runs
	if got := fr.Run.Input().Text(); got != "!echo one" {
		t.Fatalf("the first foreign run is %q, want !echo one (the terminal's own is not offered)", got)
	}
	if fr.Session != e.c.Runtime().Live {
		t.Error("the run is not in the current session")
	}
	if err := e.c.SetModel("haiku"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.Shell(ctx, "echo two"); err != nil {
		t.Fatal(err)
	}
	fr = <-runs
	if got := fr.Run.Input().Text(); got != "!echo two" || fr.Session != e.c.Runtime().Live {
		t.Fatalf("after the switch: %q in the new runtime %v", got, fr.Session == e.c.Runtime().Live)
	}
	if err := e.c.Close(""); err != nil {
		t.Fatal(err)
	}
	for fr := range runs {
		t.Errorf("a run after Close: %q", fr.Run.Input().Text())
	}
}
