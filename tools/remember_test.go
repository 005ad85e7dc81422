package tools

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/nova-dev/nova/memory"
	"github.com/nova-dev/nova/permission"
)

// rememberPipeline is a pipeline with only Remember registered and the real
// permission checker in default mode, with nobody to ask: a call that
// needed approval would be denied.
func rememberPipeline(t *testing.T, novaHome string) (*Pipeline, *Env) {
	t.Helper()
	reg := NewRegistry()
	if err := reg.Register(&Remember{NovaHome: novaHome}); err != nil {
		t.Fatalf("register: %v", err)
	}
	env := NewEnv(t.TempDir())
	checker, err := permission.NewChecker(permission.Config{Workspace: env.Workdir, Home: t.TempDir(), NovaHome: novaHome})
	if err != nil {
		t.Fatal(err)
	}
	return &Pipeline{Registry: reg, Checker: checker}, env
}

func TestRemember(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		input   string
		isError bool
		want    []string // in the output
		file    string   // regexp for MEMORY.md; "" when it must not exist
	}{
		{name: "fact by default", input: `{"memory": "Tests run with make test"}`,
			want: []string{"Saved to memory", memory.MemoryFile, "fact"},
			file: `(?m)^- \[fact\] Tests run with make test \(\d{4}-\d{2}-\d{2}\)$`},
		{name: "decision", input: `{"memory": "Use sqlite\nnot postgres", "type": "decision"}`,
			want: []string{"decision"},
			file: `(?m)^- \[decision\] Use sqlite not postgres \(`},
		{name: "missing memory", input: `{"type": "fact"}`, isError: true, want: []string{"memory"}},
		{name: "unknown type", input: `{"memory": "x", "type": "todo"}`, isError: true, want: []string{"/type"}},
		{name: "blank memory", input: `{"memory": "  "}`, isError: true, want: []string{"empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			novaHome := t.TempDir()
			p, env := rememberPipeline(t, novaHome)
			out := p.Run(context.Background(), Call{ID: "c1", Name: "Remember", Input: json.RawMessage(tt.input)}, env)
			if out.Denied {
				t.Fatalf("denied: %s", out.Result.Output)
			}
			if out.Result.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", out.Result.IsError, out.Result.Output)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.Result.Output, w) {
					t.Errorf("output %q lacks %q", out.Result.Output, w)
				}
			}
			data, err := os.ReadFile(memory.MemoryPath(novaHome, env.Workdir))
			if tt.file == "" {
				if !os.IsNotExist(err) {
					t.Errorf("MEMORY.md written on error: %q, %v", data, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(tt.file).Match(data) {
				t.Errorf("MEMORY.md = %q, want match %q", data, tt.file)
			}
			loaded, err := memory.LoadMemory(novaHome, env.Workdir)
			if err != nil || !strings.Contains(loaded, "# Memory") {
				t.Errorf("LoadMemory = %q, %v", loaded, err)
			}
		})
	}
}

func TestRememberPermission(t *testing.T) {
	t.Parallel()
	r := &Remember{NovaHome: t.TempDir()}
	req := requestFor(r, json.RawMessage(`{"memory": "x"}`), NewEnv(t.TempDir()))
	if req.Kind != permission.KindOther || len(req.Paths) != 0 || r.Kind() != permission.KindOther {
		t.Errorf("request = %+v, kind %s", req, r.Kind())
	}
}
