// The conversation on the page: the history of a session (its
// MessageRecords) and the live events of its runs (agent.Event JSON)
// rendered into one list of messages. User messages are plain text; the
// agent's text is Markdown (rendered safely, see markdown.js), its
// thinking a collapsed block, its tool calls rows (tools.js) that take an
// approval in place (approval.js) or a question (question.js). A
// subagent's work (events with parent_tool_use_id) is a Transcript of its
// own inside the row of the Agent call it works for.

import { h } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { ToolRow, todoList } from './tools.js';
import { approvalCard, who } from './approval.js';
import { questionCard } from './question.js';

// INTERRUPTED are the notes agent.InterruptedNote and
// agent.InterruptedForToolNote put in history when a run is stopped.
const INTERRUPTED = new Set(['[Request interrupted by user]', '[Request interrupted by user for tool use]']);

// CONTEXT_BLOCK is a block of the context message nova puts before a
// session's first prompt (agent.ContextSource: the environment, the
// instruction files, memory). The history may hold it with the prompt;
// it is nova's, not what the person typed.
const CONTEXT_BLOCK = /^\s*<(environment|instructions|memory)>[\s\S]*?<\/\1>/;

// typed is what the person typed of a user message's content.
export function typed(content) {
  let s = content || '';
  if (!/^\s*<environment>/.test(s)) return s;
  let m;
  while ((m = CONTEXT_BLOCK.exec(s))) s = s.slice(m[0].length);
  return s.replace(/^\s+/, '');
}

// Transcript renders into el (the scrolling list). hooks:
//   answer(ask, {approved, remember}) -> Promise  sends an approval
//   answerQuestion(q, answers|null) -> Promise    sends a question's answers
//   asks(pending)   the asks and questions waiting now changed (an array)
//   context(usage)  a context event's usage
//   announce(text)  for the screen reader's status line
// sub, for a subagent's transcript: {parentId, agent, row} (the Agent
// call's id and row).
export class Transcript {
  constructor(el, hooks, sub = null) {
    this.el = el;
    this.hooks = hooks;
    this.sub = sub;
    this.clear();
  }

  // clear empties the page for another session (or a fresh render).
  clear() {
    this.el.replaceChildren();
    this.rows = new Map(); // tool call id -> ToolRow
    this.asks = new Map(); // request id -> {ask, row, card, outer}
    this.questions = new Map(); // question id -> {question, row, card, outer}
    this.subs = new Map(); // Agent call id -> its subagent's Transcript
    this.article = null; // the agent's message being written
    this.seg = null; // its open text or thinking segment
    this.todos = null;
    this.attempt = []; // what the current model attempt added (a retry may void it)
    this.pendingRender = new Set();
    this.frame = 0;
    this.hooks.asks([]);
  }

  // empty says there is nothing on the page yet.
  get empty() {
    return this.el.children.length === 0;
  }

  // welcome is shown for a new session.
  welcome(text) {
    this.el.replaceChildren(h('div', { class: 'welcome' }, h('p', { text })));
  }

  dropWelcome() {
    const w = this.el.querySelector('.welcome');
    if (w) w.remove();
  }

  // stick keeps the view at the bottom while it grows, unless the reader
  // scrolled up to read something.
  stick(fn) {
    if (this.sub) return this.root().stick(fn); // the page scrolls, not the row
    const s = this.el;
    const atBottom = s.scrollHeight - s.scrollTop - s.clientHeight < 120;
    fn();
    if (atBottom) s.scrollTop = s.scrollHeight;
  }

  // toBottom shows the end of the conversation: after something the
  // person did (a prompt, a !cmd, a switch), which they mean to see.
  toBottom() {
    this.el.scrollTop = this.el.scrollHeight;
  }

  // addUser shows a prompt.
  addUser(text, images = []) {
    this.dropWelcome();
    this.endArticle();
    const el = h('article', { class: 'msg user', 'aria-label': 'You' },
      h('div', { class: 'who', text: 'You' }),
      h('div', { class: 'user-text', text }),
      (images || []).filter((src) => /^data:image\/(png|jpeg|gif|webp);base64,/.test(src))
        .map((src) => h('img', { src, alt: 'attached image', class: 'attached' })));
    this.stick(() => this.el.append(el));
    return el;
  }

  // ensureArticle opens the agent's message if none is open.
  ensureArticle() {
    this.dropWelcome();
    if (!this.article) {
      const name = this.sub ? who(this.sub.agent) : 'nova';
      this.article = h('article', { class: `msg assistant${this.sub ? ' subagent-msg' : ''}`, 'aria-label': name }, h('div', { class: 'who', text: name }));
      this.stick(() => this.el.append(this.article));
    }
    return this.article;
  }

