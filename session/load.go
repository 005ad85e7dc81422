package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/nova-dev/nova/llm"
)

// Warning is a transcript line that was skipped while loading. Loading goes
// on past it: a damaged line never costs the lines around it.
type Warning struct {
	// Line is the 1-based line number in transcript.jsonl.
	Line int
	// Msg says what was wrong, in words a person understands.
	Msg string
}

// String formats w for showing to a person.
func (w Warning) String() string { return fmt.Sprintf("transcript line %d: %s", w.Line, w.Msg) }

// Transcript is a loaded session: its meta and every record, in order.
type Transcript struct {
	Meta Meta
	// Records holds every readable record of the transcript, in order, for
	// export. Treat it as read-only.
	Records []Record
	// boundary is the index in Records of the last compaction, or -1.
	boundary int
}

// Messages returns the history the next model request should carry: after
// a compaction, the summary (see SummaryMessage), the kept messages and
// every message since; otherwise every message.
func (t *Transcript) Messages() []llm.Message {
	if t.boundary < 0 {
		return t.AllMessages()
	}
	c := t.Records[t.boundary].Compaction
	out := make([]llm.Message, 0, 1+len(c.Kept)+len(t.Records)-t.boundary)
	if c.Summary != "" || c.Context != "" {
		out = append(out, SummaryMessage(c.Context, c.Summary))
	}
	out = append(out, c.Kept...)
	for _, r := range t.Records[t.boundary+1:] {
		if r.Type == RecordMessage {
			out = append(out, *r.Message)
		}
	}
	return out
}

// AllMessages returns every message ever appended, compaction ignored.
func (t *Transcript) AllMessages() []llm.Message {
	out := make([]llm.Message, 0, t.Meta.MessageCount)
	for _, r := range t.Records {
		if r.Type == RecordMessage {
			out = append(out, *r.Message)
		}
	}
	return out
}

// add appends a decoded record and folds it into the meta.
func (t *Transcript) add(r Record) {
	switch r.Type {
	case RecordSession:
		h := r.Session
		t.Meta.CreatedAt, t.Meta.AgentKey, t.Meta.WorkspaceDir, t.Meta.Model = h.CreatedAt, h.AgentKey, h.WorkspaceDir, h.Model
	case RecordMessage:
		t.Meta.MessageCount++
	case RecordTitle:
		t.Meta.Title = *r.Title
	case RecordWorkspace:
		t.Meta.WorkspaceDir = *r.Workspace
	case RecordModel:
		t.Meta.Model = *r.Model
	case RecordUsage:
		t.Meta.Usage = r.Usage.Total
	case RecordCompaction:
		t.boundary = len(t.Records)
	}
	if r.Time.After(t.Meta.UpdatedAt) {
		t.Meta.UpdatedAt = r.Time
	}
	t.Records = append(t.Records, r)
}

// readTranscript reads the transcript in f for session id. good is the
// offset up to which the file holds whole lines: an incomplete last line
// (no newline; a crash mid-write) lies beyond it and is reported as a
// warning. Only I/O errors are fatal.
func readTranscript(f *os.File, id string) (t *Transcript, good int64, warns []Warning, err error) {
	data, err := readAll(f)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("read session %s: %w", id, err)
	}
	type span struct {
		line int
		raw  []byte
	}
	var spans []span
	line := 0
	for off := 0; off < len(data); {
		line++
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			// A torn tail is dropped even if it happens to parse: the
			// record was not confirmed written, and keeping it would
			// need a newline added behind a writer's back.
			warns = append(warns, Warning{Line: line, Msg: fmt.Sprintf("incomplete last record (%d bytes, cut off by a crash?) skipped", len(data)-off)})
			break
		}
		raw := data[off : off+end]
		off += end + 1
		good = int64(off)
		if len(bytes.TrimSpace(raw)) > 0 {
			spans = append(spans, span{line, raw})
		}
	}

	// Decoding JSON is nearly all of the cost of loading a long session, and
	// lines are independent, so they are decoded in parallel; folding them
	// into the transcript stays sequential.
	recs := make([]Record, len(spans))
	bad := make([]string, len(spans))
	workers := min(runtime.GOMAXPROCS(0), len(spans)/64+1)
	chunk := (len(spans) + workers - 1) / max(workers, 1)
	var wg sync.WaitGroup
	for lo := 0; lo < len(spans); lo += chunk {
		hi := min(lo+chunk, len(spans))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				recs[i], bad[i] = decodeRecord(spans[i].raw)
			}
		}()
	}
	wg.Wait()

	t = &Transcript{boundary: -1, Records: make([]Record, 0, len(recs))}
	t.Meta.ID = id
	var header bool
	tornWarn := warns
	warns = nil
	for i, r := range recs {
		if bad[i] != "" {
			warns = append(warns, Warning{Line: spans[i].line, Msg: bad[i]})
			continue
		}
		if r.Type == RecordSession {
			header = true
		}
		t.add(r)
	}
	warns = append(warns, tornWarn...)
	if !header {
		// The first line is lost; meta.json still knows who the session is.
		if m, err := readMeta(filepath.Join(filepath.Dir(f.Name()), metaFile)); err == nil && m.ID == id {
			t.Meta.CreatedAt, t.Meta.AgentKey, t.Meta.WorkspaceDir, t.Meta.Model = m.CreatedAt, m.AgentKey, m.WorkspaceDir, m.Model
		}
	}
	return t, good, warns, nil
}

// readAll reads f whole, sizing the buffer from its length so a large
// transcript is read without repeated growing and copying.
func readAll(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+512))
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeRecord parses one line, or says why it cannot be used.
func decodeRecord(raw []byte) (Record, string) {
	var r Record
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Sprintf("unreadable record skipped: %v", err)
	}
	if r.V > SchemaVersion {
		return r, fmt.Sprintf("record of schema version %d skipped: written by a newer nova (this one reads up to %d)", r.V, SchemaVersion)
	}
	if r.V < 1 {
		return r, "record without a schema version skipped"
	}
	var ok bool
	switch r.Type {
	case RecordSession:
		ok = r.Session != nil
	case RecordMessage:
		ok = r.Message != nil
	case RecordDecision:
		ok = r.Decision != nil
	case RecordUsage:
		ok = r.Usage != nil
	case RecordCompaction:
		ok = r.Compaction != nil
	case RecordTitle:
		ok = r.Title != nil
	case RecordWorkspace:
		ok = r.Workspace != nil
	case RecordModel:
		ok = r.Model != nil && *r.Model != ""
	default:
		return r, fmt.Sprintf("record of unknown type %q skipped", r.Type)
	}
	if !ok {
		return r, fmt.Sprintf("%s record without its %s skipped", r.Type, r.Type)
	}
	return r, ""
}
