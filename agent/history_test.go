package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/anthropic"
	"github.com/nova-dev/nova/llm/llmtest"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/session"
	"github.com/nova-dev/nova/tools"
)

// cutReply streams the calls and stops at the output limit, as a response
// cut off mid-call does: the last call's input is incomplete.
func cutReply(outTokens int, calls ...llm.ToolCall) func(context.Context, func(llm.StreamEvent)) error {
	return func(ctx context.Context, emit func(llm.StreamEvent)) error {
		for i := range calls {
			emit(llm.StreamEvent{Type: llm.EventToolCall, ToolCall: &calls[i]})
		}
		emit(llm.StreamEvent{Type: llm.EventUsage, Usage: &llm.Usage{InputTokens: 100, OutputTokens: outTokens}})
		emit(llm.StreamEvent{Type: llm.EventStop, StopReason: llm.StopMaxTokens})
		return nil
	}
}

// resultsOf returns the text of each tool result in the newest message of r.
func resultsOf(r llm.Request) map[string]string {
	out := map[string]string{}
	msgs := r.Messages
	for _, p := range msgs[len(msgs)-1].Parts {
		if p.ToolResult != nil {
			out[p.ToolResult.CallID] = p.ToolResult.Content[0].Text
		}
	}
	return out
}

func toolResultEvents(evs []Event) map[string]string {
	out := map[string]string{}
	for _, ev := range evs {
		if ev.Type == EventToolResult {
			out[ev.Result.ID] = ev.Result.Output
		}
	}
	return out
}

// TestGarbledCallsAreExplained: a call whose input is not JSON, or that
// the output limit cut off, is answered in words the model can act on,
// never as a denial, while a sound call beside it gets the checker's real
// answer. The frontends are shown what the model is told, every event
// marshals, and the transcript keeps the garbled call.
func TestGarbledCallsAreExplained(t *testing.T) {
	for _, tc := range []struct {
		name  string
		resp  func(context.Context, func(llm.StreamEvent)) error
		bad   string
		words []string
	}{
		{"input that is not JSON", reply("", call("ok1", "Writer", `{"x":1}`), call("bad1", "Writer", `{"path": "a.txt", "content": 'hi'}`)),
			"bad1", []string{"Your call to Writer was not run", "not valid JSON", "Send the call again"}},
		{"input cut off at the output limit", cutReply(4000, call("ok1", "Writer", `{"x":1}`), call("bad1", "Writer", `{"path": "a.txt", "content": "line 1\nline 2\nli`)),
			"bad1", []string{"Your call to Writer was not run", "cut off at the output limit (4000 tokens)", "Send the call again, shorter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &fakeTool{name: "Writer", kind: permission.KindEdit, started: make(chan string, 4)}
			h := newHarness(t, permission.ModeDefault, false, w) // nobody to ask: a sound call is denied
			st := session.NewStore(t.TempDir())
			sess, err := st.Create(session.Meta{WorkspaceDir: "/ws"})
			if err != nil {
				t.Fatal(err)
			}
			h.agent.cfg.Recorder = sess
			h.client.add(tc.resp, reply("I will retry."))
			evs := drain(h.agent.Run(context.Background(), llm.UserText("write a.txt")), nil)
			sess.Close()
			if d := last(evs); d.Subtype != SubtypeSuccess {
				t.Fatalf("done = %+v", d)
			}
			if len(w.started) != 0 {
				t.Errorf("the tool ran %d times", len(w.started))
			}
			reqs := h.client.requests()
			told := resultsOf(reqs[1])
			for _, want := range tc.words {
				if !strings.Contains(told[tc.bad], want) {
					t.Errorf("the model was told %q, want %q in it", told[tc.bad], want)
				}
			}
			if strings.Contains(told[tc.bad], "denied") || strings.Contains(told[tc.bad], "Permission") {
				t.Errorf("a garbled call is answered as a denial: %q", told[tc.bad])
			}
			if !strings.Contains(told["ok1"], "denied") {
				t.Errorf("the sound call was told %q, want the checker's denial (positive control)", told["ok1"])
			}
			if shown := toolResultEvents(evs); shown[tc.bad] != told[tc.bad] || shown["ok1"] != told["ok1"] {
				t.Errorf("frontends were shown %q, the model was told %q", shown, told)
			}
			for _, ev := range evs {
				if _, err := json.Marshal(ev); err != nil {
					t.Errorf("%s event does not marshal: %v", ev.Type, err)
				}
			}
			if err := llm.CheckHistory(reqs[1].Messages); err != nil {
				t.Errorf("second request: %v", err)
			}
			tr, _, err := st.Load(sess.ID())
			if err != nil {
				t.Fatal(err)
			}
			var saved []string
			for _, m := range tr.AllMessages() {
				for _, c := range m.ToolCalls() {
					saved = append(saved, c.ID)
				}
				for _, p := range m.Parts {
					if p.ToolResult != nil && p.ToolResult.CallID == tc.bad && p.ToolResult.Content[0].Text != told[tc.bad] {
						t.Errorf("transcript says %q, the model was told %q", p.ToolResult.Content[0].Text, told[tc.bad])
					}
				}
			}
			if !reflect.DeepEqual(saved, []string{"ok1", "bad1"}) {
				t.Errorf("calls in the transcript: %v, want both", saved)
			}
		})
	}
}

