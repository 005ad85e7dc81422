package hooks

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/tools"
)

// Session is what the engine tells every hook about the session, and
// what it runs them with.
type Session struct {
	ID             string
	TranscriptPath string
	// ProjectDir is the workspace: command hooks run there, and it is
	// CLAUDE_PROJECT_DIR and NOVA_PROJECT_DIR in their environment.
	ProjectDir string
	// Mode returns the permission mode now; nil means "default".
	Mode func() string
	// Env are variables set for command hooks over nova's own
	// environment (the settings' "env").
	Env map[string]string
	// EnvPolicy says what of nova's own environment command hooks
	// inherit (tools.EnvPolicy.Hooks): the user's environment, without
	// nova's credentials.
	EnvPolicy tools.EnvPolicy
	// Getenv reads the variables an http hook's headers may name; nil
	// reads none.
	Getenv func(string) string
	// Client and Model judge prompt hooks (Model when the hook names
	// none). With no Client a prompt hook cannot answer.
	Client llm.Client
	Model  string
	// Judge runs an agent hook's subagent on prompt (with model, "" for
	// the session's) and returns its final answer; nil means the session
	// has no subagents, and an agent hook cannot answer.
	Judge func(ctx context.Context, prompt, model string) (string, error)
	// HTTP sends http hooks; nil means a client of its own.
	HTTP *http.Client
	// Home is the user's home, for "if" rules that name ~/ paths; ""
	// means the process's.
	Home string
	// Observe, when set, is told of every hook run as it starts and as
	// it ends (Observation). It is called from the goroutine that runs
	// the hook, async hooks' included, so it must be safe for concurrent
	// use, and quick: the run waits for it.
	Observe func(Observation)
}

// Engine runs the configured hooks of a session. It is safe for
// concurrent use.
type Engine struct {
	cfg *Config
	s   Session

	// Async hooks run under bg; Close cancels it and waits for them.
	bg     context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu sync.Mutex
	// runs are the hooks added for one run each (a skill's, AddRun).
	runs map[*tools.RunScope][]Hook
	// ranOnce are the "once" hooks that have run, by identity.
	ranOnce map[string]bool
}

// New returns an engine running cfg's hooks for session s.
func New(cfg *Config, s Session) *Engine {
	if cfg == nil {
		cfg = &Config{}
	}
	if s.HTTP == nil {
		s.HTTP = &http.Client{}
	}
	bg, cancel := context.WithCancel(context.Background())
	e := &Engine{cfg: cfg, s: s, bg: bg, cancel: cancel}
	for i := range cfg.Hooks {
		e.compileIf(&cfg.Hooks[i])
	}
	return e
}

// Config returns the hooks the engine runs.
func (e *Engine) Config() *Config { return e.cfg }

// Has reports whether any hook is configured for ev, or added for a run
// going on: a caller can skip work (building an input) that no hook
// would see.
func (e *Engine) Has(ev Event) bool {
	if e == nil {
		return false
	}
	for i := range e.cfg.Hooks {
		if e.cfg.Hooks[i].Event == ev {
			return true
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, hs := range e.runs {
		for i := range hs {
			if hs[i].Event == ev {
				return true
			}
		}
	}
	return false
}

// Fire runs the hooks in.Event's matcher selects, side by side, and says
// what they decided: the configured ones and those added for the run ctx
// belongs to (AddRun). With no hook matching it does nothing and returns
// the zero Outcome. A hook nova cannot run that matches a guard event
// (PreToolUse, PermissionRequest) blocks, since it cannot answer.
func (e *Engine) Fire(ctx context.Context, in Input) Outcome {
	if e == nil {
		return Outcome{}
	}
	sp := specs[in.Event]
	value := in.match()
	var matched []*Hook
	seen := map[string]bool{}
	for _, h := range e.hooksFor(ctx) {
		if h.Event != in.Event || (sp.match != "" && !h.m.match(value)) {
			continue
		}
		if seen[h.id] {
			continue // the same handler in two files runs once
		}
		if !h.passes(ctx, in) {
			continue
		}
		seen[h.id] = true
		if h.Once && !e.firstTime(h) {
			continue
		}
		matched = append(matched, h)
	}
	if len(matched) == 0 {
		return Outcome{}
	}
	label := string(in.Event)
	if sp.match != "" && value != "" {
		label += ":" + value
	}
	payload := e.payload(in)
	replies := make([]reply, len(matched))
	var wg sync.WaitGroup
	for i, h := range matched {
		if h.Unavailable != "" {
			replies[i] = reply{broken: "cannot run: " + h.Unavailable}
			continue
		}
		if h.Async {
			e.async(h, in, label, payload)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies[i] = e.observed(ctx, h, in, label, payload)
		}()
	}
	wg.Wait()
	var o Outcome
	for i, h := range matched {
		if h.Async && h.Unavailable == "" {
			continue
		}
		if h.Unavailable != "" && !sp.guard {
			continue // said at start; a hook that decides nothing blocks nothing
		}
		o.add(in.Event, h, label, replies[i])
	}
	return o
}

// payload is the JSON every hook of the firing gets.
func (e *Engine) payload(in Input) []byte {
	mode := "default"
	if e.s.Mode != nil {
		mode = e.s.Mode()
	}
	m := map[string]any{
		"session_id":      e.s.ID,
		"transcript_path": e.s.TranscriptPath,
		"cwd":             e.s.ProjectDir,
		"permission_mode": mode,
		"hook_event_name": in.Event,
	}
	for k, v := range in.Fields {
		m[k] = v
	}
	// The constructors put in plain data only (a tool input that is not
	// JSON becomes {}), so this encodes.
	b, _ := json.Marshal(m)
	return b
}

// run runs one hook to its end or its timeout.
func (e *Engine) run(ctx context.Context, h *Hook, ev Event, payload []byte) reply {
	switch h.Type {
	case KindCommand:
		return e.runCommand(ctx, h, ev, payload)
	case KindHTTP:
		return e.runHTTP(ctx, h, ev, payload)
	case KindPrompt:
		return e.runPrompt(ctx, h, ev, payload)
	case KindAgent:
		return e.runAgent(ctx, h, ev, payload)
	case KindCallback:
		return e.runCallback(ctx, h, ev, payload)
	}
	return reply{broken: "cannot run: " + unavailable(*h)}
}

// timeout is h's, or the default of its kind and event.
func timeout(h *Hook, ev Event) time.Duration {
	switch {
	case h.Timeout > 0:
		return h.Timeout
	case h.Type == KindPrompt:
		return DefaultPromptTimeout
	case h.Type == KindAgent:
		return DefaultAgentTimeout
	case ev == UserPromptSubmit:
		return promptSubmitTimeout
	}
	return DefaultTimeout
}

// async starts h in the background: it decides nothing, and Close stops
// it if it is still running.
func (e *Engine) async(h *Hook, in Input, label string, payload []byte) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.observed(e.bg, h, in, label, payload)
	}()
}

// Close stops the async hooks still running and waits for them.
func (e *Engine) Close() {
	if e == nil {
		return
	}
	e.cancel()
	e.wg.Wait()
}
