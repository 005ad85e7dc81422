package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/llm"
)

// mcpBackend is a fake backend with MCP servers: /mcp, the approval
// dialog, prompts and resources. It records what the TUI asked of it.
type mcpBackend struct {
	*fakeBackend
	mu        sync.Mutex
	statuses  []MCPServerStatus
	pending   []PendingServer
	answers   []string // "name=true"
	prompts   []MCPPrompt
	resources []MCPResource
	texts     map[string]string // uri -> text; missing is an error
	// rendered are the prompts rendered: command and arguments.
	rendered []string
	// listings counts calls of MCPPrompts and MCPResources.
	promptLists, resourceLists int
	promptErr                  error
	// block, when set, holds MCPPrompts until it is closed.
	block chan struct{}
}

func newMCPBackend() *mcpBackend {
	return &mcpBackend{
		fakeBackend: newFake(),
		statuses: []MCPServerStatus{
			{Name: "t", Target: "/usr/bin/t-server --stdio", State: MCPConnected, Tools: []string{"mcp__t__add", "mcp__t__echo"}},
		},
		prompts: []MCPPrompt{{Server: "t", Name: "review", Command: "mcp__t__review", Description: "Asks for a review of a file.",
			Arguments: []MCPPromptArgument{{Name: "file", Description: "the file to review", Required: true}, {Name: "focus"}}}},
		resources: []MCPResource{{Server: "t", URI: "test://greeting", Name: "greeting"}, {Server: "t", URI: "test://doc/readme", Name: "readme"}},
		texts:     map[string]string{"test://greeting": "hello from the test server"},
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

func (b *mcpBackend) MCPPrompts(ctx context.Context) []MCPPrompt {
	if b.block != nil {
		select {
		case <-b.block:
		case <-ctx.Done():
			return nil
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.promptLists++
	return slices.Clone(b.prompts)
}

func (b *mcpBackend) MCPPrompt(_ context.Context, p MCPPrompt, args []string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rendered = append(b.rendered, strings.TrimSpace(p.Command+" "+strings.Join(args, " ")))
	if b.promptErr != nil {
		return "", b.promptErr
	}
	return "Review " + strings.Join(args, " "), nil
}

func (b *mcpBackend) MCPResources(context.Context) []MCPResource {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.resourceLists++
	return slices.Clone(b.resources)
}

func (b *mcpBackend) ReadMCPResource(_ context.Context, server, uri string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t, ok := b.texts[uri]; ok && server == "t" {
		return t, nil
	}
	return "", fmt.Errorf("reading %s from %s: resource not found", uri, server)
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

// TestTUIMCPListsStates: /mcp is a dialog of every server with its
// state in words (connected with its tool count, connecting, failed and
// why, needs login, disabled and why, needs approval), the tools of a
// server shown on enter, hidden again on a second.
func TestTUIMCPListsStates(t *testing.T) {
	b := newMCPBackend()
	b.statuses = []MCPServerStatus{
		{Name: "t", Target: "/usr/bin/t-server", State: MCPConnected, Tools: []string{"mcp__t__add", "mcp__t__echo"}},
		{Name: "one", Target: "one-mcp", State: MCPConnected, Tools: []string{"mcp__one__x"}},
		{Name: "slow", Target: "http://127.0.0.1:9/mcp", State: MCPConnecting},
		{Name: "broken", Target: "broken-mcp", State: MCPFailed, Error: "the handshake failed: EOF", Retries: true},
		{Name: "hosted", Target: "https://mcp.example/mcp", State: MCPNeedsLogin, Error: "run /mcp login hosted"},
		{Name: "off", Target: "off-mcp", State: MCPDisabled, Error: "declined: disabledMcpjsonServers lists it"},
	}
	b.pending = twoPending()[:1]
	h := newMCPHarness(t, b)
	h.press("esc")
	h.typeText("/mcp")
	h.press("enter")
	h.m.height = 60 // room for every server
	for _, want := range []string{
		"MCP servers (7)",
		"❯ t · connected · 2 tools", "/usr/bin/t-server",
		"one · connected · 1 tool", "one-mcp",
		"slow · connecting…",
		"broken · failed", "the handshake failed: EOF (started again at the next call to one of its",
		"hosted · needs login", "run /mcp login hosted",
		"off · disabled", "declined: disabledMcpjsonServers lists it",
		"db · needs approval (from .mcp.json)", "npx -y @acme/db-mcp --readonly",
		"↑/↓ move · enter tools · esc close",
	} {
		h.says(want)
	}
	if strings.Contains(h.screen(), "mcp__t__add") {
		t.Errorf("tools shown before enter:\n%s", h.screen())
	}
	h.press("enter")
	h.says("· mcp__t__add")
	h.says("· mcp__t__echo")
	h.press("enter")
	if strings.Contains(h.screen(), "mcp__t__add") {
		t.Errorf("tools still shown after a second enter:\n%s", h.screen())
	}
	for range 6 {
		h.press("down")
	}
	h.says("❯ db · needs approval")
	h.says("↑/↓ move · a approve · x reject · esc close")
	h.press("esc")
	h.says("Ask nova anything")
}

// TestTUIMCPDialogGolden: the /mcp dialog at 80x24.
func TestTUIMCPDialogGolden(t *testing.T) {
	b := newMCPBackend()
	b.statuses = append(b.statuses, MCPServerStatus{Name: "broken", Target: "broken-mcp --port 0", State: MCPFailed,
		Error: "the handshake failed: EOF; it wrote: listen tcp: address 0: missing port in address", Retries: true})
	h := newMCPHarness(t, b)
	h.typeText("/mcp")
	h.press("enter")
	h.press("enter")
	h.golden("mcp_dialog")
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
		{"/mcp frobnicate", nil, "/mcp frobnicate: want /mcp, /mcp approve <server>, /mcp reject <server> or /mcp login <server>"},
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

// Prompts are offered in completion and /help, listed once for the
// session and again after /mcp.
func TestTUIMCPPromptCompletionAndHelp(t *testing.T) {
	b := newMCPBackend()
	h := newMCPHarness(t, b)
	h.typeText("/mcp_")
	h.says("/mcp__t__review")
	h.press("tab")
	if v := h.m.in.ta.Value(); v != "/mcp__t__review " {
		t.Errorf("after tab: %q", v)
	}
	h.press("ctrl+c")
	h.typeText("/help")
	h.press("enter")
	h.says("/mcp__t__review <file> [focus] Asks for a review of a file. (MCP t)")
	if b.promptLists != 1 {
		t.Errorf("prompts listed %d times, want once for the session", b.promptLists)
	}
	h.typeText("/mcp")
	h.press("enter")
	if b.promptLists != 2 {
		t.Errorf("after /mcp the prompts were listed %d times, want again", b.promptLists)
	}
	h.press("esc") // the servers' dialog
	// A server that connects later changes the list.
	b.mu.Lock()
	b.statuses = append(b.statuses, MCPServerStatus{Name: "u", State: MCPConnected})
	b.prompts = append(b.prompts, MCPPrompt{Server: "u", Name: "plan", Command: "mcp__u__plan"})
	b.mu.Unlock()
	h.typeText("/mcp__u")
	h.says("/mcp__u__plan")
}

// Enter on a completed prompt command with a required argument waits for
// the argument instead of sending the command without it.
func TestTUIMCPPromptCompletionWaitsForArgs(t *testing.T) {
	b := newMCPBackend()
	h := newMCPHarness(t, b)
	h.typeText("/mcp__t")
	h.press("enter")
	if v := h.m.in.ta.Value(); v != "/mcp__t__review " || len(b.rendered) != 0 {
		t.Errorf("input %q, rendered %v", v, b.rendered)
	}
}

// Running a prompt renders it and sends the text as the person's prompt.
func TestTUIMCPPromptRuns(t *testing.T) {
	b := newMCPBackend()
	b.runs = [][]agent.Event{{text("Looks fine."), done(agent.SubtypeSuccess)}}
	h := newMCPHarness(t, b)
	h.typeText("/mcp__t__review main.go the error paths")
	h.press("enter")
	if !slices.Equal(b.rendered, []string{"mcp__t__review main.go the error paths"}) {
		t.Errorf("rendered %v", b.rendered)
	}
	if got := lastInput(t, b.fakeBackend); !slices.Equal(got, []string{"Review main.go the error paths"}) {
		t.Errorf("the agent got %q", got)
	}
	h.says("❯ Review main.go the error paths")
	h.says("Looks fine.")
}

func TestTUIMCPPromptErrors(t *testing.T) {
	t.Run("missing argument", func(t *testing.T) {
		b := newMCPBackend()
		h := newMCPHarness(t, b)
		h.typeText("/mcp__t__review")
		h.press("enter")
		h.says("✗ /mcp__t__review needs file (the file to review) · usage: /mcp__t__review <file> [focus]")
		if len(b.rendered) != 0 || runs(b.fakeBackend) != 0 {
			t.Errorf("rendered %v, runs %d", b.rendered, runs(b.fakeBackend))
		}
	})
	t.Run("the server fails", func(t *testing.T) {
		b := newMCPBackend()
		b.promptErr = errors.New("MCP server t: prompt review: boom")
		h := newMCPHarness(t, b)
		h.typeText("/mcp__t__review x.go")
		h.press("enter")
		h.says("✗ MCP server t: prompt review: boom")
		if runs(b.fakeBackend) != 0 || h.m.busy != "" {
			t.Errorf("runs %d, busy %q", runs(b.fakeBackend), h.m.busy)
		}
	})
	t.Run("not a prompt", func(t *testing.T) {
		b := newMCPBackend()
		h := newMCPHarness(t, b)
		h.typeText("/mcp__t__nothing x")
		h.press("enter")
		h.says("unknown command /mcp__t__nothing")
	})
}

// A listing is a command of its own: a slow server never holds Update.
func TestTUIMCPListingDoesNotBlock(t *testing.T) {
	b := newMCPBackend()
	b.block = make(chan struct{})
	h := newMCPHarness(t, b)
	done := make(chan tea.Cmd, 1)
	go func() {
		_, cmd := h.m.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
		done <- cmd
	}()
	var cmd tea.Cmd
	select {
	case cmd = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("typing / waited for the server's prompts")
	}
	if cmd == nil {
		t.Fatal("typing / did not ask for the prompts")
	}
	close(b.block)
	h.run(cmd)
	h.typeText("mcp_")
	h.says("/mcp__t__review")
}

// A prompt typed in full before completion listed any is found: the
// prompts are listed, then it runs.
func TestTUIMCPPromptTypedBeforeListing(t *testing.T) {
	b := newMCPBackend()
	b.runs = [][]agent.Event{{done(agent.SubtypeSuccess)}}
	h := newMCPHarness(t, b)
	h.send(pasteMsg("/mcp__t__review a.go"))
	h.press("enter")
	if got := lastInput(t, b.fakeBackend); !slices.Equal(got, []string{"Review a.go"}) {
		t.Errorf("the agent got %q", got)
	}
}

func TestTUIMCPMentionCompletes(t *testing.T) {
	b := newMCPBackend()
	h := newMCPHarness(t, b)
	h.typeText("summarise @t:gree")
	h.says("@t:test://greeting")
	h.press("tab")
	if v := h.m.in.ta.Value(); v != "summarise @t:test://greeting " {
		t.Errorf("after tab: %q", v)
	}
	h.typeText("and @read")
	h.says("@t:test://doc/readme")
	if b.resourceLists != 1 {
		t.Errorf("resources listed %d times, want once", b.resourceLists)
	}
}

// A mention's resource goes with the prompt, after the typed text.
func TestTUIMCPMentionAttached(t *testing.T) {
	b := newMCPBackend()
	b.runs = [][]agent.Event{{text("It greets."), done(agent.SubtypeSuccess)}}
	h := newMCPHarness(t, b)
	h.send(pasteMsg("what does @t:test://greeting. say? not @me:home or @main.go"))
	h.press("enter")
	got := lastInput(t, b.fakeBackend)
	want := []string{
		"what does @t:test://greeting. say? not @me:home or @main.go",
		"<mcp-resource server=\"t\" uri=\"test://greeting\">\nhello from the test server\n</mcp-resource>",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the agent got %q\nwant %q", got, want)
	}
	h.says("· Attached @t:test://greeting (26 bytes)")
	h.says("It greets.")

	// A resumed session shows the attachment as a line, not its text.
	var tr transcript = newTranscript()
	tr.loadHistory([]llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{llm.TextPart(want[0]), llm.TextPart(want[1])}}})
	if n := len(tr.entries); n != 2 || tr.entries[1].kind != entryNotice || tr.entries[1].text != "Attached @t:test://greeting" {
		t.Errorf("resumed: %d entries, last %+v", n, tr.entries[len(tr.entries)-1])
	}
}

// A resource that cannot be read stops the prompt with an error line, and
// the prompt comes back to the input.
func TestTUIMCPMentionUnreadable(t *testing.T) {
	b := newMCPBackend()
	h := newMCPHarness(t, b)
	h.send(pasteMsg("read @t:test://missing please"))
	h.press("enter")
	h.says("✗ @t:test://missing: reading test://missing from t: resource not found")
	h.says("Not sent: the prompt is back in the input.")
	if runs(b.fakeBackend) != 0 {
		t.Error("the prompt was sent without its resource")
	}
	if v := h.m.in.ta.Value(); v != "read @t:test://missing please" {
		t.Errorf("input %q", v)
	}

	// A server waiting for approval is named, not read.
	b2 := newMCPBackend()
	b2.pending = twoPending()
	h2 := newMCPHarness(t, b2)
	h2.press("esc")
	h2.send(pasteMsg("use @db:schema://all"))
	h2.press("enter")
	h2.says("✗ @db:schema://all: MCP server db is not started: it waits for your approval (/mcp approve db)")
	if runs(b2.fakeBackend) != 0 {
		t.Error("the prompt was sent without its resource")
	}
}

// loginBackend adds /mcp login to the MCP fake: it shows the URL, as the
// real one does once the authorization server is found, then logs in.
type loginBackend struct {
	*mcpBackend
	logins []string
}

func (b *loginBackend) LoginMCP(_ context.Context, name string, show func(string)) (string, error) {
	b.mu.Lock()
	b.logins = append(b.logins, name)
	b.mu.Unlock()
	if name != "api" {
		return "", fmt.Errorf("no MCP server %q", name)
	}
	show("http://127.0.0.1:4711/authorize?client_id=nova&state=s")
	return "Logged in to api: connected, 3 tool(s).", nil
}

// TestTUIMCPLogin: /mcp login shows the URL to open, then the outcome.
func TestTUIMCPLogin(t *testing.T) {
	b := &loginBackend{mcpBackend: newMCPBackend()}
	h := newHarnessWith(t, b, b.fakeBackend)
	h.typeText("/mcp login api")
	h.press("enter")
	h.says("To log in to api, open this URL in your browser")
	h.says("http://127.0.0.1:4711/authorize?client_id=nova&state=s")
	h.says("Logged in to api: connected, 3 tool(s).")
	h.typeText("/mcp login nope")
	h.press("enter")
	h.says(`no MCP server "nope"`)
	if !slices.Equal(b.logins, []string{"api", "nope"}) {
		t.Errorf("logins %v", b.logins)
	}
}
