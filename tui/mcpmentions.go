package tui

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/nova-dev/nova/llm"
)

// mentionRe finds @<server>:<uri> in a prompt: a server name (the
// characters MCP server names may have) right after a blank or the start.
var mentionRe = regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_-]+):(\S+)`)

// attachedRe reads the opening of an attached resource back, to show it
// in a resumed transcript.
var attachedRe = regexp.MustCompile(`^<mcp-resource server=("(?:[^"\\]|\\.)*") uri=("(?:[^"\\]|\\.)*")>`)

// mention is one @<server>:<uri> of a prompt.
type mention struct{ server, uri string }

func (mt mention) String() string { return "@" + mt.server + ":" + mt.uri }

// FileMentions is an optional Backend capability: the files a prompt names
// with @path (Claude Code's @-mentions) go to the model beside it.
type FileMentions interface {
	// ReadMentionedFile returns the file at path (relative to the
	// workspace, or absolute) as the model reads it; ok is false when path
	// names no file, and the @word stays text. Called off the UI goroutine.
	ReadMentionedFile(ctx context.Context, path string) (text string, ok bool, err error)
}

// fileMentionRe finds @<path> in a prompt, right after a blank or the
// start.
var fileMentionRe = regexp.MustCompile(`(?:^|\s)@([^\s@]+)`)

// fileMentions returns the @words of text that may name files, once each,
// leaving out the MCP mentions ms and addresses.
func (m *Model) fileMentions(text string, ms []mention) []string {
	if _, ok := m.b.(FileMentions); !ok {
		return nil
	}
	taken := map[string]bool{}
	for _, mt := range ms {
		taken[mt.server+":"+mt.uri] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, g := range fileMentionRe.FindAllStringSubmatch(text, -1) {
		p := g[1]
		if taken[p] || strings.Contains(p, "://") {
			continue
		}
		// Punctuation after a path is the sentence's.
		p = strings.TrimRight(p, ".,;:!?)'\"")
		if p == "" || seen[p] || taken[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// filePart is a file as the model reads it beside the prompt: the Read
// tool's output (numbered lines).
func filePart(path, body string) string {
	return fmt.Sprintf("<file path=%q>\n%s\n</file>", path, strings.TrimRight(body, "\n"))
}

// attachedFileRe reads the opening of an attached file back.
var attachedFileRe = regexp.MustCompile(`^<file path=("(?:[^"\\]|\\.)*")>`)

// mcpMentionsMsg carries the resources a prompt mentions, read.
type mcpMentionsMsg struct {
	text, busy string
	parts      []llm.Part
	attached   []string // what the transcript says was attached
	errs       []error
}

// mentions returns the @<server>:<uri> words of text that name a server
// of the session, once each. Other @words (files, an address) are left
// to the model as text.
func (m *Model) mentions(text string) []mention {
	if _, ok := m.b.(MCPResources); !ok {
		return nil
	}
	servers := map[string]bool{}
	if b, ok := m.b.(MCPServers); ok {
		for _, st := range b.MCPStatus() {
			servers[st.Name] = true
		}
		// A server still waiting for approval is named too, so that its
		// mention is an error saying so, not text the model puzzles over.
		for _, p := range b.MCPPending() {
			servers[p.Name] = true
		}
	}
	known := map[mention]bool{}
	for _, r := range m.mcp.resources.items {
		servers[r.Server] = true
		known[mention{r.Server, r.URI}] = true
	}
	var out []mention
	seen := map[mention]bool{}
	for _, g := range mentionRe.FindAllStringSubmatch(text, -1) {
		mt := mention{g[1], g[2]}
		if !servers[mt.server] {
			continue
		}
		if !known[mt] {
			// Punctuation after a mention is the sentence's, unless the
			// server lists the URI with it.
			mt.uri = strings.TrimRight(mt.uri, ".,;:!?)'\"")
		}
		if mt.uri == "" || seen[mt] {
			continue
		}
		seen[mt] = true
		out = append(out, mt)
	}
	return out
}

