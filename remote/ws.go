package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/config"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
)

// GET /ws (issue 14): one connection follows any number of sessions
// (subscribe, unsubscribe) and drives them (prompt, approve, answer,
// interrupt).
// docs/remote.md is the protocol; the names below follow it.

// The WebSocket's defaults (wsConfig).
const (
	wsPing      = 30 * time.Second
	wsPongWait  = 60 * time.Second
	wsWriteWait = 10 * time.Second
	wsQueue     = 256
	wsReadLimit = 1 << 20
	// wsCommands is how many client messages may wait while one is
	// handled (an interrupt waits for the run to stop): the reader goes on
	// reading, so pongs are seen, until that many are waiting.
	wsCommands = 16
)

// wsConfig is the WebSocket's timing and bounds; a zero field takes its
// default. Tests shorten them.
type wsConfig struct {
	ping      time.Duration // the server pings this often
	pongWait  time.Duration // a connection with no pong for this long is closed
	writeWait time.Duration // a write that takes longer closes the connection
	queue     int           // messages waiting for a connection's writer
	readLimit int64         // the largest message a client may send
}

func (c wsConfig) withDefaults() wsConfig {
	if c.ping <= 0 {
		c.ping = wsPing
	}
	if c.pongWait <= 0 {
		c.pongWait = wsPongWait
	}
	if c.writeWait <= 0 {
		c.writeWait = wsWriteWait
	}
	if c.queue <= 0 {
		c.queue = wsQueue
	}
	if c.readLimit <= 0 {
		c.readLimit = wsReadLimit
	}
	return c
}

// wsHub holds the server's WebSocket connections, so a shutdown can close
// them: http.Server.Shutdown neither closes nor waits for hijacked
// connections.
type wsHub struct {
	cfg     wsConfig // set before the server serves
	mu      sync.Mutex
	conns   map[*wsConn]struct{}
	closing bool
	wg      sync.WaitGroup // one per connection being served
}

// shutdown closes every connection with 1001 (going away) and refuses new
// ones.
func (h *wsHub) shutdown() {
	h.mu.Lock()
	h.closing = true
	conns := make([]*wsConn, 0, len(h.conns))
	for wc := range h.conns {
		conns = append(conns, wc)
	}
	h.mu.Unlock()
	for _, wc := range conns {
		wc.closeWith(websocket.CloseGoingAway, "nova serve is shutting down")
	}
}

func (h *wsHub) add(wc *wsConn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing {
		return false
	}
	if h.conns == nil {
		h.conns = map[*wsConn]struct{}{}
	}
	h.conns[wc] = struct{}{}
	h.wg.Add(1)
	return true
}

func (h *wsHub) remove(wc *wsConn) {
	h.mu.Lock()
	delete(h.conns, wc)
	h.mu.Unlock()
	h.wg.Done()
}

// serveWS is GET /ws. Handler has checked the Host and the token (the
// header, or for this route the token subprotocol); the Origin is checked
// here, before the upgrade: a page of another origin must not drive
// sessions, whatever it holds. The server answers with the "nova.v1"
// subprotocol when the client offers it (a browser that offered the
// token subprotocol needs one back), never with the token's.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
		writeError(w, http.StatusForbidden, "Origin "+origin+" is not this server: nova serve accepts a WebSocket from its own pages (same origin) or from a client that sends no Origin")
		return
	}
	up := websocket.Upgrader{
		Subprotocols: []string{wsProtocol},
		CheckOrigin:  func(*http.Request) bool { return true }, // checked above
		Error: func(w http.ResponseWriter, _ *http.Request, status int, reason error) {
			writeError(w, status, "not a WebSocket handshake: "+reason.Error())
		},
	}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade answered
	}
	s.ws.serve(s, c)
}

// sameOrigin reports whether a browser's Origin is the address the
// request came to (its Host, which Handler has checked).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null" (a sandboxed frame, a file) included
	}
	return strings.EqualFold(u.Host, host)
}

