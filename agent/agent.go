// Package agent is nova's core: the loop that calls the model, runs the
// tools it asks for through the one pipeline, and reports everything as a
// stream of events. It knows no frontend: it never prints or reads keys.
package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/nova-dev/nova/hooks"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/tools"
)

// Recorder keeps the transcript. Implementations must make a message
// durable before returning (the session package fsyncs).
type Recorder interface {
	AppendMessage(msg llm.Message) error
	AppendDecision(callID, tool string, d permission.Decision) error
	AppendUsage(u llm.Usage) error
}

// Config is what an Agent needs.
type Config struct {
	Client llm.Client
	Model  string
	// MaxTokens bounds one response; ContextWindow is the model's window.
	MaxTokens     int
	ContextWindow int
	// ThinkingBudget turns on extended thinking where supported.
	ThinkingBudget int
	// System is the stable system prompt; AppendSystem is added after it
	// (--append-system-prompt). Neither may depend on the project, so the
	// request prefix stays byte-identical (prompt caching).
	System       string
	AppendSystem string
	// Context builds the context message: environment facts, instruction
	// files and memory. It goes before the first prompt of a new session and
	// into the summary after each compaction (so instructions are re-read).
	// ctx is the run's: what Context has to tell reaches its watchers.
	Context func(ctx context.Context) string
	// Discover, when set, is told the paths each tool call touched and
	// returns text to add to that call's result (instruction files of a
	// directory met for the first time), or "".
	Discover func(ctx context.Context, paths []string) string
	// Pipeline runs tool calls; Env is the session's tool environment,
	// made whole by its maker: whether a person can be asked is its Ask
	// (Person, or nil when nobody can answer), its Notify is Notify.
	Pipeline *tools.Pipeline
	Env      *tools.Env
	// Expand, when set, rewrites each run's input before it enters the
	// conversation: a person's /name command becomes its prompt
	// (skills.Manager.Expand). It runs inside the run, so the tool calls
	// it makes ask and notify as the run's own, and what it registers
	// with the run's tools.RunScope ends with the run. An error ends the
	// run before the model is called, with nothing added to history.
	Expand func(ctx context.Context, input llm.Message) (llm.Message, error)
	// MaxTurns stops a run after that many model turns; 0 means no limit.
	MaxTurns int
	// Recorder, when set, receives every message of the conversation.
	Recorder Recorder
	// History is the conversation so far, for a resumed session.
	History []llm.Message
	// Hooks, when set, run what the person configured under "hooks" at
	// the agent's hook points (see Hooks); tool calls' hooks are the
	// Pipeline's.
	Hooks Hooks
	// HookEvents makes every hook run of a run (the agent's own and its
	// tool calls') a hook event of the run, in order with its other events
	// (--include-hook-events).
	HookEvents bool
	// Price, when set, is what one response's usage costs in US dollars;
	// nil means the model's prices are unknown.
	Price func(llm.Usage) float64
	// Subagents, when set, runs the Agent tool's subagents for this
	// agent: New links it to the agent, whose model, tools and checker
	// they start from.
	Subagents *Subagents
	// AwaitBackground makes a run that is done wait for its background
	// subagents and go on with what they report (print mode, where
	// nobody would hear of them after the run).
	AwaitBackground bool
	// MaxBudgetUSD, when above 0 with Price set, stops a run before a
	// model turn once the session's cost has reached it (budget.go).
	MaxBudgetUSD float64
}

// Agent runs conversations. One Run at a time.
type Agent struct {
	cfg Config

	mu      sync.Mutex
	history []llm.Message
	running bool
	// manual says the run is an op (Shell, CompactRun), not a prompt:
	// a compaction in it is the person's, not the automatic one.
	manual bool
	emit   func(Event) // of the current run
	usage  llm.Usage   // of the session
	cost   float64     // of the session, in US dollars, when cfg.Price is set
	last   llm.Usage   // of the last response, to anchor context usage
	added  int         // characters added to history since the last response
	// model is the model the current run switched to (a skill's), or nil.
	model   *tools.RunModel
	started bool // the session's SessionStart outcome was taken
	// notes wait for the next request: what background subagents
	// reported when they finished, what Tell was given.
	notes []note
}

