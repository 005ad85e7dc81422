package tui

import (
	"strings"
	"testing"

	"github.com/nova-dev/nova/agent"
)

// skillsBackend is a fake backend with the Skills capability.
type skillsBackend struct {
	*fakeBackend
	cmds []SkillCommand
}

func (s *skillsBackend) SkillCommands() []SkillCommand { return s.cmds }

func newSkillsHarness(t *testing.T, cmds ...SkillCommand) (*harness, *skillsBackend) {
	t.Helper()
	b := &skillsBackend{fakeBackend: newFake(), cmds: cmds}
	h := newHarness(t, b.fakeBackend)
	h.m.b = b
	h.m.in.comp.commands = h.m.commandNames()
	return h, b
}

func skillsFixture() []SkillCommand {
	return []SkillCommand{
		{Name: "deploy", Description: "Deploy the app", ArgumentHint: "[env]", Source: "project"},
		{Name: "help", Description: "a skill that may not take a built-in's name", Source: "user"},
		{Name: "review-pr", Description: "Review a pull request", Source: "user"},
	}
}

// A skill is completed and listed like a built-in command, a built-in's
// name stays the built-in's, and running one sends the line as typed to
// the run, which expands it.
func TestTUISkillCommands(t *testing.T) {
	h, b := newSkillsHarness(t, skillsFixture()...)
	h.typeText("/dep")
	h.contains("/deploy")
	h.press("esc")
	h.m.in.reset("")

	h.typeText("/help")
	h.press("enter")
	h.contains("/deploy [env]")
	h.contains("Deploy the app (project)")
	h.contains("/review-pr")
	if strings.Contains(h.screen(), "may not take a built-in") {
		t.Error("a skill took the name of the built-in /help")
	}

	b.runs = [][]agent.Event{{text("Deployed."), done(agent.SubtypeSuccess)}}
	h.typeText("/deploy staging --fast")
	h.press("enter")
	h.settle()
	if len(b.inputs) != 1 || b.inputs[0].Text() != "/deploy staging --fast" {
		t.Fatalf("the run got %+v, want the command line as typed", b.inputs)
	}
	h.contains("Deployed.")
}

// Like the built-in commands that change the session, a skill waits for
// the run in progress.
func TestTUISkillCommandWaitsForIdle(t *testing.T) {
	h, b := newSkillsHarness(t, skillsFixture()...)
	b.runs = [][]agent.Event{{{Type: agent.EventTurnStart, Turn: 1}}}
	h.typeText("work")
	h.press("enter")
	h.typeText("/review-pr 12")
	h.press("enter")
	if len(b.inputs) != 1 {
		t.Errorf("a skill started beside a run: %+v", b.inputs)
	}
	h.contains("/review-pr waits until nova is idle")
}

// TestTUICompletionDescribes: completion shows each command's
// arguments and description in a column beside it.
func TestTUICompletionDescribes(t *testing.T) {
	h, _ := newSkillsHarness(t, skillsFixture()...)
	h.typeText("/")
	h.golden("completion")
	if !strings.Contains(h.screen(), "  /help   ") || !strings.Contains(h.screen(), "   keys and commands\n") {
		t.Errorf("/help has no description beside it:\n%s", h.screen())
	}
	h.contains("/compact [instructions]")
	h.typeText("de")
	h.contains("/deploy [env]  Deploy the app (project)")
}

// TestTUISkillAddedMidSession: a command file created while nova runs
// is offered the next time completion opens, without a restart.
func TestTUISkillAddedMidSession(t *testing.T) {
	h, b := newSkillsHarness(t, skillsFixture()...)
	h.typeText("/rel")
	if h.m.in.comp.active() {
		t.Fatalf("/rel completes before the command exists:\n%s", h.screen())
	}
	h.press("ctrl+c")
	b.cmds = append(b.cmds, SkillCommand{Name: "release", Description: "Cut a release", Source: "project"})
	h.typeText("/rel")
	h.contains("/release  Cut a release (project)")
	h.press("tab")
	if got := h.m.in.ta.Value(); got != "/release " {
		t.Errorf("tab gave %q", got)
	}
}
