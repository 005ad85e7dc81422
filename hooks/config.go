package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nova-dev/nova/permission"
)

// Source is the "hooks" object of one settings file, in Claude Code's
// shape: {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type":
// "command", "command": "...", "timeout": 60}]}]}.
type Source struct {
	// File is the settings file it was read from (or the skill file).
	File  string
	Hooks json.RawMessage
	// Env are variables set for this source's command hooks over the
	// session's (a skill's CLAUDE_SKILL_DIR); nil for settings files.
	Env map[string]string
}

// Hook is one configured handler, under one event and matcher.
type Hook struct {
	Event   Event
	Matcher string
	// Type is the handler's kind: KindCommand, KindHTTP, KindPrompt,
	// KindAgent, or one nova does not know (then Unavailable says so).
	Type string
	// Command is the shell command (shell form), or the program to run
	// with Args (exec form, when Exec is set).
	Command string
	Args    []string
	Exec    bool
	// Shell is "bash" to run the shell form with bash; sh otherwise.
	Shell string
	// URL, Headers and AllowedEnvVars are an http hook's: header values
	// may name $VAR or ${VAR}, resolved only for AllowedEnvVars.
	URL            string
	Headers        map[string]string
	AllowedEnvVars []string
	// Prompt and Model are a prompt hook's; $ARGUMENTS in Prompt stands
	// for the event's JSON.
	Prompt string
	Model  string
	// ContinueOnBlock is a prompt hook's: on PreToolUse and PostToolUse
	// an "ok": false goes back to the model instead of ending the turn.
	ContinueOnBlock bool
	// Timeout is as configured; 0 takes the default of the kind and event.
	Timeout time.Duration
	// Async runs the hook in the background: it decides nothing.
	Async bool
	// If is Claude Code's permission-rule filter ("Bash(git *)"): on tool
	// events the hook runs only for calls the rule matches. One nova
	// cannot read, or on another event, is not evaluated (ifProblem).
	If            string
	StatusMessage string
	// Once runs the hook at most once in a session (Claude Code's field
	// for skills' hooks; nova honours it wherever it is written).
	Once bool
	// File is the settings file the hook is configured in.
	File string
	// Unavailable says why nova will not run this hook ("" when it will).
	Unavailable string
	// Call answers a KindCallback hook (callback.go).
	Call Callback

	m    matcher
	env  map[string]string   // the source's Env
	cond *permission.Checker // If, compiled by the engine; nil runs on every match
	id   string              // identity, made once
}

// Config is every hook of the settings files, in file order.
type Config struct {
	Hooks []Hook
}

// rawGroup and rawHandler are the settings' shape.
type rawGroup struct {
	Matcher string            `json:"matcher"`
	Hooks   []json.RawMessage `json:"hooks"`
}

type rawHandler struct {
	Type            string            `json:"type"`
	Command         string            `json:"command"`
	Args            *[]string         `json:"args"`
	Shell           string            `json:"shell"`
	URL             string            `json:"url"`
	Headers         map[string]string `json:"headers"`
	AllowedEnvVars  []string          `json:"allowedEnvVars"`
	Prompt          string            `json:"prompt"`
	Model           string            `json:"model"`
	Timeout         *float64          `json:"timeout"`
	Async           bool              `json:"async"`
	AsyncRewake     bool              `json:"asyncRewake"`
	ContinueOnBlock bool              `json:"continueOnBlock"`
	If              string            `json:"if"`
	StatusMessage   string            `json:"statusMessage"`
	Once            bool              `json:"once"`
}

// Parse reads the hooks of sources. A shape nova cannot read (an event
// that is not a list, a handler without its command, a matcher that does
// not compile) is an error naming the file: nova does not start with part
// of a guard. What is well formed but not run by nova (an event or a
// handler type it does not have) loads with Unavailable set, so it is
// listed and reported, never silently dropped.
func Parse(sources []Source) (*Config, error) {
	c := &Config{}
	for _, src := range sources {
		if len(bytes.TrimSpace(src.Hooks)) == 0 || string(bytes.TrimSpace(src.Hooks)) == "null" {
			continue
		}
		events, err := orderedObject(src.Hooks)
		if err != nil {
			return nil, fmt.Errorf("%s: \"hooks\" must be an object whose keys are event names: %v", src.File, err)
		}
		for _, kv := range events {
			ev := Event(kv.key)
			var groups []rawGroup
			if err := json.Unmarshal(kv.val, &groups); err != nil {
				return nil, fmt.Errorf("%s: hooks.%s must be a list of matcher groups ({\"matcher\": \"...\", \"hooks\": [...]}): %v", src.File, ev, err)
			}
			for gi, g := range groups {
				where := fmt.Sprintf("%s: hooks.%s[%d]", src.File, ev, gi)
				if g.Hooks == nil {
					return nil, fmt.Errorf("%s has no \"hooks\" list of handlers", where)
				}
				// An event that takes no matcher ignores one, as Claude
				// Code's do: it is listed, not compiled.
				m := matcher{all: true}
				if s, ok := specs[ev]; ok && s.match != "" {
					if m, err = compileMatcher(g.Matcher); err != nil {
						return nil, fmt.Errorf("%s: %v", where, err)
					}
				}
				for hi, raw := range g.Hooks {
					h, err := parseHandler(raw, fmt.Sprintf("%s.hooks[%d]", where, hi))
					if err != nil {
						return nil, err
					}
					h.Event, h.Matcher, h.File, h.m, h.env = ev, g.Matcher, src.File, m, src.Env
					h.Unavailable, h.id = unavailable(h), h.identity()
					c.Hooks = append(c.Hooks, h)
				}
			}
		}
	}
	return c, nil
}

