package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// copyInput is the input of copyTool, a tool the rest of nova has never
// heard of: its path inputs are all that tells the checker what it touches.
type copyInput struct {
	Target string `json:"target" nova:"path" jsonschema:"Where to write"`
	Note   string `json:"note,omitempty" jsonschema:"Not a path"`
}

// copyTool is a new edit tool, registered the way every tool is.
type copyTool struct{ Input[copyInput] }

func (*copyTool) Name() string          { return "Copy" }
func (*copyTool) Description() string   { return "writes target" }
func (*copyTool) Kind() permission.Kind { return permission.KindEdit }
func (*copyTool) Run(_ context.Context, input json.RawMessage, _ *Env) (Result, error) {
	return Result{Output: "copied " + string(input)}, nil
}

// TestInputSchemaFromStruct: a new tool's schema, as providers receive it,
// follows its input struct: required are the fields without omitempty,
// descriptions come from the jsonschema tags, nothing else is accepted.
func TestInputSchemaFromStruct(t *testing.T) {
	reg := NewRegistry()
	if err := reg.Register(&copyTool{}); err != nil {
		t.Fatal(err)
	}
	specs := reg.Specs()
	if len(specs) != 1 {
		t.Fatalf("specs = %+v", specs)
	}
	var s struct {
		Type       string   `json:"type"`
		Required   []string `json:"required"`
		Additional *bool    `json:"additionalProperties"`
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(specs[0].InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || len(s.Required) != 1 || s.Required[0] != "target" || s.Additional == nil || *s.Additional ||
		s.Properties["target"].Description != "Where to write" || s.Properties["note"].Type != "string" || len(s.Properties) != 2 {
		t.Errorf("schema sent: %s", specs[0].InputSchema)
	}
	if err := reg.validate("Copy", json.RawMessage(`{"target":"a","extra":1}`)); err == nil {
		t.Error("an unknown property passed validation")
	}
}

// badPathInput tags a number as a path, which no call could ever supply.
type badPathInput struct {
	Count int `json:"count" nova:"path"`
}

type badPathTool struct{ Input[badPathInput] }

func (*badPathTool) Name() string          { return "Bad" }
func (*badPathTool) Description() string   { return "declares a path it cannot have" }
func (*badPathTool) Kind() permission.Kind { return permission.KindRead }
func (*badPathTool) Run(context.Context, json.RawMessage, *Env) (Result, error) {
	return Result{Output: "ran"}, nil
}

// TestBadPathTagIsRefused: a nova tag the checker would pass over is a
// tool offered to no model, and a call names the mistake, rather than a
// path that goes unjudged.
func TestBadPathTagIsRefused(t *testing.T) {
	reg := NewRegistry()
	if err := reg.Register(&badPathTool{}); err != nil {
		t.Fatal(err)
	}
	if specs := reg.Specs(); len(specs) != 0 {
		t.Errorf("offered %+v", specs)
	}
	if err := reg.validate("Bad", json.RawMessage(`{"count":1}`)); err == nil || !strings.Contains(err.Error(), "nova") {
		t.Errorf("validate = %v, want the bad tag named", err)
	}
}