// New returns an Agent.
func New(cfg Config) *Agent {
	a := &Agent{cfg: cfg, history: append([]llm.Message(nil), cfg.History...)}
	for _, m := range a.history {
		// A resumed history counts toward the window until the provider
		// reports its own figure.
		a.added += messageChars(m)
	}
	// So do the system prompt and the tools, which every request carries.
	a.added += overheadChars(cfg)
	if cfg.Subagents != nil {
		cfg.Subagents.parent = a
	}
	return a
}

// spent adds what a subagent's requests used and cost to the session's
// totals, so the session's usage and cost are the whole of its work.
func (a *Agent) spent(u llm.Usage, cost float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.usage.Add(u)
	a.cost += cost
}

// note is text waiting for the model's next request; recorded is closed
// once it is in history and the transcript.
type note struct {
	text     string
	recorded chan struct{}
}

// Tell queues text for the model's next request: it rides with the next
// tool results of a running run, or before the next prompt (a teammate's
// message to its lead). The channel is closed once the text is recorded
// in the transcript, so a caller that must not lose it (a mailbox) marks
// it delivered only then.
func (a *Agent) Tell(text string) <-chan struct{} {
	n := note{text: text, recorded: make(chan struct{})}
	a.mu.Lock()
	a.notes = append(a.notes, n)
	a.mu.Unlock()
	return n.recorded
}

// tell queues a background subagent's report, telling the person
// watching a run that it is on its way to the model.
func (a *Agent) tell(text string) {
	a.Tell(text)
	a.mu.Lock()
	running := a.running
	a.mu.Unlock()
	if running {
		a.send(Event{Type: EventNotice, Text: "a background agent finished; its result goes to the model with the next request"})
	}
}

// awaitBackground waits, when the agent is configured to, for the
// background subagents still running, and reports whether the model has
// their reports to read (they are then in history).
func (a *Agent) awaitBackground(ctx context.Context, turn int) bool {
	if !a.cfg.AwaitBackground || a.cfg.Subagents == nil {
		return false
	}
	if a.cfg.Subagents.running() > 0 {
		a.send(Event{Type: EventNotice, Turn: turn, Text: "waiting for the background agents to finish"})
		a.cfg.Subagents.idle(ctx)
	}
	if ctx.Err() != nil {
		return false
	}
	notes, recorded := a.takeNotes()
	if len(notes) == 0 {
		return false
	}
	if err := a.appendMessage(llm.Message{Role: llm.RoleUser, Parts: notes}); err != nil {
		a.send(Event{Type: EventNotice, Turn: turn, Text: err.Error()})
	}
	recorded()
	return true
}

// takeNotes returns the queued notes as text parts, and forgets them;
// call recorded once the message holding them is appended.
func (a *Agent) takeNotes() (parts []llm.Part, recorded func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	notes := a.notes
	for _, n := range notes {
		parts = append(parts, llm.TextPart(n.text))
	}
	a.notes = nil
	return parts, func() {
		for _, n := range notes {
			close(n.recorded)
		}
	}
}

// History returns a copy of the conversation.
func (a *Agent) History() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]llm.Message(nil), a.history...)
}

// Usage returns the token totals of the session.
func (a *Agent) Usage() llm.Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage
}

// Cost returns what the session's requests cost in US dollars, and
// whether the model's prices are known. Each request is priced on its own,
// since a price may depend on the request's size.
func (a *Agent) Cost() (float64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cost, a.cfg.Price != nil
}

// count adds one response's usage to the session's totals.
func (a *Agent) count(u llm.Usage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.usage.Add(u)
	if a.cfg.Price != nil {
		a.cost += a.cfg.Price(u)
	}
}

