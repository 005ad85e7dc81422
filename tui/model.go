package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools/display"
)

// frameInterval is the shortest time between two frames while text
// streams: deltas that arrive within it are drawn together.
const frameInterval = 16 * time.Millisecond

// tickInterval advances spinners and elapsed times. The ticker runs only
// while a run or a command is in progress: an idle UI does no work.
const tickInterval = 100 * time.Millisecond

// Model is the root Bubble Tea model. It composes the transcript, the
// input, dialogs, the todo list and the status line, and routes agent
// events and keys between them.
type Model struct {
	ctx  context.Context
	b    Backend
	opts Options

	st       styles
	dark     bool
	md       *markdown
	width    int
	height   int
	tr       transcript
	in       input
	dialogs  []dialog // the first is shown; later asks wait their turn
	todos    []display.Todo
	status   Status
	expanded bool

	run     *activeRun
	busy    string // a slash command working in the background ("Compacting…")
	ticking bool
	frame   int

	quitArmed bool
	hint      string
	// queued are prompts sent while nova was working, to go when it stops.
	queued []string
	// mcp caches the MCP servers' prompts and resources.
	mcp mcpCache
	now func() time.Time
	// wait and tick make the only commands that block: the read of a run's
	// events and the ticker's next beat. The test harness replaces them so
	// it knows which commands wait for a run without timing any, and runs
	// every other command to completion, in order.
	wait func(<-chan agent.Event) tea.Cmd
	tick func() tea.Cmd

	// sl is the statusLine command's line (statusline.go).
	sl statusLineState
	// share is /remote's: the session shared with browsers (remote.go).
	share shareState
	// arrows tells a mouse wheel arriving as arrow keys from a person's
	// arrows, by the time between them on arrowClock (scroll.go).
	arrows     arrows
	arrowClock func() time.Time
	// inl is the inline screen mode's state (inline.go).
	inl inlineState
}

// activeRun is the run in progress.
type activeRun struct {
	ch          <-chan agent.Event
	cancel      context.CancelFunc
	started     time.Time
	interrupted bool
}

// Messages the model sends itself.
type (
	// eventsMsg is a batch of agent events read together (coalesced).
	eventsMsg struct {
		ch     <-chan agent.Event
		evs    []agent.Event
		closed bool
	}
	tickMsg   struct{}
	submitMsg string
	// resultMsg reports a finished background command.
	resultMsg struct {
		text   string
		err    error
		reload bool // the session changed: rebuild the transcript
		info   bool // text is a command's output (an info entry), not a notice
		// loginURL is an MCP login's URL: shown, and its end awaited.
		loginURL *mcpLoginURLMsg
	}
	shellMsg struct {
		command, output string
		err             error
	}
)

// New returns the model; Run wraps it in a program. Tests drive it directly.
func New(ctx context.Context, b Backend, opts Options) *Model {
	dark := true
	m := &Model{ctx: ctx, b: b, opts: opts, dark: dark, md: &markdown{dark: dark},
		width: 80, height: 24, tr: newTranscript(), in: newInput(dark), now: time.Now, wait: waitEvents, tick: nextTick, arrowClock: time.Now}
	m.st = newStyles(dark)
	m.inl = newInlineState(opts.Screen == ScreenInline || (opts.Screen == "" && DefaultScreen == ScreenInline))
	m.status = b.Status()
	m.loadCommands()
	m.in.setWidth(m.width)
	for _, n := range opts.Notices {
		m.tr.add(&entry{kind: entryNotice, text: n})
	}
	if h := b.History(); len(h) > 0 {
		m.tr.loadHistory(h)
	}
	m.askMCPApproval()
	return m
}

// Init asks the terminal for its background colour (to pick light or dark
// styles), shows the share nova --remote started, if any, and sends the
// initial prompt, if any.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.remoteInit(), m.refreshStatusLine()}
	if p := strings.TrimSpace(m.opts.Prompt); p != "" {
		cmds = append(cmds, func() tea.Msg { return submitMsg(p) })
	}
	return tea.Batch(cmds...)
}

