package live

import (
	"context"
	"testing"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// While a model switch rebuilds a host's session, a request for the
// session waits for the new runtime rather than get the closed one, and
// a request for its controller neither deadlocks nor gets a second
// controller.
func TestHostControllerSwitchInFlight(t *testing.T) {
	h, _ := newTestHost(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	sess, err := h.Create(context.Background(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	for range sess.Run(context.Background(), llm.UserText("hi")) {
	}
	c, err := h.Controller(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	building, release := make(chan struct{}), make(chan struct{})
	h.build = func(ctx context.Context, o Options) (*Runtime, error) {
		if o.Model == "anthropic:claude-haiku-5-5" {
			close(building)
			<-release
		}
		return Build(ctx, o)
	}
	switched := make(chan error, 1)
	go func() { switched <- c.SetModel("haiku") }()
	<-building // the old runtime is closed; the new one is being built
	opened := make(chan *Session, 1)
	ctls := make(chan *Controller, 1)
	go func() {
		s, err := h.Open(context.Background(), id)
		if err != nil {
			t.Errorf("Open during the switch: %v", err)
		}
		opened <- s
	}()
	go func() {
		c2, err := h.Controller(context.Background(), id)
		if err != nil {
			t.Errorf("Controller during the switch: %v", err)
		}
		ctls <- c2
	}()
	close(release)
	if err := <-switched; err != nil {
		t.Fatal(err)
	}
	now := c.Runtime()
	if now.Selection.ID() != "anthropic:claude-haiku-5-5" {
		t.Fatalf("after the switch: %s", now.Selection.ID())
	}
	if s := <-opened; s != now.Live {
		t.Error("Open during the switch got a runtime that is not the switched one (the closed old one)")
	}
	if c2 := <-ctls; c2 != c {
		t.Errorf("Controller during the switch got another controller")
	}
}
