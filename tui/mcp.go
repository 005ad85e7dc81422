package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// MCPServers is an optional Backend capability behind /mcp and the
// approval dialog: the session's MCP servers, and the project servers
// waiting for the person's approval.
type MCPServers interface {
	// MCPStatus describes each server of the session: its state, tools or
	// error. It must not wait for a server: /mcp and completion call it.
	MCPStatus() []MCPServerStatus
	// MCPPending names the project servers not yet approved, each with
	// what it runs.
	MCPPending() []PendingServer
	// ApproveMCP records the person's answer about a pending server
	// (remembered in .nova/settings.local.json) and starts it if approved.
	ApproveMCP(name string, approved bool) error
}

// MCPLogin is an optional Backend capability behind /mcp login: the
// OAuth login to a remote MCP server.
type MCPLogin interface {
	// LoginMCP logs in to the server called name; show gets the URL the
	// person's browser must open (it may already have been opened). It
	// returns what to say once logged in, and waits for the browser.
	LoginMCP(ctx context.Context, name string, show func(url string)) (string, error)
}

// mcpLoginURLMsg is a login's URL, to show while its result is awaited.
type mcpLoginURLMsg struct {
	name, url string
	result    <-chan resultMsg
}

// loginMCP starts /mcp login <name> off the UI goroutine: the URL is shown
// as soon as the backend has it, then the login's outcome.
func (m *Model) loginMCP(name string) tea.Cmd {
	lb, ok := m.b.(MCPLogin)
	if !ok || name == "" {
		m.info("", fmt.Errorf("/mcp login: want /mcp login <server> (an http or sse server that needs a login)"))
		return nil
	}
	urls := make(chan string, 1)
	result := make(chan resultMsg, 1)
	ctx := m.ctx
	go func() {
		text, err := lb.LoginMCP(ctx, name, func(u string) {
			select {
			case urls <- u:
			default:
			}
		})
		result <- resultMsg{text: text, err: err}
	}()
	return m.background("Waiting for the login in your browser…", func() resultMsg {
		select {
		case u := <-urls:
			return resultMsg{loginURL: &mcpLoginURLMsg{name: name, url: u, result: result}}
		case r := <-result:
			select {
			case u := <-urls:
				// Done as soon as shown: the URL still goes first.
				again := make(chan resultMsg, 1)
				again <- r
				return resultMsg{loginURL: &mcpLoginURLMsg{name: name, url: u, result: again}}
			default:
				return r
			}
		}
	})
}

// showLoginURL shows a login's URL and waits on for its outcome.
func (m *Model) showLoginURL(l *mcpLoginURLMsg) tea.Cmd {
	m.info(fmt.Sprintf("To log in to %s, open this URL in your browser (nova tried to open it):\n  %s", l.name, l.url), nil)
	return m.background("Waiting for the login in your browser…", func() resultMsg { return <-l.result })
}

// MCPServerStatus is one MCP server's state, as /mcp shows it.
type MCPServerStatus struct {
	Name string
	// Target is what the server runs: its command line, or its URL.
	Target string
	// State is MCPConnecting, MCPConnected, MCPFailed or another state of
	// the MCP client (shown as it is, with Error when set).
	State string
	// Tools are the tool names the server registered (mcp__server__tool).
	Tools []string
	// Error says, in words, why the server failed.
	Error string
	// Retries says a failed server is started again at the next call to
	// one of its tools.
	Retries bool
}

// The MCP server states /mcp words specially.
const (
	MCPConnecting = "connecting"
	MCPConnected  = "connected"
	MCPFailed     = "failed"
	// MCPNeedsLogin is a remote server that wants an OAuth login.
	MCPNeedsLogin = "needs login"
	// MCPDisabled is a configured server that does not start (declined,
	// an untrusted folder's, a wrong entry); Error says why.
	MCPDisabled = "disabled"
)

// MCPReconnector is an optional Backend capability behind /mcp's r: a
// server connected again at once.
type MCPReconnector interface {
	// ReconnectMCP drops the server's connection and connects it again,
	// waiting for the outcome; it says what came of it.
	ReconnectMCP(ctx context.Context, name string) (string, error)
}

