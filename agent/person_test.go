package agent

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
	"github.com/nova-dev/nova/tools"
	"github.com/nova-dev/nova/tools/display"
)

// The todo list a TodoWrite call sets reaches the run's watchers as a
// typed todos event, through the Env hook its maker installed.
func TestTodoWriteBecomesTodosEvent(t *testing.T) {
	h := newHarness(t, permission.ModeDefault, false, &tools.TodoWrite{})
	h.client.add(
		reply("", call("t1", "TodoWrite", `{"todos":[{"content":"Run the tests","activeForm":"Running the tests","status":"in_progress"}]}`)),
		reply("done"))
	evs := drain(h.agent.Run(context.Background(), llm.UserText("plan it")), nil)
	var got [][]display.Todo
	var shown *display.Display
	for _, ev := range evs {
		switch {
		case ev.Type == EventTodos:
			got = append(got, ev.Todos)
		case ev.Type == EventToolResult && ev.Result.ID == "t1":
			shown = ev.Result.Display
		}
	}
	want := []display.Todo{{Content: "Run the tests", ActiveForm: "Running the tests", Status: "in_progress"}}
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("todos events = %+v, want one with %+v", got, want)
	}
	if shown == nil || shown.Kind != display.KindTodos || !reflect.DeepEqual(shown.Todos, want) {
		t.Errorf("tool result display = %+v", shown)
	}
}

// An answer in the agent's terms reaches the pipeline: "always" saves the
// rule, and a denial's message goes to the model.
func TestPermissionAnswerReachesPipeline(t *testing.T) {
	for _, tt := range []struct {
		name    string
		answer  PermissionAnswer
		wantRan bool
		want    string
	}{
		{"allow always", PermissionAnswer{Allow: true, Always: true, Rule: "Fake"}, true, "the user allowed it always (Fake)"},
		{"allow once ignores the rule", PermissionAnswer{Allow: true, Rule: "Fake"}, true, "the user allowed it"},
		{"deny with a message", PermissionAnswer{Message: "not that file"}, false, "not that file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeTool{name: "Fake", kind: permission.KindExec}
			h := newHarness(t, permission.ModeDefault, true, fake)
			h.client.add(reply("", call("c1", "Fake", `{}`)), reply("ok"))
			evs := drain(h.agent.Run(context.Background(), llm.UserText("go")), func(a *PermissionAsk) { a.Answer(tt.answer) })
			var res *ToolResult
			for _, ev := range evs {
				if ev.Type == EventToolResult {
					res = ev.Result
				}
			}
			if res == nil || (res.Denied == tt.wantRan) {
				t.Fatalf("result = %+v, want ran=%v", res, tt.wantRan)
			}
			if got := res.Decision.Reason + " " + res.Output; !strings.Contains(got, tt.want) {
				t.Errorf("result %q lacks %q", got, tt.want)
			}
		})
	}
}

// Outside a run (the TUI's !cmd) there is nobody to ask: the ask is
// refused at once, it never waits for an answer that cannot come.
func TestPersonOutsideRunRefuses(t *testing.T) {
	done := make(chan tools.Approval, 1)
	go func() {
		done <- Person{}.AskPermission(context.Background(), tools.PermissionAsk{CallID: "x", Tool: "Bash"})
	}()
	select {
	case ap := <-done:
		if ap.Allow {
			t.Errorf("approval outside a run = %+v", ap)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the ask outside a run waited for an answer")
	}
	if _, err := (Person{}).AskQuestions(context.Background(), []tools.Question{{Question: "?"}}); err == nil {
		t.Error("questions outside a run were answered")
	}
}

// The first answer to an ask is the one taken, and the run says so with
// an answered event between the ask and the call's result, so a frontend
// that showed the ask and did not answer it (a browser sharing the
// terminal's session) closes it.
func TestAskAnsweredOnceAndAnnounced(t *testing.T) {
	fake := &fakeTool{name: "Fake", kind: permission.KindExec}
	h := newHarness(t, permission.ModeDefault, true, fake)
	h.client.add(reply("", call("c1", "Fake", `{}`)), reply("ok"))
	var first, second bool
	evs := drain(h.agent.Run(context.Background(), llm.UserText("go")), func(a *PermissionAsk) {
		first = a.Answer(PermissionAnswer{Allow: true})
		second = a.Answer(PermissionAnswer{Message: "too late"})
	})
	if !first || second {
		t.Errorf("Answer reported %v then %v, want true then false", first, second)
	}
	var order []EventType
	var ans *Answered
	var askID string
	for _, ev := range evs {
		switch ev.Type {
		case EventPermissionAsk:
			askID = ev.Ask.RequestID
		case EventAnswered:
			ans = ev.Answered
		case EventToolResult:
			if ev.Result.Denied {
				t.Errorf("the late denial was taken: %+v", ev.Result)
			}
		default:
			continue
		}
		order = append(order, ev.Type)
	}
	if want := []EventType{EventPermissionAsk, EventAnswered, EventToolResult}; !reflect.DeepEqual(order, want) {
		t.Errorf("events = %v, want %v", order, want)
	}
	if ans == nil || ans.ID != "c1" || ans.RequestID != askID || !ans.Allow {
		t.Errorf("answered = %+v, want the ask c1 (%s) allowed", ans, askID)
	}
}

// A denial that interrupts ends the run there and then, with nothing of
// the turn after it run and the model not asked again, though the run's
// context is never cancelled (the TUI's "No", whose cancellation may
// come later).
func TestDenialThatInterruptsEndsTheRun(t *testing.T) {
	first := &fakeTool{name: "Fake", kind: permission.KindExec}
	h := newHarness(t, permission.ModeDefault, true, first)
	h.client.add(reply("", call("c1", "Fake", `{}`), call("c2", "Fake", `{}`)), reply("asked again"))
	asks := 0
	evs := drain(h.agent.Run(context.Background(), llm.UserText("go")), func(a *PermissionAsk) {
		asks++
		a.Answer(PermissionAnswer{Message: "stop", Interrupt: true})
	})
	if d := last(evs); d.Subtype != SubtypeInterrupted {
		t.Errorf("done = %+v, want interrupted", d)
	}
	if n := len(h.client.requests()); n != 1 {
		t.Errorf("the model was asked %d times, want once", n)
	}
	if asks != 1 {
		t.Errorf("%d asks, want 1: the second call must not run", asks)
	}
}