// Update implements tea.Model. In inline mode, after each message the
// entries it finished go to the scrollback (inline.go).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case printReadyMsg:
		return m, m.printReady()
	case printedMsg:
		return m, m.printed()
	case tea.WindowSizeMsg:
		m.inl.sized = true
	}
	_, cmd := m.update(msg)
	if !m.inl.on {
		return m, cmd
	}
	m.collect(false)
	return m, tea.Batch(cmd, m.printNext())
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 8)
		m.in.setWidth(m.width)
	case tea.BackgroundColorMsg:
		m.setDark(msg.IsDark())
	case editorDoneMsg:
		if msg.err != nil {
			m.info("", fmt.Errorf("editor: %w", msg.err))
		}
	case tea.PasteMsg:
		if len(m.dialogs) == 0 || m.stepAside(msg) {
			m.in.paste(msg.Content)
			return m, tea.Batch(m.in.comp.refresh(m.in.ta.Value(), m.status.Cwd), m.wantMCP())
		}
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.MouseWheelMsg:
		m.wheel(msg)
	case submitMsg:
		return m, m.submit(string(msg))
	case eventsMsg:
		return m, m.events(msg)
	case tickMsg:
		if m.run == nil && m.busy == "" && !m.tr.live() && !m.dialogTicking() {
			m.ticking = false
			return m, nil
		}
		m.frame++
		return m, m.tick()
	case filesMsg:
		m.in.comp.files = msg
		return m, m.in.comp.refresh(m.in.ta.Value(), m.status.Cwd)
	case resultMsg:
		m.busy = ""
		if msg.loginURL != nil {
			return m, m.showLoginURL(msg.loginURL)
		}
		if msg.reload {
			m.tr.reset()
			m.todos = nil
			m.tr.loadHistory(m.b.History())
		}
		if msg.err != nil {
			m.tr.add(&entry{kind: entryError, text: msg.err.Error()})
		} else if msg.info {
			m.info(msg.text, nil)
		} else if msg.text != "" {
			m.tr.add(&entry{kind: entryNotice, text: msg.text})
		}
		m.status = m.b.Status()
		// A /model, /clear or resume changes what the line may show.
		return m, tea.Batch(m.sendQueued(), m.refreshStatusLine())
	case statusLineMsg:
		return m, m.statusLineDone(msg)
	case mcpPromptsMsg, mcpResourcesMsg, mcpPromptMsg, mcpMentionsMsg:
		return m, m.mcpUpdate(msg)
	case remoteRunMsg:
		return m, m.remoteUpdate(msg)
	case resumePreviewMsg:
		for _, d := range m.dialogs {
			if rd, ok := d.(*resumeDialog); ok {
				return m, rd.loaded(msg)
			}
		}
	case shellMsg:
		m.busy = ""
		out := msg.output
		if msg.err != nil {
			out = strings.TrimSpace(out + "\n" + msg.err.Error())
		}
		// The backend keeps the command and its output in the
		// conversation (Backend.Shell): the model has it with the next
		// prompt, and nothing is added to that prompt here.
		m.tr.add(&entry{kind: entryShell, title: msg.command, text: out})
		return m, m.sendQueued()
	}
	return m, nil
}

func (m *Model) setDark(dark bool) {
	m.dark = dark
	m.st = newStyles(dark)
	m.md.setDark(dark)
	m.in.setDark(dark)
	m.tr.invalidateAll()
}

// startTick starts the ticker unless it runs already.
func (m *Model) startTick() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return m.tick()
}

// nextTick is the ticker's next beat.
func nextTick() tea.Cmd {
	return tea.Tick(tickInterval, func(time.Time) tea.Msg { return tickMsg{} })
}

// waitEvents reads the next events of a run. After the first it keeps
// reading for one frame interval, so a burst of text deltas becomes one
// update and one frame; an ask or the end of the run is delivered at once.
func waitEvents(ch <-chan agent.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsMsg{ch: ch, closed: true}
		}
		evs := []agent.Event{ev}
		if urgent(ev) {
			return eventsMsg{ch: ch, evs: evs}
		}
		timer := time.NewTimer(frameInterval)
		defer timer.Stop()
		for {
			select {
			case ev, ok := <-ch:
				if !ok {
					return eventsMsg{ch: ch, evs: evs, closed: true}
				}
				evs = append(evs, ev)
				if urgent(ev) {
					return eventsMsg{ch: ch, evs: evs}
				}
			case <-timer.C:
				return eventsMsg{ch: ch, evs: evs}
			}
		}
	}
}

func urgent(ev agent.Event) bool {
	switch ev.Type {
	case agent.EventPermissionAsk, agent.EventQuestion, agent.EventDone:
		return true
	}
	return false
}

