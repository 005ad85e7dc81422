package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nova-dev/nova/atomicfile"
)

// Message kinds.
const (
	KindText     = ""         // a message to act on
	KindShutdown = "shutdown" // the lead asks the teammate to stop
)

// Message is one mailbox message. Its ID is the idempotency key: sending
// the same ID twice delivers one message.
type Message struct {
	ID   string    `json:"id"`
	From string    `json:"from"`
	To   string    `json:"to"`
	Kind string    `json:"kind,omitempty"`
	Text string    `json:"text"`
	Time time.Time `json:"time"`
}

// Mailbox is a team's mailboxes: mailbox/<member>/<id>.json, one file per
// message written by temp-file-and-rename, so a reader sees a message whole
// or not at all and a resend with the same id is the same file. A message
// stays there until its receiver acknowledges it (moved to acked/), so one
// whose receiver died is delivered again.
type Mailbox struct {
	dir string
	// Now is the clock that stamps messages.
	Now func() time.Time
}

// NewMailbox is the mailbox of the team kept in teamDir.
func NewMailbox(teamDir string) *Mailbox {
	return &Mailbox{dir: filepath.Join(teamDir, "mailbox"), Now: time.Now}
}

func (m *Mailbox) inbox(member string) string { return filepath.Join(m.dir, member) }
func (m *Mailbox) acked(member string) string { return filepath.Join(m.dir, member, "acked") }

// NewID returns a fresh message id.
func NewID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Send delivers msg to msg.To's mailbox and returns it as sent: an empty
// ID gets a fresh one, a zero Time the clock's. A message whose ID the
// mailbox already holds (pending or acknowledged) is not written again.
func (m *Mailbox) Send(msg Message) (Message, error) {
	if err := checkName("recipient", msg.To); err != nil {
		return msg, err
	}
	if msg.ID == "" {
		msg.ID = NewID()
	}
	if err := checkName("message id", msg.ID); err != nil {
		return msg, err
	}
	if msg.Time.IsZero() {
		msg.Time = m.Now().UTC()
	}
	name := msg.ID + ".json"
	for _, dir := range []string{m.inbox(msg.To), m.acked(msg.To)} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return msg, nil // delivered before: the same message
		}
	}
	if err := os.MkdirAll(m.acked(msg.To), 0o700); err != nil {
		return msg, fmt.Errorf("mailbox of %s: %w", msg.To, err)
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return msg, fmt.Errorf("encode message: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(m.inbox(msg.To), name), data, 0o600); err != nil {
		return msg, fmt.Errorf("send to %s: %w", msg.To, err)
	}
	return msg, nil
}

// Pending returns member's unacknowledged messages, oldest first.
func (m *Mailbox) Pending(member string) ([]Message, error) {
	entries, err := os.ReadDir(m.inbox(member))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the mailbox of %s: %w", member, err)
	}
	var out []Message
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") {
			continue // acked/, and temp files of a write under way
		}
		data, err := os.ReadFile(filepath.Join(m.inbox(member), n))
		if errors.Is(err, os.ErrNotExist) {
			continue // acknowledged meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("read message %s of %s: %w", n, member, err)
		}
		var msg Message
		if err := json.Unmarshal(data, &msg); err != nil {
			return nil, fmt.Errorf("message %s of %s is not valid JSON: %v", n, member, err)
		}
		out = append(out, msg)
	}
	slices.SortFunc(out, func(a, b Message) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Ack acknowledges member's message id: it is moved to acked/ and not
// delivered again. Acknowledging twice is no error.
func (m *Mailbox) Ack(member, id string) error {
	if err := checkName("message id", id); err != nil {
		return err
	}
	name := id + ".json"
	err := os.Rename(filepath.Join(m.inbox(member), name), filepath.Join(m.acked(member), name))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("acknowledge message %s of %s: %w", id, member, err)
	}
	return nil
}

