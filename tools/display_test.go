package tools

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nova-dev/nova/tools/display"
)

// displayOf returns res's display, failing the test unless it is of kind.
func displayOf(t *testing.T, res Result, kind display.Kind) *display.Display {
	t.Helper()
	if res.Display == nil || res.Display.Kind != kind {
		t.Fatalf("display = %+v, want kind %q", res.Display, kind)
	}
	return res.Display
}

// oneDiff returns the single file diff res displays.
func oneDiff(t *testing.T, res Result) FileDiff {
	t.Helper()
	d := displayOf(t, res, display.KindDiff)
	if len(d.Diffs) != 1 {
		t.Fatalf("display has %d diffs, want 1", len(d.Diffs))
	}
	return d.Diffs[0]
}

// A display crosses to the web UI and stream-json as JSON: every kind
// comes back as it went, with only its own field set.
func TestDisplayRoundTrip(t *testing.T) {
	t.Parallel()
	code := 3
	for _, d := range []*display.Display{
		display.Diff(FileDiff{Path: "a.go", Diff: "--- a.go\n+++ a.go\n", Added: 1, Removed: 2}),
		display.OfCommand(display.Command{Command: "go test", ExitCode: 1, Cwd: "/w"}),
		display.OfShell(display.Shell{ID: "bash_1", Command: "sleep 9", Status: "failed", ExitCode: &code}),
		display.OfSearch(display.Search{Count: 4, Unit: "files", Truncated: true}),
		display.OfFetch(display.Fetch{URL: "https://x.test", Status: 200}),
		display.OfTodos([]display.Todo{{Content: "Run", Status: "pending", ActiveForm: "Running"}}),
		display.OfQuestions(display.Questions{Questions: []string{"Which?"}, Answers: []string{"A"}}),
		display.OfPlan(display.Plan{Plan: "1. x", Mode: "plan"}),
	} {
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil || len(fields) != 2 {
			t.Errorf("%s marshals as %s, want kind and one field", d.Kind, raw)
		}
		var back display.Display
		if err := json.Unmarshal(raw, &back); err != nil || !reflect.DeepEqual(&back, d) {
			t.Errorf("%s does not round-trip: %s", d.Kind, raw)
		}
	}
}
