// Package session keeps conversations on disk: an append-only JSONL
// transcript per session under NOVA_HOME/sessions/<id>/, a small meta.json
// beside it for listing, and a lock so that two nova processes never write
// one session at once. It loads, lists, resumes, deletes and exports them.
//
// The transcript is the truth; meta.json is a cache rebuilt from it on Open.
package session

import (
	"strings"
	"time"

	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/permission"
)

// SchemaVersion is the record format this package writes. Records with a
// higher version are skipped with a warning rather than misread.
const SchemaVersion = 1

// RecordType names the kind of a transcript record.
type RecordType string

// The record kinds of a transcript.
const (
	// RecordSession is the first line of every transcript: the session's
	// identity (id, workspace, agent, model, creation time), so a transcript
	// is self-contained even if meta.json is lost.
	RecordSession RecordType = "session"
	// RecordMessage carries one llm.Message (text, tool calls, tool results).
	RecordMessage RecordType = "message"
	// RecordDecision carries the permission decision about one tool call.
	RecordDecision RecordType = "decision"
	// RecordUsage carries one turn's token usage and the running total.
	RecordUsage RecordType = "usage"
	// RecordCompaction marks a compaction boundary.
	RecordCompaction RecordType = "compaction"
	// RecordTitle sets the session's title; the last one wins.
	RecordTitle RecordType = "title"
	// RecordWorkspace sets the session's workspace directory (seed 000's
	// PUT /api/sessions/{id}/workspace); "" clears it. The last one wins.
	RecordWorkspace RecordType = "workspace"
	// RecordModel sets the model the session goes on with ("provider:model",
	// after a /model switch), which a resume without --model takes up
	// again. The last one wins.
	RecordModel RecordType = "model"
)

// Record is one line of a transcript. Exactly the field of its Type is set.
type Record struct {
	V    int        `json:"v"`
	Type RecordType `json:"type"`
	Time time.Time  `json:"ts"`

	Session    *Meta        `json:"session,omitempty"`
	Message    *llm.Message `json:"message,omitempty"`
	Decision   *Decision    `json:"decision,omitempty"`
	Usage      *UsageRecord `json:"usage,omitempty"`
	Compaction *Compaction  `json:"compaction,omitempty"`
	Title      *string      `json:"title,omitempty"`
	Workspace  *string      `json:"workspace,omitempty"`
	Model      *string      `json:"model,omitempty"`
}

// Decision is the permission decision recorded for one tool call.
type Decision struct {
	CallID   string              `json:"call_id"`
	Tool     string              `json:"tool"`
	Decision permission.Decision `json:"decision"`
}

// UsageRecord is one turn's usage and the session's total after it.
type UsageRecord struct {
	Turn  llm.Usage `json:"turn"`
	Total llm.Usage `json:"total"`
}

// Compaction is a boundary: the history before it is replaced, for the
// model, by Summary followed by Kept.
type Compaction struct {
	// Context is the context message rebuilt at the compaction (see
	// IsContext), kept apart from Summary so that a history shown to a
	// person can leave it out. Transcripts written before it was kept
	// apart have it at the start of Summary, and no Context.
	Context string `json:"context,omitempty"`
	// Summary is the model's summary of the history before the boundary.
	Summary string `json:"summary"`
	// Kept are the messages carried over verbatim after the summary. They
	// are stored whole, not as indices, so the boundary stays meaningful
	// even if the caller trimmed or rewrote them while compacting.
	Kept []llm.Message `json:"kept"`
	// Before is how many messages the transcript held when compacting, so an
	// export can show where the boundary falls in the full history.
	Before int `json:"before"`
}

// summaryPreamble marks the summary message, so the model (and a person
// reading an export) can tell it apart from something the user typed.
const summaryPreamble = "[nova: the earlier part of this conversation was compacted. " +
	"What follows is a summary of it, not a message from the user.]\n\n"

// SummaryMessage returns the user message that stands in for the history
// before a compaction boundary: the context message (when there is one)
// as a part of its own, as in a session's first message, then the
// summary. The agent can use it to build its live history so that what it
// sends matches what a resumed session sends.
func SummaryMessage(contextMsg, summary string) llm.Message {
	m := llm.UserText(summaryPreamble + summary)
	if contextMsg != "" {
		m.Parts = append([]llm.Part{llm.TextPart(contextMsg)}, m.Parts...)
	}
	return m
}

// IsSummary reports whether m is a SummaryMessage.
func IsSummary(m llm.Message) bool {
	if m.Role != llm.RoleUser {
		return false
	}
	for i, p := range m.Parts {
		if i > 1 || p.Type != llm.PartText {
			break
		}
		if strings.HasPrefix(p.Text, summaryPreamble) {
			return true
		}
	}
	return false
}

// ContextTag opens nova's context message: agent.EnvironmentContext
// writes it first, and IsContext knows the message by it.
const ContextTag = "<environment>"

// IsContext reports whether p is nova's context message (the environment,
// instruction files and memory of agent.ContextSource). The agent puts it
// ahead of the prompt in a session's first user message, as a text part
// of its own, so the transcript keeps it apart from what the person sent.
func IsContext(p llm.Part) bool {
	return p.Type == llm.PartText && strings.HasPrefix(p.Text, ContextTag)
}

// WithoutContext returns m as the person sent it: without nova's context
// part when m starts with one (only a session's first message, and the
// summary message of a compaction, do). The
// model reads that part; nobody typed it, so a history shown to a person
// (the server's messages, an export, a resumed TUI) leaves it out.
func WithoutContext(m llm.Message) llm.Message {
	if m.Role != llm.RoleUser || len(m.Parts) == 0 || !IsContext(m.Parts[0]) {
		return m
	}
	m.Parts = append([]llm.Part(nil), m.Parts[1:]...)
	return m
}
