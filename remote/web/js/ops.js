// The session's operations in the page: the model picker, the
// permission-mode switch, Compact, the rules view and `!command`. Each is
// a call of the session's HTTP route (docs/server.md, "Session
// operations"), the one implementation the terminal's /model, shift+tab,
// /compact, /permissions and !cmd reach too: this file only turns a
// person's choice into that call, and its answer or refusal into words
// on the page. The HTTP forms are used, not /ws's, because their statuses
// tell a busy session (409) from a refusal (403) and a bad name (400).

import { h, uid } from './dom.js';
import { api } from './api.js';

// MODES are the permission modes a remote page may set
// (bypassPermissions is the terminal's alone: the server answers 403).
export const MODES = [
  ['default', 'Default: ask'],
  ['acceptEdits', 'Accept edits'],
  ['plan', 'Plan (read-only)'],
];

// BUSY is what a session running a turn answers (409): the terminal
// would wait, the page says when to try again.
export const BUSY = 'busy — try when the turn ends';

// refusal is what the page says of a failed operation.
export function refusal(what, err) {
  if (err && err.status === 409 && /busy/i.test(err.message)) return `${what}: ${BUSY}`;
  return `${what}: ${(err && err.message) || err}`;
}

// The session's model and mode are the server's (the session object's
// model and permission_mode: what the session runs with now, whoever set
// it, the terminal included). The page also remembers, per session and
// for the tab's life, what it set, for a session the list does not have
// yet or whose state the server cannot tell.
const key = (what, id) => `nova.${what}.${id}`;

function remembered(what, id) {
  try {
    return sessionStorage.getItem(key(what, id)) || '';
  } catch {
    return '';
  }
}

function remember(what, id, value) {
  try {
    sessionStorage.setItem(key(what, id), value);
  } catch {
    // storage off or full: the picker shows the session's own again
  }
}

// SHELL_WAIT bounds how long a command's answer waits for its row to
// come over the WebSocket before the page shows the answer itself.
const SHELL_WAIT = 3000;

// SessionBar is the controls of the session shown. els: bar, model,
// mode, compact, rules (elements of index.html). hooks:
//   current()          the session shown, or null
//   session(id)        session id's object as the server gave it (GET /api/sessions), or null
//   update(id, fields) set fields of that object (the model or mode a switch made)
//   error(text)        the message box's error line ('' clears it)
//   announce(text)     the screen reader's status line
//   note(text)         a line in the conversation
//   expect(prompt)     an operation's run will carry prompt: not a message from elsewhere
//   unexpect(prompt)   it will not after all (the operation was refused)
//   addUser(text)      show what the person typed
//   shellRow(command)  the row of the command's call once it has its result, else null
//   shellAnswer(command, res)  show the answer with no row to show it in
export class SessionBar {
  constructor(els, hooks) {
    this.els = els;
    this.hooks = hooks;
    this.models = [];
    this.rulesDialog = new RulesDialog();
    for (const [value, label] of MODES) els.mode.append(h('option', { value }, label));
    els.model.addEventListener('change', () => this.pickModel());
    els.mode.addEventListener('change', () => this.pickMode());
    els.compact.addEventListener('click', () => this.compact());
    els.rules.addEventListener('click', () => this.showRules());
  }

  // setModels fills the model picker from GET /api/models.
  setModels(items) {
    this.models = items;
    this.show(this.hooks.current());
  }

  // show shows the controls of session id (none for a new session, whose
  // model is the sidebar's and which has no mode yet).
  show(id) {
    this.els.bar.hidden = !id;
    if (!id) return;
    const s = this.hooks.session(id) || {};
    const model = s.model || remembered('model', id);
    const opts = [h('option', { value: '' }, "This session's model")];
    for (const m of this.models) opts.push(h('option', { value: m.id }, modelLabel(m)));
    if (model && !this.models.some((m) => m.id === model)) opts.push(h('option', { value: model }, model));
    this.els.model.replaceChildren(...opts);
    this.els.model.value = model;
    this.els.model.dataset.value = model;
    const mode = s.permission_mode || remembered('mode', id) || 'default';
    this.els.mode.value = mode;
    this.els.mode.dataset.value = mode;
  }

  // apply takes a state message: the session's model and mode after a
  // change made elsewhere (the terminal's shift+tab or /model, another
  // browser), shown at once.
  apply(id, { model, permission_mode: mode }) {
    const fields = {};
    if (model) {
      fields.model = model;
      remember('model', id, model);
    }
    if (mode) {
      fields.permission_mode = mode;
      remember('mode', id, mode);
    }
    this.hooks.update(id, fields);
    if (this.hooks.current() === id) this.show(id);
  }

  async pickModel() {
    const id = this.hooks.current();
    const sel = this.els.model;
    const want = sel.value;
    if (!id || !want) {
      sel.value = sel.dataset.value || '';
      return;
    }
    this.hooks.error('');
    sel.disabled = true;
    try {
      const res = await api.setModel(id, want);
      remember('model', id, res.model || want);
      this.hooks.update(id, { model: res.model || want });
      if (this.hooks.current() === id) this.show(id);
      this.hooks.note(`Model: ${res.model || want}. The next request goes to it.`);
      this.hooks.announce(`Model switched to ${res.model || want}.`);
    } catch (err) {
      sel.value = sel.dataset.value || '';
      this.hooks.error(refusal('Could not switch the model', err));
    } finally {
      sel.disabled = false;
    }
  }

