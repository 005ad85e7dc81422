package remote

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
	"github.com/nova-dev/nova/session"
)

// Host is the session host below the frontends (live.Host): it opens the
// sessions the server runs.
type Host interface {
	// Open returns session id, opened from disk when it is not open yet;
	// live.ErrNoSession when there is none.
	Open(ctx context.Context, id string) (*live.Session, error)
	// Create makes a new session.
	Create(ctx context.Context, spec live.Spec) (*live.Session, error)
	// List lists the sessions, newest first; agentKey, when set, keeps
	// that agent's only.
	List(agentKey string) ([]session.Meta, error)
	// Load reads a session's transcript.
	Load(id string) (*session.Transcript, error)
	// Context is a session's context usage, for the model given (or the
	// session's own).
	Context(ctx context.Context, id, provider, model string) (agent.ContextUsage, error)
	// Rename sets a session's title.
	Rename(id, title string) error
	// SetWorkspace sets the session's workspace; "" clears it (back to
	// the server's).
	SetWorkspace(id, dir string) error
	// Delete ends any run of the session and removes it, with its
	// memories when asked.
	Delete(id string, memories bool) error
	// Controller is the session's operations (model, mode, compact,
	// !cmd, rules), the one implementation every frontend calls.
	Controller(ctx context.Context, id string) (*live.Controller, error)
	// States is the model and permission mode of each session of metas,
	// in order, opening none (live.SessionState).
	States(metas []session.Meta) []live.SessionState
}

// chatRequest is seed 000's ChatRequest, and also what the AI SDK's
// useChat sends ({id, messages, trigger} plus the body fields).
type chatRequest struct {
	SessionID    *string         `json:"session_id"`
	Message      string          `json:"message"`
	Provider     string          `json:"provider"`
	Model        string          `json:"model"`
	AgentKey     string          `json:"agent_key"`
	WorkspaceDir string          `json:"workspace_dir"`
	Metadata     json.RawMessage `json:"metadata"`
	Attachments  []attachment    `json:"attachments"`
	// ResumeFromSeq is D3's replay cursor: resume the session's stream
	// after this frame instead of starting a turn.
	ResumeFromSeq *int64 `json:"resume_from_seq"`

	// useChat's own fields.
	Messages []uiMessage `json:"messages"`
	Trigger  string      `json:"trigger"`
}

// attachment is seed 000's AttachmentData.
type attachment struct {
	ID          string `json:"id"`
	Type        string `json:"type"` // image or document
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Content     string `json:"content"` // a data URL for images, text for documents
}