// TestDuplicateCallIDsInOneTurn: the model gives two calls one id; both run
// and each result goes back with its own call, under ids the providers
// accept.
func TestDuplicateCallIDsInOneTurn(t *testing.T) {
	r := &fakeTool{name: "Look", kind: permission.KindRead}
	h := newHarness(t, permission.ModeDefault, false, r)
	h.client.add(reply("", call("toolu_x", "Look", `{"n":1}`), call("toolu_x", "Look", `{"n":2}`)),
		reply("", call("toolu_x", "Look", `{"n":3}`)), reply("done"))
	if d := last(drain(h.agent.Run(context.Background(), llm.UserText("look")), nil)); d.Subtype != SubtypeSuccess {
		t.Fatalf("done = %+v", d)
	}
	reqs := h.client.requests()
	for i, r := range reqs {
		if err := llm.CheckHistory(r.Messages); err != nil {
			t.Errorf("request %d: %v", i+1, err)
		}
	}
	want := map[string]string{"toolu_x": `Look ran {"n":1}`, "toolu_x_2": `Look ran {"n":2}`, "toolu_x_3": `Look ran {"n":3}`}
	got := map[string]string{}
	for _, m := range reqs[2].Messages {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				got[p.ToolResult.CallID] = p.ToolResult.Content[0].Text
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results = %v, want %v", got, want)
	}
	// The repaired history stays the prefix of the next request.
	if n := len(reqs[1].Messages); !reflect.DeepEqual(reqs[2].Messages[:n], reqs[1].Messages) {
		t.Error("the third request does not start with the second's history")
	}
}