func parseHandler(raw json.RawMessage, where string) (Hook, error) {
	var r rawHandler
	if err := json.Unmarshal(raw, &r); err != nil {
		return Hook{}, fmt.Errorf("%s: a handler must be an object with a \"type\": %v", where, err)
	}
	h := Hook{Type: r.Type, Command: r.Command, Shell: r.Shell, URL: r.URL, Headers: r.Headers, AllowedEnvVars: r.AllowedEnvVars,
		Prompt: r.Prompt, Model: r.Model, ContinueOnBlock: r.ContinueOnBlock, Async: r.Async || r.AsyncRewake, If: r.If, StatusMessage: r.StatusMessage, Once: r.Once}
	if r.Args != nil {
		h.Exec, h.Args = true, *r.Args
	}
	if r.Timeout != nil {
		t := *r.Timeout
		if t <= 0 || math.IsNaN(t) || t > 24*3600 {
			return Hook{}, fmt.Errorf("%s: timeout must be a positive number of seconds (got %v)", where, t)
		}
		h.Timeout = time.Duration(t * float64(time.Second))
	}
	var missing string
	switch r.Type {
	case "":
		return Hook{}, fmt.Errorf("%s has no \"type\" (command, http, prompt or agent)", where)
	case KindCommand:
		if strings.TrimSpace(r.Command) == "" {
			missing = "command"
		}
	case KindHTTP:
		if r.URL == "" {
			missing = "url"
		} else if !strings.HasPrefix(r.URL, "http://") && !strings.HasPrefix(r.URL, "https://") {
			return Hook{}, fmt.Errorf("%s: url %q is not an http:// or https:// URL", where, r.URL)
		}
	case KindPrompt, KindAgent:
		if strings.TrimSpace(r.Prompt) == "" {
			missing = "prompt"
		}
	}
	if missing != "" {
		return Hook{}, fmt.Errorf("%s: a %s hook needs %q", where, r.Type, missing)
	}
	return h, nil
}

// unavailable says why nova will not run h, or "".
func unavailable(h Hook) string {
	s, ok := specs[h.Event]
	switch {
	case !ok:
		return fmt.Sprintf("nova has no %s event (docs/hooks.md lists those it fires)", h.Event)
	case h.Type != KindCommand && h.Type != KindHTTP && h.Type != KindPrompt && h.Type != KindAgent:
		return fmt.Sprintf("nova has no %q hooks (it runs command, http, prompt and agent hooks)", h.Type)
	case !s.runs(h.Type):
		return fmt.Sprintf("%s does not run %s hooks (it runs %s)", h.Event, h.Type, strings.Join(s.kinds, ", "))
	case h.Type == KindCommand && h.Shell != "" && h.Shell != "bash" && h.Shell != "sh":
		return fmt.Sprintf("nova runs command hooks with sh or bash, not %q", h.Shell)
	case !s.fired:
		return fmt.Sprintf("nova does not fire %s yet", h.Event)
	}
	return ""
}

// Len is the number of hooks configured, run or not.
func (c *Config) Len() int {
	if c == nil {
		return 0
	}
	return len(c.Hooks)
}

// Problems says, one line each, which configured hooks nova will not run
// and why, for the warnings of a session's start.
func (c *Config) Problems() []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, h := range c.Hooks {
		if h.Unavailable == "" {
			continue
		}
		p := fmt.Sprintf("hook %s in %s is not run: %s", h.label(), h.File, h.Unavailable)
		if s, ok := specs[h.Event]; ok && s.guard && s.fired {
			p += "; every call it matches is blocked until it can run"
		}
		out = append(out, p)
	}
	for _, h := range c.Hooks {
		if why := ifProblem(&h); why != "" && h.Unavailable == "" {
			out = append(out, fmt.Sprintf("hook %s in %s: %s", h.label(), h.File, why))
		}
	}
	return out
}

// label names h for people: its event, matcher and what it runs.
func (h *Hook) label() string {
	s := string(h.Event)
	if h.Matcher != "" {
		s += " (" + h.Matcher + ")"
	}
	return s + " " + h.Type + " " + h.what()
}

// what is what h runs, shortened for messages.
func (h *Hook) what() string {
	var s string
	switch h.Type {
	case KindCommand:
		s = h.Command
		if h.Exec && len(h.Args) > 0 {
			s += " " + strings.Join(h.Args, " ")
		}
	case KindHTTP:
		s = h.URL
	case KindPrompt, KindAgent:
		s = h.Prompt
	case KindCallback:
		s = h.Command
	}
	if s = strings.Join(strings.Fields(s), " "); s == "" {
		return "[" + h.Type + "]"
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return "[" + s + "]"
}

// identity is what makes two handlers the same one: configured in two
// files, it runs once (as Claude Code does).
func (h *Hook) identity() string {
	b, _ := json.Marshal([]any{h.Type, h.Command, h.Exec, h.Args, h.Shell, h.URL, h.Headers, h.Prompt, h.Model, h.env})
	return string(b)
}

type keyVal struct {
	key string
	val json.RawMessage
}

// orderedObject decodes a JSON object keeping its keys' order, so hooks
// run and are listed in the order they are written.
func orderedObject(data []byte) ([]keyVal, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var out []keyVal
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("event %s is given twice", key)
		}
		seen[key] = true
		out = append(out, keyVal{key, val})
	}
	return out, nil
}