// wsConn is one connection. Three goroutines own it: the reader (pongs
// and client messages), the command handler (one message at a time, in
// order) and the writer (the only one that writes data); and one watcher
// per subscribed session.
type wsConn struct {
	srv    *Server
	cfg    wsConfig
	c      *websocket.Conn
	ctx    context.Context // ends when the connection does
	cancel context.CancelFunc
	// out is the writer's bounded queue, shared by the watchers and the
	// command handler. A client that stops reading fills it; a watcher
	// then waits for room, and while it waits live keeps the session's
	// frames for it in its subscriber buffer and, past that, lets the
	// subscription go (live.Sub.Dropped) — the run and every other
	// subscriber go on either way. When room comes the watcher joins the
	// run again after the last frame it sent: the client gets exactly the
	// frames that followed while the run's log (500 frames) still holds
	// them, else a resync message first. A client that stops reading
	// altogether is closed: the writer's write, blocked on a full socket,
	// fails after writeWait, and with no pong the reader's deadline
	// passes after pongWait.
	out chan []byte

	closeMu   sync.Mutex
	closeCode int
	closeText string

	mu       sync.Mutex // guards subs
	subs     map[string]*wsWatch
	watchers sync.WaitGroup
}

// wsWatch is one session's subscription on a connection.
type wsWatch struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when its watcher has returned
}

// wsRead is one message from the client.
type wsRead struct {
	data   []byte
	binary bool
}

// serve runs the connection until either side ends it.
func (h *wsHub) serve(s *Server, c *websocket.Conn) {
	cfg := h.cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	wc := &wsConn{srv: s, cfg: cfg, c: c, ctx: ctx, cancel: cancel, out: make(chan []byte, cfg.queue),
		closeCode: websocket.CloseNormalClosure, subs: map[string]*wsWatch{}}
	if !h.add(wc) {
		cancel()
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "nova serve is shutting down"), time.Now().Add(cfg.writeWait))
		_ = c.Close()
		return
	}
	defer h.remove(wc)
	cmds := make(chan wsRead, wsCommands)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); wc.write() }()
	go func() { defer wg.Done(); wc.commands(cmds) }()
	wc.read(cmds)
	cancel()
	wg.Wait()
	wc.watchers.Wait()
}

// closeWith ends the connection with a close frame of code and text
// (the first reason given wins).
func (wc *wsConn) closeWith(code int, text string) {
	wc.closeMu.Lock()
	if wc.ctx.Err() == nil {
		wc.closeCode, wc.closeText = code, text
	}
	wc.closeMu.Unlock()
	wc.cancel()
}

// read reads client messages until the connection fails, the client
// closes it, or no pong came for pongWait.
func (wc *wsConn) read(cmds chan<- wsRead) {
	c := wc.c
	c.SetReadLimit(wc.cfg.readLimit) // beyond it gorilla closes with 1009
	_ = c.SetReadDeadline(time.Now().Add(wc.cfg.pongWait))
	c.SetPongHandler(func(string) error { return c.SetReadDeadline(time.Now().Add(wc.cfg.pongWait)) })
	for {
		typ, data, err := c.ReadMessage()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				wc.closeWith(websocket.CloseGoingAway, fmt.Sprintf("no pong for %s", wc.cfg.pongWait))
			}
			return
		}
		select {
		case cmds <- wsRead{data: data, binary: typ != websocket.TextMessage}:
		case <-wc.ctx.Done():
			return
		}
	}
}

// write sends the queue's messages and the pings; it closes the
// connection when a write fails or the connection ends.
func (wc *wsConn) write() {
	t := time.NewTicker(wc.cfg.ping)
	defer t.Stop()
	defer wc.c.Close() // which ends the reader
	defer wc.cancel()
	for {
		select {
		case b := <-wc.out:
			_ = wc.c.SetWriteDeadline(time.Now().Add(wc.cfg.writeWait))
			if err := wc.c.WriteMessage(websocket.TextMessage, b); err != nil {
				return
			}
		case <-t.C:
			if err := wc.c.WriteControl(websocket.PingMessage, nil, time.Now().Add(wc.cfg.writeWait)); err != nil {
				return
			}
		case <-wc.ctx.Done():
			wc.closeMu.Lock()
			msg := websocket.FormatCloseMessage(wc.closeCode, wc.closeText)
			wc.closeMu.Unlock()
			_ = wc.c.WriteControl(websocket.CloseMessage, msg, time.Now().Add(wc.cfg.writeWait))
			return
		}
	}
}

