package skills

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// session is a manager over a real checker and pipeline, as print mode
// has them: nobody to ask, so an ask is a denial.
type session struct {
	m       *Manager
	checker *permission.Checker
	env     *tools.Env
	notices []string
}

func newSession(t *testing.T, d Dirs) *session {
	t.Helper()
	checker, err := permission.NewChecker(permission.Config{Workspace: d.Workdir, Home: filepath.Dir(d.ClaudeHome), NovaHome: d.NovaHome})
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry()
	for _, tl := range []tools.Tool{&tools.Read{}, &tools.Bash{}} {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	env := tools.NewEnv(d.Workdir)
	env.Home, env.SessionID, env.ScratchDir = filepath.Dir(d.ClaudeHome), "sess-1", t.TempDir()
	t.Cleanup(func() { env.Close() })
	s := &session{checker: checker, env: env}
	s.m = &Manager{Dirs: d, Pipeline: &tools.Pipeline{Registry: reg, Checker: checker}, Env: env, Grant: checker.Grant,
		Notice: func(_ context.Context, text string) { s.notices = append(s.notices, text) }}
	return s
}

func (s *session) bash(cmd string) permission.Behavior {
	return s.checker.Check(context.Background(), permission.Request{Tool: "Bash", Kind: permission.KindExec, Command: cmd, Workdir: s.env.Workdir}).Behavior
}

// A person's /name: arguments in, allowed-tools for the run, shell lines
// through the checker (an allowed one's output in, a refused one said),
// @file references read; the grant ends with the run.
func TestExpandCommand(t *testing.T) {
	d := world(t)
	d.Trusted = true
	write(t, filepath.Join(d.Workdir, "notes.txt"), "the notes\n")
	write(t, filepath.Join(d.Workdir, ".claude", "commands", "ship.md"), "---\n"+
		"allowed-tools: Bash(touch:*)\n"+
		"description: Ship a release\n"+
		"---\n"+
		"Ship $0 to $1 (all: $ARGUMENTS).\n"+
		"Made: !`touch made-$0.txt && echo made $0`\n"+
		"Refused: !`mkdir refused-dir`\n"+
		"See @notes.txt and @nobody.\n")
	s := newSession(t, d)
	s.m.Listing() // the context message of a new session told the model
	ctx, scope := tools.WithRunScope(context.Background())
	out, err := s.m.Expand(ctx, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("!ls said: x"), llm.TextPart("/ship v2 prod")}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, p := range out.Parts {
		texts = append(texts, p.Text)
	}
	if len(texts) != 4 || texts[0] != "!ls said: x" || texts[1] != "<command-name>/ship</command-name>\n<command-args>v2 prod</command-args>" {
		t.Fatalf("parts = %q", texts)
	}
	body := texts[2]
	for _, want := range []string{"Ship v2 to prod (all: v2 prod).", "Made: made v2", `Refused: [nova did not run "mkdir refused-dir": Permission to use Bash was denied`, "nobody to approve it", "See @notes.txt and @nobody."} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if !strings.Contains(texts[3], `<file path="notes.txt">`) || !strings.Contains(texts[3], "the notes") {
		t.Errorf("file part = %q", texts[3])
	}
	if s.bash("touch another.txt") != permission.Allow {
		t.Error("allowed-tools does not hold during the run")
	}
	if d := scope.Denials(); len(d) != 1 || !strings.Contains(string(d[0].Call.Input), "mkdir refused-dir") {
		t.Errorf("the run's denials = %+v, want the refused shell line", d)
	}
	scope.End()
	if s.bash("touch another.txt") != permission.Ask {
		t.Error("allowed-tools outlived the run")
	}
	if !strings.Contains(strings.Join(s.notices, "\n"), "/ship allows for this run: Bash(touch:*)") {
		t.Errorf("notices = %q", s.notices)
	}
}

// Text that is no command, or names none, goes as typed.
func TestExpandLeavesOtherInput(t *testing.T) {
	s := newSession(t, world(t))
	ctx := context.Background()
	for _, in := range []string{"hello", "/usr/bin/env is gone", "/unknown thing"} {
		out, err := s.m.Expand(ctx, llm.UserText(in))
		if err != nil || len(out.Parts) != 1 || out.Parts[0].Text != in {
			t.Errorf("Expand(%q) = %+v, %v", in, out, err)
		}
	}
}

// Forked skills are refused, not faked, in a session without subagents
// (Manager.Fork nil); an untrusted project's command says why it is not
// there.
func TestExpandRefusals(t *testing.T) {
	d := world(t)
	write(t, filepath.Join(d.NovaHome, "skills", "fork", "SKILL.md"), "---\ncontext: fork\n---\nExplore.\n")
	write(t, filepath.Join(d.Workdir, ".claude", "commands", "deploy.md"), "Deploy.\n")
	s := newSession(t, d)
	ctx := context.Background()
	if _, err := s.m.Expand(ctx, llm.UserText("/fork")); err == nil || !strings.Contains(err.Error(), "forked subagent (context: fork), and this session has no subagents") {
		t.Errorf("/fork: %v", err)
	}
	if _, err := s.m.Expand(ctx, llm.UserText("/deploy")); err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Errorf("/deploy in an untrusted folder: %v", err)
	}
	res, err := s.m.LoadSkill(ctx, "fork", "", nil)
	if err != nil || !res.IsError || !strings.Contains(res.Output, "this session has no subagents") {
		t.Errorf("Skill(fork) = %+v, %v", res, err)
	}
}

