package live

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/skills"
)

// More of the operations that keep the runtime (ops.go has the first):
// what a frontend reads of the session (its history, an earlier
// session's last exchange, the skills, the agent types) and the small
// actions beside a run (an @file, the status line, a new agent file).

// History is the conversation as the person had it, without the context
// nova put ahead of its first message for the model.
func (c *Controller) History() []llm.Message {
	h := c.Runtime().Agent.History()
	if len(h) > 0 {
		h[0] = session.WithoutContext(h[0])
	}
	return h
}

// SessionPreview is the last prompt and answer of session id (/resume's
// preview), read from its transcript on disk.
func (c *Controller) SessionPreview(id string) (prompt, answer string, err error) {
	t, _, err := session.NewStore(c.Runtime().NovaHome).Load(id)
	if err != nil {
		return "", "", err
	}
	prompt, answer = t.LastExchange()
	return prompt, answer, nil
}

// SkillCommand is a skill or command file a person may run as /name.
type SkillCommand struct {
	Name         string // without the slash
	Description  string // on one line
	ArgumentHint string // "[file] [line]"
	Source       string // "project", "user:git"
}

// skillMenu keeps the last list of skill commands with the stamp of the
// files it was made from: a frontend asks for the list whenever
// completion opens, and the files are read again only when one was
// added, edited or removed since (a stat of each, not a read).
type skillMenu struct {
	mu    sync.Mutex
	mgr   *skills.Manager
	stamp uint64
	cmds  []SkillCommand
}

// SkillCommands are the session's skills and command files a person may
// run as /name, as they are on disk now.
func (c *Controller) SkillCommands() []SkillCommand {
	rt := c.Runtime()
	if rt.Skills == nil {
		return nil
	}
	m := &c.menu
	m.mu.Lock()
	defer m.mu.Unlock()
	stamp := rt.Skills.Dirs.Stamp()
	if m.mgr == rt.Skills && m.stamp == stamp {
		return m.cmds
	}
	var out []SkillCommand
	for _, sk := range rt.Skills.Commands() {
		// A YAML description may span lines; a menu gives each one line.
		desc := strings.Join(strings.Fields(sk.Description), " ")
		out = append(out, SkillCommand{Name: sk.Name, Description: desc, ArgumentHint: sk.ArgumentHint, Source: sk.Source()})
	}
	m.mgr, m.stamp, m.cmds = rt.Skills, stamp, out
	return out
}

// AgentType is a subagent type the Agent tool can start (/agents), with
// the tools it gets in this session.
type AgentType struct {
	Name, Description string
	Tools             []string // as the type gets them, as the model is told them
	Model             string   // "" is the session's
	Mode              string   // permission mode it asks for; "" none
	Source            string   // "built-in", a file's path
	Prompt            string
}

// AgentTypes are the subagent types the Agent tool can start now, in the
// order the model is told them.
func (c *Controller) AgentTypes() []AgentType {
	rt := c.Runtime()
	var out []AgentType
	for _, t := range rt.AgentTypes() {
		out = append(out, AgentType{Name: t.Name, Description: t.Description, Tools: rt.AgentTools(t), Model: t.Model,
			Mode: string(t.Mode), Source: t.Source, Prompt: t.Prompt})
	}
	return out
}

// CreateAgent writes a new agent file called name (Runtime.CreateAgentFile:
// the project's, or the user's when user is set) and returns its path.
func (c *Controller) CreateAgent(name string, user bool) (string, error) {
	return c.Runtime().CreateAgentFile(name, user)
}

// ReadMentionedFile reads the file a prompt names with @path through the
// session's one pipeline (Runtime.ReadMentionedFile); ErrNotAFile when
// path names no regular file.
func (c *Controller) ReadMentionedFile(ctx context.Context, path string) (string, error) {
	return c.Runtime().ReadMentionedFile(ctx, path)
}

// HasStatusLine reports whether the settings name a status line command.
func (c *Controller) HasStatusLine() bool { return c.Runtime().HasStatusLine() }

// StatusLine runs the settings' status line command for the session as
// it is now (Runtime.StatusLine) and returns its first line.
func (c *Controller) StatusLine(ctx context.Context, in StatusLineInput) (string, error) {
	return c.Runtime().StatusLine(ctx, in)
}

// ErrNoTeam says the session leads no team (Team).
var ErrNoTeam = errors.New("this session leads no team: start nova with --team NAME to lead one (see " + config.DocsBase + "teams.md)")

// Team is how the teammates and the board of the team the session leads
// stand (/team), as nova team status prints them; ErrNoTeam when it
// leads none.
func (c *Controller) Team() (string, error) {
	rt := c.Runtime()
	if rt.TeamStatus == nil {
		return "", ErrNoTeam
	}
	var buf bytes.Buffer
	err := rt.TeamStatus(&buf)
	return buf.String(), err
}

// Run runs the agent on input in the current session's run slot
// (Session.Run: when the slot is taken the events carry an error); the
// runtime names the session as its first run ends (live's one title
// policy).
func (c *Controller) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	return c.Runtime().Live.Run(ctx, input)
}

// SetDefaultModel makes id, one of Models, the model new sessions use
// (default_model in NOVA_HOME/config.json; NOVA_MODEL still comes first
// where it is set) and returns that file. The session goes on with its
// own model. A name not in Models is an *UnknownModelError.
func (c *Controller) SetDefaultModel(id string) (string, error) {
	known := c.Models()
	if !slices.Contains(known, id) {
		return "", &UnknownModelError{Model: id, Known: known, Err: fmt.Errorf("default model %s: not a configured model", id)}
	}
	home := c.Runtime().NovaHome
	if err := config.SetDefaultModel(home, id); err != nil {
		return "", err
	}
	return filepath.Join(home, "config.json"), nil
}
