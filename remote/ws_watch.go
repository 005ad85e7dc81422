package remote

// The /ws connection's side of following sessions: which it follows, and
// the relay of each one's run frames to the socket.

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/nova-dev/nova/agent"
	"github.com/nova-dev/nova/live"
	"github.com/nova-dev/nova/llm"
)

// subscribed says whether the connection follows session id.
func (wc *wsConn) subscribed(id string) bool {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	return wc.subs[id] != nil
}

// stop ends the connection's subscription to id, if any, and waits until
// its watcher has sent its last frame.
func (wc *wsConn) stop(id string) {
	wc.mu.Lock()
	w := wc.subs[id]
	delete(wc.subs, id)
	wc.mu.Unlock()
	if w != nil {
		w.cancel()
		<-w.done
	}
}

// watch starts the connection's watcher of sess at run r, after cursor,
// and of its model and mode through feed (watchState; nil for none).
func (wc *wsConn) watch(sess *live.Session, r *live.RunRef, cursor int64, resync bool, feed *stateFeed) {
	ctx, cancel := context.WithCancel(wc.ctx)
	w := &wsWatch{cancel: cancel, done: make(chan struct{})}
	wc.mu.Lock()
	wc.subs[sess.ID()] = w
	wc.mu.Unlock()
	wc.watchers.Add(1)
	release := sess.Watch() // a followed session is not closed for being idle
	states := make(chan struct{})
	go func() {
		defer close(states)
		wc.followState(ctx, sess.ID(), feed)
	}()
	go func() {
		defer wc.watchers.Done()
		defer close(w.done)
		defer func() { <-states }()
		defer cancel()
		defer release()
		wc.follow(ctx, w, sess.ID(), r, cursor, resync)
	}()
}

// stateFeed is one subscription's watch of its session's model and
// permission mode (live.Controller.Changes).
type stateFeed struct {
	c       *live.Controller
	changed <-chan struct{}
	stop    func()
}

// watchState starts watching session id's model and mode. It is called
// before the subscription's ok goes out, so a change made once the client
// has its ok is never missed; nil when the host has no operations for the
// session (nothing can change them).
func (wc *wsConn) watchState(id string) *stateFeed {
	c, err := wc.srv.o.Sessions.Controller(wc.ctx, id)
	if err != nil {
		return nil
	}
	changed, stop := c.Changes()
	return &stateFeed{c: c, changed: changed, stop: stop}
}

// close ends the watch; nil does nothing.
func (f *stateFeed) close() {
	if f != nil {
		f.stop()
	}
}

// followState tells the client the session's model and permission mode
// each time they change through its controller (the terminal's shift+tab
// or /model when it is shared, another client's set_mode), until ctx
// ends: a page shows what the session runs with, not what it last set.
func (wc *wsConn) followState(ctx context.Context, id string, feed *stateFeed) {
	if feed == nil {
		return
	}
	defer feed.close()
	for {
		select {
		case <-ctx.Done():
			return
		case <-feed.changed:
			st := feed.c.State()
			if !wc.send(ctx, wsOut{Type: "state", SessionID: id, Model: st.Model, PermissionMode: st.PermissionMode}) {
				return
			}
		}
	}
}

// follow sends the session's frames, run after run, until ctx ends or
// the session closes (deleted, or closed to reopen in another
// workspace): then the client is told it is unsubscribed.
func (wc *wsConn) follow(ctx context.Context, w *wsWatch, id string, r *live.RunRef, cursor int64, resync bool) {
	for {
		if !wc.relay(ctx, id, r, cursor, resync) {
			return
		}
		next, err := r.Next(ctx)
		if errors.Is(err, live.ErrClosed) {
			wc.mu.Lock()
			if wc.subs[id] == w {
				delete(wc.subs, id)
			}
			wc.mu.Unlock()
			wc.send(ctx, wsOut{Type: "unsubscribed", SessionID: id,
				Detail: "session " + id + " was closed (deleted, or reopened in another workspace): subscribe again to follow it"})
			return
		}
		if err != nil {
			return
		}
		// A new run: the client gets all of it, from its first frame.
		r, cursor, resync = next, 0, false
	}
}

// relay sends run r's frames after cursor until the run's log ends, and
// reports false when ctx ended first. With resync, or when the log no
// longer holds what follows cursor, a resync message naming the first
// frame that comes goes before it.
func (wc *wsConn) relay(ctx context.Context, id string, r *live.RunRef, cursor int64, resync bool) bool {
	sub, replay, lost, ok := r.Subscribe(cursor)
	if !ok { // the placeholder before the session's first run
		if resync {
			return wc.send(ctx, wsOut{Type: "resync", SessionID: id, FromSeq: r.LastSeq() + 1})
		}
		return true
	}
	// live lets a subscription go when it falls a subscriber buffer behind
	// while the client's queue is full (see wsConn.out); Tail joins again
	// after the last frame sent, and says when frames were lost.
	pending := resync || lost
	first := r.FirstSeq()
	ended := live.Tail(ctx, sub, replay, func(f live.Frame[agent.Event], lost bool) bool {
		if pending || lost {
			if !wc.send(ctx, wsOut{Type: "resync", SessionID: id, Run: r.ID(), FromSeq: f.Seq}) {
				return false
			}
			pending = false
		}
		if f.Seq == first && !wc.send(ctx, wsOut{Type: "run", SessionID: id, Run: r.ID(), FromSeq: f.Seq, Prompt: promptOf(r.Input())}) {
			return false
		}
		return wc.enqueue(ctx, encodeFrame(id, r.ID(), f))
	})
	if ended && pending { // the run ended with nothing more to send
		return wc.send(ctx, wsOut{Type: "resync", SessionID: id, Run: r.ID(), FromSeq: r.LastSeq() + 1})
	}
	return ended
}

// encodeFrame is a frame's JSON. An event always marshals but for a tool
// call input that is not JSON; that is sent as a string (as print mode
// does), and anything else as the event's type with what went wrong.
func encodeFrame(id, run string, f live.Frame[agent.Event]) []byte {
	fr := wsFrame{Type: "event", SessionID: id, Run: run, Seq: f.Seq, Event: f.Value}
	b, err := json.Marshal(fr)
	if err == nil {
		return b
	}
	if c := fr.Event.ToolCall; c != nil {
		safe := *c
		safe.Input = llm.SafeInput(c.Input)
		fr.Event.ToolCall = &safe
		if b, err2 := json.Marshal(fr); err2 == nil {
			return b
		}
	}
	fr.Event = agent.Event{Type: f.Value.Type, Turn: f.Value.Turn, Text: "nova could not encode this event: " + err.Error(),
		ParentToolUseID: f.Value.ParentToolUseID, Agent: f.Value.Agent}
	b, _ = json.Marshal(fr)
	return b
}
