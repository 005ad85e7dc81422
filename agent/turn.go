package agent

import (
	"context"
	"strings"
	"sync"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools"
)

// turnResult is what one model turn produced.
type turnResult struct {
	text        string
	stop        llm.StopReason
	usage       llm.Usage
	calledTools bool
	// hookStop is the reason a tool call's hook gave for stopping the
	// run ("continue": false), or nil.
	hookStop *string
	// stopped says the person denied a call and stopped the turn with it.
	stopped bool
	err     error
}

// pending is a tool call of the current turn. A call that is allowed
// without asking and read-only starts at once, while the model still
// streams, if every call before it in the turn started at once too; the
// rest run in order after the stream ends, each checked again right
// before it runs (an earlier call may have moved the shell or changed the
// files it reads).
type pending struct {
	call llm.ToolCall
	prep *tools.Prepared
	done chan struct{} // closed when out is set, for calls started early
	out  tools.Outcome
}

// turn makes one model request, runs the tools it asks for and appends the
// assistant message and the tool results to history.
func (a *Agent) turn(ctx context.Context, turn int, done *Done) turnResult {
	var res turnResult
	toolCtx, cancelTools := context.WithCancel(ctx)
	defer cancelTools()

	var (
		text     strings.Builder
		think    strings.Builder
		thinking []llm.Part
		calls    []*pending
		wg       sync.WaitGroup
		// inOrder is set once a call of the turn waits: every later call
		// then waits too, so none runs before one it may depend on.
		inOrder bool
		// running is set once a call of the turn has started.
		running bool
	)
	flushThinking := func(sig string) {
		if think.Len() > 0 || sig != "" {
			thinking = append(thinking, llm.Part{Type: llm.PartThinking, Text: think.String(), Signature: sig})
			think.Reset()
		}
	}
	onEvent := func(ev llm.StreamEvent) {
		switch ev.Type {
		case llm.EventTextDelta:
			text.WriteString(ev.Text)
			a.send(Event{Type: EventTextDelta, Turn: turn, Text: ev.Text})
		case llm.EventThinkingDelta:
			think.WriteString(ev.Text)
			a.send(Event{Type: EventThinkingDelta, Turn: turn, Text: ev.Text})
		case llm.EventThinkingDone:
			flushThinking(ev.Signature)
		case llm.EventToolCall:
			c := *ev.ToolCall
			a.send(Event{Type: EventToolCall, Turn: turn, ToolCall: &c})
			p := &pending{call: c}
			p.prep = a.cfg.Pipeline.Prepare(toolCtx, tools.Call{ID: c.ID, Name: c.Name, Input: c.Input}, a.cfg.Env)
			if !inOrder && p.prep.Concurrent() {
				running = true
				p.done = make(chan struct{})
				wg.Add(1)
				go func() {
					defer wg.Done()
					p.out = p.prep.Execute(toolCtx)
					close(p.done)
				}()
			} else {
				inOrder = true
			}
			calls = append(calls, p)
		case llm.EventUsage:
			res.usage = *ev.Usage
		case llm.EventStop:
			res.stop = ev.StopReason
		case llm.EventRetry:
			if ev.Retry.DiscardPartial {
				// The response broke off and is asked for again: what it
				// streamed so far never happened, and the calls it made
				// (none of which started) are dropped unrun.
				text.Reset()
				think.Reset()
				thinking, calls, inOrder = nil, nil, false
			}
			a.send(Event{Type: EventRetry, Turn: turn, Retry: ev.Retry, Text: ev.Retry.String()})
		}
	}
	// A response that breaks off after output is asked for again only while
	// no call of the turn has started. A started call has acted and its
	// result has gone out to every frontend; a new response would not hold
	// that call (its result would answer nothing), or would hold it again
	// and run it twice.
	restartable := func() bool { return !running }
	req, promptEstimate := a.request()
	err := llm.StreamRestartable(ctx, a.client(), req, onEvent, restartable)
	flushThinking("")
	res.text = text.String()
	if err != nil && ctx.Err() != nil {
		res.usage = interruptedUsage(res.usage, promptEstimate, res.text, thinking)
	}
	a.count(res.usage)
	if rec := a.cfg.Recorder; rec != nil && res.usage != (llm.Usage{}) {
		_ = rec.AppendUsage(res.usage)
	}

	if err != nil {
		// The response broke off for good: started tools are stopped and no
		// tool call enters history without its result. Text of the last
		// attempt, shown and not voided by a retry, is kept.
		cancelTools()
		wg.Wait()
		for _, p := range calls {
			if p.done != nil {
				a.sendResult(turn, p.out) // the frontends saw it start
			}
		}
		if res.text != "" {
			_ = a.appendMessage(llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart(res.text)}})
		}
		if ctx.Err() != nil {
			res.err = ctx.Err()
		} else {
			res.err = err
		}
		return res
	}

	msg := llm.Message{Role: llm.RoleAssistant, Parts: append([]llm.Part(nil), thinking...)}
	if res.text != "" {
		msg.Parts = append(msg.Parts, llm.TextPart(res.text))
	}
	for _, p := range calls {
		c := p.call
		msg.Parts = append(msg.Parts, llm.Part{Type: llm.PartToolCall, ToolCall: &c})
	}
	if len(msg.Parts) == 0 {
		msg.Parts = []llm.Part{llm.TextPart("")}
	}
	if err := a.appendMessage(msg); err != nil {
		a.send(Event{Type: EventNotice, Turn: turn, Text: err.Error()})
	}
	if res.usage != (llm.Usage{}) {
		// The provider's counts now cover everything up to this answer.
		a.mu.Lock()
		a.last, a.added = res.usage, 0
		a.mu.Unlock()
	}
	if len(calls) == 0 {
		return res
	}
	res.calledTools = true

	// What the person sees of a result is what the model gets: each is
	// shaped (instructions it discovered, the batch budget) before it goes
	// out. The calls that ran during the stream finish as a group; those
	// that ask or write run one by one, in order, after it.
	budget := tools.NewBudget(a.cfg.Env, 0)
	wg.Wait()
	var group []*pending
	for _, p := range calls {
		if p.done != nil {
			group = append(group, p)
		}
	}
	a.shapeAndSend(ctx, turn, budget, group...)
	for _, p := range calls {
		if p.done != nil {
			continue
		}
		if toolCtx.Err() != nil || res.stopped {
			p.out = tools.Outcome{Call: tools.Call{ID: p.call.ID, Name: p.call.Name, Input: p.call.Input},
				Result: tools.Result{Output: "not run: the turn was interrupted", IsError: true}}
		} else {
			p.out = p.prep.Execute(toolCtx)
			res.stopped = p.out.Stopped
		}
		a.shapeAndSend(ctx, turn, budget, p)
	}

	outs := make([]tools.Outcome, len(calls))
	for i, p := range calls {
		outs[i] = p.out
		if p.out.Denied {
			done.Denials = append(done.Denials, Denial{ToolName: p.call.Name, ToolUseID: p.call.ID, ToolInput: p.call.Input,
				Layer: p.out.Decision.Layer, Reason: p.out.Decision.Reason})
		}
		if rec := a.cfg.Recorder; rec != nil && p.out.Decision.Behavior != "" {
			_ = rec.AppendDecision(p.call.ID, p.call.Name, p.out.Decision)
		}
	}
	results := llm.Message{Role: llm.RoleUser}
	for _, o := range outs {
		content := []llm.Part{llm.TextPart(o.Result.Output)}
		content = append(content, o.Result.Images...)
		results.Parts = append(results.Parts, llm.Part{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{
			CallID: o.Call.ID, Name: o.Call.Name, Content: content, IsError: o.Result.IsError,
		}})
	}
	notes, recorded := a.takeNotes()
	results.Parts = append(results.Parts, notes...)
	if err := a.appendMessage(results); err != nil {
		a.send(Event{Type: EventNotice, Turn: turn, Text: err.Error()})
	}
	recorded()
	res.hookStop = toolHookStop(outs)
	if ctx.Err() != nil {
		res.err = ctx.Err()
	}
	return res
}

