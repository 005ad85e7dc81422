package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden schemas in testdata/schemas")

// TestToolSchemasGolden: the input schema of every built-in tool, as the
// registry hands it to providers, is the one in testdata/schemas. A change
// of what the model is told (a description, a bound, the order of the
// properties, which is part of the cached prompt prefix) shows as a diff
// there; run go test ./tools -run TestToolSchemasGolden -update to accept
// it, and a new tool's file is written the same way.
func TestToolSchemasGolden(t *testing.T) {
	reg := NewRegistry()
	for _, tl := range append(Builtin(), &Remember{}) {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
	}
	specs := reg.Specs()
	if len(specs) != len(reg.Names()) {
		t.Fatalf("Specs offers %d tools of %d registered: a schema failed to build", len(specs), len(reg.Names()))
	}
	dir := filepath.Join("testdata", "schemas")
	for _, s := range specs {
		file := filepath.Join(dir, s.Name+".json")
		// Indented for review; providers get it compacted, so only the
		// keys, their order and the values are what the model sees.
		var b bytes.Buffer
		if err := json.Indent(&b, s.InputSchema, "", "  "); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", s.Name, err)
		}
		got := append(b.Bytes(), '\n')
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: no golden schema (%v); run go test ./tools -run TestToolSchemasGolden -update and review the new file", s.Name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the schema sent to the model differs from %s; if the change is meant, run go test ./tools -run TestToolSchemasGolden -update and review the diff\ngot:\n%s", s.Name, file, got)
		}
	}
	if *update {
		return
	}
	// A golden file no tool has any more is a tool removed without its schema.
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != len(specs) {
		t.Errorf("testdata/schemas holds %d files for %d tools; remove the files of tools that are gone", len(files), len(specs))
	}
}

// TestInferredSchemaIsStable: building a schema twice gives the same bytes
// (properties in field order, never in map order): the tool list is part
// of the prompt prefix providers cache.
func TestInferredSchemaIsStable(t *testing.T) {
	for _, tl := range append(Builtin(), &Remember{}) {
		first := tl.Schema()
		for range 20 {
			if again := tl.Schema(); !bytes.Equal(first, again) {
				t.Fatalf("%s: schema changed between builds:\n%s\n%s", tl.Name(), first, again)
			}
		}
	}
}

// BenchmarkFirstSpecs is what a session pays for the tool list once: a new
// registry of the built-in tools inferring every schema for the first
// request. Later turns reuse them.
func BenchmarkFirstSpecs(b *testing.B) {
	for b.Loop() {
		reg := NewRegistry()
		for _, tl := range append(Builtin(), &Remember{}) {
			if err := reg.Register(tl); err != nil {
				b.Fatal(err)
			}
		}
		if len(reg.Specs()) == 0 {
			b.Fatal("no specs")
		}
	}
}