// TestDamagedHistoryRequests resumes histories a damaged transcript leaves
// and checks every request the model gets.
func TestDamagedHistoryRequests(t *testing.T) {
	callMsg := func(ids ...string) llm.Message {
		m := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("Working.")}}
		for _, id := range ids {
			m.Parts = append(m.Parts, llm.Part{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: id, Name: "Look", Input: json.RawMessage(`{}`)}})
		}
		return m
	}
	resultMsg := func(ids ...string) llm.Message {
		m := llm.Message{Role: llm.RoleUser}
		for _, id := range ids {
			m.Parts = append(m.Parts, llm.Part{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: id, Content: []llm.Part{llm.TextPart("out " + id)}}})
		}
		return m
	}
	fullDisk := []llm.Message{llm.UserText("build")}
	for i := 1; i <= 9; i++ {
		fullDisk = append(fullDisk, callMsg(fmt.Sprintf("toolu_%d", i)))
	}
	fullDisk = append(fullDisk, llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("Built.")}})
	for _, tc := range []struct {
		name string
		hist []llm.Message
	}{
		{"a skipped call line leaves its result orphaned", []llm.Message{llm.UserText("go"), resultMsg("toolu_1"), {Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("ok")}}}},
		{"a skipped result line leaves the call unanswered mid-history", []llm.Message{llm.UserText("go"), callMsg("toolu_1"), {Role: llm.RoleAssistant, Parts: []llm.Part{llm.TextPart("ok")}}}},
		{"a full disk kept nine calls and none of their results", fullDisk},
		{"an id reused across turns", []llm.Message{llm.UserText("go"), callMsg("toolu_1"), resultMsg("toolu_1"), callMsg("toolu_1"), resultMsg("toolu_1")}},
		{"a call left at the very end", []llm.Message{llm.UserText("go"), callMsg("toolu_1", "toolu_2")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeTool{name: "Look", kind: permission.KindRead}
			h := newHarness(t, permission.ModeDefault, false, r)
			h.agent = New(Config{Client: h.client, Model: "m", Pipeline: h.agent.cfg.Pipeline, Env: h.agent.cfg.Env,
				ContextWindow: 100_000, MaxTokens: 4_000, History: tc.hist})
			h.client.add(reply("", call("toolu_new", "Look", `{}`)), reply("done"))
			if d := last(drain(h.agent.Run(context.Background(), llm.UserText("go on")), nil)); d.Subtype != SubtypeSuccess {
				t.Fatalf("done = %+v", d)
			}
			reqs := h.client.requests()
			for i, r := range reqs {
				if err := llm.CheckHistory(r.Messages); err != nil {
					t.Errorf("request %d: %v", i+1, err)
				}
			}
			if n := len(reqs[0].Messages); !reflect.DeepEqual(reqs[1].Messages[:n], reqs[0].Messages) {
				t.Error("the second request does not start with the first's history: the prompt cache would miss")
			}
		})
	}
}

// checkToolPairs holds an Anthropic request body to the API's rules on
// tool use: each tool_use answered by a tool_result at the start of the
// next message, each tool_result answering the message before, ids unique.
func checkToolPairs(body []byte) error {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	seen := map[string]bool{}
	var prev []string
	for i, m := range req.Messages {
		if i > 0 && req.Messages[i-1].Role == m.Role {
			return fmt.Errorf("messages.%d: roles do not alternate", i)
		}
		var uses []string
		answered := map[string]bool{}
		for j, c := range m.Content {
			switch c.Type {
			case "tool_use":
				if seen[c.ID] {
					return fmt.Errorf("messages.%d: tool_use id %s repeated", i, c.ID)
				}
				seen[c.ID] = true
				uses = append(uses, c.ID)
			case "tool_result":
				found := false
				for _, p := range prev {
					found = found || p == c.ToolUseID
				}
				if !found || answered[c.ToolUseID] || (j > 0 && m.Content[j-1].Type != "tool_result") {
					return fmt.Errorf("messages.%d.content.%d: tool_result for %s out of place", i, j, c.ToolUseID)
				}
				answered[c.ToolUseID] = true
			}
		}
		for _, p := range prev {
			if !answered[p] {
				return fmt.Errorf("messages.%d: tool_use %s without a tool_result immediately after", i-1, p)
			}
		}
		prev = uses
	}
	if len(prev) > 0 {
		return fmt.Errorf("the request ends with unanswered tool_use %v", prev)
	}
	return nil
}

