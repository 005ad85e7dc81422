// The WebSocket to nova serve's /ws: one connection for every session the
// page follows. It reconnects by itself when the network or the server
// comes back (the app then subscribes again from the last frame it saw,
// so no frame is lost), and matches answers ({"type":"ok"|"error","id"})
// to the requests that carried the id.

// REQUEST_TIMEOUT bounds how long a request waits for its ok or error.
const REQUEST_TIMEOUT = 20000;

export class Socket {
  // protocols() gives the subprotocols to open it with (the token's
  // among them). hooks: frame(msg) for event frames ({seq, session_id,
  // event}), message(msg) for the others (resync, session, errors
  // without an id), state(name) on "connecting", "open" and "closed",
  // open() after each (re)connect.
  constructor(url, protocols, hooks) {
    this.url = url;
    this.protocols = protocols; // () => the subprotocols, the token's among them
    this.hooks = hooks;
    this.ws = null;
    this.nextId = 1;
    this.waiting = new Map(); // id -> {resolve, reject, timer}
    this.retries = 0;
    this.timer = 0;
    this.stopped = false;
    // The browser knows before the socket does that the network went or
    // came back: reconnect at once rather than after the backoff.
    window.addEventListener('online', () => this.connectSoon(0));
    window.addEventListener('offline', () => this.ws && this.ws.close());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && !this.isOpen) this.connectSoon(0);
    });
  }

  get isOpen() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  // stop closes the socket for good (nova refused the token).
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }

  connect() {
    clearTimeout(this.timer);
    this.timer = 0;
    if (this.ws && (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)) return;
    this.hooks.state('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url, this.protocols());
    } catch {
      this.connectSoon();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.retries = 0;
      this.hooks.state('open');
      this.hooks.open();
    };
    ws.onmessage = (e) => this.receive(e.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.failWaiting('the connection to nova was lost');
      this.hooks.state('closed');
      if (!this.stopped) this.connectSoon();
    };
    ws.onerror = () => {
      // onclose follows and does the work.
    };
  }

  // connectSoon reconnects after a backoff that grows to 5 s, with some
  // jitter so many tabs do not come back at the same instant.
  connectSoon(delay) {
    if (this.stopped) return;
    if (delay === undefined) {
      delay = Math.min(5000, 250 * 2 ** this.retries) * (0.75 + Math.random() / 2);
      this.retries += 1;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (msg && msg.event && msg.seq !== undefined) {
      this.hooks.frame(msg);
      return;
    }
    if (msg && (msg.type === 'ok' || msg.type === 'error') && msg.id !== undefined && this.waiting.has(String(msg.id))) {
      const w = this.waiting.get(String(msg.id));
      this.waiting.delete(String(msg.id));
      clearTimeout(w.timer);
      if (msg.type === 'ok') w.resolve(msg);
      else w.reject(new Error(msg.detail || 'nova refused the request'));
      return;
    }
    this.hooks.message(msg);
  }

  // request sends msg with an id and resolves on its ok, rejects on its
  // error, a lost connection or no answer in time.
  request(msg) {
    if (!this.isOpen) return Promise.reject(new Error('not connected to nova'));
    const id = `c${this.nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error('nova did not answer in time'));
      }, REQUEST_TIMEOUT);
      this.waiting.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ ...msg, id }));
    });
  }

  // send sends msg without waiting for an answer; false when not open.
  send(msg) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  failWaiting(reason) {
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(new Error(reason));
    }
    this.waiting.clear();
  }
}
