package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/llm"
)

// Registry holds the tools a session may call, in registration order (the
// order the model sees, kept stable for prompt caching).
type Registry struct {
	mu       sync.RWMutex
	order    []string
	tools    map[string]*entry
	disabled map[string]bool
	// deferred are the tools whose definitions the model is not given
	// until a tool search loads them (llm.ToolSpec.Deferred).
	deferred map[string]bool
}

type entry struct {
	tool Tool
	// An inferred schema (Input) is built when the model is first offered
	// the tool, not at registration, and kept: it is sent every turn.
	rawOnce sync.Once
	raw     json.RawMessage
	rawErr  error
	// The schema is compiled at the tool's first call, not at start: a
	// one-turn run that calls two tools should not pay for all of them.
	once   sync.Once
	schema *jsonschema.Resolved
	err    error
}

// inputSchema returns the tool's schema as the model sees it, built once.
func (e *entry) inputSchema() (json.RawMessage, error) {
	e.rawOnce.Do(func() {
		g, ok := e.tool.(inferred)
		if !ok {
			e.raw = e.tool.Schema() // checked by Register
			return
		}
		if e.raw, e.rawErr = g.inputSchema(); e.rawErr != nil {
			e.rawErr = fmt.Errorf("tool %s: %w", e.tool.Name(), e.rawErr)
		}
	})
	return e.raw, e.rawErr
}

// resolved compiles the tool's schema once.
func (e *entry) resolved() (*jsonschema.Resolved, error) {
	e.once.Do(func() {
		raw, err := e.inputSchema()
		if err != nil {
			e.err = err
			return
		}
		e.schema, e.err = compileSchema(e.tool.Name(), raw)
	})
	return e.schema, e.err
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*entry{}, disabled: map[string]bool{}, deferred: map[string]bool{}}
}

// Register adds t. Its schema must be a JSON object (it is compiled at the
// first call: TestBuiltinSchemasCompile holds nova's own to compiling); an
// inferred schema (Input) is built at first use, and the golden schema
// test holds nova's own to building. A name may be registered once.
func (r *Registry) Register(t Tool) error { return r.register(t, false) }

// RegisterDeferred adds t as Register does, deferred: its definition
// reaches the model only once a tool search loads it (see SetDeferred).
func (r *Registry) RegisterDeferred(t Tool) error { return r.register(t, true) }

func (r *Registry) register(t Tool, deferred bool) error {
	if _, inferred := t.(inferred); !inferred {
		if raw := t.Schema(); !json.Valid(raw) || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
			return fmt.Errorf("tool %s: schema is not a JSON object", t.Name())
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name()]; dup {
		return fmt.Errorf("tool %s registered twice", t.Name())
	}
	r.tools[t.Name()] = &entry{tool: t}
	r.order = append(r.order, t.Name())
	if deferred {
		r.deferred[t.Name()] = true
	}
	return nil
}

// Subset returns a registry of the tools of r that keep accepts, in r's
// order, deferred and disabled as they are in r now: a subagent's tools.
// It is a snapshot; tools registered in r later are not in it.
func (r *Registry) Subset(keep func(name string) bool) *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := NewRegistry()
	for _, n := range r.order {
		if !keep(n) {
			continue
		}
		out.order = append(out.order, n)
		out.tools[n] = r.tools[n]
		if r.disabled[n] {
			out.disabled[n] = true
		}
		if r.deferred[n] {
			out.deferred[n] = true
		}
	}
	return out
}

// SetDeferred defers a registered tool, or stops deferring it. A deferred
// tool stays in Specs, marked Deferred, in its place: on Anthropic it is
// in the tools array from the start, so loading it changes no cached
// prefix. It runs like any other tool when called.
func (r *Registry) SetDeferred(name string, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return
	}
	if on {
		r.deferred[name] = true
	} else {
		delete(r.deferred, name)
	}
}

// Unregister removes the tool called name (an MCP server's tool the
// server no longer lists); a call to it is then refused as unknown.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return
	}
	delete(r.tools, name)
	delete(r.disabled, name)
	delete(r.deferred, name)
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
}

