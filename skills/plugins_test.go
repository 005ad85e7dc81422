package skills

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
)

// pluginWorld is a world whose session has one plugin, "kit": a skills
// directory, a commands directory (with a subdirectory), a single
// command file and an agent file, as package plugins hands them over.
func pluginWorld(t *testing.T) (Dirs, string) {
	d := world(t)
	root := filepath.Join(t.TempDir(), "kit")
	write(t, filepath.Join(root, "skills", "tidy", "SKILL.md"), skillFile("tidy", "Tidy up."))
	write(t, filepath.Join(root, "commands", "greet.md"), "---\ndescription: Greet\n---\nHello $ARGUMENTS from ${CLAUDE_PLUGIN_ROOT}.\n")
	write(t, filepath.Join(root, "commands", "sub", "deep.md"), "Deep $0.\n")
	write(t, filepath.Join(root, "extra", "one.md"), "One.\n")
	write(t, filepath.Join(root, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews.\n---\nReview.\n")
	// A user's own command of the same bare name is not shadowed.
	write(t, filepath.Join(d.NovaHome, "commands", "greet.md"), "Mine.\n")
	vars := map[string]string{"CLAUDE_PLUGIN_ROOT": root}
	d.Plugins = []PluginRoot{
		{Path: filepath.Join(root, "skills"), Kind: KindSkill, Plugin: "kit", Vars: vars},
		{Path: filepath.Join(root, "commands"), Kind: KindCommand, Plugin: "kit", Vars: vars},
		{Path: filepath.Join(root, "extra", "one.md"), Kind: KindCommand, Plugin: "kit", Vars: vars},
		{Path: filepath.Join(root, "agents"), Kind: KindAgent, Plugin: "kit", Vars: vars},
	}
	return d, root
}

// TestPluginSkills: a plugin's skills, commands and agents are named
// <plugin>:<name> (a command's subdirectory too), as Claude Code names
// them, beside the user's own.
func TestPluginSkills(t *testing.T) {
	d, _ := pluginWorld(t)
	set := Load(d)
	if got, want := names(set), []string{"greet", "kit:greet", "kit:one", "kit:sub:deep", "kit:tidy"}; !slices.Equal(got, want) {
		t.Errorf("skills %v, want %v (warnings %v)", got, want, set.Warnings)
	}
	if sk := set.Lookup("kit:tidy"); sk == nil || sk.Source() != "plugin:kit" || sk.Kind != KindSkill {
		t.Errorf("kit:tidy = %+v", sk)
	}
	var agents []string
	for _, a := range LoadAgents(d).Agents {
		agents = append(agents, a.Name)
	}
	if !slices.Contains(agents, "kit:reviewer") {
		t.Errorf("agents %v lack kit:reviewer", agents)
	}
}

// TestPluginCommandExpands: /kit:greet expands with its arguments and
// the plugin's ${CLAUDE_PLUGIN_ROOT}.
func TestPluginCommandExpands(t *testing.T) {
	d, root := pluginWorld(t)
	s := newSession(t, d)
	out, err := s.m.Expand(context.Background(), llm.Message{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart("/kit:greet Ada")}})
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, p := range out.Parts {
		text = append(text, p.Text)
	}
	if got := strings.Join(text, "\n"); !strings.Contains(got, "<command-name>/kit:greet</command-name>") || !strings.Contains(got, "Hello Ada from "+root+".") {
		t.Errorf("expanded to %q", got)
	}
}
