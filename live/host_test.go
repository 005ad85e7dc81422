package live

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/llm/llmtest"
)

// newTestHost is a host on a fake provider, in a temp NOVA_HOME.
func newTestHost(t *testing.T, turns ...llmtest.Turn) (*Host, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(turns...)
	t.Cleanup(srv.Close)
	home := t.TempDir()
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL}
	h := NewHost(context.Background(), Options{NovaHome: filepath.Join(home, ".nova"), Workdir: t.TempDir(), Home: home,
		Getenv: func(k string) string { return env[k] }, NoSandbox: true})
	t.Cleanup(h.Close)
	return h, srv
}

// A session of an agent runs with the agent's tools only, and the model
// is offered those alone.
func TestHostAgentDefinition(t *testing.T) {
	h, srv := newTestHost(t, llmtest.Turn{Text: "ok"})
	store := config.NewAgentStore(h.base.NovaHome, h.base.Getenv)
	if _, err := store.Create(config.Agent{Key: "reader", Name: "Reader", Model: "claude-sonnet-4-5", Provider: "anthropic", Tools: []string{"Read", "Grep"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Create(context.Background(), Spec{AgentKey: "ghost"}); err == nil {
		t.Fatal("a session of an agent that does not exist was created")
	} else if ce := new(ConfigError); !errors.As(err, &ce) {
		t.Errorf("unknown agent: %v is not a configuration error", err)
	}
	sess, err := h.Create(context.Background(), Spec{AgentKey: "reader"})
	if err != nil {
		t.Fatal(err)
	}
	for range sess.Run(context.Background(), llm.UserText("hi")) {
	}
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || json.Unmarshal(reqs[len(reqs)-1].Body, &body) != nil {
		t.Fatal("no request")
	}
	var names []string
	for _, tl := range body.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"Read", "Grep"}) {
		t.Errorf("tools offered = %v, want the agent's Read and Grep", names)
	}
	list, _ := h.List("reader")
	if len(list) != 1 || list[0].ID != sess.ID() {
		t.Errorf("reader's sessions = %+v", list)
	}
	if main, _ := h.List("main"); len(main) != 0 {
		t.Errorf("main's sessions = %+v", main)
	}
}

// A session closed by the host (a workspace change) opens again from its
// transcript, in its new workspace, with its history.
func TestHostReopensInNewWorkspace(t *testing.T) {
	h, srv := newTestHost(t, llmtest.Turn{Text: "first"}, llmtest.Turn{Text: "second"})
	sess, err := h.Create(context.Background(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID()
	for range sess.Run(context.Background(), llm.UserText("one")) {
	}
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	if err := h.SetWorkspace(id, ws); err != nil {
		t.Fatal(err)
	}
	again, err := h.Open(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if again == sess {
		t.Fatal("the session was not rebuilt")
	}
	h.mu.Lock()
	wd := h.open[id].Workdir
	h.mu.Unlock()
	if wd != ws {
		t.Errorf("workdir = %s, want %s", wd, ws)
	}
	for range again.Run(context.Background(), llm.UserText("two")) {
	}
	reqs := srv.Requests()
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(reqs[len(reqs)-1].Body, &body) != nil || len(body.Messages) < 3 {
		t.Errorf("the reopened session lost its history: %d messages", len(body.Messages))
	}
	if _, err := h.Open(context.Background(), "01NOSUCHSESSION000000000000"); !errors.Is(err, ErrNoSession) {
		t.Errorf("open unknown: %v", err)
	}
}

// A workspace change on a session whose run is going on is refused
// (ErrBusy) and leaves the run alone; once the run is over it goes
// through, and the old session takes no further run.
func TestHostSetWorkspaceBusy(t *testing.T) {
	h, _ := newTestHost(t, llmtest.Turn{Text: "slow answer", ChunkDelay: 20 * time.Millisecond})
	sess, err := h.Create(context.Background(), Spec{})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := sess.Start(llm.UserText("one"))
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	if err := h.SetWorkspace(sess.ID(), ws); !errors.Is(err, ErrBusy) {
		t.Fatalf("SetWorkspace during a run: %v, want ErrBusy", err)
	}
	var text strings.Builder
	var done *agent.Done
	for f := range sub.C() {
		switch f.Value.Type {
		case agent.EventTextDelta:
			text.WriteString(f.Value.Text)
		case agent.EventDone:
			done = f.Value.Done
		}
	}
	if text.String() != "slow answer" || done == nil || done.Subtype == agent.SubtypeInterrupted || done.IsError {
		t.Errorf("the run gave %q, %+v; want it whole", text.String(), done)
	}
	sess.Wait() // the stream ends just before the slot is free
	if err := h.SetWorkspace(sess.ID(), ws); err != nil {
		t.Fatalf("SetWorkspace after the run: %v", err)
	}
	if _, err := sess.Start(llm.UserText("two")); !errors.Is(err, ErrClosed) {
		t.Errorf("a run on the session closed for the change: %v, want ErrClosed", err)
	}
}