// withdraw takes back member's message id, pending or acknowledged, so
// that a message sent again with that id (a spawn tried again) is
// delivered rather than taken for the one withdrawn.
func (m *Mailbox) withdraw(member, id string) error {
	if err := checkName("message id", id); err != nil {
		return err
	}
	for _, dir := range []string{m.inbox(member), m.acked(member)} {
		if err := os.Remove(filepath.Join(dir, id+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("withdraw message %s of %s: %w", id, member, err)
		}
	}
	return nil
}

// Wait returns member's pending messages once there are any, looking
// every poll, or ctx's error when it ends first.
func (m *Mailbox) Wait(ctx context.Context, member string, poll time.Duration) ([]Message, error) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		msgs, err := m.Pending(member)
		if err != nil || len(msgs) > 0 {
			return msgs, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// checkName refuses a member name or message id that is not a plain file
// name: it becomes a path under the team's directory.
func checkName(what, s string) error {
	if s == "" {
		return fmt.Errorf("%s is empty", what)
	}
	if len(s) > 64 || s[0] == '.' || s[0] == '-' {
		return fmt.Errorf("%s %q: use up to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'", what, s)
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return fmt.Errorf("%s %q: use up to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'", what, s)
		}
	}
	return nil
}

// Receiver processes a member's messages exactly once. Its state file
// holds, in one JSON document, the receiver's own state S (the effect of
// what it processed) and the ids it processed; both are rewritten in one
// atomic write per message, so after a crash either both say the message
// was processed or neither does. A redelivered message already processed
// is acknowledged without being processed again.
type Receiver[S any] struct {
	mb     *Mailbox
	member string
	path   string
	st     receiverFile[S]
	done   map[string]bool
	// crash is called at the points a process may die between steps;
	// tests kill the process there.
	crash func(point string)
}

type receiverFile[S any] struct {
	Processed []string `json:"processed"`
	State     S        `json:"state"`
}

// OpenReceiver loads the receiver of member's messages whose state is
// kept in statePath (a missing file is a fresh receiver).
func OpenReceiver[S any](mb *Mailbox, member, statePath string) (*Receiver[S], error) {
	if err := checkName("member", member); err != nil {
		return nil, err
	}
	r := &Receiver[S]{mb: mb, member: member, path: statePath, crash: func(string) {}}
	if err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Receiver[S]) load() error {
	r.st = receiverFile[S]{}
	r.done = map[string]bool{}
	data, err := os.ReadFile(r.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read receiver state: %w", err)
	}
	if err := json.Unmarshal(data, &r.st); err != nil {
		return fmt.Errorf("receiver state %s is not valid JSON: %v", r.path, err)
	}
	for _, id := range r.st.Processed {
		r.done[id] = true
	}
	return nil
}

// State is the receiver's state as last recorded.
func (r *Receiver[S]) State() S { return r.st.State }

// Processed reports whether message id was processed.
func (r *Receiver[S]) Processed(id string) bool { return r.done[id] }

// Next returns the pending messages not processed yet, oldest first; those
// already processed (redelivered after a crash before their ack) are
// acknowledged now.
func (r *Receiver[S]) Next() ([]Message, error) {
	msgs, err := r.mb.Pending(r.member)
	if err != nil {
		return nil, err
	}
	out := msgs[:0]
	for _, m := range msgs {
		if r.done[m.ID] {
			if err := r.mb.Ack(r.member, m.ID); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

// Process applies msg once: apply changes the state, then the state and
// msg's id are recorded in one atomic write, then msg is acknowledged. An
// error from apply records nothing (msg stays pending); an already
// processed msg is only acknowledged.
func (r *Receiver[S]) Process(msg Message, apply func(msg Message, state *S) error) error {
	if !r.done[msg.ID] {
		if err := apply(msg, &r.st.State); err != nil {
			_ = r.load() // forget what apply half did
			return err
		}
		r.st.Processed = append(r.st.Processed, msg.ID)
		data, err := json.Marshal(r.st)
		if err == nil {
			err = atomicfile.Write(r.path, data, 0o600)
		}
		if err != nil {
			_ = r.load()
			return fmt.Errorf("record message %s as processed: %w", msg.ID, err)
		}
		r.done[msg.ID] = true
		r.crash("recorded")
	}
	return r.mb.Ack(r.member, msg.ID)
}