// readMentions reads the resources a prompt mentions in the background,
// then sends the prompt with them (mentionsRead).
func (m *Model) readMentions(text string, ms []mention, files []string) tea.Cmd {
	ctx := m.ctx
	r, _ := m.b.(MCPResources)  // ms is empty without it
	fm, _ := m.b.(FileMentions) // and files without this
	waiting := map[string]bool{}
	if b, ok := m.b.(MCPServers); ok {
		for _, p := range b.MCPPending() {
			waiting[p.Name] = true
		}
	}
	var busy string
	switch {
	case len(ms)+len(files) > 1:
		busy = fmt.Sprintf("Reading %d mentions…", len(ms)+len(files))
	case len(ms) == 1:
		busy = "Reading " + ms[0].String() + "…"
	default:
		busy = "Reading @" + files[0] + "…"
	}
	m.busy = busy
	return tea.Batch(m.startTick(), func() tea.Msg {
		msg := mcpMentionsMsg{text: text, busy: busy}
		for _, mt := range ms {
			if waiting[mt.server] {
				msg.errs = append(msg.errs, fmt.Errorf("%s: MCP server %s is not started: it waits for your approval (/mcp approve %s)", mt, mt.server, mt.server))
				continue
			}
			body, err := r.ReadMCPResource(ctx, mt.server, mt.uri)
			if err != nil {
				msg.errs = append(msg.errs, fmt.Errorf("%s: %w", mt, err))
				continue
			}
			msg.parts = append(msg.parts, llm.TextPart(resourcePart(mt, body)))
			msg.attached = append(msg.attached, fmt.Sprintf("Attached %s (%d bytes)", mt, len(body)))
		}
		for _, p := range files {
			body, ok, err := fm.ReadMentionedFile(ctx, p)
			switch {
			case err != nil:
				msg.errs = append(msg.errs, err)
			case ok:
				msg.parts = append(msg.parts, llm.TextPart(filePart(p, body)))
				msg.attached = append(msg.attached, fmt.Sprintf("Attached @%s (%d lines)", p, strings.Count(strings.TrimRight(body, "\n"), "\n")+1))
			}
		}
		return msg
	})
}

// resourcePart is a resource as the model reads it beside the prompt.
func resourcePart(mt mention, body string) string {
	return fmt.Sprintf("<mcp-resource server=%q uri=%q>\n%s\n</mcp-resource>", mt.server, mt.uri, strings.TrimRight(body, "\n"))
}

// attachedNote is what a resumed transcript shows for an attached
// resource part; ok is false for any other text.
func attachedNote(s string) (string, bool) {
	if g := attachedFileRe.FindStringSubmatch(s); g != nil {
		if p, err := strconv.Unquote(g[1]); err == nil {
			return "Attached @" + p, true
		}
	}
	g := attachedRe.FindStringSubmatch(s)
	if g == nil {
		return "", false
	}
	server, err1 := strconv.Unquote(g[1])
	uri, err2 := strconv.Unquote(g[2])
	if err1 != nil || err2 != nil {
		return "", false
	}
	return "Attached " + mention{server, uri}.String(), true
}

// mentionsRead sends a prompt whose resources were read. When one could
// not be read the prompt is not sent: each failure is an error line, and
// the prompt goes back into the input (with what was queued after it) to
// be fixed or sent without the mention.
func (m *Model) mentionsRead(msg mcpMentionsMsg) tea.Cmd {
	if m.busy == msg.busy {
		m.busy = ""
	}
	if len(msg.errs) > 0 {
		for _, err := range msg.errs {
			m.tr.add(&entry{kind: entryError, text: err.Error()})
		}
		m.tr.add(&entry{kind: entryNotice, text: "Not sent: the prompt is back in the input."})
		m.tr.toBottom()
		all := append([]string{msg.text}, m.queued...)
		if cur := m.in.ta.Value(); cur != "" {
			all = append(all, cur)
		}
		m.queued = nil
		m.in.ta.SetValue(strings.Join(all, "\n\n"))
		return nil
	}
	if m.run != nil {
		// A run started meanwhile (it cannot while busy, but a prompt is
		// never lost): it goes when that run ends.
		m.queued = append(m.queued, msg.text)
		return nil
	}
	return m.runWith(msg.text, msg.parts, msg.attached)
}
