package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"

	"github.com/nova-dev/nova/llm"
)

// NoResultText is the result given to a tool call left without one: the
// process was killed while the call ran (or its result could not be
// saved), so nobody knows whether it ran.
const NoResultText = "nova has no result for this call: nova stopped before it finished, or its result " +
	"could not be saved. Whether it ran is unknown; check before running it again."

// DanglingResults returns the message that answers the tool calls last
// leaves without results, when last (the last message of a history) is an
// assistant message that called tools: providers refuse a call without its
// result, so a session killed mid-tool could never go on, and a history
// shown from it would show a call that never ends.
func DanglingResults(last llm.Message) (llm.Message, bool) {
	if last.Role != llm.RoleAssistant {
		return llm.Message{}, false
	}
	calls := last.ToolCalls()
	if len(calls) == 0 {
		return llm.Message{}, false
	}
	msg := llm.Message{Role: llm.RoleUser}
	for _, c := range calls {
		msg.Parts = append(msg.Parts, llm.Part{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{
			CallID: c.ID, Name: c.Name, IsError: true,
			Content: []llm.Part{llm.TextPart(NoResultText)},
		}})
	}
	return msg, true
}

// CloseDanglingCalls answers, in t only (the file is not touched), the
// tool calls its last message leaves without results (see
// DanglingResults), and reports whether it did. Use it on a transcript
// no process has open (Store.InUse): in one that is open, the calls may
// still be running.
func (t *Transcript) CloseDanglingCalls() bool {
	for i := len(t.Records) - 1; i >= 0; i-- {
		r := t.Records[i]
		if r.Type != RecordMessage || r.Message == nil {
			continue
		}
		msg, ok := DanglingResults(*r.Message)
		if !ok {
			return false
		}
		// A fresh slice: Records may share its array with a Session's.
		recs := make([]Record, len(t.Records), len(t.Records)+1)
		copy(recs, t.Records)
		t.Records = append(recs, Record{V: SchemaVersion, Type: RecordMessage, Time: t.Records[len(t.Records)-1].Time, Message: &msg})
		t.Meta.MessageCount++
		return true
	}
	return false
}

// InUse reports whether a process (this one included) holds session id
// open for writing. It takes the session's lock shared for an instant and
// writes nothing, so it never creates or changes a file; Open waits out
// such an instant (see acquire).
func (st *Store) InUse(id string) (bool, error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	fl := flock.New(filepath.Join(st.Dir(id), lockFile), flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryRLock()
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // never opened since it was made: nobody holds it
	}
	if err != nil {
		return false, fmt.Errorf("session %s: see whether it is open: %w", id, err)
	}
	if !ok {
		return true, nil
	}
	if err := fl.Unlock(); err != nil {
		return false, fmt.Errorf("session %s: see whether it is open: %w", id, err)
	}
	return false, nil
}
