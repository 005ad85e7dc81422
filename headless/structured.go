package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
)

// StructuredOutputTool is the name of the tool the model answers through
// when a JSON schema is given (--json-schema, the SDK's outputFormat), as
// Claude Code names it.
const StructuredOutputTool = "StructuredOutput"

// SubtypeMaxStructuredRetries is the result subtype when the model ended
// its turn without a valid structured answer every time it was reminded
// (Claude Code's).
const SubtypeMaxStructuredRetries = "error_max_structured_output_retries"

// maxStructuredRetries is how many times a turn that ended without the
// structured answer is continued with a reminder before it fails.
const maxStructuredRetries = 5

// structuredReminder is the user message that continues such a turn.
const structuredReminder = "You must call the " + StructuredOutputTool + " tool now with your final answer, as an input object matching its schema. Do not answer in text."

// StructuredOutput is structured output for a session: the tool the model
// must call with its final answer, whose input the registry validates
// against the schema (a call that does not match is an error result the
// model sees and corrects), and the value of the turn's valid call.
type StructuredOutput struct {
	schema json.RawMessage

	mu    sync.Mutex
	value json.RawMessage
}

// NewStructuredOutput checks schema (a JSON schema object, as
// --json-schema gives it) and returns the structured output it asks for.
// The error says what is wrong with the schema.
func NewStructuredOutput(schema []byte) (*StructuredOutput, error) {
	t := bytes.TrimSpace(schema)
	var s jsonschema.Schema
	if err := json.Unmarshal(t, &s); err != nil || !bytes.HasPrefix(t, []byte("{")) {
		if err == nil {
			err = fmt.Errorf("want a JSON object")
		}
		return nil, fmt.Errorf("the JSON schema does not parse: %v", err)
	}
	if _, err := s.Resolve(nil); err != nil {
		return nil, fmt.Errorf("the JSON schema is not valid: %v", err)
	}
	if s.Type != "" && s.Type != "object" {
		// A tool's input is an object: the model could not answer
		// through the tool.
		return nil, fmt.Errorf("the JSON schema must describe an object (its type is %q); wrap the value in an object's property", s.Type)
	}
	return &StructuredOutput{schema: append(json.RawMessage(nil), t...)}, nil
}

// Tool returns the tool to register in the session's registry.
func (s *StructuredOutput) Tool() tools.Tool { return structuredTool{s} }

// take returns the turn's structured answer (nil for none) and forgets it.
func (s *StructuredOutput) take() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.value
	s.value = nil
	return v
}

func (s *StructuredOutput) has() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value != nil
}

// structuredTool is the StructuredOutput tool.
type structuredTool struct{ s *StructuredOutput }

func (structuredTool) Name() string { return StructuredOutputTool }

func (structuredTool) Description() string {
	return "Return your final answer as structured output. You MUST call this tool exactly once at the end of your response, " +
		"with your answer as the input object, matching the schema exactly. If the call is refused, correct the input and call it again."
}

func (t structuredTool) Schema() json.RawMessage { return t.s.schema }

// Kind is other: it touches nothing, so no rule or mode asks about it.
func (structuredTool) Kind() permission.Kind { return permission.KindOther }

// Run keeps the input, which the pipeline has validated against the schema.
func (t structuredTool) Run(_ context.Context, input json.RawMessage, _ *tools.Env) (tools.Result, error) {
	t.s.mu.Lock()
	t.s.value = append(json.RawMessage(nil), input...)
	t.s.mu.Unlock()
	return tools.Result{Output: "Structured output provided successfully"}, nil
}

// structuredRunner runs turns that must end with the structured answer:
// a turn that ends without it is continued with a reminder, up to
// maxStructuredRetries times, and then fails. The top-level Done it sends
// covers all the runs of the turn.
type structuredRunner struct {
	r Runner
	s *StructuredOutput
}

func (sr structuredRunner) Run(ctx context.Context, input llm.Message) <-chan agent.Event {
	out := make(chan agent.Event)
	sr.s.take() // a value left from an earlier turn is not this one's
	go func() {
		defer close(out)
		var total *agent.Done
		for attempt := 0; ; attempt++ {
			var done *agent.Done
			for ev := range sr.r.Run(ctx, input) {
				if ev.Type == agent.EventDone && ev.ParentToolUseID == "" {
					done = ev.Done
					continue
				}
				out <- ev
			}
			if done == nil {
				return // the caller says the agent ended without a result
			}
			total = addDone(total, done)
			if done.IsError || sr.s.has() || ctx.Err() != nil {
				break
			}
			if attempt == maxStructuredRetries {
				total.Subtype, total.IsError = SubtypeMaxStructuredRetries, true
				total.Error = fmt.Sprintf("the model did not give a valid structured answer (the %s tool) after %d reminders", StructuredOutputTool, maxStructuredRetries)
				break
			}
			// The run's own end closes its response in the output; the
			// turn's end is the total, below.
			out <- agent.Event{Type: agent.EventDone, Done: done}
			input = llm.UserText(structuredReminder)
		}
		out <- agent.Event{Type: agent.EventDone, Done: total}
	}()
	return out
}

// addDone adds run d to the turn's total so far (nil for none): counts
// add up, the last run says how the turn ended.
func addDone(total, d *agent.Done) *agent.Done {
	if total == nil {
		c := *d
		c.Denials = append([]agent.Denial(nil), d.Denials...)
		return &c
	}
	c := *d
	c.NumTurns += total.NumTurns
	c.Usage.Add(total.Usage)
	c.CostUSD += total.CostUSD
	c.Priced = c.Priced && total.Priced
	c.Denials = append(append([]agent.Denial(nil), total.Denials...), d.Denials...)
	return &c
}
