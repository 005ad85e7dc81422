package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/nova-dev/nova/permission"
)

// shBig returns n characters whose head and tail are recognisable.
func shBig(n int) string {
	const head, tail = "HEAD-MARKER\n", "\nTAIL-MARKER"
	return head + strings.Repeat("m", n-len(head)-len(tail)) + tail
}

// shEmitter is a tool whose output is output and whose permission request
// reads paths.
func shEmitter(output string, paths ...string) *plTool {
	return &plTool{name: "Emit",
		run: func(context.Context, json.RawMessage, *Env) (Result, error) { return Result{Output: output}, nil },
		perm: func(json.RawMessage, *Env) permission.Request {
			var req permission.Request
			for _, p := range paths {
				req.Paths = append(req.Paths, permission.Access{Path: p})
			}
			return req
		}}
}

func TestShapeSpillsLargeResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		size      int
		wantSpill bool
	}{
		{"at the threshold", DefaultSpillThreshold, false},
		{"one over", DefaultSpillThreshold + 1, true},
		{"far over", 400_000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full := shBig(tt.size)
			p, env := newPlPipeline(t, &plChecker{}, shEmitter(full))
			out := p.Run(context.Background(), Call{ID: "toolu_01", Name: "Emit", Input: json.RawMessage(`{}`)}, env)
			if out.Result.IsError {
				t.Fatalf("result = %+v", out.Result)
			}
			if !tt.wantSpill {
				if out.SpillPath != "" || out.Result.Output != full {
					t.Errorf("a result of %d characters was changed (spill %q)", tt.size, out.SpillPath)
				}
				return
			}
			want := filepath.Join(env.SpillDir, "toolu_01.txt")
			if out.SpillPath != want {
				t.Fatalf("spill path = %q, want %q", out.SpillPath, want)
			}
			saved, err := os.ReadFile(want)
			if err != nil || string(saved) != full {
				t.Fatalf("spilled file holds %d characters (err %v), want the full %d", len(saved), err, len(full))
			}
			var meta SpillMeta
			raw, err := os.ReadFile(filepath.Join(env.SpillDir, "toolu_01.json"))
			if err != nil || json.Unmarshal(raw, &meta) != nil {
				t.Fatalf("meta: %s (err %v)", raw, err)
			}
			sum := sha256.Sum256([]byte(full))
			if meta.Tool != "Emit" || meta.CallID != "toolu_01" || meta.Size != len(full) || meta.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("meta = %+v", meta)
			}
			// The model sees a preview: head, tail and where the rest is.
			o := out.Result.Output
			for _, w := range []string{"HEAD-MARKER", "TAIL-MARKER", want, "Read"} {
				if !strings.Contains(o, w) {
					t.Errorf("preview lacks %q", w)
				}
			}
			if len(o) > previewHead+previewTail+1_000 {
				t.Errorf("preview is %d characters", len(o))
			}
		})
	}
}