// enqueue hands b to the writer, waiting for room until ctx ends.
func (wc *wsConn) enqueue(ctx context.Context, b []byte) bool {
	select {
	case wc.out <- b:
		return true
	case <-ctx.Done():
		return false
	}
}

// send enqueues a message other than an event frame.
func (wc *wsConn) send(ctx context.Context, m wsOut) bool {
	b, err := json.Marshal(m)
	if err != nil { // unreachable: wsOut is plain data and id is valid JSON
		return false
	}
	return wc.enqueue(ctx, b)
}

// wsIn is a message from the client; which fields count depends on Type.
type wsIn struct {
	Type      string          `json:"type"`
	ID        json.RawMessage `json:"id"`
	SessionID *string         `json:"session_id"`
	// subscribe
	AfterSeq *int64 `json:"after_seq"`
	Run      string `json:"run"`
	// prompt; the rest are for a new session, as in POST /api/chat
	Text         string       `json:"text"`
	AgentKey     string       `json:"agent_key"`
	Provider     string       `json:"provider"`
	Model        string       `json:"model"`
	WorkspaceDir string       `json:"workspace_dir"`
	Attachments  []attachment `json:"attachments"`
	// approve
	RequestID string `json:"request_id"`
	Approved  *bool  `json:"approved"`
	Remember  bool   `json:"remember"`
	// answer (questions.go)
	QuestionID string   `json:"question_id"`
	Answers    []string `json:"answers"`
	Declined   bool     `json:"declined"`
	// set_mode, shell, compact (ops.go); set_model's is Model
	Mode         string `json:"mode"`
	Command      string `json:"command"`
	Instructions string `json:"instructions"`
}

