package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm/llmtest"
)

const answerSchema = `{"type":"object","properties":{"city":{"type":"string"},"population":{"type":"integer"}},"required":["city","population"],"additionalProperties":false}`

// structuredResult is the result object of a --json-schema run.
type structuredResult struct {
	Subtype          string          `json:"subtype"`
	IsError          bool            `json:"is_error"`
	NumTurns         int             `json:"num_turns"`
	Errors           []string        `json:"errors"`
	StructuredOutput json.RawMessage `json:"structured_output"`
}

// TestJSONSchemaE2E: --json-schema offers the model the StructuredOutput
// tool with the schema as its input schema; an answer that does not match
// is refused to the model, which corrects it, and the valid one is the
// result's structured_output.
func TestJSONSchemaE2E(t *testing.T) {
	e := newE2E(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "so_1", Name: "StructuredOutput", Input: `{"city":"Paris","population":"many"}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "so_2", Name: "StructuredOutput", Input: `{"city":"Paris","population":2100000}`}}},
		llmtest.Turn{Text: "Done."},
	)
	r := e.run("", "-p", "--output-format", "json", "--json-schema", answerSchema, "the largest city of France?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var res structuredResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if res.Subtype != "success" || string(res.StructuredOutput) != `{"city":"Paris","population":2100000}` {
		t.Errorf("result = %+v (structured_output %s), want success with the valid answer", res, res.StructuredOutput)
	}
	reqs := e.srv.Requests()
	var body struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	offered := false
	for _, tl := range body.Tools {
		if tl.Name == "StructuredOutput" {
			offered = true
			if !strings.Contains(string(tl.InputSchema), `"population"`) {
				t.Errorf("StructuredOutput's input schema = %s, want --json-schema's", tl.InputSchema)
			}
		}
	}
	if !offered {
		t.Error("the model was not offered the StructuredOutput tool")
	}
	if second := string(reqs[1].Body); !strings.Contains(second, "does not match the schema") {
		t.Error("the invalid answer was not refused to the model with the schema's complaint")
	}

	// Text output prints the answer itself.
	e = newE2E(t, llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "so_1", Name: "StructuredOutput", Input: `{"city":"Lyon","population":500000}`}}}, llmtest.Turn{Text: "Done."})
	if r := e.run("", "-p", "--json-schema", answerSchema, "a city?"); r.code != 0 || strings.TrimSpace(r.stdout) != `{"city":"Lyon","population":500000}` {
		t.Errorf("text output: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestJSONSchemaRetriesE2E: a model that keeps answering in text is
// reminded, and after the reminders run out the run fails with Claude
// Code's error_max_structured_output_retries.
func TestJSONSchemaRetriesE2E(t *testing.T) {
	var turns []llmtest.Turn
	for range 6 {
		turns = append(turns, llmtest.Turn{Text: "Paris, I think."})
	}
	e := newE2E(t, turns...)
	r := e.run("", "-p", "--output-format", "json", "--json-schema", answerSchema, "the largest city of France?")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	var res structuredResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if res.Subtype != "error_max_structured_output_retries" || !res.IsError || len(res.Errors) == 0 || res.StructuredOutput != nil {
		t.Errorf("result = %+v, want error_max_structured_output_retries with errors and no structured_output", res)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 6 || res.NumTurns != 6 {
		t.Errorf("%d requests, num_turns %d: want the first and 5 reminders", len(reqs), res.NumTurns)
	}
	if !strings.Contains(string(reqs[1].Body), "You must call the StructuredOutput tool") {
		t.Error("the second request does not remind the model of the tool")
	}
}

// TestJSONSchemaBadE2E: a schema that is not one is exit 2, saying why.
func TestJSONSchemaBadE2E(t *testing.T) {
	e := newE2E(t)
	for _, bad := range []string{`{"type":`, `{"type":"string"}`, `[1]`} {
		if r := e.run("", "-p", "--json-schema", bad, "hi"); r.code != 2 || !strings.Contains(r.stderr, "--json-schema") {
			t.Errorf("--json-schema %s: exit %d stderr %q", bad, r.code, r.stderr)
		}
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the provider", n)
	}
}
