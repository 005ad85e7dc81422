package live

import (
	"context"
	"testing"

	"github.com/nova-dev/nova/permission"
)

// A session's grants hold on every runtime the controller builds for the
// same session (a model switch, a reload), end when revoked, and are not
// carried into another session (/clear).
func TestGrantsFollowTheSession(t *testing.T) {
	e := newTestController(t, "", Options{})
	touch := func() permission.Behavior {
		return e.c.Runtime().Checker.Check(context.Background(), permission.Request{Tool: "Bash", Kind: permission.KindExec, Command: "touch made.txt", Workdir: e.ws}).Behavior
	}
	if got := touch(); got == permission.Allow {
		t.Fatal("touch is allowed before any grant: the test proves nothing")
	}
	revoke, err := e.c.Grant("the SDK (session)", []string{"Bash(touch:*)"})
	if err != nil {
		t.Fatal(err)
	}
	if got := touch(); got != permission.Allow {
		t.Fatalf("after the grant: %s", got)
	}
	first := e.c.Runtime()
	if err := e.c.SetModel("haiku"); err != nil {
		t.Fatal(err)
	}
	if e.c.Runtime() == first {
		t.Fatal("the switch kept the runtime: the test proves nothing")
	}
	if got := touch(); got != permission.Allow {
		t.Errorf("after a model switch the grant is gone: %s", got)
	}
	if err := e.c.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := touch(); got != permission.Allow {
		t.Errorf("after a reload the grant is gone: %s", got)
	}
	revoke()
	if got := touch(); got == permission.Allow {
		t.Error("the revoked grant still allows")
	}
	if _, err := e.c.Grant("the SDK (session)", []string{"Bash(touch:*)"}); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Clear(); err != nil {
		t.Fatal(err)
	}
	if got := touch(); got == permission.Allow {
		t.Error("a new session got the old session's grant")
	}
}