func TestShapeNeverRespillsASpilledFile(t *testing.T) {
	t.Parallel()
	full := shBig(80_000)
	// First the big result is spilled; then a read of that file returns the
	// same text, which must reach the model whole (the model asked for it).
	p, env := newPlPipeline(t, &plChecker{}, shEmitter(full))
	first := p.Run(context.Background(), Call{ID: "a", Name: "Emit", Input: json.RawMessage(`{}`)}, env)
	if first.SpillPath == "" {
		t.Fatal("the first result was not spilled")
	}
	reader := shEmitter(full, first.SpillPath)
	reader.name = "ReadBack"
	if err := p.Registry.Register(reader); err != nil {
		t.Fatal(err)
	}
	again := p.Run(context.Background(), Call{ID: "b", Name: "ReadBack", Input: json.RawMessage(`{}`)}, env)
	if again.SpillPath != "" || again.Result.Output != full {
		t.Errorf("reading a spilled file back was shaped again (spill %q, %d characters)", again.SpillPath, len(again.Result.Output))
	}
	if _, err := os.Stat(filepath.Join(env.SpillDir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("a second spill file was written: %v", err)
	}
	// A path that merely starts with the spill dir's name is not inside it.
	outside := shEmitter(full, env.SpillDir+"-other/x.txt")
	outside.name = "Near"
	if err := p.Registry.Register(outside); err != nil {
		t.Fatal(err)
	}
	if near := p.Run(context.Background(), Call{ID: "c", Name: "Near", Input: json.RawMessage(`{}`)}, env); near.SpillPath == "" {
		t.Errorf("a file beside the spill dir escaped spilling")
	}
}

func TestShapeWithoutSpillDirCutsHeadAndTail(t *testing.T) {
	t.Parallel()
	full := shBig(120_000)
	p, env := newPlPipeline(t, &plChecker{}, shEmitter(full))
	env.SpillDir = ""
	out := p.Run(context.Background(), Call{ID: "c1", Name: "Emit", Input: json.RawMessage(`{}`)}, env)
	o := out.Result.Output
	if out.SpillPath != "" || len(o) >= len(full) {
		t.Fatalf("spill %q, %d characters", out.SpillPath, len(o))
	}
	for _, w := range []string{"HEAD-MARKER", "TAIL-MARKER", "120000 characters", "could not be saved", "first", "last"} {
		if !strings.Contains(o, w) {
			t.Errorf("output lacks %q:\n%.300s", w, o)
		}
	}
}

func TestShapeKeepsUTF8AndSafeNames(t *testing.T) {
	t.Parallel()
	// Multi-byte runes across the cut points, and a call id that would
	// climb out of the spill dir.
	full := strings.Repeat("é✓", 30_000)
	p, env := newPlPipeline(t, &plChecker{}, shEmitter(full))
	out := p.Run(context.Background(), Call{ID: "../../evil/id", Name: "Emit", Input: json.RawMessage(`{}`)}, env)
	if !utf8.ValidString(out.Result.Output) {
		t.Error("the preview splits a UTF-8 sequence")
	}
	if filepath.Dir(out.SpillPath) != filepath.Clean(env.SpillDir) {
		t.Errorf("spill path %q is not directly in %q", out.SpillPath, env.SpillDir)
	}
}

func TestBudgetSpillsLargestFirst(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		sizes     []int
		budget    int
		wantSpill []bool
	}{
		{"fits", []int{10_000, 20_000}, 100_000, []bool{false, false}},
		{"largest alone", []int{30_000, 45_000, 10_000, 40_000}, 100_000, []bool{false, true, false, false}},
		{"two largest", []int{30_000, 45_000, 10_000, 40_000}, 50_000, []bool{false, true, false, true}},
		{"small ones stay", []int{3_000, 3_000, 3_000}, 1_000, []bool{false, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewEnv(t.TempDir())
			env.SpillDir = t.TempDir()
			outs := make([]Outcome, len(tt.sizes))
			for i, n := range tt.sizes {
				outs[i] = Outcome{Call: Call{ID: "c" + string(rune('0'+i)), Name: "Emit"}, Result: Result{Output: shBig(n)}}
			}
			NewBudget(env, tt.budget).Fit(outs)
			total := 0
			for i, o := range outs {
				total += len(o.Result.Output)
				if spilled := o.SpillPath != ""; spilled != tt.wantSpill[i] {
					t.Errorf("result %d (%d chars) spilled = %v, want %v", i, tt.sizes[i], spilled, tt.wantSpill[i])
				}
				if o.SpillPath != "" {
					if b, err := os.ReadFile(o.SpillPath); err != nil || len(b) != tt.sizes[i] {
						t.Errorf("spill of result %d: %d bytes, %v", i, len(b), err)
					}
					if !strings.Contains(o.Result.Output, o.SpillPath) {
						t.Errorf("result %d does not name its spill file", i)
					}
				}
			}
			if tt.name != "small ones stay" && total > tt.budget {
				t.Errorf("batch is %d characters, budget %d", total, tt.budget)
			}
		})
	}
}

func TestBudgetLeavesSpilledResultsAlone(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	env.SpillDir = t.TempDir()
	preview := shBig(40_000) // as if already a preview
	outs := []Outcome{
		{Call: Call{ID: "a"}, Result: Result{Output: preview}, SpillPath: "/elsewhere/a.txt"},
		{Call: Call{ID: "b"}, Result: Result{Output: shBig(30_000)}},
	}
	NewBudget(env, 50_000).Fit(outs)
	if outs[0].SpillPath != "/elsewhere/a.txt" || outs[0].Result.Output != preview {
		t.Errorf("an already spilled result was spilled again: %q", outs[0].SpillPath)
	}
	if outs[1].SpillPath == "" {
		t.Errorf("the next largest was not spilled")
	}
}

// TestBudgetCarriesOver fits results one group after another: what the
// first group used is gone for the next.
func TestBudgetCarriesOver(t *testing.T) {
	t.Parallel()
	env := NewEnv(t.TempDir())
	env.SpillDir = t.TempDir()
	b := NewBudget(env, 50_000)
	first := []Outcome{{Call: Call{ID: "a"}, Result: Result{Output: shBig(30_000)}}}
	b.Fit(first)
	if first[0].SpillPath != "" {
		t.Fatalf("a result within the budget was spilled")
	}
	second := []Outcome{{Call: Call{ID: "b"}, Result: Result{Output: shBig(30_000)}}}
	b.Fit(second)
	if second[0].SpillPath == "" {
		t.Errorf("the second result went over what the first left and was not spilled")
	}
}