// Run sends input to the model and works until the model stops asking for
// tools, the turn limit is reached, or ctx ends. The channel carries every
// event and is closed after the done event; consumers must drain it.
// Cancelling ctx stops the model stream and kills running tools; the
// conversation stays consistent (no tool call without its result).
func (a *Agent) Run(ctx context.Context, input llm.Message) <-chan Event {
	ch := make(chan Event, 64)
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		go func() {
			msg := "a run is already in progress"
			ch <- Event{Type: EventError, Text: msg}
			ch <- Event{Type: EventDone, Done: &Done{Subtype: SubtypeError, IsError: true, Error: msg, Denials: []Denial{}}}
			close(ch)
		}()
		return ch
	}
	a.running = true
	a.emit = func(ev Event) { ch <- ev }
	a.mu.Unlock()
	go func() {
		defer close(ch)
		// Everything the run does carries its sink, so the asks and
		// notices of its tool calls become its events, and its scope, so
		// what a skill grants for the run ends with it.
		rctx, scope := tools.WithRunScope(withSink(ctx, a.send))
		if a.cfg.HookEvents {
			rctx = hooks.WithObserver(rctx, func(o hooks.Observation) { a.send(Event{Type: EventHook, Hook: &o}) })
		}
		before, _ := a.Cost()
		done := a.run(rctx, input)
		if after, priced := a.Cost(); priced {
			done.CostUSD, done.Priced = after-before, true
		}
		for _, o := range scope.Denials() {
			done.Denials = append(done.Denials, Denial{ToolName: o.Call.Name, ToolUseID: o.Call.ID, ToolInput: o.Call.Input,
				Layer: o.Decision.Layer, Reason: o.Decision.Reason})
		}
		scope.End()
		a.mu.Lock()
		a.running = false
		a.emit = nil
		a.model = nil
		a.mu.Unlock()
		ch <- Event{Type: EventDone, Done: done, Usage: &done.Usage, StopReason: done.StopReason}
	}()
	return ch
}

func (a *Agent) send(ev Event) {
	ev = a.vetEvent(ev)
	a.mu.Lock()
	emit := a.emit
	a.mu.Unlock()
	if emit != nil {
		emit(ev)
	}
}

