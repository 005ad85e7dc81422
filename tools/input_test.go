package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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

// findInput is the input of findTool, a new read tool whose path is
// optional and means the working directory when left out.
type findInput struct {
	Dir string `json:"dir,omitempty" nova:"path,default=." jsonschema:"Where to look"`
}

type findTool struct{ Input[findInput] }

func (*findTool) Name() string          { return "Find" }
func (*findTool) Description() string   { return "reads dir" }
func (*findTool) Kind() permission.Kind { return permission.KindRead }
func (*findTool) Run(context.Context, json.RawMessage, *Env) (Result, error) {
	return Result{Output: "found"}, nil
}

// TestNewToolPathsAreJudged: a tool added with a path input is covered by
// Edit(...) and Read(...) rules, and by rules naming it, with no change to
// the permission package: the request carries its paths and their
// direction.
func TestNewToolPathsAreJudged(t *testing.T) {
	t.Parallel()
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		mode  permission.Mode
		rules permission.Rules
		tool  string
		input string
		want  permission.Behavior
	}{
		{"Edit deny covers a new edit tool", permission.ModeBypass, permission.Rules{Deny: []string{"Edit(src/**)"}}, "Copy", `{"target":"src/a.go"}`, permission.Deny},
		{"Edit deny leaves other paths", permission.ModeBypass, permission.Rules{Deny: []string{"Edit(src/**)"}}, "Copy", `{"target":"b.go","note":"src/a.go"}`, permission.Allow},
		{"Edit allow covers it", permission.ModeDefault, permission.Rules{Allow: []string{"Edit(src/**)"}}, "Copy", `{"target":"src/a.go"}`, permission.Allow},
		{"Read rules do not cover its writes", permission.ModeBypass, permission.Rules{Deny: []string{"Read(src/**)"}}, "Copy", `{"target":"src/a.go"}`, permission.Allow},
		{"a rule naming it is a path rule", permission.ModeBypass, permission.Rules{Deny: []string{"Copy(src/**)"}}, "Copy", `{"target":"src/a.go"}`, permission.Deny},
		{"bare Edit deny covers it", permission.ModeBypass, permission.Rules{Deny: []string{"Edit"}}, "Copy", `{"target":"a.go"}`, permission.Deny},
		{"acceptEdits allows its writes inside", permission.ModeAcceptEdits, permission.Rules{}, "Copy", `{"target":"src/a.go"}`, permission.Allow},
		{"plan mode denies it", permission.ModePlan, permission.Rules{}, "Copy", `{"target":"src/a.go"}`, permission.Deny},
		{"outside the workspace asks", permission.ModeAcceptEdits, permission.Rules{}, "Copy", `{"target":"` + outside + `/x"}`, permission.Ask},
		{"Read deny covers a new read tool", permission.ModeBypass, permission.Rules{Deny: []string{"Read(src/**)"}}, "Find", `{"dir":"src"}`, permission.Deny},
		{"its default path is judged", permission.ModeBypass, permission.Rules{Deny: []string{"Read(//" + ws[1:] + ")"}}, "Find", `{}`, permission.Deny},
		{"Edit rules do not cover its reads", permission.ModeBypass, permission.Rules{Deny: []string{"Edit(src/**)"}}, "Find", `{"dir":"src"}`, permission.Allow},
		{"a read outside asks", permission.ModeDefault, permission.Rules{}, "Find", `{"dir":"` + outside + `"}`, permission.Ask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checker, err := permission.NewChecker(permission.Config{Mode: tt.mode, Workspace: ws, Home: t.TempDir(), Rules: tt.rules})
			if err != nil {
				t.Fatal(err)
			}
			reg := NewRegistry()
			for _, tl := range []Tool{&copyTool{}, &findTool{}} {
				if err := reg.Register(tl); err != nil {
					t.Fatal(err)
				}
			}
			p := &Pipeline{Registry: reg, Checker: checker}
			pr := p.Prepare(context.Background(), Call{ID: "c", Name: tt.tool, Input: json.RawMessage(tt.input)}, NewEnv(ws))
			if d := pr.Decision(); d.Behavior != tt.want {
				t.Errorf("%s %s: %s (%s layer: %s), want %s", tt.tool, tt.input, d.Behavior, d.Layer, d.Reason, tt.want)
			}
		})
	}
}

// TestInputSchemaFromStruct: a new tool's schema, as providers receive it,
// follows its input struct: required are the fields without omitempty,
// descriptions come from the jsonschema tags, nothing else is accepted.
func TestInputSchemaFromStruct(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
