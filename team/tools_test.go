package team

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

var update = flag.Bool("update", false, "rewrite testdata/schemas.json from the team tools' input structs")

// toolWorld is a team, a lead in a git repository, and a pipeline that
// runs the lead's and a teammate's tools as the agent would.
type toolWorld struct {
	t    *testing.T
	team *Team
	lead *Lead
	repo string
	pl   *tools.Pipeline
	env  *tools.Env
	mate *tools.Pipeline // bob's tools
}

func newToolWorld(t *testing.T) *toolWorld {
	t.Helper()
	tm, err := Open(t.TempDir(), "alpha")
	if err != nil {
		t.Fatal(err)
	}
	repo := gitRepo(t)
	w := &toolWorld{t: t, team: tm, repo: repo, lead: &Lead{Team: tm, Repo: repo}}
	checker, err := permission.NewChecker(permission.Config{Mode: permission.ModeBypass, Workspace: repo, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	for _, tl := range LeadTools(w.lead) {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	w.pl = &tools.Pipeline{Registry: reg, Checker: checker}
	mreg := tools.NewRegistry()
	for _, tl := range MemberTools(&Self{Team: tm, Name: "bob"}) {
		mreg.Register(tl)
	}
	w.mate = &tools.Pipeline{Registry: mreg, Checker: checker}
	w.env = tools.NewEnv(repo)
	w.env.SpillDir = t.TempDir()
	return w
}

// call runs one call through pl and returns its result.
func (w *toolWorld) call(pl *tools.Pipeline, name, input string) tools.Result {
	w.t.Helper()
	return pl.Run(context.Background(), tools.Call{ID: "c", Name: name, Input: json.RawMessage(input)}, w.env).Result
}

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	run(t, dir, "git", "init", "-q", "-b", "main")
	run(t, dir, "git", "config", "user.email", "t@example.com")
	run(t, dir, "git", "config", "user.name", "t")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	run(t, dir, "git", "add", "a.txt")
	run(t, dir, "git", "commit", "-qm", "first")
	return dir
}

func run(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// TestTeamToolSchemasGolden: what the model is told of the team tools'
// inputs is testdata/schemas.json, inferred from their input structs
// (go test ./team -run TestTeamToolSchemasGolden -update rewrites it).
func TestTeamToolSchemasGolden(t *testing.T) {
	w := newToolWorld(t)
	specs := map[string]json.RawMessage{}
	var names []string
	for _, s := range w.pl.Registry.Specs() {
		var v any
		if err := json.Unmarshal(s.InputSchema, &v); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		specs[s.Name] = s.InputSchema
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "SendMessage TaskCreate TaskList TaskGet TaskUpdate TeamSpawn TeamMerge" {
		t.Errorf("lead tools = %s", got)
	}
	got, _ := json.MarshalIndent(specs, "", "  ")
	const file = "testdata/schemas.json"
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(file, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil || !bytes.Equal(bytes.TrimSpace(want), got) {
		t.Errorf("the team tools' schemas are not %s (%v); if the change is meant, run go test ./team -run TestTeamToolSchemasGolden -update and review the diff\n%s", file, err, got)
	}
	var upd struct{ Required []string }
	json.Unmarshal(specs["TaskUpdate"], &upd)
	if strings.Join(upd.Required, ",") != "task_id" {
		t.Errorf("TaskUpdate requires %v, want only task_id (status and progress are optional)", upd.Required)
	}
}

func TestTaskToolsClaimProgressAndDone(t *testing.T) {
	w := newToolWorld(t)
	if r := w.call(w.pl, "TaskCreate", `{"subject":"Write the parser","description":"parse.go, with tests"}`); r.IsError || r.Output != "Task 1 created: Write the parser" {
		t.Fatalf("create: %+v", r)
	}
	if r := w.call(w.pl, "TaskCreate", `{"subject":"x"}`); !r.IsError {
		t.Errorf("create without description: %+v", r)
	}
	if r := w.call(w.mate, "TaskUpdate", `{"task_id":"1","status":"in_progress"}`); r.IsError || !strings.Contains(r.Output, "claimed by bob") {
		t.Fatalf("claim: %+v", r)
	}
	if r := w.call(w.pl, "TaskUpdate", `{"task_id":"1","status":"in_progress"}`); !r.IsError || !strings.Contains(r.Output, "already claimed by bob") {
		t.Errorf("second claim: %+v", r)
	}
	if r := w.call(w.mate, "TaskUpdate", `{"task_id":"#1","progress":"lexer done"}`); r.IsError {
		t.Errorf("progress: %+v", r)
	}
	if r := w.call(w.pl, "TaskList", `{}`); r.Output != "#1 [in_progress] bob: Write the parser" {
		t.Errorf("list = %q", r.Output)
	}
	if r := w.call(w.mate, "TaskUpdate", `{"task_id":"1","status":"completed"}`); r.IsError || !strings.Contains(r.Output, "completed by bob") {
		t.Errorf("done: %+v", r)
	}
	r := w.call(w.pl, "TaskGet", `{"task_id":"1"}`)
	for _, want := range []string{"Task #1: Write the parser", "Status: completed", "Owner: bob", "parse.go, with tests", "bob: lexer done"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("get lacks %q:\n%s", want, r.Output)
		}
	}
	if r := w.call(w.pl, "TaskGet", `{"task_id":"7"}`); !r.IsError || !strings.Contains(r.Output, "TaskList") {
		t.Errorf("get 7: %+v", r)
	}
	if r := w.call(w.pl, "TaskUpdate", `{"task_id":"1","status":"done"}`); !r.IsError {
		t.Errorf("bad status: %+v", r)
	}
	if r := w.call(w.pl, "TaskUpdate", `{"task_id":"1"}`); !r.IsError || !strings.Contains(r.Output, "nothing to update") {
		t.Errorf("empty update: %+v", r)
	}
}

func TestSendMessageReachesMemberAndLead(t *testing.T) {
	w := newToolWorld(t)
	w.team.AddMember(Member{Name: "bob"})
	if r := w.call(w.pl, "SendMessage", `{"to":"bob","message":"take task 1"}`); r.IsError || !strings.Contains(r.Output, "sent to bob") {
		t.Fatalf("send: %+v", r)
	}
	if r := w.call(w.pl, "SendMessage", `{"to":"carol","message":"x"}`); !r.IsError || !strings.Contains(r.Output, "lead, bob") {
		t.Errorf("unknown: %+v", r)
	}
	if r := w.call(w.mate, "SendMessage", `{"to":"bob","message":"x"}`); !r.IsError {
		t.Errorf("to self: %+v", r)
	}
	got, _ := w.team.Mail.Pending("bob")
	if len(got) != 1 || got[0].From != "lead" || got[0].Text != "take task 1" {
		t.Fatalf("bob's mailbox = %+v", got)
	}
	if r := w.call(w.mate, "SendMessage", `{"to":"lead","message":"done with 1"}`); r.IsError {
		t.Fatal(r)
	}
	// The lead's seam: each message once, then never again.
	var seen []Message
	deliver := func(m Message) error { seen = append(seen, m); return nil }
	if err := w.lead.Incoming(deliver); err != nil {
		t.Fatal(err)
	}
	if err := w.lead.Incoming(deliver); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0].From != "bob" || !strings.Contains(FormatIncoming(seen), `<teammate-message from="bob"`) {
		t.Errorf("lead got %+v", seen)
	}
}

func TestTeamMergeMergesOrReportsConflict(t *testing.T) {
	w := newToolWorld(t)
	addMate := func(name string) string {
		wt := filepath.Join(t.TempDir(), name)
		run(t, w.repo, "git", "worktree", "add", "-q", "-b", Branch("alpha", name), wt)
		w.team.AddMember(Member{Name: name, Branch: Branch("alpha", name), Worktree: wt})
		return wt
	}
	wt := addMate("bob")
	os.WriteFile(filepath.Join(wt, "b.txt"), []byte("bob\n"), 0o644)
	run(t, wt, "git", "add", "b.txt")
	run(t, wt, "git", "commit", "-qm", "bob's work")
	os.WriteFile(filepath.Join(wt, "loose.txt"), []byte("x"), 0o644)
	r := w.call(w.pl, "TeamMerge", `{"name":"bob"}`)
	if r.IsError || !strings.Contains(r.Output, "Merged bob's branch") || !strings.Contains(r.Output, "uncommitted") {
		t.Fatalf("merge: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(w.repo, "b.txt")); err != nil {
		t.Errorf("b.txt not merged: %v", err)
	}
	if log := run(t, w.repo, "git", "log", "-1", "--format=%P"); len(strings.Fields(log)) != 2 {
		t.Errorf("not a merge commit (--no-ff): parents %q", log)
	}
	if r := w.call(w.pl, "TeamMerge", `{"name":"bob"}`); r.IsError || !strings.Contains(r.Output, "Nothing to merge") {
		t.Errorf("second merge: %+v", r)
	}

	wt = addMate("carol")
	os.WriteFile(filepath.Join(wt, "a.txt"), []byte("carol\n"), 0o644)
	run(t, wt, "git", "commit", "-qam", "carol's a")
	os.WriteFile(filepath.Join(w.repo, "a.txt"), []byte("lead\n"), 0o644)
	run(t, w.repo, "git", "commit", "-qam", "lead's a")
	head := run(t, w.repo, "git", "rev-parse", "HEAD")
	r = w.call(w.pl, "TeamMerge", `{"name":"carol"}`)
	if !r.IsError || !strings.Contains(r.Output, "conflicted in: a.txt") || !strings.Contains(r.Output, "aborted") {
		t.Fatalf("conflict: %+v", r)
	}
	if now := run(t, w.repo, "git", "rev-parse", "HEAD"); now != head {
		t.Errorf("HEAD moved on a conflict")
	}
	if st := run(t, w.repo, "git", "status", "--porcelain"); st != "" {
		t.Errorf("the lead's tree is left dirty after the abort:\n%s", st)
	}
	if r := w.call(w.pl, "TeamMerge", `{"name":"dave"}`); !r.IsError {
		t.Errorf("unknown teammate: %+v", r)
	}
}

func TestTeamSpawnOutsideGitSaysSo(t *testing.T) {
	w := newToolWorld(t)
	w.lead.Repo = t.TempDir()
	r := w.call(w.pl, "TeamSpawn", `{"name":"bob","prompt":"do it"}`)
	if !r.IsError || !strings.Contains(r.Output, "not in a git repository") {
		t.Errorf("spawn outside git: %+v", r)
	}
	if r := w.call(w.pl, "TeamSpawn", `{"name":"../x","prompt":"do it"}`); !r.IsError {
		t.Errorf("bad name: %+v", r)
	}
}

// A teammate name whose branch an earlier teammate left behind is refused
// with that cause, not with a word about the repository's first commit.
func TestTeamSpawnNameClashSaysWhy(t *testing.T) {
	w := newToolWorld(t)
	w.lead.Worktrees = t.TempDir()
	run(t, w.repo, "git", "branch", Branch("alpha", "bob"))
	r := w.call(w.pl, "TeamSpawn", `{"name":"bob","prompt":"do it"}`)
	if !r.IsError || !strings.Contains(r.Output, "branch "+Branch("alpha", "bob")+" already exists") || strings.Contains(r.Output, "first commit") {
		t.Errorf("spawn over a left branch: %+v", r)
	}
}
