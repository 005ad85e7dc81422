package live

import (
	"context"
	"strings"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// Every session is named as its first run ends, whichever frontend ran
// it (here the live session's run slot, as /api/chat and /ws use it):
// the prompt cut short, with no model call; with TitleFromModel (the
// terminal's) the model's title, made in the background and finished
// by Close at the latest.
func TestRuntimeNamesEverySession(t *testing.T) {
	prompt := "please look at the failing login test in auth and tell me why it fails since Tuesday"
	t.Run("prompt", func(t *testing.T) {
		w := newHookWorld(t, `{}`, llmtest.Turn{Text: "ok"})
		rt, err := w.build(Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		sub, err := rt.Live.Start(llm.UserText(prompt))
		if err != nil {
			t.Fatal(err)
		}
		for range sub.C() {
		}
		if got := rt.Session.Meta().Title; got != ShortTitle(prompt) || !strings.HasSuffix(got, "…") {
			t.Errorf("title %q, want %q", got, ShortTitle(prompt))
		}
		if n := len(w.srv.Requests()); n != 1 {
			t.Errorf("%d requests: the title cost a model call", n)
		}
	})
	t.Run("model", func(t *testing.T) {
		w := newHookWorld(t, `{}`, llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "Login test failure"})
		rt, err := w.build(Options{TitleFromModel: true})
		if err != nil {
			t.Fatal(err)
		}
		for range rt.Live.Run(context.Background(), llm.UserText(prompt)) {
		}
		rt.WaitTitle()
		if got := rt.Session.Meta().Title; got != "Login test failure" {
			t.Errorf("title %q, want the model's", got)
		}
		rt.Close()
	})
	t.Run("close during the title call", func(t *testing.T) {
		w := newHookWorld(t, `{}`, llmtest.Turn{Text: "ok"}, llmtest.Turn{Hang: true})
		rt, err := w.build(Options{TitleFromModel: true})
		if err != nil {
			t.Fatal(err)
		}
		for range rt.Live.Run(context.Background(), llm.UserText(prompt)) {
		}
		id := rt.Session.ID()
		if err := rt.Close(); err != nil {
			t.Fatal(err)
		}
		tr, err := NewHost(context.Background(), Options{NovaHome: w.novaHome}).Load(id)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Meta.Title != ShortTitle(prompt) {
			t.Errorf("after Close the title is %q, want the prompt's", tr.Meta.Title)
		}
	})
}

// What the runtime starts in the background ends with it: Close cancels
// it and waits, and nothing starts after.
func TestRuntimeGoEndsWithClose(t *testing.T) {
	w := newHookWorld(t, `{}`)
	rt, err := w.build(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	if !rt.Go(func(ctx context.Context) { <-ctx.Done(); close(ended) }) {
		t.Fatal("Go refused on an open runtime")
	}
	rt.Close()
	select {
	case <-ended:
	default:
		t.Fatal("Close returned while what Go started still ran")
	}
	if rt.Go(func(context.Context) {}) {
		t.Error("Go started something on a closed runtime")
	}
}