// TestDamagedTranscriptEndToEnd writes a session, damages its transcript
// on disk the ways the reliability report found, resumes it, and checks
// the request bodies the Anthropic client sends the fake provider.
func TestDamagedTranscriptEndToEnd(t *testing.T) {
	home := t.TempDir()
	t.Setenv("NOVA_HOME", home)
	st := session.NewStore(home)
	sess, err := st.Create(session.Meta{WorkspaceDir: "/ws"})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	r := &fakeTool{name: "Look", kind: permission.KindRead}
	h := newHarness(t, permission.ModeDefault, false, r)
	srv := llmtest.New(
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_1", Name: "Look", Input: `{"n":1}`}, {ID: "toolu_1", Name: "Look", Input: `{"n":2}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_2", Name: "Look", Input: `{"n":3}`}}},
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "toolu_3", Name: "Look", Input: `{"n": "cut off`}}, StopReason: "max_tokens", OutputTokens: 4000},
		llmtest.Turn{Text: "Done looking."},
	)
	defer srv.Close()
	client := anthropic.New(llm.ProviderConfig{Type: llm.ProviderAnthropic, BaseURL: srv.URL, APIKey: "sk-test"})
	cfg := Config{Client: client, Model: "claude-test", Pipeline: h.agent.cfg.Pipeline, Env: h.agent.cfg.Env,
		ContextWindow: 100_000, MaxTokens: 4_000, Recorder: sess}
	if d := last(drain(New(cfg).Run(context.Background(), llm.UserText("look around")), nil)); d.Subtype != SubtypeSuccess {
		t.Fatalf("first run: %+v", d)
	}
	sess.Close()
	for i, r := range srv.Requests() {
		if err := checkToolPairs(r.Body); err != nil {
			t.Errorf("first run, request %d: %v", i+1, err)
		}
	}
	if body := string(srv.Requests()[3].Body); !strings.Contains(body, "cut off at the output limit (4000 tokens)") {
		t.Errorf("the request after the cut call does not explain it: %s", body)
	}

	// Damage: lose the line with toolu_2's result, write the first
	// results line twice.
	path := filepath.Join(st.Dir(id), "transcript.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		switch {
		case bytes.Contains(l, []byte(`"call_id":"toolu_2"`)) && bytes.Contains(l, []byte(`"tool_result"`)):
			continue
		case bytes.Contains(l, []byte(`"call_id":"toolu_1"`)) && bytes.Contains(l, []byte(`"tool_result"`)):
			kept = append(kept, l)
		}
		kept = append(kept, l)
	}
	if err := os.WriteFile(path, bytes.Join(kept, nil), 0o600); err != nil {
		t.Fatal(err)
	}

	sess, warns, err := st.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	t.Logf("resumed with warnings %v", warns)
	served := len(srv.Requests())
	srv.Push(llmtest.Turn{Text: "carrying on"})
	cfg.History, cfg.Recorder = sess.Messages(), sess
	if d := last(drain(New(cfg).Run(context.Background(), llm.UserText("go on")), nil)); d.Subtype != SubtypeSuccess {
		t.Fatalf("resumed run: %+v", d)
	}
	body := srv.Requests()[served].Body
	if err := checkToolPairs(body); err != nil {
		t.Errorf("resumed request: %v\n%s", err, body)
	}
	for _, want := range []string{`"toolu_1_2"`, "nova has no result for this call", `Look ran {\"n\":2}`, "go on"} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("the resumed request lacks %s", want)
		}
	}
}

// Recorder errors do not stop the run: a transcript that cannot be written
// (a full disk) costs the transcript, not the conversation.
type failingRecorder struct{ failResults bool }

func (f failingRecorder) AppendMessage(m llm.Message) error {
	if f.failResults && len(m.Parts) > 0 && m.Parts[0].ToolResult != nil {
		return fmt.Errorf("write: no space left on device")
	}
	return nil
}
func (failingRecorder) AppendDecision(string, string, permission.Decision) error { return nil }
func (failingRecorder) AppendUsage(llm.Usage) error                              { return nil }

func TestUnsavedResultsKeepTheRunGoing(t *testing.T) {
	r := &fakeTool{name: "Look", kind: permission.KindRead}
	h := newHarness(t, permission.ModeDefault, false, r)
	h.agent.cfg.Recorder = failingRecorder{failResults: true}
	h.client.add(reply("", call("toolu_1", "Look", `{}`)), reply("done"))
	evs := drain(h.agent.Run(context.Background(), llm.UserText("look")), nil)
	if d := last(evs); d.Subtype != SubtypeSuccess {
		t.Fatalf("done = %+v", d)
	}
	noticed := false
	for _, ev := range evs {
		noticed = noticed || (ev.Type == EventNotice && strings.Contains(ev.Text, "could not be saved"))
	}
	if !noticed {
		t.Error("no notice that the transcript could not be saved")
	}
	if got := resultsOf(h.client.requests()[1]); got["toolu_1"] != "Look ran {}" {
		t.Errorf("the model lost the result held in memory: %v", got)
	}
}

var _ tools.Tool = (*fakeTool)(nil)