// SetEnabled turns a registered tool on or off; a disabled tool is not
// offered to the model and refuses calls.
func (r *Registry) SetEnabled(name string, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		delete(r.disabled, name)
	} else {
		r.disabled[name] = true
	}
}

// Get returns the tool called name and whether it is enabled.
func (r *Registry) Get(name string) (Tool, bool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.tools[name]
	if !ok {
		return nil, false, false
	}
	return e.tool, !r.disabled[name], true
}

// Names returns the enabled tools' names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var names []string
	for _, n := range r.order {
		if !r.disabled[n] {
			names = append(names, n)
		}
	}
	return names
}

// Specs returns the enabled tools as the model sees them, deferred ones
// marked. A tool whose inferred schema cannot be built is left out: the
// model cannot call what it cannot be told the input of (a call by name
// is refused with why).
func (r *Registry) Specs() []llm.ToolSpec { return r.specs(false) }

// DeferredSpecs returns the enabled deferred tools, in order: what a tool
// search searches.
func (r *Registry) DeferredSpecs() []llm.ToolSpec { return r.specs(true) }

// DeferredNames returns the names of the enabled deferred tools, in order,
// without asking any tool for its description.
func (r *Registry) DeferredNames() []string {
	var names []string
	for _, s := range r.snapshot(true) {
		names = append(names, s.e.tool.Name())
	}
	return names
}

// listed is one tool of a snapshot of the registry.
type listed struct {
	e        *entry
	deferred bool
}

// snapshot returns the enabled tools (only the deferred ones when
// onlyDeferred), in order.
func (r *Registry) snapshot(onlyDeferred bool) []listed {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []listed
	for _, n := range r.order {
		if r.disabled[n] || (onlyDeferred && !r.deferred[n]) {
			continue
		}
		out = append(out, listed{e: r.tools[n], deferred: r.deferred[n]})
	}
	return out
}

// specs builds the specs of a snapshot outside the lock: a tool's
// description may itself read the registry (ToolSearch names the deferred
// tools), and a read lock taken twice can deadlock behind a writer.
func (r *Registry) specs(onlyDeferred bool) []llm.ToolSpec {
	var specs []llm.ToolSpec
	for _, l := range r.snapshot(onlyDeferred) {
		raw, err := l.e.inputSchema()
		if err != nil {
			continue
		}
		specs = append(specs, llm.ToolSpec{Name: l.e.tool.Name(), Description: l.e.tool.Description(), InputSchema: raw, Deferred: l.deferred})
	}
	return specs
}

// validate checks input against the tool's schema and returns an error
// message written for the model.
func (r *Registry) validate(name string, input json.RawMessage) error {
	r.mu.RLock()
	e := r.tools[name]
	r.mu.RUnlock()
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return fmt.Errorf("input is not valid JSON: %v", err)
	}
	schema, err := e.resolved()
	if err != nil {
		return err
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Errorf("input does not match the schema of %s: %s", name, schemaMessage(err))
	}
	return nil
}

// compileSchema resolves a tool's schema once, at registration. The
// validator (google/jsonschema-go, which MCP support links anyway) does no
// work at program start, unlike others that compile meta-schemas in init.
func compileSchema(name string, raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("tool %s: schema is not a JSON schema: %w", name, err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tool %s: resolve schema: %w", name, err)
	}
	return r, nil
}

// schemaMessage turns the validator's nested "validating /properties/a:
// validating /properties/a/properties/b: type: ..." into "at /a/b: type: ...".
func schemaMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "validating root: ")
	path := ""
	for strings.HasPrefix(msg, "validating ") {
		rest := strings.TrimPrefix(msg, "validating ")
		p, tail, ok := strings.Cut(rest, ": ")
		if !ok {
			break
		}
		path, msg = p, tail
	}
	if path == "" {
		return msg
	}
	return "at " + strings.ReplaceAll(path, "/properties/", "/") + ": " + msg
}
