// The workspace picker (a dialog that walks directories with
// GET /api/fs/list) and the model list (GET /api/models).

import { h, uid } from './dom.js';
import { api } from './api.js';
import { modelLabel } from './ops.js';

// WorkspacePicker is a modal dialog on the page. pick(start) resolves
// to the chosen directory, '' for the server's default, or null when
// the person cancelled.
export class WorkspacePicker {
  constructor() {
    const titleId = uid('ws-title');
    const inputId = uid('ws-input');
    this.input = h('input', { id: inputId, type: 'text', autocomplete: 'off', spellcheck: 'false', class: 'ws-input' });
    this.list = h('ul', { class: 'ws-list', 'aria-label': 'Folders' });
    this.error = h('p', { class: 'ws-error', role: 'alert' });
    this.up = h('button', { type: 'button', onclick: () => this.parent && this.show(this.parent) }, 'Up one level');
    this.dialog = h('dialog', { class: 'picker', 'aria-labelledby': titleId },
      h('h2', { id: titleId, text: 'Choose a workspace' }),
      h('form', {
        class: 'ws-path',
        onsubmit: (e) => {
          e.preventDefault();
          this.show(this.input.value.trim());
        },
      }, h('label', { for: inputId, text: 'Folder' }), this.input, h('button', { type: 'submit' }, 'Open')),
      this.up,
      this.list,
      this.error,
      h('div', { class: 'dialog-buttons' },
        h('button', { type: 'button', onclick: () => this.finish(null) }, 'Cancel'),
        h('button', { type: 'button', onclick: () => this.finish('') }, 'Server default'),
        h('button', { type: 'button', class: 'primary', onclick: () => this.finish(this.path) }, 'Use this folder')));
    this.dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      this.finish(null);
    });
    document.body.append(this.dialog);
    this.resolve = null;
  }

  pick(start) {
    this.dialog.showModal();
    this.show(start || '');
    return new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  finish(value) {
    this.dialog.close();
    if (this.resolve) this.resolve(value);
    this.resolve = null;
  }

  async show(path) {
    this.error.textContent = '';
    try {
      const d = await api.fsList(path);
      this.path = d.path;
      this.parent = d.parent;
      this.input.value = d.path;
      this.up.disabled = !d.parent;
      this.list.replaceChildren(...d.entries.map((e) => h('li', {},
        h('button', { type: 'button', class: 'ws-entry', onclick: () => this.show(e.path) }, e.name))));
      if (!d.entries.length) this.list.append(h('li', { class: 'meta', text: 'No folders here.' }));
    } catch (err) {
      this.error.textContent = err.message;
    }
  }
}

// loadModels fills select with every configured model after a first
// option for the server's default, named; it returns the models.
export async function loadModels(select) {
  const [items, main] = await Promise.all([api.models(), api.agent('main').catch(() => null)]);
  // The default is what the main agent runs, as nova picks it.
  const name = main && main.model ? ` (${main.model})` : '';
  select.replaceChildren(h('option', { value: '' }, `Server default${name}`),
    ...items.map((m) => h('option', { value: m.id }, modelLabel(m))));
  return items;
}
