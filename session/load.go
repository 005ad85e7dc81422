package session

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

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
	// lazy are the records before the boundary that were not decoded
	// (see readTranscript): their Records entries have a type and a time
	// but no payload until decodeLazy. Only a Session's transcript
	// has any; every transcript handed out is decoded whole.
	lazy []lazyRecord
}

// lazyRecord is an undecoded record: its index in Records, its
// line number and its line, in a buffer of its own.
type lazyRecord struct {
	idx, line int
	raw       []byte
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
	t.decodeLazy()
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

// addLazy appends a record left undecoded (a message, a decision, or a
// usage whose total a later one replaces) and folds in what its head says.
func (t *Transcript) addLazy(r Record) {
	if r.Type == RecordMessage {
		t.Meta.MessageCount++
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
//
// lazy leaves the message, decision and usage records before the last
// compaction boundary undecoded (see Transcript.lazy), but the last usage
// (its running total is the session's, unless a later one replaces it):
// resuming a session sends only what follows the boundary, and decoding
// JSON is nearly all of the cost of loading a long session. Their lines
// are read far enough to count and date them; one that turns out
// unreadable when it is decoded is dropped then, with the warning that
// would have been given now.
func readTranscript(f *os.File, id string, lazy bool) (t *Transcript, good int64, warns []Warning, err error) {
	data, err := readAll(f)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("read session %s: %w", id, err)
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
		start := off
		off += end + 1
		good = int64(off)
		if len(bytes.TrimSpace(raw)) > 0 {
			spans = append(spans, span{line: line, off: start, raw: raw})
		}
	}

	// The lines left undecoded: messages before the last compaction
	// whose record that compaction is (it decodes, or there is none).
	var late []bool
	var heads []peeked
	last := -1
	if lazy {
		last = lastCompaction(spans)
	}
	if last > 0 {
		late, heads = make([]bool, last), make([]peeked, last)
		lastUsage := -1
		for i := range last {
			heads[i] = peek(spans[i].raw)
			switch heads[i].typ {
			case RecordMessage, RecordDecision:
				late[i] = heads[i].ok
			case RecordUsage:
				// Each carries the running total: the last one before
				// the boundary is read, in case none follows it.
				late[i] = heads[i].ok
				if heads[i].ok {
					if lastUsage >= 0 {
						late[lastUsage] = true
					}
					late[i], lastUsage = false, i
				}
			}
		}
	}

	recs, bad := decodeSpans(spans, late)
	t = &Transcript{boundary: -1, Records: make([]Record, 0, len(recs))}
	t.Meta.ID = id
	var header bool
	tornWarn := warns
	warns = nil
	var keep []byte // the undecoded lines, copied out of data
	for i, r := range recs {
		if i < len(late) && late[i] {
			p := heads[i]
			if keep == nil {
				keep = make([]byte, 0, spans[last].off)
			}
			at := len(keep)
			keep = append(keep, spans[i].raw...)
			t.lazy = append(t.lazy, lazyRecord{idx: len(t.Records), line: spans[i].line, raw: keep[at:len(keep):len(keep)]})
			t.addLazy(Record{V: p.v, Type: p.typ, Time: p.ts})
			continue
		}
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

// span is one line of a transcript: its number, where it starts, and its
// bytes (without the newline).
type span struct {
	line, off int
	raw       []byte
}

// decodeSpans decodes every span but those skip says to leave. Lines are
// independent, so they are decoded in parallel, the lines to decode shared
// out evenly (the skipped ones are all at the start); folding them into
// the transcript stays sequential.
func decodeSpans(spans []span, skip []bool) ([]Record, []string) {
	recs := make([]Record, len(spans))
	bad := make([]string, len(spans))
	todo := make([]int, 0, len(spans))
	for i := range spans {
		if i >= len(skip) || !skip[i] {
			todo = append(todo, i)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(todo)/64+1)
	chunk := (len(todo) + workers - 1) / max(workers, 1)
	var wg sync.WaitGroup
	for lo := 0; lo < len(todo); lo += chunk {
		hi := min(lo+chunk, len(todo))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, i := range todo[lo:hi] {
				recs[i], bad[i] = decodeRecord(spans[i].raw)
			}
		}()
	}
	wg.Wait()
	return recs, bad
}

// lastCompaction returns the index of the last span that is a readable
// compaction record, or -1: the boundary a resume starts from.
func lastCompaction(spans []span) int {
	for i := len(spans) - 1; i >= 0; i-- {
		p := peek(spans[i].raw)
		if !p.ok || p.typ != RecordCompaction {
			continue
		}
		if _, bad := decodeRecord(spans[i].raw); bad == "" {
			return i
		}
	}
	return -1
}

// peeked is what peek read of a line's head.
type peeked struct {
	v   int
	typ RecordType
	ts  time.Time
	ok  bool
}

// peek reads the head nova writes every record with,
// {"v":1,"type":"message","ts":"<RFC 3339>", without decoding the rest;
// ok is false for any line that does not start exactly so, or is of a
// schema version this nova does not read (it is decoded, to say why).
func peek(raw []byte) peeked {
	var p peeked
	rest, ok := bytes.CutPrefix(raw, []byte(`{"v":`))
	if !ok {
		return p
	}
	n := 0
	for n < len(rest) && n < 4 && rest[n] >= '0' && rest[n] <= '9' {
		p.v = p.v*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 || p.v < 1 || p.v > SchemaVersion {
		return p
	}
	if rest, ok = bytes.CutPrefix(rest[n:], []byte(`,"type":"`)); !ok {
		return p
	}
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		return p
	}
	p.typ, rest = RecordType(rest[:q]), rest[q:]
	if rest, ok = bytes.CutPrefix(rest, []byte(`","ts":"`)); !ok {
		return p
	}
	q = bytes.IndexByte(rest, '"')
	if q < 0 || bytes.IndexByte(rest[:q], '\\') >= 0 {
		return p
	}
	ts, err := time.Parse(time.RFC3339Nano, string(rest[:q]))
	if err != nil {
		return p
	}
	// A record goes on with its payload, under its type's name; the
	// ones left undecoded have an object there.
	if !bytes.HasPrefix(rest[q:], []byte(`","`+string(p.typ)+`":`)) {
		return p
	}
	if (p.typ == RecordMessage || p.typ == RecordDecision || p.typ == RecordUsage) &&
		!bytes.HasPrefix(rest[q+len(p.typ)+5:], []byte("{")) {
		return p
	}
	p.ts, p.ok = ts, true
	return p
}

// decodeLazy decodes the records readTranscript left undecoded. One that
// is unreadable after all is dropped, as a load would have dropped it,
// and its warning returned.
func (t *Transcript) decodeLazy() []Warning {
	if len(t.lazy) == 0 {
		return nil
	}
	spans := make([]span, len(t.lazy))
	for i, l := range t.lazy {
		spans[i] = span{line: l.line, raw: l.raw}
	}
	recs, bad := decodeSpans(spans, nil)
	var warns []Warning
	drop := map[int]bool{}
	messages := 0
	for i, l := range t.lazy {
		if want := t.Records[l.idx].Type; bad[i] != "" || recs[i].Type != want {
			warns = append(warns, Warning{Line: l.line, Msg: cmp.Or(bad[i], "unreadable record skipped")})
			drop[l.idx] = true
			if want == RecordMessage {
				messages++
			}
			continue
		}
		t.Records[l.idx] = recs[i]
	}
	t.lazy = nil
	if len(drop) > 0 {
		kept := make([]Record, 0, len(t.Records)-len(drop))
		for i, r := range t.Records {
			if !drop[i] {
				kept = append(kept, r)
			}
		}
		t.Records = kept
		t.boundary -= len(drop) // every lazy record is before it
		t.Meta.MessageCount -= messages
		// The session's usage is its last record's, which may have been
		// the one dropped.
		t.Meta.Usage = llm.Usage{}
		for _, r := range slices.Backward(t.Records) {
			if r.Type == RecordUsage && r.Usage != nil {
				t.Meta.Usage = r.Usage.Total
				break
			}
		}
	}
	return warns
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
