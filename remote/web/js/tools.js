// Tool calls as collapsible rows: a summary line (tool, what it works
// on, how it ended) that opens on the call's input and output. Outputs
// are rendered by their display kind (tools/display: diff, command,
// search, fetch, todos, shell, questions, plan); a kind this file does
// not know shows the output text alone.

import { h, link, safeURL } from './dom.js';
import { highlight, highlightDiff } from './highlight.js';
import { renderMarkdown } from './markdown.js';

// OUTPUT_PREVIEW bounds the output shown before "Show all": a big
// result would otherwise make the page slow to scroll.
const OUTPUT_PREVIEW = 6000;

// brief is the one-line gist of a call for its summary.
export function brief(name, input) {
  if (!input || typeof input !== 'object') return '';
  const pick = (...keys) => keys.map((k) => input[k]).find((v) => typeof v === 'string' && v);
  const s = pick('command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt', 'shell_id', 'notebook_path');
  if (s) return s.split('\n')[0];
  const first = Object.values(input).find((v) => typeof v === 'string');
  return first ? first.split('\n')[0] : '';
}

// pre is a preformatted block that scrolls inside itself.
function pre(text, cls = '') {
  return h('pre', { class: `out ${cls}`, tabindex: '0' }, text);
}

// bounded shows text, cut at OUTPUT_PREVIEW with a button for the rest.
function bounded(text, cls = '') {
  if (text.length <= OUTPUT_PREVIEW) return pre(text, cls);
  const box = pre(text.slice(0, OUTPUT_PREVIEW) + '\n…', cls);
  const lines = text.split('\n').length;
  const more = h('button', {
    type: 'button',
    class: 'link-button',
    onclick: () => {
      box.textContent = text;
      more.remove();
    },
  }, `Show all (${lines} lines)`);
  return h('div', {}, box, more);
}

// diffBlock renders one unified diff.
export function diffBlock(diff) {
  const p = h('pre', { class: 'diff', tabindex: '0' });
  p.append(highlightDiff(diff.replace(/\n$/, '')));
  return p;
}

// editDiff is a diff made from an Edit call's strings, for an ask and for
// history (which keeps the input, not the display).
export function editDiff(input) {
  const lines = [];
  const add = (prefix, s) => {
    for (const l of String(s).split('\n')) lines.push(prefix + l);
  };
  const edits = Array.isArray(input.edits) ? input.edits : [input];
  for (const e of edits) {
    if (typeof e.old_string !== 'string' && typeof e.new_string !== 'string') continue;
    if (lines.length) lines.push('@@');
    if (e.old_string) add('-', e.old_string);
    if (e.new_string) add('+', e.new_string);
  }
  return lines.join('\n');
}

// inputView shows a call's input the way a person reads it: the command,
// the edit as a diff, the file to write, else the JSON.
export function inputView(name, input) {
  if (!input || typeof input !== 'object') return pre(String(input ?? ''));
  if (typeof input.command === 'string') {
    const p = h('pre', { class: 'out command', tabindex: '0' });
    p.append(highlight(input.command, 'sh'));
    const rest = Object.fromEntries(Object.entries(input).filter(([k]) => k !== 'command' && k !== 'description'));
    return h('div', { class: 'tool-input' },
      typeof input.description === 'string' && input.description ? h('p', { class: 'meta', text: input.description }) : null,
      p,
      Object.keys(rest).length ? pre(JSON.stringify(rest, null, 2), 'json') : null);
  }
  if (typeof input.old_string === 'string' || Array.isArray(input.edits)) {
    return h('div', {}, input.file_path ? h('div', { class: 'file', text: input.file_path }) : null, diffBlock(editDiff(input)));
  }
  if (typeof input.patch === 'string' || typeof input.input === 'string') {
    return diffBlock(input.patch || input.input);
  }
  if (typeof input.content === 'string' && input.file_path) {
    return h('div', {}, h('div', { class: 'file', text: input.file_path }), bounded(input.content));
  }
  return bounded(JSON.stringify(input, null, 2), 'json');
}

// displayView renders a result's display by kind, or null for none.
function displayView(d) {
  if (!d || !d.kind) return null;
  switch (d.kind) {
    case 'diff':
      return h('div', { class: 'diffs' }, (d.diffs || []).map((f) => h('div', { class: 'file-diff' },
        h('div', { class: 'file' }, f.path, ' ', h('span', { class: 'added', text: `+${f.added}` }), ' ',
          h('span', { class: 'removed', text: `−${f.removed}` })),
        diffBlock(f.diff || ''))));
    case 'command': {
      const c = d.command || {};
      const status = c.timed_out ? 'timed out' : c.background ? `running in background shell ${c.background}` : `exit ${c.exit_code}`;
      return h('div', { class: `meta ${c.exit_code ? 'bad' : ''}` }, status, c.cwd ? ` · in ${c.cwd}` : '');
    }
    case 'shell': {
      const s = d.shell || {};
      return h('div', { class: 'meta' }, `shell ${s.id}: ${s.status}`, s.exit_code != null ? ` (exit ${s.exit_code})` : '');
    }
    case 'search': {
      const s = d.search || {};
      return h('div', { class: 'meta' }, `${s.count} ${s.unit}`, s.truncated ? ' (not all shown)' : '',
        s.denied ? ` · ${s.denied} left out by deny rules` : '');
    }
    case 'fetch': {
      const f = d.fetch || {};
      const href = safeURL(f.url || '');
      return h('div', { class: 'meta' }, href ? link(href, f.url) : f.url, ` · ${f.status}`,
        f.bytes ? ` · ${f.bytes} bytes` : '', f.redirect ? ` · redirects to ${f.redirect} (not followed)` : '',
        f.truncated ? ' · cut to fit' : '');
    }
    case 'todos':
      return todoList(d.todos || []);
    case 'questions': {
      const q = d.questions || { questions: [], answers: [] };
      return h('dl', { class: 'questions' }, q.questions.map((text, k) => [h('dt', { text }), h('dd', { text: q.answers[k] || '(no answer)' })]));
    }
    case 'plan': {
      const p = d.plan || {};
      const box = h('div', { class: 'markdown plan' });
      if (p.plan) box.append(renderMarkdown(p.plan));
      return h('div', {}, box, h('div', { class: 'meta' }, p.approved ? 'approved' : 'not approved', p.mode ? ` · mode ${p.mode}` : ''));
    }
    default:
      return null;
  }
}

