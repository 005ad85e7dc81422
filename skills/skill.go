// Package skills finds SKILL.md skills and slash-command files, in nova's
// directories and Claude Code's, and makes them work as Claude Code's do:
// the model is told their names and descriptions in the messages and
// loads one with the Skill tool; a person runs one as /name args, its
// arguments substituted, its !`shell` lines run and its @file references
// read through the one tool pipeline; allowed-tools widens what runs
// without asking for that run only. See docs/skills.md.
package skills

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nova-dev/nova/permission"
)

// Kind says what file a skill comes from.
type Kind string

// The kinds of skill file.
const (
	// KindSkill is a directory holding SKILL.md (and any files it uses).
	KindSkill Kind = "skill"
	// KindCommand is a single markdown file of a commands directory.
	KindCommand Kind = "command"
	// KindAgent is an agent file (agents/NAME.md): a subagent type, not a
	// skill, read by the same rules (LoadAgents).
	KindAgent Kind = "agent"
)

// dirName is the directory files of the kind are kept in: skills,
// commands, agents.
func (k Kind) dirName() string { return string(k) + "s" }

// Scope says whose words a skill is.
type Scope string

// The scopes.
const (
	// ScopeUser skills are the user's own (NOVA_HOME, ~/.claude).
	ScopeUser Scope = "user"
	// ScopeProject skills come with the workspace (.nova, .claude): the
	// repository author's words, loaded only in a trusted workspace.
	ScopeProject Scope = "project"
)

// Skill is one skill or command, as its file says.
type Skill struct {
	// Name is what /name and the Skill tool call it.
	Name string
	// Description tells the model (and /help) when to use it; when the
	// file gives none, its first paragraph.
	Description string
	// ArgumentHint is shown after /name while typing ("[file] [line]").
	ArgumentHint string
	// AllowedTools are permission rules that hold, without asking, for
	// the run the skill is used in (never narrowing anything).
	AllowedTools []string
	// Model, when set, is the model of the rest of that run ("inherit"
	// means the session's).
	Model string
	// DisableModelInvocation keeps the skill from the model: not listed,
	// and the Skill tool refuses it; /name still runs it.
	DisableModelInvocation bool
	// UserInvocable false hides it from /help and completion (/name typed
	// in full still runs it, as in Claude Code).
	UserInvocable bool
	// Context "fork" asks for a subagent of its own; Agent names which.
	Context, Agent string
	// Arguments name the positional arguments ($name for $0, ...).
	Arguments []string
	// Namespace is the subdirectory of a commands directory it is in
	// ("frontend" for frontend/component.md); "" at the top.
	Namespace string
	Kind      Kind
	Scope     Scope
	// Path is the file; Dir is the skill's base directory (the SKILL.md
	// directory, or the directory of a command file).
	Path, Dir string
	// Hooks is the frontmatter's "hooks" object as JSON, in Claude Code's
	// shape (that of settings.json): they run while the skill is active,
	// from its use to the end of that run. nil when it has none.
	Hooks json.RawMessage
	// Plugin is the plugin that supplies it ("" for none); Vars are the
	// ${NAME} values its plugin adds (CLAUDE_PLUGIN_ROOT), for its body
	// and its hooks.
	Plugin string
	Vars   map[string]string
	// HooksError says why the frontmatter's hooks could not be read: the
	// skill is then not run, since part of its guard would be missing.
	HooksError string
	// Body is the file after its frontmatter.
	Body string
}

// Forked reports whether the skill asks for a subagent of its own.
func (s *Skill) Forked() bool { return strings.EqualFold(strings.TrimSpace(s.Context), "fork") }

// Source says where the skill is from, for people: "project",
// "user", with a command's namespace ("project:frontend").
func (s *Skill) Source() string {
	if s.Plugin != "" {
		return "plugin:" + s.Plugin
	}
	if s.Namespace != "" {
		return string(s.Scope) + ":" + s.Namespace
	}
	return string(s.Scope)
}

// maxFile bounds a skill file: its body goes to the model whole.
const maxFile = 256 << 10

// parseFile reads a skill or command file. warns are problems that did
// not stop it; err means the file is left out.
func parseFile(path, name string, kind Kind, scope Scope) (*Skill, []string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if info.Size() > maxFile {
		return nil, nil, fmt.Errorf("%s is %d KiB, over the %d KiB a skill may be", path, info.Size()>>10, maxFile>>10)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return parse(string(data), path, name, kind, scope)
}

// parse makes a Skill of a file's text.
func parse(text, path, name string, kind Kind, scope Scope) (*Skill, []string, error) {
	s := &Skill{Name: name, Kind: kind, Scope: scope, Path: path, Dir: filepath.Dir(path), UserInvocable: true}
	header, body, has := splitFrontmatter(text)
	s.Body = body
	var warns []string
	if has {
		fm, warn := parseFrontmatter(header)
		if warn != "" {
			warns = append(warns, warn)
		}
		if n := fm.str("name"); n != "" && kind == KindSkill {
			if why := badName(n); why != "" {
				warns = append(warns, fmt.Sprintf("name %q %s; using the directory's name %q", n, why, name))
			} else {
				s.Name = n
			}
		}
		s.Description = fm.str("description")
		s.ArgumentHint = fm.str("argument-hint")
		s.AllowedTools = fm.list("allowed-tools", permission.SplitToolList)
		s.Model = fm.str("model")
		s.Context = fm.str("context")
		s.Agent = fm.str("agent")
		s.Arguments = fm.list("arguments", strings.Fields)
		if v, set, bad := fm.flag("disable-model-invocation"); set {
			s.DisableModelInvocation = v
		} else if bad != "" {
			warns = append(warns, bad)
		}
		if v, set, bad := fm.flag("user-invocable"); set {
			s.UserInvocable = v
		} else if bad != "" {
			warns = append(warns, bad)
		}
		if h, err := fm.object("hooks"); err != nil {
			s.HooksError = err.Error()
			warns = append(warns, err.Error()+"; it is not run until they can be")
		} else {
			s.Hooks = h
		}
	}
	if why := badName(s.Name); why != "" {
		return nil, warns, fmt.Errorf("name %q %s", s.Name, why)
	}
	if s.Description == "" {
		s.Description = firstParagraph(body)
	}
	return s, warns, nil
}

// badName says why name cannot be typed as /name, or "".
func badName(name string) string {
	if name == "" {
		return "is empty"
	}
	if len(name) > 64 {
		return "is longer than 64 characters"
	}
	for _, r := range name {
		ok := r == '-' || r == '_' || r == '.' || r == ':' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !ok {
			return "may hold only letters, digits, -, _, . and :"
		}
	}
	return ""
}

// firstParagraph is a body's first paragraph on one line, headings'
// marks dropped: Claude Code's description when a file gives none.
func firstParagraph(body string) string {
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		if t == "" {
			if len(lines) > 0 {
				break
			}
			continue
		}
		lines = append(lines, strings.TrimSpace(strings.TrimLeft(t, "#")))
	}
	d := strings.Join(lines, " ")
	if r := []rune(d); len(r) > 300 {
		d = string(r[:299]) + "…"
	}
	return d
}
