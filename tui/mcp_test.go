package tui

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nova-dev/nova/agent"
)

// mcpBackend is a fake backend with MCP servers: /mcp and the approval
// dialog. It records what the TUI asked of it.
type mcpBackend struct {
	*fakeBackend
	mu       sync.Mutex
	statuses []MCPServerStatus
	pending  []PendingServer
	answers  []string // "name=true"
}

func newMCPBackend() *mcpBackend {
	return &mcpBackend{
		fakeBackend: newFake(),
		statuses: []MCPServerStatus{
			{Name: "t", Target: "/usr/bin/t-server --stdio", State: MCPConnected, Tools: []string{"mcp__t__add", "mcp__t__echo"}},
		},
	}
}

func (b *mcpBackend) MCPStatus() []MCPServerStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.statuses)
}

func (b *mcpBackend) MCPPending() []PendingServer {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.pending)
}

func (b *mcpBackend) ApproveMCP(name string, approved bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := slices.IndexFunc(b.pending, func(p PendingServer) bool { return p.Name == name })
	if i < 0 {
		return fmt.Errorf("no project MCP server %q is waiting for approval", name)
	}
	b.answers = append(b.answers, fmt.Sprintf("%s=%v", name, approved))
	p := b.pending[i]
	b.pending = slices.Delete(b.pending, i, i+1)
	if approved {
		b.statuses = append(b.statuses, MCPServerStatus{Name: p.Name, Target: p.Target, State: MCPConnecting})
	}
	return nil
}

func (b *mcpBackend) answered() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.answers)
}

// says is contains for text the screen may wrap: it compares words.
func (h *harness) says(want string) {
	h.t.Helper()
	if s := strings.Join(strings.Fields(h.screen()), " "); !strings.Contains(s, strings.Join(strings.Fields(want), " ")) {
		h.t.Errorf("screen lacks %q:\n%s", want, h.screen())
	}
}

func twoPending() []PendingServer {
	return []PendingServer{
		{Name: "db", Target: "npx -y @acme/db-mcp --readonly", Source: ".mcp.json", Transport: "stdio"},
		{Name: "tracker", Target: "https://mcp.tracker.example/mcp", Source: ".mcp.json", Transport: "http"},
	}
}

func newMCPHarness(t *testing.T, b *mcpBackend) *harness {
	t.Helper()
	return newHarnessWith(t, b, b.fakeBackend)
}

// lastInput is the text of every part of the last message sent to Run.
func lastInput(t *testing.T, b *fakeBackend) []string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.inputs) == 0 {
		t.Fatal("nothing was sent to the agent")
	}
	var out []string
	for _, p := range b.inputs[len(b.inputs)-1].Parts {
		out = append(out, p.Text)
	}
	return out
}

func runs(b *fakeBackend) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.inputs)
}

// The approval dialog of a project server, as a person sees it.
func TestTUIMCPApprovalDialogGolden(t *testing.T) {
	b := newMCPBackend()
	b.pending = twoPending()
	h := newMCPHarness(t, b)
	h.golden("mcp_approval")
	h.press("1")
	h.golden("mcp_approval_second")
}

func TestTUIMCPApprovalDialogAnswers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    []string
		answers []string
		screen  string
	}{
		{name: "1 uses this one, then 2 declines the last", keys: []string{"1", "2"}, answers: []string{"db=true", "tracker=false"},
			screen: "Not using MCP server tracker, now or later"},
		{name: "enter takes the highlighted use", keys: []string{"enter"}, answers: []string{"db=true"},
			screen: "Using MCP server db: it starts now, and in later sessions"},
		{name: "down and enter uses all", keys: []string{"down", "enter"}, answers: []string{"db=true", "tracker=true"},
			screen: "Using MCP server tracker"},
		{name: "2 uses all", keys: []string{"2"}, answers: []string{"db=true", "tracker=true"}, screen: "? for keys"},
		{name: "esc decides later for every server", keys: []string{"esc"},
			screen: "MCP servers db, tracker wait for your approval, not started"},
		{name: "esc on the second leaves it pending", keys: []string{"3", "esc"}, answers: []string{"db=false"},
			screen: "MCP server tracker waits for your approval, not started: /mcp shows what it runs, /mcp approve tracker"},
		{name: "letters typed ahead answer nothing", keys: []string{"y", "a", "n"}, screen: "❯ yan"},
		{name: "a number past the choices is typing", keys: []string{"1", "7"}, answers: []string{"db=true"}, screen: "❯ 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newMCPBackend()
			b.pending = twoPending()
			h := newMCPHarness(t, b)
			for _, k := range tc.keys {
				h.press(k)
			}
			if got := b.answered(); !slices.Equal(got, tc.answers) {
				t.Errorf("answers %v, want %v", got, tc.answers)
			}
			h.says(tc.screen)
		})
	}
}

// After "decide later" the dialog is gone at once: the next keys are the
// prompt, and /mcp approve still answers.
func TestTUIMCPApprovalLaterThenApprove(t *testing.T) {
	b := newMCPBackend()
	b.pending = twoPending()
	h := newMCPHarness(t, b)
	h.press("esc")
	if len(h.m.dialogs) != 0 {
		t.Fatalf("%d dialogs left after esc", len(h.m.dialogs))
	}
	h.typeText("/mcp approve tracker")
	h.press("enter")
	if got := b.answered(); !slices.Equal(got, []string{"tracker=true"}) {
		t.Errorf("answers %v", got)
	}
	h.says("Using MCP server tracker")
	h.typeText("/mcp")
	h.press("enter")
	h.says("db · needs approval (from .mcp.json)")
	h.says("tracker · connecting…")
}

