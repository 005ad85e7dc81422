package llm_test

import (
	"reflect"
	"testing"

	"github.com/nova-dev/nova/llm"
)

func toolNames(specs []llm.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		if s.Deferred {
			out = append(out, s.Name+"*")
			continue
		}
		out = append(out, s.Name)
	}
	return out
}

// loadResult is a ToolSearch answer loading names.
func loadResult(id string, names ...string) llm.Part {
	content := []llm.Part{llm.TextPart("Loaded.")}
	for _, n := range names {
		content = append(content, llm.ToolReference(n))
	}
	return llm.Part{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Name: "ToolSearch", Content: content}}
}

// TestLoadedTools: for a provider without deferred loading, a deferred
// tool joins the list when a reference loads it, at the end, in the order
// of first reference, so what was sent before stays a prefix.
func TestLoadedTools(t *testing.T) {
	tools := []llm.ToolSpec{{Name: "Read"}, {Name: "mcp__a", Deferred: true}, {Name: "ToolSearch"}, {Name: "mcp__b", Deferred: true}, {Name: "mcp__c", Deferred: true}}
	var msgs []llm.Message
	add := func(m llm.Message) { msgs = append(msgs, m) }
	loaded := func() []string { return toolNames(llm.LoadedTools(llm.Request{Tools: tools, Messages: msgs})) }

	add(llm.UserText("go"))
	if got, want := loaded(), []string{"Read", "ToolSearch"}; !reflect.DeepEqual(got, want) {
		t.Errorf("before any load: %v, want %v", got, want)
	}
	add(asst(callPart("t1", "ToolSearch", `{}`)))
	add(user(loadResult("t1", "mcp__c", "mcp__gone")))
	if got, want := loaded(), []string{"Read", "ToolSearch", "mcp__c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after loading c (and a tool that is gone): %v, want %v", got, want)
	}
	add(asst(callPart("t2", "ToolSearch", `{}`)))
	add(user(loadResult("t2", "mcp__a", "mcp__c")))
	if got, want := loaded(), []string{"Read", "ToolSearch", "mcp__c", "mcp__a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after loading a: %v, want %v (appended, c not moved)", got, want)
	}
	if got, want := llm.ReferencedTools(msgs), []string{"mcp__c", "mcp__gone", "mcp__a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ReferencedTools = %v, want %v", got, want)
	}
}

// TestToolReferenceHistory: a tool reference belongs inside a tool
// result; anywhere else it is a part no provider takes, and the repair
// drops it, keeping the ones in results.
func TestToolReferenceHistory(t *testing.T) {
	good := []llm.Message{llm.UserText("go"), asst(callPart("t1", "ToolSearch", `{}`)), user(loadResult("t1", "mcp__a"))}
	if err := llm.CheckHistory(good); err != nil {
		t.Fatalf("a reference in a result: %v", err)
	}
	if got := llm.RepairHistory(good); !reflect.DeepEqual(got, good) {
		t.Errorf("a valid history was changed: %+v", got)
	}
	stray := []llm.Message{user(llm.TextPart("go"), llm.ToolReference("mcp__a"))}
	if err := llm.CheckHistory(stray); err == nil {
		t.Error("a reference outside a result passed the check")
	}
	if got := llm.RepairHistory(stray); len(got) != 1 || len(got[0].Parts) != 1 || got[0].Parts[0].Type != llm.PartText {
		t.Errorf("the stray reference was not dropped: %+v", got)
	}
	unnamed := []llm.Message{llm.UserText("go"), asst(callPart("t1", "ToolSearch", `{}`)), user(loadResult("t1", ""))}
	if err := llm.CheckHistory(unnamed); err == nil {
		t.Error("a reference without a name passed the check")
	}
	fixed := llm.RepairHistory(unnamed)
	if c := fixed[2].Parts[0].ToolResult.Content; len(c) != 1 || c[0].Type != llm.PartText {
		t.Errorf("the unnamed reference was not dropped: %+v", c)
	}
}
