package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/nova-dev/nova/llm"
)

// Registry holds the tools a session may call, in registration order (the
// order the model sees, kept stable for prompt caching).
type Registry struct {
	mu       sync.RWMutex
	order    []string
	tools    map[string]*entry
	disabled map[string]bool
}

type entry struct {
	tool   Tool
	schema *jsonschema.Schema
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]*entry{}, disabled: map[string]bool{}}
}

// Register adds t. Its schema must compile; a name may be registered once.
func (r *Registry) Register(t Tool) error {
	schema, err := compileSchema(t.Name(), t.Schema())
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name()]; dup {
		return fmt.Errorf("tool %s registered twice", t.Name())
	}
	r.tools[t.Name()] = &entry{tool: t, schema: schema}
	r.order = append(r.order, t.Name())
	return nil
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

// Specs returns the enabled tools as the model sees them.
func (r *Registry) Specs() []llm.ToolSpec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var specs []llm.ToolSpec
	for _, n := range r.order {
		if r.disabled[n] {
			continue
		}
		t := r.tools[n].tool
		specs = append(specs, llm.ToolSpec{Name: t.Name(), Description: t.Description(), InputSchema: t.Schema()})
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
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return fmt.Errorf("input is not valid JSON: %v", err)
	}
	if err := e.schema.Validate(v); err != nil {
		return fmt.Errorf("input does not match the schema of %s: %s", name, schemaMessage(err))
	}
	return nil
}

func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema is not JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	url := "mem://tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %s: add schema: %w", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: compile schema: %w", name, err)
	}
	return s, nil
}

// schemaMessage flattens a validation error to its leaf causes, one line.
func schemaMessage(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			msgs = append(msgs, fmt.Sprintf("at %s: %s", loc, e.ErrorKind.LocalizedString(message.NewPrinter(language.English))))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(msgs, "; ")
}