  async pickMode() {
    const id = this.hooks.current();
    const sel = this.els.mode;
    const want = sel.value;
    if (!id) return;
    this.hooks.error('');
    sel.disabled = true;
    try {
      const res = await api.setMode(id, want);
      const mode = res.mode || want;
      remember('mode', id, mode);
      this.hooks.update(id, { permission_mode: mode });
      sel.value = mode;
      sel.dataset.value = mode;
      const label = (MODES.find(([v]) => v === mode) || [mode, mode])[1];
      this.hooks.note(`Permission mode: ${label}.`);
      this.hooks.announce(`Permission mode: ${label}.`);
    } catch (err) {
      sel.value = sel.dataset.value || 'default';
      this.hooks.error(refusal('Could not change the permission mode', err));
    } finally {
      sel.disabled = false;
    }
  }

  async compact() {
    const id = this.hooks.current();
    if (!id) return;
    const btn = this.els.compact;
    this.hooks.error('');
    btn.disabled = true;
    // The compaction is a run of its own, whose prompt is the terminal's
    // words for it (live.Controller.Compact).
    const prompt = '/compact ';
    this.hooks.expect(prompt);
    this.hooks.announce('Compacting the history…');
    try {
      await api.compact(id);
      this.hooks.announce('History compacted.');
    } catch (err) {
      this.hooks.unexpect(prompt);
      this.hooks.error(refusal('Could not compact', err));
    } finally {
      btn.disabled = false;
    }
  }

  async showRules() {
    const id = this.hooks.current();
    if (!id) return;
    await this.rulesDialog.open(id);
    this.els.rules.focus();
  }

  // shell runs text ("!command") as the person's own command. It says
  // false when it did not run (no command, no session, refused): the
  // message box keeps the text to try again.
  async shell(text) {
    const command = text.slice(1).trim();
    if (!command) return false;
    const id = this.hooks.current();
    if (!id) {
      this.hooks.error('A ! command runs in a session: start the session with a message first.');
      return false;
    }
    this.hooks.error('');
    const prompt = `!${command}`;
    this.hooks.expect(prompt);
    const shown = this.hooks.addUser(prompt);
    let res;
    try {
      res = await api.shell(id, command);
    } catch (err) {
      this.hooks.unexpect(prompt);
      if (shown) shown.remove();
      this.hooks.error(refusal('The command did not run', err));
      return false;
    }
    // The call's row (its output, its exit code, an approval it needed)
    // comes over the WebSocket; with the socket down, the answer is shown.
    const deadline = Date.now() + SHELL_WAIT;
    while (!this.hooks.shellRow(command) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const row = this.hooks.shellRow(command);
    if (row) row.exited(res);
    else if (this.hooks.current() === id) this.hooks.shellAnswer(command, res);
    this.hooks.announce(res.denied ? 'The command was denied.' : `The command exited with ${res.exit_code}.`);
    return true;
  }
}

// modelLabel is how the picker names a model of GET /api/models: its
// label in config.json, else the name the terminal's /model gives it.
export function modelLabel(m) {
  const label = (m.label && m.label !== m.model ? m.label : m.name || m.label) || m.id;
  return m.provider_name && m.provider_name !== label ? `${label} (${m.provider_name})` : label;
}

// RulesDialog shows the rules the session's checker enforces, each with
// where it comes from (GET /api/sessions/{id}/rules).
class RulesDialog {
  constructor() {
    const titleId = uid('rules-title');
    this.body = h('div', { class: 'rules-body' });
    this.close = h('button', { type: 'button', class: 'primary', onclick: () => this.dialog.close() }, 'Close');
    this.dialog = h('dialog', { class: 'picker rules', 'aria-labelledby': titleId },
      h('h2', { id: titleId, text: 'Permission rules in force' }),
      this.body,
      h('div', { class: 'dialog-buttons' }, this.close));
    document.body.append(this.dialog);
  }

  async open(id) {
    this.body.replaceChildren(h('p', { class: 'meta', text: 'Loading…' }));
    this.dialog.showModal();
    this.close.focus();
    const closed = new Promise((r) => this.dialog.addEventListener('close', r, { once: true }));
    try {
      this.render(await api.rules(id));
    } catch (err) {
      this.body.replaceChildren(h('p', { class: 'ws-error', role: 'alert', text: `Could not read the rules: ${err.message}` }));
    }
    await closed;
  }

  render(items) {
    if (!items.length) {
      this.body.replaceChildren(h('p', { text: 'No rules: every call the checker does not decide by itself is asked.' }));
      return;
    }
    this.body.replaceChildren(
      h('p', { class: 'meta', text: 'deny beats ask beats allow, whichever file a rule is in (docs/permissions.md).' }),
      h('table', { class: 'rules-table' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Rule' }), h('th', { scope: 'col', text: 'Behavior' }), h('th', { scope: 'col', text: 'Source' }))),
        h('tbody', {}, items.map((r) => h('tr', { class: `rule ${r.behavior}` },
          h('td', {}, h('code', { text: r.rule })),
          h('td', { class: 'rule-behavior', text: r.behavior }),
          h('td', { class: 'rule-source' }, r.source || '', r.layer ? h('span', { class: 'meta', text: ` (${r.layer})` }) : null))))));
  }
}
