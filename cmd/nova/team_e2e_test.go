package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/team"
	"github.com/nova-dev/nova/tools"
)

// TestTeammateEndToEnd: a lead (in-process, as a frontend would wire it)
// starts a real nova teammate with TeamSpawn. The teammate, in its own
// worktree, claims the board's task, is refused a command by the deny
// rule of the lead's .nova/settings.local.json (a file no worktree has),
// writes and commits a file under the lead's allow rules (the positive
// control), completes the task and answers; the answer reaches the lead's
// mailbox, nova team status shows it, TeamMerge brings its commit into the
// lead's branch, and a shutdown message ends its process.
func TestTeammateEndToEnd(t *testing.T) {
	call := func(id, name string, input any) llmtest.Turn {
		return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: id, Name: name, Input: jsonInput(input)}}}
	}
	e := newE2E(t,
		call("t1", "TaskUpdate", map[string]any{"task_id": "1", "status": "in_progress"}),
		call("t2", "Bash", map[string]any{"command": "touch pwned"}),
		call("t3", "Write", map[string]any{"file_path": "b.txt", "content": "bob's work\n"}),
		call("t4", "Bash", map[string]any{"command": "git add b.txt && git commit -qm 'b.txt'"}),
		call("t5", "TaskUpdate", map[string]any{"task_id": "1", "status": "completed", "progress": "b.txt committed"}),
		llmtest.Turn{Text: "Done: b.txt is committed on my branch."},
	)
	git := func(dir string, args ...string) string { return gitIn(t, dir, args...) }
	initRepo(t, e)
	e.write(".nova/settings.local.json", `{"permissions": {"deny": ["Bash(touch:*)"]}}`)

	novaHome := filepath.Join(e.home, ".nova")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rt, lead := startLead(ctx, t, e, live.Options{NoSandbox: true, PermissionMode: "acceptEdits",
		AllowedTools: []string{"Bash(git add:*)", "Bash(git commit:*)", "TeamMerge"}})
	leadCall := func(name string, input any) tools.Result {
		t.Helper()
		raw, _ := json.Marshal(input)
		return rt.Pipeline.Run(ctx, tools.Call{ID: "c-" + name, Name: name, Input: raw}, rt.Env).Result
	}
	if r := leadCall("TaskCreate", map[string]string{"subject": "Add b.txt", "description": "commit it"}); r.IsError {
		t.Fatal(r.Output)
	}
	r := leadCall("TeamSpawn", map[string]string{"name": "bob", "prompt": "Do task 1."})
	if r.IsError || !strings.Contains(r.Output, "Teammate bob started") {
		t.Fatalf("TeamSpawn: %+v", r)
	}
	exited := lead.Exited("bob")
	logf := filepath.Join(team.Dir(novaHome, "alpha"), "workers", "bob.log")
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(logf)
			t.Logf("bob's log:\n%s", b)
		}
	})

	// The lead learns of bob's answer through its mailbox seam.
	got := awaitMessages(ctx, t, lead)
	if got[0].From != "bob" || got[0].Text != "Done: b.txt is committed on my branch." {
		t.Fatalf("the lead got %+v", got)
	}
	bob, _, _ := lead.Team.Member("bob")
	if _, err := os.Stat(filepath.Join(bob.Worktree, "pwned")); err == nil {
		t.Error("the teammate ran the command the lead's settings.local.json denies")
	}
	if res := toolResultOf(e.srv.Requests(), "t2"); !strings.Contains(res, "Bash(touch:*)") {
		t.Errorf("the model was not told the lead's deny rule refused the touch: %q", res)
	}
	if tk, _ := lead.Team.Board.Get("1"); tk.Status != team.StatusCompleted || tk.Owner != "bob" {
		t.Errorf("task 1 = %+v, want completed by bob", tk)
	}

	var out, errOut bytes.Buffer
	s := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut, LookupEnv: envMap(map[string]string{"NOVA_HOME": novaHome}), Workdir: e.ws}
	if code := run(ctx, []string{"team", "status"}, s); code != 0 {
		t.Fatalf("nova team status: exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"Team alpha", "bob", "yes", "nova/team/alpha/bob", bob.Worktree, bob.SessionID, "#1 [completed] bob: Add b.txt"} {
		if want == "" || !strings.Contains(out.String(), want) {
			t.Errorf("nova team status lacks %q:\n%s", want, out.String())
		}
	}

	if r := leadCall("TeamMerge", map[string]string{"name": "bob"}); r.IsError || !strings.Contains(r.Output, "Merged bob's branch") {
		t.Fatalf("TeamMerge: %+v", r)
	}
	if e.read("b.txt") != "bob's work\n" {
		t.Error("bob's commit is not in the lead's tree")
	}
	if st := git(e.ws, "status", "--porcelain"); strings.Contains(st, "worktrees") {
		t.Errorf("the teammate's worktree shows in the lead's git status:\n%s", st)
	}

	if err := lead.Shutdown("bob"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-ctx.Done():
		t.Fatal("bob did not stop on the shutdown message")
	}
	if m, _, _ := lead.Team.Member("bob"); m.Exited.IsZero() {
		t.Errorf("bob's exit is not recorded: %+v", m)
	}
	if p, _ := lead.Team.Mail.Pending("bob"); len(p) != 0 {
		t.Errorf("bob left messages unacknowledged: %+v", p)
	}
}