// run is the loop; it returns the done record.
func (a *Agent) run(ctx context.Context, input llm.Message) *Done {
	done := &Done{Subtype: SubtypeSuccess, Denials: []Denial{}}
	var hookBefore, hookAfter []llm.Part
	if a.cfg.Hooks != nil {
		var goOn bool
		if hookBefore, hookAfter, goOn = a.promptHooks(ctx, input, done); !goOn {
			return done
		}
	}
	a.mu.Lock()
	fresh := len(a.history) == 0
	a.mu.Unlock()
	var prefix string
	if fresh && a.cfg.Context != nil {
		prefix = a.cfg.Context(ctx)
	}
	if a.cfg.Expand != nil {
		in, err := a.cfg.Expand(ctx, input)
		if err != nil {
			a.send(Event{Type: EventError, Text: err.Error()})
			return a.finish(done, SubtypeError, err.Error())
		}
		input = in
	}
	if hookBefore != nil || hookAfter != nil {
		input.Parts = append(append(append([]llm.Part(nil), hookBefore...), input.Parts...), hookAfter...)
	}
	notes, recorded := a.takeNotes()
	if len(notes) > 0 {
		input.Parts = append(notes, input.Parts...)
	}
	if prefix != "" {
		// The context rides in the first user message, ahead of the
		// prompt, so every later request shares the same prefix.
		input.Parts = append([]llm.Part{llm.TextPart(prefix)}, input.Parts...)
	}
	if err := a.CloseDanglingCalls(); err != nil {
		a.send(Event{Type: EventNotice, Text: err.Error()})
	}
	if err := a.appendMessage(input); err != nil {
		a.send(Event{Type: EventNotice, Text: err.Error()})
	}
	recorded()
	var stops stopState
	for turn := 1; ; turn++ {
		if ctx.Err() != nil {
			return a.interrupted(done, "interrupted before the model answered")
		}
		if a.cfg.MaxTurns > 0 && turn > a.cfg.MaxTurns {
			return a.finish(done, SubtypeMaxTurns, fmt.Sprintf("stopped after the maximum of %d turns", a.cfg.MaxTurns))
		}
		if msg, over := a.overBudget(); over {
			return a.finish(done, SubtypeMaxBudget, msg)
		}
		if u := a.contextUsage(); u.Limit > 0 && u.Used >= u.Limit {
			if err := a.Compact(ctx, ""); errors.Is(err, ErrCompactionBlocked) {
				// The conversation goes on uncompacted, as Claude Code's
				// does; the window check below still holds.
				a.send(Event{Type: EventNotice, Turn: turn, Text: err.Error()})
			} else if err != nil && !errors.Is(err, ErrNothingToCompact) {
				a.send(Event{Type: EventError, Turn: turn, Text: err.Error()})
				return a.finish(done, SubtypeError, err.Error())
			}
		}
		// A request known to be over the window is never sent, even under
		// the compaction limit (a large max output, a resumed history).
		a.mu.Lock()
		est, hist := a.estimatorLocked(), append([]llm.Message(nil), a.history...)
		a.mu.Unlock()
		if err := est.fit(hist, false); err != nil {
			a.send(Event{Type: EventError, Turn: turn, Text: err.Error()})
			return a.finish(done, SubtypeError, err.Error())
		}
		if a.turnHooks(ctx, hooks.TurnStart, turn, "") {
			return done
		}
		done.NumTurns = turn
		a.mu.Lock()
		a.model = tools.RunScopeOf(ctx).Model() // a skill of the last turn may have switched it
		a.mu.Unlock()
		a.send(Event{Type: EventTurnStart, Turn: turn})
		tr := a.turn(ctx, turn, done)
		done.Usage.Add(tr.usage)
		a.send(Event{Type: EventTurnEnd, Turn: turn, Usage: &tr.usage, StopReason: tr.stop})
		a.send(Event{Type: EventContext, Context: a.contextUsage()})
		done.StopReason = tr.stop
		if tr.text != "" {
			done.Result = tr.text
		}
		switch {
		case tr.err != nil && ctx.Err() != nil, tr.stopped:
			// A person who denied a call and stopped the turn interrupted
			// it, whenever the run's cancellation arrives.
			return a.interrupted(done, "interrupted")
		case tr.err != nil:
			a.send(Event{Type: EventError, Turn: turn, Text: tr.err.Error()})
			return a.finish(done, SubtypeError, tr.err.Error())
		case a.turnHooks(ctx, hooks.TurnEnd, turn, tr.stop):
			return done
		case tr.hookStop != nil:
			a.hookStopped("a tool call's hook", *tr.hookStop)
			return done
		case !tr.calledTools && !a.stopHooks(ctx, &stops, turn, tr.text):
			if a.awaitBackground(ctx, turn) {
				continue
			}
			return done
		}
	}
}

// Notes put in history when the person interrupts a run, Claude Code's
// words: the next request tells the model its last turn was cut short by
// the person (not by a failure), and whether that happened while tools ran.
const (
	InterruptedNote        = "[Request interrupted by user]"
	InterruptedForToolNote = "[Request interrupted by user for tool use]"
)