  endArticle() {
    this.closeSeg();
    this.article = null;
    this.todos = null;
  }

  closeSeg() {
    if (this.seg && this.seg.kind === 'text') this.renderSeg(this.seg);
    this.seg = null;
  }

  // textSeg returns the open segment of kind ('text' or 'thinking'),
  // opening one after whatever came before.
  openSeg(kind) {
    if (this.seg && this.seg.kind === kind) return this.seg;
    this.closeSeg();
    const art = this.ensureArticle();
    let seg;
    if (kind === 'text') {
      seg = { kind, raw: '', el: h('div', { class: 'markdown' }) };
    } else {
      const body = h('div', { class: 'thinking-text' });
      seg = { kind, raw: '', body, el: h('details', { class: 'thinking' }, h('summary', { text: 'Thinking' }), body) };
    }
    this.stick(() => art.append(seg.el));
    this.attempt.push(seg.el);
    this.seg = seg;
    return seg;
  }

  // renderSeg renders a text segment's Markdown. While text streams in,
  // this runs once per animation frame, not once per delta.
  renderSeg(seg) {
    this.pendingRender.delete(seg);
    this.stick(() => seg.el.replaceChildren(renderMarkdown(seg.raw)));
  }

  scheduleRender(seg) {
    this.pendingRender.add(seg);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      for (const s of [...this.pendingRender]) this.renderSeg(s);
    });
  }

  addText(text, kind = 'text') {
    const seg = this.openSeg(kind);
    seg.raw += text;
    if (kind === 'text') this.scheduleRender(seg);
    else this.stick(() => seg.body.append(text));
  }

  // addRow adds a tool call's row.
  addRow(call) {
    this.closeSeg();
    const art = this.ensureArticle();
    let input = call.input;
    if (typeof input === 'string') {
      try {
        input = JSON.parse(input);
      } catch {
        // keep the string
      }
    }
    const row = new ToolRow({ ...call, input });
    // A person's own command (!cmd) is shown open: its output is the
    // answer they asked for.
    if (String(call.id).startsWith('shell_')) {
      row.el.classList.add('shell');
      row.el.open = true;
    }
    this.rows.set(call.id, row);
    this.stick(() => art.append(row.el));
    this.attempt.push(row.el);
    return row;
  }

  // shellRow is the row of the person's command whose result came and
  // whose exit code is not shown yet, the latest one.
  shellRow(command) {
    let found = null;
    for (const row of this.rows.values()) {
      if (String(row.id).startsWith('shell_') && row.input && row.input.command === command && !row.shellDone &&
        row.state !== 'running' && row.state !== 'asking') found = row;
    }
    return found;
  }

  // shellAnswer shows a command's answer (its output and exit code) when
  // its row did not come over the stream.
  shellAnswer(command, res) {
    this.closeSeg();
    const art = this.ensureArticle();
    const el = h('div', { class: 'shell-answer' },
      h('pre', { class: 'out command', tabindex: '0', text: `$ ${command}` }),
      h('pre', { class: `out ${res.exit_code ? 'bad' : ''}`, tabindex: '0', text: res.output || '(no output)' }),
      h('p', { class: `meta ${res.exit_code ? 'bad' : ''}`, text: res.denied ? 'Not run.' : `exit ${res.exit_code}` }));
    this.stick(() => art.append(el));
    this.endArticle();
  }

  note(text, cls = 'notice') {
    this.closeSeg();
    const art = this.ensureArticle();
    const el = h('p', { class: cls, role: cls === 'error' ? 'alert' : null, text });
    this.stick(() => art.append(el));
    return el;
  }

  // history renders a session's MessageRecords. It returns the rows whose
  // result is not in the records (a run that was stopped, or goes on).
  history(records) {
    for (const r of records) {
      if (r.role === 'user') {
        const text = typed(r.content);
        // The note nova keeps for the model when a run was stopped (Claude
        // Code's words) is shown as it was live, not as something you said.
        if (INTERRUPTED.has(text.trim())) this.note('Stopped.', 'notice stopped');
        else if (text.trim() || (r.images && r.images.length)) this.addUser(text, r.images || []);
      } else if (r.role === 'assistant') {
        this.ensureArticle();
        if (r.reasoning_content) {
          this.addText(r.reasoning_content, 'thinking');
          this.closeSeg();
        }
        if (r.content) {
          this.addText(r.content);
          this.closeSeg();
        }
        for (const c of r.tool_calls || []) this.addRow(c);
      } else if (r.role === 'tool') {
        const row = this.rows.get(r.tool_call_id);
        if (row) row.result({ output: r.content });
      }
    }
    this.closeSeg();
    this.attempt = [];
    return [...this.rows.values()].filter((row) => row.state === 'running');
  }

  // stopRows marks calls without a result as stopped.
  stopRows() {
    for (const row of this.rows.values()) row.stopped();
  }

  // apply renders one live event.
  apply(ev) {
    const pid = ev.parent_tool_use_id;
    if (pid && !(this.sub && this.sub.parentId === pid)) {
      this.subagent(pid, ev.agent).apply(ev);
      return;
    }
    switch (ev.type) {
      case 'turn_start':
        this.ensureArticle();
        this.closeSeg();
        this.attempt = [];
        break;
      case 'text_delta':
        if (ev.text) this.addText(ev.text);
        break;
      case 'thinking_delta':
        if (ev.text) this.addText(ev.text, 'thinking');
        break;
      case 'tool_call':
        if (ev.tool_call && !this.rows.has(ev.tool_call.id)) this.addRow(ev.tool_call);
        break;
      case 'permission_ask':
        if (ev.ask) this.ask(ev.ask);
        break;
      case 'tool_progress':
        if (ev.progress) this.rows.get(ev.progress.call_id)?.progress(ev.progress);
        break;
      case 'tool_result':
        if (ev.result) this.result(ev.result);
        break;
      case 'todos':
        this.showTodos(ev.todos || []);
        break;
      case 'context':
        if (ev.context) this.hooks.context(ev.context);
        break;
      case 'compaction':
        if (ev.compaction) this.note(`History compacted: ${ev.compaction.before_tokens} → ${ev.compaction.after_tokens} tokens.`);
        break;
      case 'retry':
        this.retry(ev);
        break;
      case 'notice':
        if (ev.text) this.note(ev.text);
        break;
      case 'error':
        this.note(ev.text || 'error', 'error');
        break;
      case 'question':
        if (ev.question) this.question(ev.question);
        break;
      case 'answered':
        if (ev.answered) this.answered(ev.answered);
        break;
      case 'done':
        this.done(ev.done || {});
        break;
      default:
        break; // turn_end and kinds this UI does not know
    }
  }

  // owner is the transcript, this one or a subagent's within it, that
  // has the call id's row.
  owner(id) {
    if (this.rows.has(id)) return this;
    for (const t of this.subs.values()) {
      const o = t.owner(id);
      if (o) return o;
    }
    return null;
  }

  // subagent is the transcript of the subagent working for the Agent
  // call id, made in that call's row on its first event.
  subagent(id, agent) {
    const holder = this.owner(id) || this;
    let t = holder.subs.get(id);
    if (t) return t;
    let row = holder.rows.get(id);
    if (!row) row = holder.addRow({ id, name: 'Agent', input: agent && agent.description ? { description: agent.description } : {} });
    const label = agent ? `${agent.type || 'Subagent'}${agent.description ? `: ${agent.description}` : ''}` : 'Subagent';
    const hooks = { ...this.hooks, asks: () => this.root().hooks.asks(this.root().pending()), context: () => {} };
    t = new Transcript(row.nest(label), hooks, { parentId: id, agent: agent || null, row, parent: holder });
    holder.subs.set(id, t);
    return t;
  }

  root() {
    let t = this;
    while (t.sub) t = t.sub.parent;
    return t;
  }

  // outerRows are the rows of the Agent calls this subagent works
  // within, innermost first: they open with its asks.
  outerRows() {
    const out = [];
    for (let t = this; t.sub; t = t.sub.parent) out.push(t.sub.row);
    return out;
  }

  // ask shows an approval in the call's row (a row is made for an ask
  // whose call was not seen, as after a resync).
  ask(ask) {
    if (this.asks.has(ask.request_id)) return;
    let row = this.rows.get(ask.id);
    if (!row) row = this.addRow({ id: ask.id, name: ask.tool, input: ask.input });
    if (row.state !== 'running' && row.state !== 'asking') return; // answered already
    const agent = this.sub ? this.sub.agent : null;
    const card = approvalCard(ask, (ans) => this.hooks.answer(ask, ans), agent);
    row.showAsk(card);
    const outer = this.outerRows();
    outer.forEach((r) => (r.el.open = true));
    this.asks.set(ask.request_id, { ask, row, card, outer });
    this.hooks.asks(this.root().pending());
    this.hooks.announce(`Approval needed: ${who(agent)} wants to use ${ask.tool}.`);
  }

  // question shows what AskUserQuestion asks, in its call's row (the
  // last such call still running) or on its own.
  question(q) {
    if (this.questions.has(q.id)) return;
    const agent = this.sub ? this.sub.agent : null;
    const card = questionCard(q, (answers) => this.hooks.answerQuestion(q, answers), agent);
    const row = [...this.rows.values()].reverse().find((r) => r.name === 'AskUserQuestion' && r.state === 'running');
    if (row) row.showAsk(card, 'waiting for your answer');
    else {
      this.closeSeg();
      const art = this.ensureArticle();
      this.stick(() => art.append(card));
    }
    const outer = this.outerRows();
    outer.forEach((r) => (r.el.open = true));
    this.questions.set(q.id, { question: q, row: row || null, card, outer });
    this.hooks.asks(this.root().pending());
    this.hooks.announce(`${who(agent)} asks you a question.`);
  }

  // answered closes an ask or a question answered, here or elsewhere
  // (the terminal, another browser): the first answer is the one taken.
  answered(a) {
    if (a.request_id) {
      const p = this.asks.get(a.request_id);
      if (!p) return;
      p.card.settle(a.allow ? 'Allowed (answered elsewhere)' : 'Denied (answered elsewhere)');
      this.asks.delete(a.request_id);
      // The note stays until the call's result replaces it.
      if (p.row.state === 'asking') p.row.setStatus('running', 'running');
    } else {
      const p = this.questions.get(a.id);
      if (!p) return;
      p.card.settle('Answered (elsewhere)');
      this.questions.delete(a.id);
      if (p.row && p.row.state === 'asking') p.row.setStatus('running', 'running');
    }
    this.root().hooks.asks(this.root().pending());
  }

  // pending is every ask and question waiting, a subagent's included.
  pending() {
    const out = [...this.asks.values(), ...this.questions.values()];
    for (const t of this.subs.values()) out.push(...t.pending());
    return out;
  }

  // settleAsks forgets the asks of a call that has its result, or of a
  // run that ended.
  settleAsks(match) {
    let changed = false;
    for (const [id, a] of this.asks) {
      if (match(a)) {
        this.asks.delete(id);
        changed = true;
      }
    }
    for (const [id, q] of this.questions) {
      if (match(q)) {
        this.questions.delete(id);
        changed = true;
      }
    }
    if (changed) this.root().hooks.asks(this.root().pending());
  }

  result(r) {
    let row = this.rows.get(r.id);
    if (!row) row = this.addRow({ id: r.id, name: r.name, input: {} });
    // An open row (a !cmd's) grows with its output: the view follows.
    this.stick(() => row.result(r));
    this.settleAsks((a) => (a.ask ? a.ask.id === r.id : a.row === row));
    const t = this.subs.get(r.id);
    if (t) t.finish(); // the Agent call's result ends its subagent's work
  }

  // finish ends a subagent's work: what it left running was stopped.
  finish() {
    this.closeSeg();
    this.stopRows();
    for (const t of this.subs.values()) t.finish();
    this.settleAsks(() => true);
  }

  showTodos(todos) {
    const list = todoList(todos);
    const box = h('div', { class: 'todos-box' }, h('div', { class: 'tool-section-label', text: 'Todos' }), list);
    if (this.todos && this.todos.isConnected) this.todos.replaceWith(box);
    else {
      this.closeSeg();
      this.ensureArticle().append(box);
    }
    this.todos = box;
  }

  // retry shows a retry; one that voids the failed attempt removes what
  // that attempt streamed (agent.Event's Retry.DiscardPartial).
  retry(ev) {
    const r = ev.retry || {};
    if (r.discard_partial) {
      for (const el of this.attempt) {
        const id = el.dataset && el.dataset.callId;
        if (id) this.rows.delete(id);
        el.remove();
      }
      this.attempt = [];
      this.seg = null;
    }
    const text = ev.text || `retrying (${r.attempt}/${r.max_attempts}): ${r.reason || ''}`;
    this.note(text, 'notice retry');
  }

  done(d) {
    this.closeSeg();
    this.stopRows();
    for (const t of this.subs.values()) t.finish();
    this.settleAsks(() => true);
    if (d.subtype === 'interrupted') this.note('Stopped.', 'notice stopped');
    else if (d.is_error && d.error && !this.lastErrorIs(d.error)) this.note(d.error, 'error');
    else if (d.subtype === 'error_max_turns') this.note('Stopped after the most turns a run may take.', 'notice');
    const u = d.usage;
    if (u && this.article && (u.input_tokens || u.output_tokens)) {
      this.article.append(h('div', { class: 'usage', text: `${d.num_turns || 1} turn${d.num_turns === 1 ? '' : 's'} · ${u.input_tokens} in / ${u.output_tokens} out tokens` }));
    }
    this.endArticle();
  }

  lastErrorIs(text) {
    const errs = this.article ? this.article.querySelectorAll('.error') : [];
    return errs.length > 0 && errs[errs.length - 1].textContent === text;
  }
}