// uiMessage is a message as useChat sends it.
type uiMessage struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"parts"`
}

// prompt is the user's message of the request: message, else the last
// user message's text parts (useChat), with attachments (documents as
// text before it, images after).
func (c *chatRequest) prompt() (llm.Message, error) {
	text := c.Message
	if text == "" {
		for i := len(c.Messages) - 1; i >= 0; i-- {
			if c.Messages[i].Role != "user" {
				continue
			}
			var b strings.Builder
			for _, p := range c.Messages[i].Parts {
				if p.Type == "text" {
					b.WriteString(p.Text)
				}
			}
			text = b.String()
			break
		}
	}
	msg := llm.Message{Role: llm.RoleUser}
	var images []llm.Part
	for _, a := range c.Attachments {
		switch a.Type {
		case "document":
			msg.Parts = append(msg.Parts, llm.TextPart(fmt.Sprintf("<document name=%q>\n%s\n</document>", a.Name, a.Content)))
		case "image":
			mt, data, err := decodeDataURL(a.Content)
			if err != nil {
				return msg, fmt.Errorf("attachment %q: %w", a.Name, err)
			}
			images = append(images, llm.Part{Type: llm.PartImage, MediaType: mt, Data: data})
		default:
			return msg, fmt.Errorf("attachment %q: type %q is neither image nor document", a.Name, a.Type)
		}
	}
	if strings.TrimSpace(text) == "" && len(images) == 0 && len(msg.Parts) == 0 {
		return msg, errors.New("the message is empty: send message (or, with useChat, a user message with text)")
	}
	msg.Parts = append(msg.Parts, llm.TextPart(text))
	msg.Parts = append(msg.Parts, images...)
	return msg, nil
}

// decodeDataURL reads "data:image/png;base64,...".
func decodeDataURL(u string) (string, []byte, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	meta, payload, ok2 := strings.Cut(rest, ",")
	mt, isB64 := strings.CutSuffix(meta, ";base64")
	if !ok || !ok2 || !isB64 || !strings.HasPrefix(mt, "image/") {
		return "", nil, errors.New("an image must be a base64 data URL (data:image/png;base64,...)")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, fmt.Errorf("the image's base64 does not decode: %w", err)
	}
	return mt, data, nil
}

// chatStream is a session's chat stream: the UI message stream frames of
// its current or last run, numbered across runs, in a bounded log (D2).
type chatStream struct {
	log *live.Log[[]byte]
	// writeWait bounds one write to a client: a client that stops
	// reading is let go when it passes, as the WebSocket's writer does.
	writeWait time.Duration
	// relayed is closed when the relay has encoded the run's last event.
	relayed chan struct{}
}

// streams are the sessions' chat streams.
type streams struct {
	mu sync.Mutex
	m  map[string]*chatStream
	// writeWait is each stream's chatStream.writeWait; 0 means
	// sseWriteWait. Set before the server serves (tests shorten it).
	writeWait time.Duration
}

// sseWriteWait is how long one SSE write may wait for a client to read:
// the WebSocket's bound.
const sseWriteWait = wsWriteWait

func (st *streams) get(id string) *chatStream {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.m[id]
}

func (st *streams) drop(id string) {
	st.mu.Lock()
	cs := st.m[id]
	delete(st.m, id)
	st.mu.Unlock()
	if cs == nil {
		return
	}
	// The session's run was ended before the drop: its last events (the
	// abort) are still being encoded, and a watcher must get them before
	// the stream ends. A relay that does not finish is not waited for.
	select {
	case <-cs.relayed:
	case <-time.After(2 * time.Second):
	}
	cs.log.End()
}

// begin starts a new stream for the run sess just started, relaying its
// events (replay first, then sub) as UI message stream frames; numbers go
// on from the last stream's. cursor is where a client reads it from the
// start.
func (st *streams) begin(sess *live.Session, sub *live.Sub[agent.Event], replay []live.Frame[agent.Event], messageID string) (cs *chatStream, cursor int64) {
	st.mu.Lock()
	first := int64(1)
	if old := st.m[sess.ID()]; old != nil {
		first = old.log.LastSeq() + 1
	}
	wait := st.writeWait
	if wait <= 0 {
		wait = sseWriteWait
	}
	cs = &chatStream{log: live.NewLog[[]byte](live.ReplayFrames, first), relayed: make(chan struct{}), writeWait: wait}
	if st.m == nil {
		st.m = map[string]*chatStream{}
	}
	st.m[sess.ID()] = cs
	st.mu.Unlock()
	enc := newUIEncoder(messageID, sess.ID())
	for _, c := range enc.start() {
		cs.log.Append(encodeChunk(c))
	}
	go func() {
		defer close(cs.relayed)
		relay(sub, replay, enc, cs.log)
	}()
	return cs, first - 1
}

// relay encodes a run's events into the stream until the run ends,
// following again if it ever falls behind (live.Tail).
func relay(sub *live.Sub[agent.Event], replay []live.Frame[agent.Event], enc *uiEncoder, out *live.Log[[]byte]) {
	defer out.End()
	live.Tail(context.Background(), sub, replay, func(f live.Frame[agent.Event], lost bool) bool {
		if lost {
			// Events were evicted before the relay read them: say so
			// rather than pretend the stream is whole.
			out.Append(encodeChunk(uiChunk{Type: "data-nova-notice", Data: mustJSON(map[string]string{"text": "part of this run's stream was lost; reload the session to see all of it"})}))
		}
		for _, c := range enc.event(f.Value) {
			out.Append(encodeChunk(c))
		}
		return true
	})
}

// status is a session's stream status (D3): the run slot as the session
// has it, with the stream's own watchers counted.
func (st *streams) status(sess *live.Session) (live.State, int64, bool) {
	cs := st.get(sess.ID())
	state, _ := sess.Status()
	if cs == nil {
		return state, 0, state != live.StateNone
	}
	if state == live.StateDone && !cs.log.Ended() {
		// The run is over but its last frames are still being encoded
		// into the stream: it is done when a resume would get them all.
		state = live.StateDetached
	}
	if state == live.StateDetached && cs.log.Subscribers() > 0 {
		state = live.StateActive
	}
	return state, cs.log.LastSeq(), true
}

// writeSSE sends the stream's frames after cursor to w until the stream
// ends or the client goes away (the run goes on: D4).
func writeSSE(w http.ResponseWriter, r *http.Request, cs *chatStream, cursor int64, sessionID string) {
	sub, replay, resync := cs.log.Subscribe(cursor)
	defer sub.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("x-vercel-ai-ui-message-stream", "v1")
	h.Set("x-nova-session-id", sessionID)
	if resync {
		h.Set("x-nova-stream-resync", "true")
	}
	w.WriteHeader(http.StatusOK)
	// Every write has a deadline: a client that stops reading would hold
	// the connection, and the frames queued for it, for good.
	rc := http.NewResponseController(w)
	write := func(b []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(cs.writeWait))
		_, err := w.Write(b)
		return err
	}
	flush := func() error {
		_ = rc.SetWriteDeadline(time.Now().Add(cs.writeWait))
		return rc.Flush()
	}
	for _, f := range replay {
		if write(sseFrame(f.Seq, f.Value)) != nil {
			return
		}
	}
	if flush() != nil {
		return
	}
	for {
		select {
		case f, ok := <-sub.C():
			if !ok {
				if sub.Dropped() {
					// This client fell behind; it reconnects with the last
					// id it saw and gets the rest replayed.
					return
				}
				if write([]byte(sseDone)) == nil {
					_ = flush()
				}
				return
			}
			if write(sseFrame(f.Seq, f.Value)) != nil || flush() != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