// What the model receives from the Skill tool: the base directory, then
// the body with its arguments and shell lines done.
func TestLoadSkill(t *testing.T) {
	d := world(t)
	dir := filepath.Join(d.ClaudeHome, "skills", "pdf")
	write(t, filepath.Join(dir, "SKILL.md"), "---\nname: pdf\ndescription: Work with PDFs\n---\nUse ${CLAUDE_SKILL_DIR}/fill.py on $0.\nVersion: !`echo 1.2`\n")
	write(t, filepath.Join(d.NovaHome, "skills", "secret", "SKILL.md"), "---\ndisable-model-invocation: true\n---\nOnly for people.\n")
	s := newSession(t, d)
	res, err := s.m.LoadSkill(context.Background(), "pdf", "form.pdf", nil)
	want := "Base directory for this skill: " + dir + "\n\nUse " + dir + "/fill.py on form.pdf.\nVersion: 1.2"
	if err != nil || res.IsError || res.Output != want {
		t.Errorf("Skill(pdf) = %q (%v), want %q", res.Output, err, want)
	}
	for name, why := range map[string]string{"secret": "only for the user to run (as /secret)", "nope": `no skill named "nope"`} {
		if res, _ := s.m.LoadSkill(context.Background(), name, "", nil); !res.IsError || !strings.Contains(res.Output, why) {
			t.Errorf("Skill(%s) = %+v, want %q", name, res, why)
		}
	}
	// A person may still run it.
	out, err := s.m.Expand(context.Background(), llm.UserText("/secret"))
	if err != nil || !strings.Contains(out.Text(), "Only for people.") || !strings.Contains(out.Text(), "Base directory for this skill: ") {
		t.Errorf("/secret = %q, %v", out.Text(), err)
	}
}

// The list names the skills the model may load; later prompts are told
// what changed, once.
func TestListingAndChanges(t *testing.T) {
	d := world(t)
	write(t, filepath.Join(d.NovaHome, "skills", "alpha", "SKILL.md"), skillFile("alpha", "First skill"))
	write(t, filepath.Join(d.NovaHome, "skills", "hidden", "SKILL.md"), "---\ndisable-model-invocation: true\ndescription: not for the model\n---\n")
	s := newSession(t, d)
	l := s.m.Listing()
	if !strings.HasPrefix(l, "<skills>\n") || !strings.Contains(l, "- alpha: First skill\n") || strings.Contains(l, "hidden") {
		t.Errorf("listing = %q", l)
	}
	ctx := context.Background()
	if out, _ := s.m.Expand(ctx, llm.UserText("hi")); len(out.Parts) != 1 {
		t.Errorf("nothing changed, yet %q", out.Text())
	}
	write(t, filepath.Join(d.NovaHome, "skills", "beta", "SKILL.md"), skillFile("beta", "Second skill"))
	out, _ := s.m.Expand(ctx, llm.UserText("hi"))
	if len(out.Parts) != 2 || !strings.Contains(out.Parts[0].Text, "added or changed") || !strings.Contains(out.Parts[0].Text, "- beta: Second skill") || strings.Contains(out.Parts[0].Text, "alpha") {
		t.Errorf("after adding beta: %q", out.Text())
	}
	if out, _ := s.m.Expand(ctx, llm.UserText("hi")); len(out.Parts) != 1 {
		t.Errorf("told twice: %q", out.Text())
	}
}

// A skill's hooks start before anything of it runs, and a skill whose
// hooks cannot run (unreadable, or a session that runs none) is refused,
// by /name and by the Skill tool alike, with nothing granted.
func TestSkillHooksActivate(t *testing.T) {
	d := world(t)
	write(t, filepath.Join(d.NovaHome, "skills", "guarded", "SKILL.md"), "---\nallowed-tools: Bash(touch:*)\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: exit 0\n---\nGuarded.\n")
	write(t, filepath.Join(d.NovaHome, "skills", "broken", "SKILL.md"), "---\nhooks: [nope]\n---\nBroken.\n")
	s := newSession(t, d)
	ctx, scope := tools.WithRunScope(context.Background())
	defer scope.End()
	if _, err := s.m.Expand(ctx, llm.UserText("/guarded")); err == nil || !strings.Contains(err.Error(), "this session cannot run them") {
		t.Errorf("/guarded with no way to run hooks: %v", err)
	}
	if res, _ := s.m.LoadSkill(ctx, "guarded", "", nil); !res.IsError || !strings.Contains(res.Output, "skill guarded was not loaded") {
		t.Errorf("Skill(guarded) = %+v", res)
	}
	if s.bash("touch x") != permission.Ask {
		t.Error("a refused skill granted its allowed-tools")
	}
	var got []string
	s.m.Hooks = func(_ context.Context, sk *Skill) ([]string, error) {
		got = append(got, string(sk.Hooks))
		return []string{"a problem"}, nil
	}
	if _, err := s.m.Expand(ctx, llm.UserText("/guarded")); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(got[0], `"Stop"`) {
		t.Errorf("hooks given = %q", got)
	}
	if n := strings.Join(s.notices, "\n"); !strings.Contains(n, "/guarded: a problem") || !strings.Contains(n, "its hooks run until the end of this run") {
		t.Errorf("notices = %q", n)
	}
	if _, err := s.m.Expand(ctx, llm.UserText("/broken")); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Errorf("/broken: %v", err)
	}
}