// todoList renders the todo list with each item's state as text too.
export function todoList(todos) {
  const mark = { completed: '☑', in_progress: '◐', pending: '☐' };
  return h('ul', { class: 'todos' }, todos.map((t) => h('li', { class: `todo ${t.status}` },
    h('span', { class: 'todo-mark', 'aria-hidden': 'true', text: mark[t.status] || '☐' }),
    h('span', { class: 'sr-only', text: `${(t.status || 'pending').replace('_', ' ')}: ` }),
    t.status === 'in_progress' && t.activeForm ? t.activeForm : t.content)));
}

// ToolRow is one tool call in the transcript.
export class ToolRow {
  constructor(call) {
    this.id = call.id;
    this.name = call.name;
    this.input = call.input;
    this.state = 'running';
    this.statusEl = h('span', { class: 'tool-status', text: 'running' });
    this.progressEl = h('span', { class: 'tool-progress' });
    const gist = brief(call.name, call.input);
    this.summary = h('summary', {},
      h('span', { class: 'tool-name', text: call.name }),
      gist ? h('span', { class: 'tool-brief', text: gist }) : null,
      this.progressEl,
      this.statusEl);
    this.askEl = h('div', { class: 'tool-ask' });
    this.outEl = h('div', { class: 'tool-output' });
    this.subEl = null; // a subagent's work, when this call is one's (nest)
    this.body = h('div', { class: 'tool-body' },
      h('div', { class: 'tool-section-label', text: 'Input' }),
      inputView(call.name, call.input),
      this.outEl);
    this.el = h('details', { class: 'tool running', 'data-call-id': call.id },
      this.summary,
      this.askEl,
      this.body);
  }

  // nest makes the place where the work of the subagent this call runs
  // is shown (its text and its own tool calls), collapsible, between the
  // call's input and its output; it returns the element to render into.
  nest(label) {
    if (this.subEl) return this.subEl.lastChild;
    const body = h('div', { class: 'subagent-body' });
    this.subEl = h('details', { class: 'subagent', open: true }, h('summary', { text: label }), body);
    this.body.insertBefore(this.subEl, this.outEl);
    return body;
  }

  // setStatus names how the call stands, as text and as a class.
  setStatus(state, label) {
    this.state = state;
    this.el.classList.remove('running', 'ok', 'error', 'denied', 'asking', 'stopped');
    this.el.classList.add(state);
    this.statusEl.textContent = label || state;
  }

  // progress shows a running call's report (tool_progress).
  progress(p) {
    if (!p) return;
    const pct = p.total ? ` ${Math.round((100 * p.progress) / p.total)}%` : '';
    this.progressEl.textContent = `${p.message || ''}${pct}`.trim();
  }

  // result fills in the output of a finished call. r is an agent
  // ToolResult, or {output} from history (which keeps no display).
  result(r) {
    this.clearAsk();
    this.progressEl.textContent = '';
    this.outEl.replaceChildren();
    const label = h('div', { class: 'tool-section-label', text: 'Output' });
    if (r.denied) {
      this.setStatus('denied', 'denied');
      const reason = r.decision && r.decision.reason;
      this.outEl.append(label, h('div', { class: 'meta bad', text: `Denied${reason ? `: ${reason}` : ''}` }), r.output ? bounded(r.output) : null);
      return;
    }
    const d = displayView(r.display);
    const failed = r.is_error || (r.display && r.display.kind === 'command' && r.display.command && r.display.command.exit_code);
    this.setStatus(r.is_error ? 'error' : 'ok', r.is_error ? 'failed' : failed ? 'exit ' + r.display.command.exit_code : 'done');
    this.outEl.append(label);
    if (d) this.outEl.append(d);
    // A diff shows what changed: its text is the same thing again.
    if (!(r.display && r.display.kind === 'diff') || r.is_error) {
      this.outEl.append(bounded(r.output || '(no output)', r.is_error ? 'bad' : ''));
    }
    if (r.spill_path) this.outEl.append(h('div', { class: 'meta', text: `Full output saved to ${r.spill_path}` }));
  }

  // exited says how a person's own command (!cmd, a row of its own)
  // ended, with the exit code the shell route answered.
  exited(res) {
    this.shellDone = true;
    if (res.denied) return; // the row says denied, and why
    this.setStatus(res.exit_code ? 'error' : 'ok', `exit ${res.exit_code}`);
  }

  // stopped marks a call the run ended before it finished.
  stopped() {
    if (this.state === 'running' || this.state === 'asking') {
      this.clearAsk();
      this.setStatus('stopped', 'stopped');
    }
  }

  // showAsk puts an approval card (or a question) in the row and opens it.
  showAsk(card, label = 'needs approval') {
    this.askEl.replaceChildren(card);
    this.setStatus('asking', label);
    this.el.open = true;
  }

  clearAsk() {
    this.askEl.replaceChildren();
    if (this.state === 'asking') this.setStatus('running', 'running');
  }
}