// PendingServer is a project MCP server waiting for approval.
type PendingServer struct {
	Name string
	// Target is its command line (stdio) or URL (http, sse).
	Target string
	// Source is the file that adds it, as people read it (.mcp.json).
	Source string
	// Transport is stdio, http or sse; "" is read as stdio.
	Transport string
}

// MCPPrompter is an optional Backend capability: the servers' prompts, as
// slash commands /mcp__<server>__<prompt>.
type MCPPrompter interface {
	// MCPPrompts lists the prompts of the connected servers. It asks the
	// servers, so the TUI calls it off the UI goroutine, bounded by ctx.
	MCPPrompts(ctx context.Context) []MCPPrompt
	// MCPPrompt renders prompt p with args (in the prompt's argument
	// order; the last takes the rest) into the text of a user message.
	MCPPrompt(ctx context.Context, p MCPPrompt, args []string) (string, error)
}

// MCPPrompt is a prompt an MCP server offers.
type MCPPrompt struct {
	Server, Name string
	// Command is the slash command without the slash: mcp__server__prompt.
	Command     string
	Description string
	Arguments   []MCPPromptArgument
}

// MCPPromptArgument is one argument of an MCPPrompt.
type MCPPromptArgument struct {
	Name, Description string
	Required          bool
}

// MCPResources is an optional Backend capability: the servers' resources,
// mentioned in a prompt as @<server>:<uri>.
type MCPResources interface {
	// MCPResources lists the resources of the connected servers; like
	// MCPPrompts it asks the servers and is called off the UI goroutine.
	MCPResources(ctx context.Context) []MCPResource
	// ReadMCPResource returns the text of a server's resource.
	ReadMCPResource(ctx context.Context, server, uri string) (string, error)
}

// MCPResource is a resource an MCP server offers.
type MCPResource struct {
	Server, URI, Name, Description string
}

// cmdMCP shows the MCP servers in a dialog (mcplist.go), or records an answer about project
// servers waiting for approval: /mcp approve <name>, /mcp reject <name>,
// "all" for every one waiting. Listing also refreshes the prompts and
// resources completion offers, since /mcp is where a person looks after
// a server changed.
func (m *Model) cmdMCP(arg string) tea.Cmd {
	b := m.b.(MCPServers)
	verb, name, _ := strings.Cut(strings.TrimSpace(arg), " ")
	name = strings.TrimSpace(name)
	switch verb {
	case "":
		m.mcp.stale()
		refresh := tea.Batch(m.loadMCPPrompts(nil), m.loadMCPResources())
		if len(b.MCPStatus())+len(b.MCPPending()) == 0 {
			m.info("No MCP servers. Add one with nova mcp add, or in .mcp.json (docs/mcp.md).", nil)
			return refresh
		}
		return tea.Batch(m.openMCPDialog(), refresh)
	case "login":
		return m.loginMCP(name)
	case "approve", "reject":
	default:
		m.info("", fmt.Errorf("/mcp %s: want /mcp, /mcp approve <server>, /mcp reject <server> or /mcp login <server>", verb))
		return nil
	}
	var names []string
	for _, p := range b.MCPPending() {
		if name == "all" || p.Name == name {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		m.info("", fmt.Errorf("no project MCP server %q is waiting for approval (/mcp lists them)", name))
		return nil
	}
	m.answerMCP(names, verb == "approve")
	return nil
}

// answerMCP gives the backend the person's answer about pending servers,
// from /mcp approve or the approval dialog, and says what it did. It runs
// on the UI goroutine, as the backend's pending list is not shared with
// any other: the answer is a small local file write, and the server
// itself starts in the background.
func (m *Model) answerMCP(names []string, approved bool) {
	b := m.b.(MCPServers)
	var out strings.Builder
	for _, n := range names {
		if err := b.ApproveMCP(n, approved); err != nil {
			m.info(out.String(), err)
			return
		}
		if approved {
			fmt.Fprintf(&out, "Using MCP server %s: it starts now, and in later sessions (remembered in .nova/settings.local.json).\n", n)
		} else {
			fmt.Fprintf(&out, "Not using MCP server %s, now or later (remembered in .nova/settings.local.json).\n", n)
		}
	}
	m.info(out.String(), nil)
}
