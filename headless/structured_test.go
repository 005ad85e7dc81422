package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// scriptRunner runs one scripted run per call; a run may call the
// structured output tool first.
type scriptRunner struct {
	s      *StructuredOutput
	runs   []agent.Done
	answer map[int]string // run index -> the tool input it gives
	inputs []string
}

func (r *scriptRunner) Run(ctx context.Context, in llm.Message) <-chan agent.Event {
	i := len(r.inputs)
	r.inputs = append(r.inputs, in.Text())
	if a, ok := r.answer[i]; ok {
		if _, err := r.s.Tool().Run(ctx, json.RawMessage(a), nil); err != nil {
			panic(err)
		}
	}
	return replay{done(r.runs[i])}.Run(ctx, in)
}

// TestStructuredRunnerTotals: a turn continued with reminders reports the
// totals of all its runs, and the answer of the run that gave it.
func TestStructuredRunnerTotals(t *testing.T) {
	s, err := NewStructuredOutput([]byte(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	run := agent.Done{Subtype: agent.SubtypeSuccess, NumTurns: 1, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}, CostUSD: 0.5, Priced: true,
		Denials: []agent.Denial{{ToolName: "Bash", ToolUseID: "t"}}}
	r := &scriptRunner{s: s, runs: []agent.Done{run, run, run}, answer: map[int]string{2: `{"ok":true}`}}
	var out bytes.Buffer
	code := Run(context.Background(), r, Options{Prompt: "p", Format: FormatJSON, Structured: s, Stdout: &out, Stderr: &bytes.Buffer{}})
	var res Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != ExitOK {
		t.Fatalf("exit %d, %q: %v", code, out.String(), err)
	}
	if res.NumTurns != 3 || res.Usage.InputTokens != 30 || res.TotalCostUSD != 1.5 || len(res.PermissionDenials) != 3 || string(res.StructuredOutput) != `{"ok":true}` {
		t.Errorf("result = %+v, want the three runs' totals and the answer", res)
	}
	if len(r.inputs) != 3 || r.inputs[0] != "p" || r.inputs[1] != structuredReminder {
		t.Errorf("inputs = %q, want the prompt then reminders", r.inputs)
	}
	// The next turn starts without the last one's answer.
	if s.has() {
		t.Error("the answer outlived its result")
	}
}
