// nova's web UI: the page's wiring. It shows one session at a time: its
// history from the HTTP API, then its live events over the WebSocket
// (/ws), subscribed from the last frame the page saw so that a reload or
// a lost connection misses nothing and shows nothing twice.

import { basename } from './dom.js';
import { api, onUnauthorized } from './api.js';
import * as auth from './auth.js';
import { Socket } from './socket.js';
import { Transcript, typed } from './transcript.js';
import { WorkspacePicker, loadModels } from './pickers.js';
import { Drawer, autosize, followViewport, sessionItems } from './layout.js';
import { McpBox } from './mcp.js';
import { SessionBar } from './ops.js';

const $ = (id) => document.getElementById(id);

// The token comes in the address's fragment once (auth.js): into this
// tab's storage with it, and out of the address bar and the history.
const freshToken = auth.take();

const el = {
  title: $('session-title'),
  menu: $('menu-button'),
  sidebar: $('sidebar'),
  scrim: $('scrim'),
  list: $('session-list'),
  newSession: $('new-session'),
  model: $('model'),
  workspace: $('workspace'),
  workspacePath: $('workspace-path'),
  transcript: $('transcript'),
  composer: $('composer'),
  prompt: $('prompt'),
  send: $('send'),
  stop: $('stop'),
  waiting: $('waiting'),
  waitingText: $('waiting-text'),
  showAsk: $('show-ask'),
  error: $('composer-error'),
  conn: $('conn'),
  context: $('context'),
  meter: $('context-meter'),
  contextText: $('context-text'),
  announce: $('announce'),
};

// state is the page's one piece of mutable state.
const state = {
  current: null, // the session shown; null for a new one
  creating: null, // {text} while a prompt without a session waits for its id
  running: false,
  seen: 0, // the last frame of the current session applied
  guard: null, // how to take the frames that follow a load (see openSession)
  loading: false, // the current session's history is on its way: no subscription yet
  sessions: [],
  workspace: '', // the workspace of new sessions; '' is the server's
  serverWorkspace: '',
  pendingAsks: [],
  sent: [], // the prompts this page sent whose run message has not come (see onRun)
  kick: 0,
  loadToken: 0,
};

const picker = new WorkspacePicker();
const mcp = new McpBox($('mcp-pending'), { announce });
const drawer = new Drawer(el.sidebar, el.scrim, el.menu, $('close-menu'));

function announce(text) {
  el.announce.textContent = '';
  // A change the screen reader hears even when the text repeats.
  setTimeout(() => (el.announce.textContent = text), 30);
}

function showError(text) {
  el.error.textContent = text || '';
}

const transcript = new Transcript(el.transcript, {
  answer: (ask, ans) => answerAsk(ask, ans),
  answerQuestion: (q, answers) => answerQuestion(q, answers),
  asks: (pending) => {
    state.pendingAsks = pending;
    el.waiting.hidden = pending.length === 0;
    el.waitingText.textContent = pending.some((p) => p.question) ? 'nova is waiting for your answer.' : 'nova is waiting for your approval.';
    if (pending.length && !el.prompt.value) pending[pending.length - 1].card.focusFirst();
  },
  context: showContext,
  announce,
});

// bar is the session's operations: model, mode, compact, rules, !cmd.
const bar = new SessionBar({ bar: $('session-bar'), model: $('session-model'), mode: $('session-mode'), compact: $('compact'), rules: $('rules') }, {
  current: () => state.current,
  session: (id) => state.sessions.find((s) => s.id === id) || null,
  update: (id, fields) => {
    const s = state.sessions.find((x) => x.id === id);
    if (s) Object.assign(s, fields);
  },
  error: showError,
  announce,
  note: (text) => {
    transcript.note(text, 'notice op');
    transcript.endArticle();
    transcript.toBottom();
  },
  expect: (prompt) => state.sent.push(prompt),
  unexpect: (prompt) => {
    const k = state.sent.lastIndexOf(prompt);
    if (k >= 0) state.sent.splice(k, 1);
  },
  addUser: (text) => {
    const shown = transcript.addUser(text);
    transcript.toBottom();
    return shown;
  },
  shellRow: (command) => transcript.shellRow(command),
  shellAnswer: (command, res) => transcript.shellAnswer(command, res),
});

