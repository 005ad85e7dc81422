package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nova-dev/nova/llm"
)

// Export limits: an export is for reading, so long tool input and output
// are cut; the full text stays in the transcript (and ExportJSON).
const (
	exportResultMax = 2000
	exportInputMax  = 4000
)

// ExportJSON writes t as one indented JSON document: {"meta": ..., "records":
// [...]}, the records exactly as the transcript holds them.
func ExportJSON(w io.Writer, t *Transcript) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	doc := struct {
		Meta    Meta     `json:"meta"`
		Records []Record `json:"records"`
	}{t.Meta, t.Records}
	if doc.Records == nil {
		doc.Records = []Record{}
	}
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("export session %s: %w", t.Meta.ID, err)
	}
	return nil
}

// ExportMarkdown writes t as a readable Markdown transcript: what the user
// and the assistant said (not the context nova sent the model with the
// first prompt), each tool call with its input, permission
// decisions, tool results (cut to a readable length) and compaction points.
func ExportMarkdown(w io.Writer, t *Transcript) error {
	b := bufio.NewWriter(w)
	m := t.Meta
	title := m.Title
	if title == "" {
		title = "Session " + m.ID
	}
	fmt.Fprintf(b, "# %s\n\n", oneLine(title))
	fmt.Fprintf(b, "- Session: `%s`\n", m.ID)
	for _, kv := range [][2]string{{"Workspace", m.WorkspaceDir}, {"Agent", m.AgentKey}, {"Model", m.Model}} {
		if kv[1] != "" {
			fmt.Fprintf(b, "- %s: `%s`\n", kv[0], kv[1])
		}
	}
	fmt.Fprintf(b, "- Created: %s, updated: %s\n", m.CreatedAt.Format(time.RFC3339), m.UpdatedAt.Format(time.RFC3339))
	u := m.Usage
	fmt.Fprintf(b, "- Messages: %d; tokens: %d in, %d out, %d cache read, %d cache write\n",
		m.MessageCount, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens)
	first := true
	for _, r := range t.Records {
		switch r.Type {
		case RecordMessage:
			msg := *r.Message
			if first {
				// The context nova put ahead of the first prompt is the
				// model's to read, not the conversation (ExportJSON keeps it).
				msg, first = WithoutContext(msg), false
			}
			writeMessage(b, msg)
		case RecordDecision:
			d := r.Decision.Decision
			fmt.Fprintf(b, "\n> **Permission** for `%s` (`%s`): **%s** by %s", r.Decision.Tool, r.Decision.CallID, d.Behavior, d.Layer)
			if d.Rule != "" {
				fmt.Fprintf(b, " `%s`", d.Rule)
			}
			if d.Reason != "" {
				fmt.Fprintf(b, ": %s", oneLine(d.Reason))
			}
			b.WriteString("\n")
		case RecordCompaction:
			c := r.Compaction
			fmt.Fprintf(b, "\n---\n\n**Conversation compacted** after %d messages; %d kept verbatim. Summary:\n\n", c.Before, len(c.Kept))
			b.WriteString(quote(c.Summary))
			b.WriteString("\n---\n")
		case RecordTitle:
			fmt.Fprintf(b, "\n*Title set: %s*\n", oneLine(*r.Title))
		case RecordWorkspace:
			fmt.Fprintf(b, "\n*Workspace set: %s*\n", oneLine(nonEmpty(*r.Workspace, "(cleared)")))
		}
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("export session %s: %w", m.ID, err)
	}
	return nil
}

func writeMessage(b *bufio.Writer, msg llm.Message) {
	heading := false
	head := func() {
		if !heading {
			heading = true
			if msg.Role == llm.RoleAssistant {
				b.WriteString("\n## Assistant\n")
			} else {
				b.WriteString("\n## User\n")
			}
		}
	}
	for _, p := range msg.Parts {
		switch p.Type {
		case llm.PartText:
			if strings.TrimSpace(p.Text) == "" {
				continue
			}
			head()
			fmt.Fprintf(b, "\n%s\n", strings.TrimRight(p.Text, "\n"))
		case llm.PartImage:
			head()
			fmt.Fprintf(b, "\n*[image: %s, %d bytes]*\n", p.MediaType, len(p.Data))
		case llm.PartToolCall:
			if p.ToolCall == nil {
				continue
			}
			head()
			c := p.ToolCall
			fmt.Fprintf(b, "\n**Tool call** `%s` (`%s`)\n\n", c.Name, c.ID)
			fence(b, "json", cut(prettyJSON(c.Input), exportInputMax))
		case llm.PartToolResult:
			if p.ToolResult == nil {
				continue
			}
			res := p.ToolResult
			status := ""
			if res.IsError {
				status = " — error"
			}
			fmt.Fprintf(b, "\n**Tool result** `%s` (`%s`)%s\n\n", res.Name, res.CallID, status)
			fence(b, "", cut(resultText(res), exportResultMax))
		}
		// Thinking is left out: it is the model's scratch work, not the
		// conversation, and the JSON export keeps it.
	}
}

func resultText(r *llm.ToolResult) string {
	var s strings.Builder
	for _, p := range r.Content {
		switch p.Type {
		case llm.PartText:
			s.WriteString(p.Text)
		case llm.PartImage:
			fmt.Fprintf(&s, "[image: %s, %d bytes]", p.MediaType, len(p.Data))
		}
	}
	return s.String()
}

func prettyJSON(raw json.RawMessage) string {
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return string(raw)
	}
	return out.String()
}

// fence writes s as a fenced code block whose fence is longer than any run
// of backticks inside s, so tool output cannot break out of it.
func fence(b *bufio.Writer, lang, s string) {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	fmt.Fprintf(b, "%s%s\n%s\n%s\n", f, lang, strings.TrimRight(s, "\n"), f)
}

// cut shortens s to about n bytes on a rune boundary and says how much
// was left out.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s\n[... %d more characters]", s[:i], utf8.RuneCountInString(s[i:]))
}

func quote(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l == "" {
			b.WriteString(">\n")
		} else {
			b.WriteString("> " + l + "\n")
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