// shapeAndSend shapes the outcomes of calls that have run — the instruction
// files of the directories they touched, then the batch budget — and
// sends each to the frontends.
func (a *Agent) shapeAndSend(ctx context.Context, turn int, budget *tools.Budget, ps ...*pending) {
	if len(ps) == 0 {
		return
	}
	outs := make([]tools.Outcome, len(ps))
	for i, p := range ps {
		outs[i] = p.out
		if a.cfg.Discover != nil && len(p.out.Paths) > 0 {
			paths := make([]string, len(p.out.Paths))
			for j, acc := range p.out.Paths {
				paths[j] = acc.Path
			}
			if extra := a.cfg.Discover(ctx, paths); extra != "" {
				outs[i].Result.Output += "\n\n" + extra
			}
		}
	}
	budget.Fit(outs)
	for i, p := range ps {
		p.out = outs[i]
		a.sendResult(turn, p.out)
	}
}

func (a *Agent) sendResult(turn int, o tools.Outcome) {
	if o.Hook != nil {
		a.notify(turn, o.Hook.Notices)
	}
	a.send(Event{Type: EventToolResult, Turn: turn, Result: &ToolResult{
		ID: o.Call.ID, Name: o.Call.Name, Output: o.Result.Output, IsError: o.Result.IsError, Denied: o.Denied,
		Decision: o.Decision, SpillPath: o.SpillPath, DurationMS: o.Duration.Milliseconds(), Display: o.Result.Display,
	}})
}

// interruptedUsage is what a response the person interrupted cost. The
// provider bills what it read and wrote before the stream was cut, but may
// not have said so yet: counts it gave (Anthropic's input and cache counts
// come first) are kept, the prompt is the estimate of the request when it
// gave none, and the output is at least what streamed, at the estimate's
// four characters a token.
func interruptedUsage(u llm.Usage, promptEstimate int, text string, thinking []llm.Part) llm.Usage {
	if u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens == 0 {
		u.InputTokens = promptEstimate
	}
	chars := len(text)
	for _, p := range thinking {
		chars += len(p.Text)
	}
	u.OutputTokens = max(u.OutputTokens, (chars+charsPerToken-1)/charsPerToken)
	return u
}

// request builds the model request from the current history, with an
// estimate of its prompt's tokens. The system prompt and tool list do not
// change within a session.
func (a *Agent) request() (llm.Request, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	system := a.cfg.System
	if a.cfg.AppendSystem != "" {
		system += "\n\n" + a.cfg.AppendSystem
	}
	model, maxTokens := a.cfg.Model, a.cfg.MaxTokens
	if m := a.model; m != nil {
		model = m.Model
		if m.MaxTokens > 0 {
			maxTokens = m.MaxTokens
		}
	}
	est := a.estimatorLocked().request(a.history)
	return llm.Request{
		Model:          model,
		System:         system,
		Messages:       llm.RepairHistory(mergeRoles(a.history)),
		Tools:          a.cfg.Pipeline.Registry.Specs(),
		MaxTokens:      maxTokens,
		ThinkingBudget: a.cfg.ThinkingBudget,
	}, est
}

// client is the run's model's client: the session's, or that of the model
// a skill switched the run to.
func (a *Agent) client() llm.Client {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.model != nil && a.model.Client != nil {
		return a.model.Client
	}
	return a.cfg.Client
}