// wsOut is a message to the client other than an event frame: ok, error,
// session, resync, unsubscribed, run.
type wsOut struct {
	Type        string          `json:"type"`
	ID          json.RawMessage `json:"id,omitempty"`
	SessionID   string          `json:"session_id,omitempty"`
	Run         string          `json:"run,omitempty"`
	FromSeq     int64           `json:"from_seq,omitempty"`
	Interrupted *bool           `json:"interrupted,omitempty"`
	Detail      string          `json:"detail,omitempty"`
	// Prompt is a run message's: what started the run, whoever sent it
	// (the terminal, another browser, this client).
	Prompt *wsPrompt `json:"prompt,omitempty"`
	// Result is an operation's answer in its ok (ops.go): what the HTTP
	// route answers.
	Result any `json:"result,omitempty"`
	// Known are the models a set_model could name, in its error.
	Known []string `json:"known,omitempty"`
	// Model and PermissionMode are a state message's: what the session
	// runs with after a change made anywhere.
	Model          string `json:"model,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
}

// wsPrompt is the prompt of a run: its text and its attached images as
// data URLs (as GET /api/sessions/{id}/messages gives them).
type wsPrompt struct {
	Text   string   `json:"text"`
	Images []string `json:"images,omitempty"`
}

// promptOf is the prompt of input.
func promptOf(input llm.Message) *wsPrompt {
	p := &wsPrompt{}
	for _, part := range input.Parts {
		switch part.Type {
		case llm.PartText:
			if p.Text != "" {
				p.Text += "\n\n"
			}
			p.Text += part.Text
		case llm.PartImage:
			p.Images = append(p.Images, "data:"+part.MediaType+";base64,"+encodeBase64(part.Data))
		}
	}
	return p
}

// wsFrame is one event of a session's run, numbered as live numbers it.
type wsFrame struct {
	Type      string      `json:"type"` // "event"
	SessionID string      `json:"session_id"`
	Run       string      `json:"run"`
	Seq       int64       `json:"seq"`
	Event     agent.Event `json:"event"`
}

// commands handles the client's messages one at a time, in order.
func (wc *wsConn) commands(cmds <-chan wsRead) {
	for {
		select {
		case in := <-cmds:
			wc.handle(in)
		case <-wc.ctx.Done():
			return
		}
	}
}

// handle answers one message: its command's ok (and what follows), or
// an error; the connection stays up either way.
func (wc *wsConn) handle(in wsRead) {
	if in.binary {
		wc.send(wc.ctx, wsOut{Type: "error", Detail: "send JSON text messages: a binary message is not read"})
		return
	}
	var m wsIn
	if err := json.Unmarshal(in.data, &m); err != nil {
		wc.send(wc.ctx, wsOut{Type: "error", ID: m.ID, Detail: decodeDetail(err)})
		return
	}
	var err error
	switch m.Type {
	case "subscribe":
		err = wc.subscribe(m)
	case "unsubscribe":
		err = wc.unsubscribe(m)
	case "prompt":
		err = wc.prompt(m)
	case "approve":
		err = wc.approve(m)
	case "answer":
		err = wc.answer(m)
	case "interrupt":
		err = wc.interrupt(m)
	case "":
		err = errors.New(`type is required: ` + wsTypes)
	default:
		if op, ok := wc.wsOpFor(m.Type); ok {
			err = wc.wsOp(m, op)
			break
		}
		err = fmt.Errorf(`unknown type %q: send `+wsTypes, m.Type)
	}
	if err != nil {
		out := wsOut{Type: "error", ID: m.ID, Detail: err.Error()}
		if m.SessionID != nil {
			out.SessionID = *m.SessionID
		}
		wc.send(wc.ctx, out)
	}
}

// decodeDetail says what is wrong with a message that does not decode.
func decodeDetail(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "the message is not JSON: " + err.Error()
	}
	want, got := config.JSONTypeMismatch(te)
	if te.Field == "" {
		return "a message is a JSON object, not " + got
	}
	return fmt.Sprintf("%s must be %s, not %s", te.Field, want, got)
}

// sessionID is the message's session_id, which must name a session.
func (m *wsIn) sessionID() (string, error) {
	if m.SessionID == nil || *m.SessionID == "" {
		return "", errors.New("session_id is required")
	}
	return *m.SessionID, nil
}

// open opens the session id.
func (wc *wsConn) open(id string) (*live.Session, error) {
	sess, err := wc.srv.o.Sessions.Open(wc.ctx, id)
	if errors.Is(err, live.ErrNoSession) {
		return nil, fmt.Errorf("session %s not found", id)
	}
	return sess, err
}

// subscribe follows a session: its current or last run after after_seq
// (in run, when the client names the run it had), then every later run
// from its first frame. A subscription to the same session before this
// one ends first; its frames, if any, come before the ok.
func (wc *wsConn) subscribe(m wsIn) error {
	id, err := m.sessionID()
	if err != nil {
		return err
	}
	sess, err := wc.open(id)
	if err != nil {
		return err
	}
	var cursor int64
	if m.AfterSeq != nil {
		cursor = *m.AfterSeq
	}
	r := sess.LastRun()
	resync := false
	switch {
	case r.ID() == "":
		// The session (as it is open now: a restart, a new workspace) has
		// not run; a client holding frames holds another instance's.
		resync = m.Run != "" || cursor != 0
	case m.Run != "" && m.Run != r.ID():
		// The client's run is over and gone: it gets this one whole, and
		// is told its view does not continue into it.
		cursor, resync = 0, true
	}
	wc.stop(id)
	cursor, resync = wc.resyncFirst(id, r, cursor, resync)
	feed := wc.watchState(id)
	wc.send(wc.ctx, wsOut{Type: "ok", ID: m.ID, SessionID: id, Run: r.ID()})
	wc.watch(sess, r, cursor, resync, feed)
	return nil
}

// resyncFirst sends the resync a subscription starts with ahead of its
// ok, as docs/remote.md has it (a client that reloads on resync must know
// before it takes the ok's run as continuing its view), and returns the
// cursor and resync the watcher starts from. The run's log is looked at
// here; frames evicted before the watcher joins make it say resync again,
// which the protocol allows. Only when the next frame's number is not yet
// known (a run with nothing logged) is the resync left to the watcher.
func (wc *wsConn) resyncFirst(id string, r *live.RunRef, cursor int64, resync bool) (int64, bool) {
	sub, replay, lost, ok := r.Subscribe(cursor)
	if !ok { // the placeholder: the session has not run since it was opened
		if resync {
			wc.send(wc.ctx, wsOut{Type: "resync", SessionID: id, FromSeq: r.LastSeq() + 1})
		}
		return cursor, false
	}
	defer sub.Close()
	if !resync && !lost {
		return cursor, false
	}
	var from int64
	if len(replay) > 0 {
		from = replay[0].Seq
	} else {
		select {
		case f, open := <-sub.C():
			if open {
				from = f.Seq
			} else { // the run has ended: nothing follows its last frame
				from = r.LastSeq() + 1
			}
		default:
			return cursor, true
		}
	}
	wc.send(wc.ctx, wsOut{Type: "resync", SessionID: id, Run: r.ID(), FromSeq: from})
	return from - 1, false
}

// unsubscribe stops following a session; it is ok when the connection
// did not follow it.
func (wc *wsConn) unsubscribe(m wsIn) error {
	id, err := m.sessionID()
	if err != nil {
		return err
	}
	wc.stop(id)
	wc.send(wc.ctx, wsOut{Type: "ok", ID: m.ID, SessionID: id})
	return nil
}

// prompt starts a run, as POST /api/chat does: session_id "" creates a
// session (answered with a session message before the ok). The
// connection follows the session from the run's first frame unless it
// already did.
func (wc *wsConn) prompt(m wsIn) error {
	if m.SessionID == nil {
		return errors.New(`session_id is required: a session's id, or "" for a new session`)
	}
	if strings.TrimSpace(m.Text) == "" && len(m.Attachments) == 0 {
		return errors.New("text is required: the prompt")
	}
	req := chatRequest{SessionID: m.SessionID, Message: m.Text, AgentKey: m.AgentKey, Provider: m.Provider,
		Model: m.Model, WorkspaceDir: m.WorkspaceDir, Attachments: m.Attachments}
	input, err := req.prompt()
	if err != nil {
		return err
	}
	sess, _, err := wc.srv.session(wc.ctx, &req)
	if err != nil {
		return err
	}
	prev := sess.LastRun()
	own, err := sess.Start(input)
	if errors.Is(err, live.ErrBusy) {
		return errors.New(busyDetail(sess.ID()))
	}
	if err != nil {
		return err
	}
	defer own.Close()
	// The run's UI message stream is kept too, as POST /api/chat keeps
	// it: the HTTP stream status and resume_from_seq see this run.
	if sub, replay, _, ok := sess.Follow(0); ok {
		wc.srv.streams.begin(sess, sub, replay, "msg_"+newSuffix())
	}
	if *m.SessionID == "" {
		wc.send(wc.ctx, wsOut{Type: "session", ID: m.ID, SessionID: sess.ID()})
	}
	var feed *stateFeed
	if !wc.subscribed(sess.ID()) {
		feed = wc.watchState(sess.ID())
	}
	wc.send(wc.ctx, wsOut{Type: "ok", ID: m.ID, SessionID: sess.ID()})
	if !wc.subscribed(sess.ID()) {
		// The run after prev is the one Start began (a run that began
		// and ended in between comes first): from its first frame.
		run, err := prev.Next(wc.ctx)
		if err != nil {
			feed.close()
			return nil // the connection is ending
		}
		wc.watch(sess, run, 0, false, feed)
	} else {
		feed.close()
	}
	return nil
}

