// The project MCP servers a session waits to start: a trusted
// workspace's .mcp.json adds them, and nova starts none until a person
// approves it (as the terminal UI asks at start). The box says what each
// would run, from which file, with Approve and Reject; the answer is
// remembered for the workspace.

import { h } from './dom.js';
import { api } from './api.js';

// what is the command line or the address of a pending server.
function what(s) {
  if (s.command) return [s.command, ...(s.args || [])].join(' ');
  return s.url || s.transport;
}

// McpBox renders into el (hidden when nothing waits). announce(text)
// speaks to the screen reader; error(text) shows a failure.
export class McpBox {
  constructor(el, hooks) {
    this.el = el;
    this.hooks = hooks;
    this.id = null;
  }

  clear() {
    this.id = null;
    this.el.hidden = true;
    this.el.replaceChildren();
  }

  // load shows session id's waiting servers.
  async load(id) {
    this.id = id;
    let items;
    try {
      items = await api.pendingMCP(id);
    } catch {
      items = []; // not this server's to ask (a terminal's session), or no session yet
    }
    if (this.id !== id) return;
    this.render(items);
  }

  render(items) {
    this.el.hidden = items.length === 0;
    if (!items.length) {
      this.el.replaceChildren();
      return;
    }
    this.el.replaceChildren(
      h('p', { class: 'mcp-title', text: 'This project adds MCP servers. nova starts them only once you approve:' }),
      h('ul', { class: 'mcp-list' }, items.map((s) => this.item(s))));
  }

  item(s) {
    const error = h('p', { class: 'ask-error', role: 'alert' });
    const answer = async (approved, buttons) => {
      buttons.forEach((b) => (b.disabled = true));
      try {
        await api.approveMCP(this.id, s.name, approved);
        this.hooks.announce(approved ? `MCP server ${s.name} approved and starting.` : `MCP server ${s.name} rejected.`);
        await this.load(this.id);
      } catch (err) {
        error.textContent = `The answer did not reach nova: ${err.message}`;
        buttons.forEach((b) => (b.disabled = false));
      }
    };
    const buttons = [];
    buttons.push(h('button', { type: 'button', class: 'primary', onclick: () => answer(true, buttons), 'aria-label': `Approve MCP server ${s.name}` }, 'Approve'));
    buttons.push(h('button', { type: 'button', class: 'danger', onclick: () => answer(false, buttons), 'aria-label': `Reject MCP server ${s.name}` }, 'Reject'));
    return h('li', { class: 'mcp-item', 'data-mcp-name': s.name },
      h('div', {}, h('strong', { text: s.name }), ' ', h('code', { text: what(s) })),
      h('div', { class: 'meta', text: `from ${s.source}` }),
      h('div', { class: 'ask-buttons' }, buttons),
      error);
  }
}
