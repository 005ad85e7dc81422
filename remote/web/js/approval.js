// The approval of a tool call, in place: an on-page dialog in the call's
// row (never window.confirm) that shows what would run (the command, the
// edit as a diff) and why nova asks, with real buttons to allow once,
// allow always (the rule that would be saved is named) or deny.

import { h, uid } from './dom.js';
import { inputView } from './tools.js';

// verb says what the call would do, for the dialog's title.
function verb(tool) {
  switch (tool) {
    case 'Bash':
      return 'run a command';
    case 'Edit':
    case 'MultiEdit':
    case 'Write':
    case 'ApplyPatch':
    case 'NotebookEdit':
      return 'change a file';
    case 'WebFetch':
      return 'fetch a web page';
    default:
      return `use ${tool}`;
  }
}

// who names whose call it is: nova's own, or a subagent's (an event's
// agent: {id, type, description}).
export function who(agent) {
  return agent ? `The ${agent.type || 'subagent'} subagent` : 'nova';
}

// approvalCard builds the dialog for ask (an agent PermissionAsk) of
// agent (null for nova's own). answer({approved, remember}) sends the
// answer and resolves when the server took it; until then the buttons
// are disabled, and a failure is shown in the dialog with the buttons
// back. card.settle(text) closes it when the ask was answered elsewhere.
export function approvalCard(ask, answer, agent = null) {
  const titleId = uid('ask-title');
  const reasonId = uid('ask-reason');
  const errorEl = h('p', { class: 'ask-error', role: 'alert' });
  const suggestion = (ask.suggestions || [])[0];
  const buttons = [];
  const decide = async (approved, remember) => {
    buttons.forEach((b) => (b.disabled = true));
    errorEl.textContent = '';
    try {
      await answer({ approved, remember });
      card.classList.add('answered');
      card.replaceChildren(h('p', { class: 'meta', text: approved ? (remember ? `Allowed always (${suggestion})` : 'Allowed') : 'Denied' }));
    } catch (err) {
      errorEl.textContent = `The answer did not reach nova: ${err.message}. Try again.`;
      buttons.forEach((b) => (b.disabled = false));
    }
  };
  const allow = h('button', { type: 'button', class: 'primary', onclick: () => decide(true, false) }, 'Allow');
  buttons.push(allow);
  if (suggestion) {
    buttons.push(h('button', { type: 'button', onclick: () => decide(true, true), title: `Saves the rule ${suggestion}` }, 'Always allow ', h('code', { text: suggestion })));
  }
  buttons.push(h('button', { type: 'button', class: 'danger', onclick: () => decide(false, false) }, 'Deny'));
  const reason = (ask.decision && ask.decision.reason) || 'This call needs your approval.';
  const card = h('div', {
    class: 'ask',
    role: 'alertdialog',
    'aria-modal': 'false',
    'aria-labelledby': titleId,
    'aria-describedby': reasonId,
    'data-request-id': ask.request_id,
  },
  h('h3', { id: titleId, class: 'ask-title', text: `${who(agent)} wants to ${verb(ask.tool)}` }),
  agent && agent.description ? h('p', { class: 'meta', text: `Subagent task: ${agent.description}` }) : null,
  h('p', { id: reasonId, class: 'ask-reason', text: reason }),
  inputView(ask.tool, ask.input),
  h('div', { class: 'ask-buttons' }, buttons),
  errorEl);
  card.focusFirst = () => allow.focus({ preventScroll: false });
  card.settle = (text) => {
    if (card.classList.contains('answered')) return;
    card.classList.add('answered');
    card.replaceChildren(h('p', { class: 'meta', text }));
  };
  return card;
}
