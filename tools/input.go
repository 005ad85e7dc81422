package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/permission"
)

// Input gives a tool whose input is the struct T (embed it: type Read
// struct{ Input[readInput] }) its JSON schema and the paths its calls
// touch, both read from T, so a tool is described in one place.
//
// The schema is T's as github.com/google/jsonschema-go infers it: a
// property per field under its json name, in field order; a field without
// omitempty is required; no other properties are allowed; the jsonschema
// tag is the property's description. What a tag cannot say (enums, bounds,
// defaults) T adds in a tuneSchema method. nova ships its own tools'
// schemas inferred ahead of time in schemas_gen.go, which
// go test ./tools -run TestToolSchemasGolden -update writes and the test
// holds to what the structs say.
//
// A string field tagged nova:"path" is a path the call touches: written
// when the tool's kind is edit, read otherwise. The permission check
// judges it, and Edit(...) and Read(...) rules cover it with no list of
// tools. nova:"path,default=." names the path an empty value stands for;
// an empty path without a default names none (the tool refuses it). A
// tool whose calls need more to be judged than its name, kind and these
// paths implements Permissioner instead (Bash, Glob, WebFetch, ApplyPatch).
type Input[T any] struct{}

// schemaTuner is an input struct that adds to its inferred schema what
// struct tags cannot express.
type schemaTuner interface {
	tuneSchema(s *jsonschema.Schema)
}

// inferred is a tool whose schema is inferred (Input), which the registry
// builds at first use rather than at registration.
type inferred interface {
	inputSchema() (json.RawMessage, error)
}

// pathDeclarer is a tool whose input declares the paths it touches.
type pathDeclarer interface {
	inputPaths(input json.RawMessage, env *Env, write bool) []permission.Access
}

// Schema implements Tool: T's schema (see inputSchema), or nil when T
// cannot be described (the registry then offers the tool to no model and
// says why when it is called).
func (Input[T]) Schema() json.RawMessage {
	raw, _ := Input[T]{}.inputSchema()
	return raw
}

// schemaDraft is the dialect every built-in schema declares.
const schemaDraft = "https://json-schema.org/draft/2020-12/schema"

// inputSchema returns T's schema as the model sees it. nova's own tools
// have theirs inferred when schemas_gen.go was generated, since inferring
// them all would cost a session's first request milliseconds; any other
// input type is inferred now.
func (in Input[T]) inputSchema() (json.RawMessage, error) {
	if raw := prebuiltSchema(*new(T)); raw != nil {
		return raw, nil
	}
	return in.inferSchema()
}

// inferSchema infers T's schema and renders it, indented for review as
// schemas_gen.go holds it (providers are sent it compacted).
func (Input[T]) inferSchema() (json.RawMessage, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("infer input schema: %w", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("input schema: %T is not a struct", *new(T))
	}
	if err := checkPathTags(reflect.TypeFor[T]()); err != nil {
		return nil, err
	}
	dropNull(s)
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{} // rendered as "properties": {}, as providers expect
	}
	s.Schema = schemaDraft
	if t, ok := any(*new(T)).(schemaTuner); ok {
		t.tuneSchema(s)
	}
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("render input schema: %w", err)
	}
	return raw, nil
}

// inputType is T, for the generator of schemas_gen.go.
func (Input[T]) inputType() reflect.Type { return reflect.TypeFor[T]() }

// dropNull removes the "null" jsonschema-go allows for pointers and slices:
// Go decodes a missing field as nil anyway, and the model should be told
// to send a value or leave the field out, not to send null.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	dropNull(s.Items)
	for _, p := range s.Properties {
		dropNull(p)
	}
}

// inputPaths returns the paths input's nova:"path" fields name. A value
// of the wrong type in one field leaves the others decoded, and the check
// judges what could be read; input that is not JSON names no path.
func (Input[T]) inputPaths(input json.RawMessage, env *Env, write bool) []permission.Access {
	if !json.Valid(input) {
		return nil
	}
	var in T
	_ = json.Unmarshal(input, &in)
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Struct {
		return nil
	}
	var out []permission.Access
	for _, f := range reflect.VisibleFields(v.Type()) {
		tag, ok := f.Tag.Lookup("nova")
		if !ok || f.Type.Kind() != reflect.String || !f.IsExported() {
			continue
		}
		kind, opts, _ := strings.Cut(tag, ",")
		if kind != "path" {
			continue
		}
		fv, err := v.FieldByIndexErr(f.Index)
		if err != nil {
			continue // below an embedded pointer left nil
		}
		p := fv.String()
		if p == "" {
			p, _ = strings.CutPrefix(opts, "default=")
		}
		if p != "" {
			out = append(out, permission.Access{Path: env.Abs(p), Write: write})
		}
	}
	return out
}

// checkPathTags refuses a nova tag the path derivation would pass over in
// silence: on a field that is not a string, or saying something unknown.
// A tool's schema fails to build with it, which its golden test reports.
func checkPathTags(t reflect.Type) error {
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("nova")
		if !ok {
			continue
		}
		kind, opts, _ := strings.Cut(tag, ",")
		switch {
		case kind != "path":
			return fmt.Errorf("field %s: unknown nova tag %q (want \"path\")", f.Name, tag)
		case opts != "" && !strings.HasPrefix(opts, "default="):
			return fmt.Errorf("field %s: unknown nova tag option %q (want default=PATH)", f.Name, opts)
		case f.Type.Kind() != reflect.String || !f.IsExported():
			return fmt.Errorf("field %s: a nova:\"path\" field must be an exported string", f.Name)
		}
	}
	return nil
}

// prop returns the property name of the object schema s; tuneSchema
// methods use it, and a name that is not there is a bug the schema tests
// catch (it returns a schema that goes nowhere rather than panicking).
func prop(s *jsonschema.Schema, name string) *jsonschema.Schema {
	if p := s.Properties[name]; p != nil {
		return p
	}
	return &jsonschema.Schema{}
}

// enum lists the values a string property may take.
func enum(values ...string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

// requestFor describes a call for the permission checker: what a
// Permissioner says, or else the tool's name and kind and the paths its
// input declares.
func requestFor(t Tool, input json.RawMessage, env *Env) permission.Request {
	var req permission.Request
	switch d := t.(type) {
	case Permissioner:
		req = d.Permission(input, env)
	case pathDeclarer:
		req.Paths = d.inputPaths(input, env, t.Kind() == permission.KindEdit)
	}
	if req.Tool == "" {
		req.Tool = t.Name()
	}
	if req.Kind == "" {
		req.Kind = t.Kind()
	}
	if req.Workdir == "" {
		req.Workdir = env.Workdir
	}
	return req
}
