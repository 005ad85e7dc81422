// Package tui is nova's interactive terminal frontend, built on Bubble Tea.
// It holds no agent logic: it renders the agent's event stream, answers
// its permission asks and questions, and talks to the rest of nova only
// through the small Backend interface, which cmd/nova implements.
package tui

import (
	"context"
	"errors"
	"io"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
)

// Backend is everything the TUI needs from the rest of nova: the current
// session's agent and the few session-level operations behind the slash
// commands. Implementations must be safe to call from the UI goroutine and
// from commands running in the background.
type Backend interface {
	// Run starts a run of the current session's agent (agent.Agent.Run).
	Run(ctx context.Context, input llm.Message) <-chan agent.Event
	// Compact compacts the current session's history.
	Compact(ctx context.Context, instructions string) error
	// Status is what the status line shows.
	Status() Status
	// CycleMode moves to the next permission mode and returns it.
	CycleMode() permission.Mode
	// NewSession replaces the current session by an empty one (/clear).
	NewSession() error
	// Sessions lists the sessions that can be resumed, newest first.
	Sessions() ([]session.Meta, error)
	// Resume makes the session id current.
	Resume(id string) error
	// History is the current session's conversation, to show after a resume.
	History() []llm.Message
	// Shell runs a command line for "!cmd" through the same permission
	// checker and pipeline as the agent's Bash calls, returning its output.
	// The command and its output become part of the conversation there:
	// the TUI adds nothing of them to the next prompt.
	Shell(ctx context.Context, command string) (string, error)
}

// Team is an optional Backend capability behind /team.
type Team interface {
	// Team returns the teammates and the task board of the team the
	// session leads, as nova team status prints them.
	Team() (string, error)
}

// Doctor is an optional Backend capability behind /doctor.
type Doctor interface {
	// Doctor returns what `nova doctor` prints.
	Doctor() (string, error)
}

// ModelSwitcher is an optional Backend capability behind /model.
type ModelSwitcher interface {
	// Models lists the configured models as provider:model ids.
	Models() []string
	// SetModel makes id the model of the current session.
	SetModel(id string) error
}

// Skills is an optional Backend capability: the skills and command files
// a person can run as /name. Running one sends "/name args" as the
// prompt; the run expands it.
type Skills interface {
	// SkillCommands lists them by name.
	SkillCommands() []SkillCommand
}

// SkillCommand is a skill or command file offered as /name.
type SkillCommand struct {
	Name         string // without the slash
	Description  string
	ArgumentHint string // "[file] [line]"
	Source       string // "project", "user:git"
}

// Memory is an optional Backend capability behind /memory.
type Memory interface {
	// Memory describes the instruction files and memory in effect.
	Memory() (string, error)
	// MemoryFiles are the files /memory opens in the editor: the auto
	// memory file (created when missing) and the instruction files in effect.
	MemoryFiles() ([]string, error)
}

// HookList is an optional Backend capability behind /hooks.
type HookList interface {
	// HookReport describes the hooks configured for the session, each
	// with where it comes from, as nova doctor's hooks section does.
	HookReport() string
}

// Remote is an optional Backend capability behind /remote: the current
// session served to browsers by this process, the terminal and the
// server being two consumers of one live session (docs/remote.md,
// "Sharing a terminal session").
type Remote interface {
	// StartRemote serves the current session at addr (host, host:port or
	// :port; "" takes the --host and --port nova started with) and says
	// where.
	StartRemote(addr string) (RemoteInfo, error)
	// StopRemote stops serving; a run going on goes on. It may wait a
	// few seconds for requests in flight, so the TUI calls it off the UI
	// goroutine.
	StopRemote() error
	// RemoteInfo is the share in effect; ok is false when there is none.
	RemoteInfo() (info RemoteInfo, ok bool)
	// RemoteRuns are the runs of the shared session started elsewhere (a
	// browser's prompt), each as it starts, across /clear and /resume;
	// the channel closes when the share stops. One channel per share.
	RemoteRuns() <-chan RemoteRun
}

// RemoteInfo is where a shared session is served.
type RemoteInfo struct {
	// URL opens the session in a browser; it carries the token.
	URL string
	// Exposed says the server listens beyond loopback, in plain HTTP: the
	// network carries the traffic, the token included, unencrypted.
	Exposed bool
	// LAN is this machine's LAN address when the share is on loopback and
	// the machine has one: /remote lan shares there, for a phone.
	LAN string
}

// RemoteRun is a run of the shared session that the TUI did not start.
type RemoteRun struct {
	// Prompt is the text it was started with.
	Prompt string
	// Events are its events, as Backend.Run's: closed after the done event.
	Events <-chan agent.Event
	// Interrupt stops it without waiting (esc).
	Interrupt func()
}

// Status is what the status line and /context and /cost show.
type Status struct {
	Model     string
	Mode      permission.Mode
	Cwd       string
	Branch    string
	SessionID string
	// Context is the last known context usage; nil before the first turn.
	Context *agent.ContextUsage
	// Usage is the session's token totals.
	Usage llm.Usage
	// CostUSD is the session's cost; nil when the model's prices are unknown.
	CostUSD *float64
	// Home is the user's home directory, shown as ~ in Cwd; "" shows Cwd whole.
	Home string

	// shared is set by the TUI itself while /remote shares the session
	// (the backend's Status never has it): the line says "shared".
	shared bool
}

// Options configure Run.
type Options struct {
	// In and Out are the terminal; nil means the process's stdin/stdout.
	In  io.Reader
	Out io.Writer
	// Env is the environment used to detect colour support (NO_COLOR,
	// TERM); nil means the process's.
	Env []string
	// Width and Height fix the screen size when Out is not a terminal
	// (tests); a terminal's own size is used otherwise.
	Width, Height int
	// Prompt, when set, is sent as soon as the UI starts.
	Prompt string
	// Notices are shown at the top of the transcript (build warnings).
	Notices []string
	// Editor is the command /memory opens files with ($VISUAL or $EDITOR,
	// possibly with arguments, e.g. "code -w"); "" means only list them.
	Editor string
	// Screen is ScreenAlternate or ScreenInline; "" is DefaultScreen.
	Screen string
}

// fps is the most frames a second the renderer draws.
const fps = 30

// Run shows the TUI until the person quits or ctx ends.
func Run(ctx context.Context, b Backend, opts Options) error {
	m := New(ctx, b, opts)
	if m.inl.on {
		m.inl.profile = detectProfile(opts)
	}
	pc := newPacer(fps)
	p := tea.NewProgram(m, append(programOptions(ctx, opts), tea.WithFilter(pc.filter))...)
	pc.prog = p
	_, err := p.Run()
	pc.stop()
	m.shutdown()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil
	}
	if err == nil {
		text := m.farewell()
		if m.inl.on {
			text = m.inlineFarewell() // the rest is in the scrollback already
		}
		printFarewell(opts.Out, opts.Env, text)
	}
	return err
}

// programOptions are the Bubble Tea options of nova's programs.
func programOptions(ctx context.Context, opts Options) []tea.ProgramOption {
	// 30 frames a second at most: streaming stays smooth, and a frame
	// costs half as often as at the default 60. (Idle, the pacer stops
	// the frame ticker altogether.)
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(fps)}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		popts = append(popts, tea.WithOutput(opts.Out))
	}
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	if opts.Env != nil {
		popts = append(popts, tea.WithEnvironment(opts.Env))
	}
	return popts
}