// toolResultOf is the content of the tool result for call id in the
// last Anthropic request that carries it.
func toolResultOf(reqs []llmtest.Request, id string) string {
	var out string
	for _, r := range reqs {
		var body struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(r.Body, &body)
		for _, m := range body.Messages {
			var parts []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &parts) != nil {
				continue
			}
			for _, p := range parts {
				if p.Type == "tool_result" && p.ToolUseID == id {
					out = string(p.Content)
				}
			}
		}
	}
	return out
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// initRepo makes e's workspace a git repository with one commit.
func initRepo(t *testing.T, e *e2e) {
	gitIn(t, e.ws, "init", "-q", "-b", "main")
	gitIn(t, e.ws, "config", "user.email", "t@example.com")
	gitIn(t, e.ws, "config", "user.name", "t")
	e.write("a.txt", "one\n")
	gitIn(t, e.ws, "add", "a.txt")
	gitIn(t, e.ws, "commit", "-qm", "first")
}

// startLead builds the lead's session in e's workspace, as a frontend
// would, and makes it the lead of team alpha.
func startLead(ctx context.Context, t *testing.T, e *e2e, o live.Options) (*live.Runtime, *team.Lead) {
	t.Helper()
	env := map[string]string{}
	for _, kv := range e.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	o.NovaHome, o.Workdir, o.Home, o.Getenv = filepath.Join(e.home, ".nova"), e.ws, e.home, func(k string) string { return env[k] }
	rt, err := live.Build(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	lead, err := team.ForLead(ctx, rt, o, "alpha", novaBin, e.env)
	if err != nil {
		t.Fatal(err)
	}
	lead.PollMS = 20
	return rt, lead
}

// awaitMessages waits for the lead's next messages and takes them.
func awaitMessages(ctx context.Context, t *testing.T, lead *team.Lead) []team.Message {
	t.Helper()
	var got []team.Message
	for len(got) == 0 {
		if _, err := lead.Team.Mail.Wait(ctx, team.LeadName, 20*time.Millisecond); err != nil {
			t.Fatalf("no message for the lead: %v", err)
		}
		if err := lead.Incoming(func(m team.Message) error { got = append(got, m); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return got
}

// TestTeammateStopsWhenItsLeadIsGone: a teammate whose lead's process
// ends stops by itself, and its exit is recorded. A teammate's message
// to it is its next prompt.
func TestTeammateStopsWhenItsLeadIsGone(t *testing.T) {
	e := newE2E(t, llmtest.Turn{Text: "ready"}, llmtest.Turn{Text: "got it"})
	initRepo(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, lead := startLead(ctx, t, e, live.Options{NoSandbox: true})
	stand := exec.Command("sleep", "600") // stands in for the lead's process
	if err := stand.Start(); err != nil {
		t.Fatal(err)
	}
	defer stand.Process.Kill()
	lead.PID = stand.Process.Pid
	if _, err := lead.Spawn(ctx, "bob", "Wait for instructions.", ""); err != nil {
		t.Fatal(err)
	}
	if got := awaitMessages(ctx, t, lead); got[0].Text != "ready" {
		t.Fatalf("first answer = %+v", got)
	}
	lead.Team.Mail.Send(team.Message{From: team.LeadName, To: "bob", Text: "take task 7"})
	if got := awaitMessages(ctx, t, lead); got[0].Text != "got it" {
		t.Fatalf("second answer = %+v", got)
	}
	reqs := e.srv.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "Message from lead:") || !strings.Contains(last, "take task 7") {
		t.Errorf("the message was not bob's prompt: %s", last)
	}
	stand.Process.Kill()
	stand.Wait()
	select {
	case <-lead.Exited("bob"):
	case <-ctx.Done():
		t.Fatal("bob did not stop when its lead was gone")
	}
	if m, _, _ := lead.Team.Member("bob"); m.Exited.IsZero() {
		t.Errorf("bob's exit is not recorded: %+v", m)
	}
}

// nova --team NAME makes the session the team's lead: the team tools are
// offered, and what the lead does lands on the team's board.
func TestTeamFlagMakesTheSessionLead(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "TaskCreate", Input: jsonInput(map[string]any{"subject": "Write the parser", "description": "parse.go"})}}},
		llmtest.Turn{Text: "Task created."},
	)
	initRepo(t, e)
	r := e.run("", "-p", "--team", "t9", "plan the work")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(e.srv.Requests()[0].Body, &body)
	var names []string
	for _, tl := range body.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"TeamSpawn", "TeamMerge", "TaskCreate", "SendMessage"} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Errorf("the lead's tools %v lack %s", names, want)
		}
	}
	st := e.run("", "team", "status", "t9")
	if st.code != 0 || !strings.Contains(st.stdout, "#1 [pending]") || !strings.Contains(st.stdout, "Write the parser") {
		t.Errorf("nova team status t9: exit %d\n%s%s", st.code, st.stdout, st.stderr)
	}
	if bad := e.run("", "-p", "--team", "no/slash", "x"); bad.code != 2 || !strings.Contains(bad.stderr, "--team no/slash") {
		t.Errorf("a bad team name: exit %d, stderr %s", bad.code, bad.stderr)
	}
}

// In the terminal UI a subagent's work shows nested under its Agent call
// (the real tool, not a fabricated event), and /team prints the board of
// the team the session leads.
func TestTUISubagentAndTeam(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "Agent", Input: jsonInput(map[string]any{"description": "Find the greeting", "prompt": "Where is the greeting? (task-T)", "subagent_type": "Explore"})}}},
		llmtest.Turn{Match: "task-T", ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "Read", Input: jsonInput(map[string]any{"file_path": "greet.txt"})}}},
		llmtest.Turn{Match: "task-T", Text: "It is in greet.txt."},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c3", Name: "TaskCreate", Input: jsonInput(map[string]any{"subject": "Translate the greeting", "description": "to French"})}}},
		llmtest.Turn{Text: "Planned."},
	)
	initRepo(t, e)
	e.write("greet.txt", "hello world\n")
	tm := e.startTUI("--team", "t7")
	tm.waitFor("Ask nova anything")
	tm.typeText("find the greeting and plan")
	tm.keys("Enter")
	tm.waitFor("Planned.")
	tm.waitForText("Explore(Find the greeting) · 1 tool use")
	tm.typeText("/team")
	tm.keys("Enter")
	tm.waitForText("#1 [pending]: Translate the greeting")
}