const socket = new Socket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`, auth.protocols, {
  state: (s) => {
    el.conn.textContent = s === 'open' ? '' : s === 'connecting' ? 'Connecting…' : 'Offline, reconnecting…';
    el.conn.dataset.state = s;
  },
  open: () => resume(),
  frame: onFrame,
  message: onMessage,
});

// The last frame shown per session is kept for the tab's life, so a
// reload follows on from it (the stream status's last_seq is the
// server's word for a tab that has none).
const seqKey = (id) => `nova.seq.${id}`;

function rememberSeq(id, seq) {
  try {
    sessionStorage.setItem(seqKey(id), String(seq));
  } catch {
    // storage off or full: a reload goes by the stream status alone
  }
}

function storedSeq(id) {
  try {
    const v = Number(sessionStorage.getItem(seqKey(id)));
    return Number.isFinite(v) && v > 0 ? v : 0;
  } catch {
    return 0;
  }
}

// subscribe follows session id from the frame after afterSeq. quiet
// leaves a refusal unsaid (a second subscribe that only makes sure).
function subscribe(id, afterSeq, quiet = false) {
  socket.request({ type: 'subscribe', session_id: id, after_seq: afterSeq }).catch((err) => {
    if (!quiet && socket.isOpen && state.current === id) showError(`Could not follow this session: ${err.message}`);
  });
}

// resume follows the current session again after the socket came back:
// from the last frame shown, unless the server has no stream of the
// session any more (nova serve was restarted: its numbers start over),
// when only a fresh load is right.
async function resume() {
  const id = state.current;
  if (!id || state.loading) return; // a load in progress subscribes itself
  let status = null;
  try {
    status = await api.status(id);
  } catch {
    // the server is not answering yet: the socket will drop and retry
  }
  if (state.current !== id || state.loading) return;
  if (!status && state.seen > 0) openSession(id, { push: false });
  else {
    subscribe(id, state.seen);
    refreshSession(id);
  }
}

function setRunning(on) {
  state.running = on;
  el.send.hidden = on;
  el.stop.hidden = !on;
  el.stop.disabled = false;
  el.model.disabled = on || state.current !== null;
}

// route shows the session's address (/s/<id>), so a reload opens it.
function route(id, replace = false) {
  const path = id ? `/s/${encodeURIComponent(id)}` : '/';
  if (location.pathname === path) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
}

function routeSession() {
  const m = /^\/s\/([^/]+)$/.exec(location.pathname);
  return m ? decodeURIComponent(m[1]) : null;
}

// ---- sessions ------------------------------------------------------------

async function refreshSessions() {
  try {
    state.sessions = await api.sessions();
  } catch (err) {
    showError(`Could not list the sessions: ${err.message}`);
    return;
  }
  renderSessions();
}

// refreshSession reads session id again (its model and mode may have
// changed in the terminal or another page) and shows it.
async function refreshSession(id) {
  let s;
  try {
    s = await api.session(id);
  } catch {
    return; // the list's copy stays; a gone session is said by its load
  }
  const k = state.sessions.findIndex((x) => x.id === id);
  if (k >= 0) state.sessions[k] = s;
  else state.sessions.unshift(s);
  if (state.current === id) renderSessions();
}

function renderSessions() {
  el.list.replaceChildren(...sessionItems(state.sessions, state.current, (id) => {
    drawer.close();
    if (id !== state.current) openSession(id);
  }));
  const cur = state.sessions.find((s) => s.id === state.current);
  el.title.textContent = state.current ? (cur && cur.title) || 'Untitled session' : 'New session';
  document.title = state.current && cur && cur.title ? `${cur.title} · nova` : 'nova';
  showWorkspace(cur);
  bar.show(state.current);
}

function showWorkspace(cur) {
  const dir = state.current ? (cur && cur.workspace_dir) || state.serverWorkspace : state.workspace || state.serverWorkspace;
  const isDefault = state.current ? !(cur && cur.workspace_dir) : !state.workspace;
  el.workspace.textContent = dir ? basename(dir) : 'Server default';
  el.workspacePath.textContent = dir ? `${dir}${isDefault ? ' (server default)' : ''}` : '';
}

// newSession shows an empty page; the session is made by its first prompt.
function newSession(push = true) {
  state.loadToken += 1;
  if (state.current) socket.send({ type: 'unsubscribe', session_id: state.current });
  state.current = null;
  state.creating = null;
  state.sent = [];
  state.guard = null;
  state.loading = false;
  state.seen = 0;
  transcript.clear();
  mcp.clear();
  transcript.welcome('Type what you want done to start a session. It runs in the workspace and with the model chosen under New session.');
  setRunning(false);
  el.context.hidden = true;
  if (push) route(null);
  renderSessions();
  showError('');
  el.prompt.focus();
}

// openSession shows session id: its history, then its live frames.
//
// A run that is going on has its first messages in the history already
// (the prompt, finished turns) and the rest only in its frames. So the
// history is shown up to the run's prompt and the run's frames from the
// start (after_seq 0). If the server no longer has them all (resync),
// the history's part of the run is shown too and the frames it covers
// are skipped (see skipCovered). A session with no run going on is shown
// whole and followed from the stream status's last frame.
async function openSession(id, { push = true } = {}) {
  const token = ++state.loadToken;
  // Even for the same session (a reload after a resync): the new
  // subscription starts from the cursor the new history calls for.
  if (state.current) socket.send({ type: 'unsubscribe', session_id: state.current });
  state.current = id;
  state.creating = null;
  state.sent = [];
  state.guard = null;
  state.loading = true;
  if (push) route(id);
  renderSessions();
  showError('');
  transcript.clear();
  mcp.clear();
  let records;
  let status;
  try {
    [records, status] = await Promise.all([api.messages(id), api.status(id)]);
  } catch (err) {
    if (token !== state.loadToken) return;
    state.loading = false;
    if (err.status === 404) {
      showError('That session no longer exists.');
      newSession();
      return;
    }
    showError(`Could not load the session: ${err.message}`);
    return;
  }
  if (token !== state.loadToken) return; // another session was picked meanwhile
  state.loading = false;
  const active = !!status && (status.status === 'active' || status.status === 'detached');
  if (active) {
    let last = -1;
    records.forEach((r, k) => {
      if (r.role === 'user') last = k;
    });
    const tail = records.slice(last + 1);
    transcript.history(records.slice(0, last + 1));
    state.guard = { mode: 'run', fresh: true, tail, turns: tail.filter((r) => r.role === 'assistant').length,
      prompt: last >= 0 ? typed(records[last].content) : null };
    state.seen = 0;
  } else {
    transcript.history(records);
    transcript.stopRows();
    if (!records.length) transcript.welcome('This session has no messages yet.');
    // Every frame up to the status's last_seq is in the history (the
    // two were read together, with no run going on). Without a status
    // the server has no frames of the session: whatever comes is new.
    // A cursor past the server's frames (a restarted server) is answered
    // with a resync; that, or a status with no last_seq, makes what
    // follows suspect (holdSuspect).
    state.seen = status ? Math.max(status.last_seq || 0, storedSeq(id)) : 0;
    let lastUser = -1;
    records.forEach((r, k) => {
      if (r.role === 'user') lastUser = k;
    });
    const answers = records.slice(lastUser + 1).filter((r) => r.role === 'assistant' && (r.content || '').trim());
    state.guard = {
      mode: 'idle',
      fresh: true,
      suspect: !!status && state.seen === 0,
      held: [],
      lastAnswer: answers.length ? answers[answers.length - 1].content : '',
    };
  }
  setRunning(active);
  el.transcript.scrollTop = el.transcript.scrollHeight;
  if (socket.isOpen) subscribe(id, state.seen);
  loadContext(id);
  mcp.load(id);
  refreshSession(id);
}

async function loadContext(id) {
  try {
    const u = await api.context(id);
    if (state.current === id) showContext(u);
  } catch {
    el.context.hidden = true; // no model to ask (another process has it open, no provider)
  }
}

function showContext(u) {
  if (!u || !u.limit) return;
  el.context.hidden = false;
  const pct = Math.max(0, Math.min(100, u.percent));
  el.meter.value = pct;
  el.contextText.textContent = `${u.percent}%`;
  el.meter.title = `${u.used} of ${u.limit} tokens before compaction`;
}

// ---- frames --------------------------------------------------------------

// skipCovered says a replayed frame of a run is already on the page from
// the history: the run's finished turns, and results the history has.
function skipCovered(ev, g) {
  if (ev.parent_tool_use_id) {
    // A subagent's work: covered when its Agent call has its result.
    const row = transcript.rows.get(ev.parent_tool_use_id);
    return !!row && row.state !== 'running' && row.state !== 'asking';
  }
  if (ev.turn && ev.turn <= g.turns && ['turn_start', 'text_delta', 'thinking_delta', 'tool_call', 'turn_end'].includes(ev.type)) return true;
  if (ev.type === 'tool_result' && ev.result) {
    const row = transcript.rows.get(ev.result.id);
    return !!row && row.state !== 'running' && row.state !== 'asking';
  }
  return false;
}

function onFrame(msg) {
  if (state.loading) return; // not subscribed yet: a frame of a session left behind
  if (msg.session_id !== state.current) {
    if (state.creating && state.current === null) adopt(msg.session_id);
    else return;
  }
  if (msg.seq <= state.seen) return; // a replay of what is on the page
  state.seen = msg.seq;
  rememberSeq(msg.session_id, msg.seq);
  clearTimeout(state.kick);
  const ev = msg.event;
  const g = state.guard;
  if (g) {
    g.fresh = false;
    if (g.suspect) {
      holdSuspect(g, ev, msg.session_id);
      return;
    }
    if (g.partial && skipCovered(ev, g)) return;
  }
  show(ev, msg.session_id);
}

function show(ev, id) {
  if (ev.type === 'prompt') {
    // A run's prompt sent from elsewhere (see onRun).
    transcript.addUser(ev.text, ev.images);
    announce('A message was sent from another window.');
    return;
  }
  if (ev.type !== 'done' && !state.running) setRunning(true);
  transcript.apply(ev);
  if (ev.type === 'done') runEnded(id, ev.done || {});
}

// holdSuspect holds the frames that follow a load whose cursor may be
// behind the history (a resync, or a status without a last_seq): they
// may replay the run the history ends with. At that run's done they are
// dropped if its answer is the history's last, and shown otherwise; a
// call the page has never seen shows at once that the run is new.
function holdSuspect(g, ev, id) {
  g.held.push(ev);
  const fresh = ev.type === 'tool_call' && ev.tool_call && !ev.parent_tool_use_id && !transcript.rows.has(ev.tool_call.id);
  if (!fresh && ev.type !== 'done') return;
  const old = ev.type === 'done' && ((ev.done && ev.done.result) || '').trim() === g.lastAnswer.trim();
  const held = g.held;
  g.suspect = false;
  g.held = [];
  if (old) return;
  for (const e of held) show(e, id);
}

function runEnded(id, done) {
  state.guard = null;
  setRunning(false);
  if (done.subtype === 'interrupted') announce('Stopped.');
  else if (done.is_error) announce('The run failed.');
  else announce('nova finished.');
  // The server names the session after its first exchange (live's one
  // title policy, whichever frontend started it): the list shows it.
  refreshSessions();
  if (id === state.current) mcp.load(id);
}

function onMessage(msg) {
  if (!msg || !msg.type) return;
  switch (msg.type) {
    case 'session':
      if (state.creating && state.current === null) adopt(msg.session_id);
      break;
    case 'resync': {
      if (msg.session_id !== state.current) return;
      refreshSession(msg.session_id);
      const g = state.guard;
      const from = Number(msg.from_seq) || 0;
      if (g && g.fresh && g.mode === 'run') {
        // The run's first frames are gone: show the history's part of it.
        transcript.history(g.tail);
        g.partial = true;
        state.seen = Math.max(0, from - 1);
      } else if (g && g.fresh && g.mode === 'idle') {
        state.seen = Math.max(0, from - 1);
        g.suspect = true;
      } else {
        // Frames were lost while the page was away: load it all again.
        openSession(state.current, { push: false });
      }
      break;
    }
    case 'run':
      onRun(msg);
      break;
    case 'state':
      bar.apply(msg.session_id, msg);
      break;
    case 'unsubscribed':
      // The server closed the session (idle, deleted, or reopened in
      // another workspace): load it again, which opens it, or says it
      // is gone.
      if (msg.session_id === state.current && !state.loading) openSession(state.current, { push: false });
      break;
    case 'error':
      if (msg.detail) showError(msg.detail);
      break;
    default:
      break;
  }
}

// onRun shows the prompt of a run that starts, whoever sent it: the
// terminal the session is shared from, another browser, or this page
// (whose own prompt is on the page already and is not shown twice).
function onRun(msg) {
  if (state.creating && state.current === null && msg.session_id) adopt(msg.session_id);
  if (msg.session_id !== state.current || state.loading) return;
  if ((Number(msg.from_seq) || 0) <= state.seen) return; // the page has this run
  const p = msg.prompt || { text: '' };
  const g = state.guard;
  if (g && g.fresh && g.mode === 'run') {
    if (g.prompt !== null && (p.text || '').trim() === g.prompt.trim()) return; // the run the history ends with: its prompt is shown
    // The history was read just before this run began: the turn it ends
    // with is a finished run, shown whole, and this run is new.
    transcript.history(g.tail);
    transcript.stopRows();
    g.tail = [];
    g.turns = 0;
  }
  const own = state.sent.indexOf(p.text);
  if (own >= 0) {
    state.sent.splice(own, 1);
    return;
  }
  const ev = { type: 'prompt', text: p.text || '', images: p.images || [] };
  if (g && g.suspect) g.held.push(ev);
  else show(ev, msg.session_id);
}

// adopt makes the session a prompt created the page's own.
function adopt(id) {
  state.creating = null;
  state.current = id;
  state.seen = 0;
  state.guard = null;
  route(id, true);
  subscribe(id, 0);
  refreshSessions();
}

// ---- actions -------------------------------------------------------------

async function sendPrompt() {
  const text = el.prompt.value;
  if (!text.trim()) return;
  if (text.trimStart().startsWith('!') && !state.loading) {
    // A person's own command: run through the session's pipeline by the
    // shell route, as the terminal's !cmd is. A busy session says so.
    el.prompt.value = '';
    autosize(el.prompt);
    if (!(await bar.shell(text.trimStart()))) el.prompt.value = text;
    return;
  }
  if (state.running) {
    announce('nova is still working: wait for it, or stop it.');
    return;
  }
  if (state.loading) {
    announce('The session is still loading.');
    return;
  }
  if (!socket.isOpen) {
    showError('Not connected to nova: your message is kept; send it again once the connection is back.');
    return;
  }
  showError('');
  const msg = { type: 'prompt', session_id: state.current || '', text };
  if (!state.current) {
    if (state.workspace) msg.workspace_dir = state.workspace;
    if (el.model.value) {
      const [provider, ...rest] = el.model.value.split(':');
      msg.provider = provider;
      msg.model = rest.join(':');
    }
    state.creating = { text };
  }
  transcript.addUser(text);
  transcript.toBottom(); // the person's own prompt, even when they had scrolled up
  state.sent.push(text);
  el.prompt.value = '';
  autosize(el.prompt);
  setRunning(true);
  const sid = state.current;
  try {
    const ok = await socket.request(msg);
    if (!state.current && ok.session_id) adopt(ok.session_id);
    // Should the subscription not follow the new run, ask again.
    if (sid) {
      clearTimeout(state.kick);
      state.kick = setTimeout(() => state.current === sid && subscribe(sid, state.seen, true), 2000);
    }
  } catch (err) {
    const k = state.sent.lastIndexOf(text);
    if (k >= 0) state.sent.splice(k, 1);
    state.creating = null;
    setRunning(false);
    showError(`nova did not take the message: ${err.message}`);
    if (!el.prompt.value) el.prompt.value = text;
    autosize(el.prompt);
  }
}

async function stopRun() {
  if (!state.current) return;
  el.stop.disabled = true;
  try {
    if (socket.isOpen) await socket.request({ type: 'interrupt', session_id: state.current });
    else await api.interrupt(state.current);
    announce('Stopping…');
  } catch (err) {
    el.stop.disabled = false;
    showError(`Could not stop the run: ${err.message}`);
  }
}

function answerAsk(ask, ans) {
  const id = state.current;
  if (socket.isOpen) {
    return socket.request({ type: 'approve', session_id: id, request_id: ask.request_id, approved: ans.approved, remember: ans.remember });
  }
  return api.approve(id, ask.request_id, ans.approved, ans.remember);
}

function answerQuestion(q, answers) {
  const id = state.current;
  const msg = answers ? { answers } : { declined: true };
  if (socket.isOpen) return socket.request({ type: 'answer', session_id: id, question_id: q.id, ...msg });
  return api.answer(id, q.id, msg);
}


async function pickWorkspace() {
  const cur = state.sessions.find((s) => s.id === state.current);
  const start = state.current ? (cur && cur.workspace_dir) || state.serverWorkspace : state.workspace || state.serverWorkspace;
  const dir = await picker.pick(start);
  el.workspace.focus();
  if (dir === null) return;
  if (!state.current) {
    state.workspace = dir;
    showWorkspace(null);
    return;
  }
  try {
    await api.setWorkspace(state.current, dir || null);
    await refreshSessions();
    announce('Workspace changed.');
  } catch (err) {
    showError(`Could not change the workspace: ${err.message}`);
  }
}

// ---- start ---------------------------------------------------------------

el.composer.addEventListener('submit', (e) => {
  e.preventDefault();
  sendPrompt();
});
el.prompt.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
    e.preventDefault();
    sendPrompt();
  }
});
el.prompt.addEventListener('input', () => autosize(el.prompt));
el.stop.addEventListener('click', stopRun);
el.newSession.addEventListener('click', () => {
  drawer.close();
  newSession();
});
el.workspace.addEventListener('click', pickWorkspace);
el.showAsk.addEventListener('click', () => {
  const a = state.pendingAsks[state.pendingAsks.length - 1];
  if (!a) return;
  for (const r of a.outer || []) r.el.open = true;
  if (a.row) a.row.el.open = true;
  a.card.scrollIntoView({ block: 'center' });
  a.card.focusFirst();
});
window.addEventListener('popstate', () => {
  const id = routeSession();
  if (id) openSession(id, { push: false });
  else newSession(false);
});
followViewport();

// signedOut is the page without a token nova takes: it says how to get
// one, and talks to nova no more.
function signedOut() {
  auth.forget();
  socket.stop();
  state.current = null;
  transcript.clear();
  mcp.clear();
  transcript.welcome('This page needs the token nova was started with. Open the URL nova printed (http://…/#token=…) in this tab: the token then stays in this tab, out of the address bar.');
  el.conn.textContent = 'Signed out';
  el.conn.dataset.state = 'signed-out';
  el.prompt.disabled = true;
  el.send.disabled = true;
  el.list.replaceChildren();
}
onUnauthorized(signedOut);

async function start() {
  if (!auth.token()) {
    signedOut();
    return;
  }
  if (freshToken && !routeSession()) {
    // The printed URL leads to its page: a shared session's own.
    const to = await api.landing().catch(() => '/');
    if (to !== location.pathname && /^\/s\/[^/]+$/.test(to)) history.replaceState(null, '', to);
  }
  socket.start();
  loadModels(el.model).then((items) => bar.setModels(items)).catch((err) => showError(`Could not list the models: ${err.message}`));
  api.fsList('').then((d) => {
    state.serverWorkspace = d.path;
    renderSessions();
  }).catch(() => {});
  const id = routeSession();
  await refreshSessions();
  if (id) openSession(id, { push: false });
  else newSession(false);
}

start();