// interrupted ends a run the person interrupted: the note goes into
// history (and the transcript), so the model knows on the next request and
// after a resume.
func (a *Agent) interrupted(d *Done, msg string) *Done {
	a.mu.Lock()
	note := InterruptedNote
	if n := len(a.history); n > 0 && a.history[n-1].Role == llm.RoleUser && hasToolResults(a.history[n-1]) {
		note = InterruptedForToolNote
	}
	a.mu.Unlock()
	if err := a.appendMessage(llm.UserText(note)); err != nil {
		a.send(Event{Type: EventNotice, Text: err.Error()})
	}
	return a.finish(d, SubtypeInterrupted, msg)
}

func hasToolResults(m llm.Message) bool {
	for _, p := range m.Parts {
		if p.Type == llm.PartToolResult {
			return true
		}
	}
	return false
}

func (a *Agent) finish(d *Done, subtype, msg string) *Done {
	d.Subtype = subtype
	d.IsError = true
	d.Error = msg
	return d
}

// CloseDanglingCalls answers tool calls left without results, which a
// process killed mid-tool (or a disk that filled up) leaves at the end of
// a transcript: providers refuse a call without its result, so the session
// could never go on (see session.DanglingResults). The answer goes into
// history and the transcript. A frontend opening a session from its
// transcript calls it, so the history it shows is whole before any run;
// every run calls it too. Calls left without results further back are
// answered when each request is built (llm.RepairHistory).
func (a *Agent) CloseDanglingCalls() error {
	a.mu.Lock()
	var last llm.Message
	if n := len(a.history); n > 0 {
		last = a.history[n-1]
	}
	a.mu.Unlock()
	msg, ok := session.DanglingResults(last)
	if !ok {
		return nil
	}
	return a.appendMessage(msg)
}

// appendMessage adds msg to history and the transcript, vetted first (see
// vetMessageLocked).
func (a *Agent) appendMessage(msg llm.Message) error {
	a.mu.Lock()
	msg = a.vetMessageLocked(msg)
	a.history = append(a.history, msg)
	a.added += messageChars(msg)
	rec := a.cfg.Recorder
	a.mu.Unlock()
	if rec == nil {
		return nil
	}
	if err := rec.AppendMessage(msg); err != nil {
		return fmt.Errorf("the transcript could not be saved (the conversation goes on in memory): %w", err)
	}
	return nil
}

// messageChars estimates the size of msg, for context accounting.
func messageChars(m llm.Message) int {
	n := 0
	for _, p := range m.Parts {
		n += len(p.Text)
		if p.ToolCall != nil {
			n += len(p.ToolCall.Input) + len(p.ToolCall.Name)
		}
		if p.ToolResult != nil {
			for _, c := range p.ToolResult.Content {
				n += len(c.Text)
				if c.Type == llm.PartImage {
					n += 6_000 // an image costs roughly 1.5k tokens
				}
			}
		}
	}
	return n
}

// contextUsage is seed 000's context figure: the provider's input count of
// the last request plus an estimate (4 characters a token) of what was
// added since, against the compaction limit.
// ContextUsage is how full the context window is now (seed 000's
// GET /api/sessions/{id}/context).
func (a *Agent) ContextUsage() ContextUsage { return *a.contextUsage() }

func (a *Agent) contextUsage() *ContextUsage {
	a.mu.Lock()
	defer a.mu.Unlock()
	used := a.last.InputTokens + a.last.CacheReadTokens + a.last.CacheWriteTokens + a.last.OutputTokens + a.added/4
	limit := CompactionLimit(a.cfg.ContextWindow, a.cfg.MaxTokens)
	pct := 0
	if limit > 0 {
		pct = used * 100 / limit
	}
	return &ContextUsage{Used: used, Limit: limit, Percent: pct, MessageCount: len(a.history)}
}

// SummaryReserve is the room kept for a compaction summary.
const SummaryReserve = 8_192

// CompactionLimit is the window minus the reserve (output + summary),
// the reserve capped at half the window (seed 000).
func CompactionLimit(window, maxOutput int) int {
	if window <= 0 {
		return 0
	}
	reserve := min(maxOutput+SummaryReserve, window/2)
	return window - reserve
}
