package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// mcpAnswer is what the person said about a project server.
type mcpAnswer int

const (
	mcpUseOne mcpAnswer = iota
	mcpUseAll
	mcpReject
	mcpLater
)

// mcpApprovalDialog asks whether to use a server a project's .mcp.json
// adds, as Claude Code does when it finds one: use it, use every server
// of the project waiting, or not. Esc decides later for all of them at
// once, and so does typing (see stepAside), so the dialogs never stand
// between a person and the prompt. Choices are picked by number or
// Enter only: a letter typed ahead (a prompt begun before the dialog
// appeared) must not answer a question about running someone else's
// program.
type mcpApprovalDialog struct {
	srv     PendingServer
	n, of   int // this is the nth of `of` servers asked about at start
	list    choiceList
	answers []mcpAnswer
	answer  func(PendingServer, mcpAnswer) tea.Cmd
}

func newMCPApprovalDialog(srv PendingServer, n, of, waiting int, answer func(PendingServer, mcpAnswer) tea.Cmd) *mcpApprovalDialog {
	d := &mcpApprovalDialog{srv: srv, n: n, of: of, answer: answer}
	d.add("Yes, use this server", mcpUseOne)
	if waiting > 1 {
		d.add(fmt.Sprintf("Yes, use all servers of this project's .mcp.json (%d waiting)", waiting), mcpUseAll)
	}
	d.add("No, don't use it", mcpReject)
	return d
}

func (d *mcpApprovalDialog) add(label string, a mcpAnswer) {
	d.list.choices = append(d.list.choices, choice{label: label})
	d.answers = append(d.answers, a)
}

func (d *mcpApprovalDialog) update(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	if msg.String() == "esc" {
		return true, d.answer(d.srv, mcpLater)
	}
	i := d.list.key(msg)
	if i < 0 {
		return false, nil
	}
	return true, d.answer(d.srv, d.answers[i])
}

func (d *mcpApprovalDialog) view(width int, st *styles) string {
	inner := max(20, width-4)
	title := fmt.Sprintf("New MCP server found in %s: %s", orDefault(d.srv.Source, ".mcp.json"), d.srv.Name)
	if d.of > 1 {
		title += fmt.Sprintf(" (%d/%d)", d.n, d.of)
	}
	what := "Command: "
	risk := "Whoever writes this repository chose this program. It runs as you, with your files and credentials: use it only if you trust them."
	switch d.srv.Transport {
	case "http", "sse":
		what = "URL (" + d.srv.Transport + "): "
		risk = "Whoever writes this repository chose this server. nova sends it the headers .mcp.json sets (tokens from your environment) and what its tools are given: use it only if you trust them."
	}
	body := []string{""}
	body = append(body, strings.Split(wrapPlain(st.key.Render(what)+d.srv.Target, inner), "\n")...)
	body = append(body, "")
	body = append(body, strings.Split(wrapPlain(risk+" Its tools ask before they run, as other tools do.", inner), "\n")...)
	body = append(body, "")
	body = append(body, d.list.view(inner, st)...)
	return frame(width, st, title, body, fmt.Sprintf("enter choose · 1-%d pick · esc or type a prompt to decide later", len(d.list.choices)))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// askMCPApproval queues a dialog for each project server waiting for
// approval when the session starts.
func (m *Model) askMCPApproval() {
	b, ok := m.b.(MCPServers)
	if !ok {
		return
	}
	pending := b.MCPPending()
	for i, p := range pending {
		m.dialogs = append(m.dialogs, newMCPApprovalDialog(p, i+1, len(pending), len(pending)-i, m.answerMCPDialog))
	}
}

// stepAside closes the approval dialogs, as decided later, when the
// person types (text that is not a choice's number) or pastes while one
// is shown: they are writing a prompt, and the key goes to it. It
// reports whether it did.
func (m *Model) stepAside(k tea.Msg) bool {
	if len(m.dialogs) == 0 {
		return false
	}
	d, ok := m.dialogs[0].(*mcpApprovalDialog)
	if !ok {
		return false
	}
	if k, isKey := k.(tea.KeyPressMsg); isKey {
		if k.Text == "" || k.Mod&^tea.ModShift != 0 {
			return false
		}
		if r := []rune(k.Text); len(r) == 1 && r[0] >= '1' && int(r[0]-'1') < len(d.list.choices) {
			return false
		}
	}
	m.answerMCPDialog(d.srv, mcpLater)
	m.dialogs = m.dialogs[1:]
	return true
}

// answerMCPDialog acts on an answer of the approval dialog. The dialog
// answered is the first of m.dialogs, which the key handler removes once
// this returns; "use all" and "later" settle the other approval dialogs
// too, so they are removed here.
func (m *Model) answerMCPDialog(srv PendingServer, a mcpAnswer) tea.Cmd {
	var rest []string
	kept := m.dialogs[:1:1]
	for _, d := range m.dialogs[1:] {
		if ad, ok := d.(*mcpApprovalDialog); ok && (a == mcpUseAll || a == mcpLater) {
			rest = append(rest, ad.srv.Name)
			continue
		}
		kept = append(kept, d)
	}
	m.dialogs = kept
	switch a {
	case mcpUseOne:
		m.answerMCP([]string{srv.Name}, true)
	case mcpReject:
		m.answerMCP([]string{srv.Name}, false)
	case mcpUseAll:
		var names []string
		for _, p := range m.b.(MCPServers).MCPPending() {
			names = append(names, p.Name)
		}
		m.answerMCP(names, true)
	case mcpLater:
		names := append([]string{srv.Name}, rest...)
		text := fmt.Sprintf("MCP server %s waits for your approval, not started: /mcp shows what it runs, /mcp approve %s (or reject) answers.", srv.Name, srv.Name)
		if len(names) > 1 {
			text = fmt.Sprintf("MCP servers %s wait for your approval, not started: /mcp shows what they run, /mcp approve <server> (or reject, or all) answers.", strings.Join(names, ", "))
		}
		m.tr.add(&entry{kind: entryNotice, text: text})
	}
	return nil
}