// events applies a batch of events of the current run.
func (m *Model) events(msg eventsMsg) tea.Cmd {
	if m.run == nil || msg.ch != m.run.ch {
		return nil // a run that was abandoned
	}
	var sl tea.Cmd
	for _, ev := range msg.evs {
		switch {
		case ev.Type == agent.EventPermissionAsk:
			m.dialogs = append(m.dialogs, newPermissionDialog(ev.Ask, ev.Agent))
		case ev.Type == agent.EventQuestion:
			m.dialogs = append(m.dialogs, newQuestionDialog(ev.Question, ev.Agent))
		case ev.Type == agent.EventAnswered:
			m.closeAnswered(ev.Answered)
		case ev.ParentToolUseID != "":
			// A subagent's work goes under its Agent call: never the
			// run's answer, todo list or context.
			m.tr.applySub(ev, m.now())
		case ev.Type == agent.EventTodos:
			m.todos = ev.Todos
		case ev.Type == agent.EventContext:
			m.status.Context = ev.Context
		default:
			m.tr.apply(ev, m.now())
			if ev.Type == agent.EventTurnEnd || ev.Type == agent.EventDone {
				ctx := m.status.Context
				m.status = m.b.Status()
				if m.status.Context == nil {
					m.status.Context = ctx
				}
				if sl == nil {
					sl = m.refreshStatusLine()
				}
			}
		}
	}
	if msg.closed {
		m.run = nil
		m.dropRunDialogs()
		m.hint = ""
		if cmd := m.adoptWaiting(); cmd != nil {
			return tea.Batch(cmd, sl) // a browser's run, begun as this one ended
		}
		return tea.Batch(m.sendQueued(), sl)
	}
	return tea.Batch(m.wait(msg.ch), sl)
}

// dropRunDialogs closes the dialogs of a run that ended (its asks are
// answered by its end); the others, such as the MCP approval, stay.
func (m *Model) dropRunDialogs() {
	kept := m.dialogs[:0]
	for _, d := range m.dialogs {
		switch d.(type) {
		case *permissionDialog, *questionDialog:
		default:
			kept = append(kept, d)
		}
	}
	m.dialogs = kept
}

// startRun sends a prompt to the agent; the MCP resources and files it
// mentions are read first, in the background.
func (m *Model) startRun(text string) tea.Cmd {
	ms := m.mentions(text)
	if files := m.fileMentions(text, ms); len(ms)+len(files) > 0 {
		return m.readMentions(text, ms, files)
	}
	return m.runWith(text, nil, nil)
}

// runWith starts the run of a prompt: the text, then the parts attached
// to it (resources), with a notice for each.
func (m *Model) runWith(text string, attached []llm.Part, notes []string) tea.Cmd {
	parts := make([]llm.Part, 0, 1+len(attached))
	parts = append(parts, llm.TextPart(text))
	parts = append(parts, attached...)
	m.tr.add(&entry{kind: entryUser, text: text})
	for _, n := range notes {
		m.tr.add(&entry{kind: entryNotice, text: n})
	}
	m.tr.toBottom()
	ctx, cancel := context.WithCancel(m.ctx)
	ch := m.b.Run(ctx, llm.Message{Role: llm.RoleUser, Parts: parts})
	m.run = &activeRun{ch: ch, cancel: cancel, started: m.now()}
	m.todos = nil
	return tea.Batch(m.wait(ch), m.startTick())
}

// interrupt cancels the running turn. The agent denies pending asks, kills
// running tools and ends the run with an interrupted done event, which
// keeps the transcript consistent; the UI only waits for it.
func (m *Model) interrupt() {
	m.unqueue()
	if m.run == nil || m.run.interrupted {
		return
	}
	m.run.interrupted = true
	m.run.cancel()
	// The cancelled context denies the asks too; answering them here
	// just makes it immediate.
	for _, d := range m.dialogs {
		switch d := d.(type) {
		case *permissionDialog:
			d.ask.Answer(agent.PermissionAnswer{Message: "interrupted"})
		case *questionDialog:
			d.ask.Answer(nil)
		}
	}
	m.dropRunDialogs()
	m.hint = "Interrupting…"
}

// shutdown ends a run still going when the program exits and waits a
// moment for the agent to wind down, so the session is closed cleanly.
func (m *Model) shutdown() {
	if m.run == nil {
		return
	}
	m.run.cancel()
	timeout := time.After(3 * time.Second)
	for {
		select {
		case _, ok := <-m.run.ch:
			if !ok {
				return
			}
		case <-timeout:
			return
		}
	}
}