// approve answers a pending ask of that session only, as POST
// /api/chat/approve does.
func (wc *wsConn) approve(m wsIn) error {
	id, err := m.sessionID()
	if err != nil {
		return err
	}
	if m.RequestID == "" {
		return errors.New("request_id is required: the ask's request_id")
	}
	if m.Approved == nil {
		return errors.New("approved is required: true or false")
	}
	notPending := fmt.Errorf("approval %s is not pending in session %s", m.RequestID, id)
	sess, err := wc.srv.o.Sessions.Open(wc.ctx, id)
	if errors.Is(err, live.ErrNoSession) {
		return notPending
	}
	if err != nil {
		return err
	}
	if err := answerApproval(sess, m.RequestID, *m.Approved, m.Remember); err != nil {
		return notPending
	}
	wc.send(wc.ctx, wsOut{Type: "ok", ID: m.ID, SessionID: id})
	return nil
}

// interrupt stops the session's run, watched or detached; the ok comes
// once the slot is free, and says whether there was a run.
func (wc *wsConn) interrupt(m wsIn) error {
	id, err := m.sessionID()
	if err != nil {
		return err
	}
	sess, err := wc.open(id)
	if err != nil {
		return err
	}
	interrupted := sess.Interrupt()
	wc.send(wc.ctx, wsOut{Type: "ok", ID: m.ID, SessionID: id, Interrupted: &interrupted})
	return nil
}