// Typing a prompt while the dialog is up decides later and goes on as
// typing: the first key is the prompt's, and Enter sends the prompt, not
// an answer.
func TestTUIMCPApprovalStepsAsideForTyping(t *testing.T) {
	b := newMCPBackend()
	b.pending = twoPending()
	b.runs = [][]agent.Event{{text("Hello."), done(agent.SubtypeSuccess)}}
	h := newMCPHarness(t, b)
	h.typeText("hello")
	h.press("enter")
	if got := b.answered(); len(got) != 0 {
		t.Errorf("typing answered %v", got)
	}
	if got := lastInput(t, b.fakeBackend); !slices.Equal(got, []string{"hello"}) {
		t.Errorf("the agent got %q", got)
	}
	h.says("MCP servers db, tracker wait for your approval, not started")
	h.says("Hello.")

	b2 := newMCPBackend()
	b2.pending = twoPending()
	h2 := newMCPHarness(t, b2)
	h2.send(pasteMsg("pasted text"))
	if len(h2.m.dialogs) != 0 || h2.m.in.ta.Value() != "pasted text" {
		t.Errorf("after a paste: %d dialogs, input %q", len(h2.m.dialogs), h2.m.in.ta.Value())
	}
}

// A run that ends (a prompt given on the command line) closes its own
// asks, not the approval dialog.
func TestTUIMCPApprovalOutlivesARun(t *testing.T) {
	b := newMCPBackend()
	b.pending = twoPending()[:1]
	b.runs = [][]agent.Event{{text("Hi."), done(agent.SubtypeSuccess)}}
	h := newMCPHarness(t, b)
	h.send(submitMsg("hello"))
	if h.m.run != nil {
		t.Fatal("the run did not end")
	}
	h.says("New MCP server found in .mcp.json: db")
	h.says("Hi.")
	h.press("1")
	if got := b.answered(); !slices.Equal(got, []string{"db=true"}) {
		t.Errorf("answers %v", got)
	}
}

func TestTUIMCPNoPendingNoDialog(t *testing.T) {
	h := newMCPHarness(t, newMCPBackend())
	if len(h.m.dialogs) != 0 {
		t.Fatal("a dialog with nothing pending")
	}
	h.says("Ask nova anything")
}

func TestTUIMCPListsStates(t *testing.T) {
	b := newMCPBackend()
	b.statuses = []MCPServerStatus{
		{Name: "t", Target: "/usr/bin/t-server", State: MCPConnected, Tools: []string{"mcp__t__add", "mcp__t__echo"}},
		{Name: "one", Target: "one-mcp", State: MCPConnected, Tools: []string{"mcp__one__x"}},
		{Name: "slow", Target: "http://127.0.0.1:9/mcp", State: MCPConnecting},
		{Name: "broken", Target: "broken-mcp", State: MCPFailed, Error: "the handshake failed: EOF", Retries: true},
		{Name: "hosted", Target: "https://mcp.example/mcp", State: "needs login", Error: "run /mcp login hosted"},
	}
	b.pending = twoPending()[:1]
	h := newMCPHarness(t, b)
	h.press("esc")
	h.typeText("/mcp")
	h.press("enter")
	for _, want := range []string{
		"t · connected · 2 tools /usr/bin/t-server tools: mcp__t__add, mcp__t__echo",
		"one · connected · 1 tool one-mcp tools: mcp__one__x",
		"slow · connecting…",
		"broken · failed: the handshake failed: EOF · started again at the next call to one of its tools",
		"hosted · needs login: run /mcp login hosted",
		"db · needs approval (from .mcp.json)",
		"npx -y @acme/db-mcp --readonly",
		"Answer with /mcp approve <server> or /mcp reject <server> (or all).",
	} {
		h.says(want)
	}
}

func TestTUIMCPNoServers(t *testing.T) {
	b := newMCPBackend()
	b.statuses = nil
	h := newMCPHarness(t, b)
	h.typeText("/mcp")
	h.press("enter")
	h.says("No MCP servers. Add one with nova mcp add")
}

func TestTUIMCPApproveRejectCommands(t *testing.T) {
	for _, tc := range []struct {
		line    string
		answers []string
		screen  string
	}{
		{"/mcp approve db", []string{"db=true"}, "Using MCP server db: it starts now"},
		{"/mcp reject tracker", []string{"tracker=false"}, "Not using MCP server tracker, now or later (remembered in .nova/settings.local.json)."},
		{"/mcp approve all", []string{"db=true", "tracker=true"}, "Using MCP server tracker"},
		{"/mcp reject all", []string{"db=false", "tracker=false"}, "Not using MCP server db"},
		{"/mcp approve nope", nil, `no project MCP server "nope" is waiting for approval (/mcp lists them)`},
		{"/mcp frobnicate", nil, "/mcp frobnicate: want /mcp, /mcp approve <server> or /mcp reject <server>"},
	} {
		t.Run(tc.line, func(t *testing.T) {
			b := newMCPBackend()
			b.pending = twoPending()
			h := newMCPHarness(t, b)
			h.press("esc")
			h.typeText(tc.line)
			h.press("enter")
			if got := b.answered(); !slices.Equal(got, tc.answers) {
				t.Errorf("answers %v, want %v", got, tc.answers)
			}
			h.says(tc.screen)
		})
	}
}
