// AskUserQuestion in place: an on-page dialog with each question, its
// options as radio buttons (check boxes for a multiple choice) and a
// field for an answer in the person's own words, sent with one button;
// or declined. Answers go back as the terminal gives them: the chosen
// label, several joined by ", ".

import { h, uid } from './dom.js';
import { who } from './approval.js';

// questionCard builds the dialog for q (an agent QuestionAsk) of agent
// (null for nova's own). answer(answers) sends one answer per question,
// or null to decline, and resolves when the server took it.
// card.settle(text) closes it when it was answered elsewhere.
export function questionCard(q, answer, agent = null) {
  const titleId = uid('q-title');
  const errorEl = h('p', { class: 'ask-error', role: 'alert' });
  const reads = []; // per question: () => its answer, '' for none
  const fields = (q.questions || []).map((x) => {
    const name = uid('q');
    const inputs = (x.options || []).map((o) => {
      const id = uid('opt');
      const input = h('input', { type: x.multiSelect ? 'checkbox' : 'radio', name, id, value: o.label });
      return { input, el: h('div', { class: 'option' }, input, h('label', { for: id }, h('span', { class: 'option-label', text: o.label }),
        o.description ? h('span', { class: 'meta', text: ` — ${o.description}` }) : null)) };
    });
    const otherId = uid('other');
    const other = h('input', { type: 'text', id: otherId, class: 'other', autocomplete: 'off' });
    reads.push(() => {
      const own = other.value.trim();
      if (own) return own;
      return inputs.filter((i) => i.input.checked).map((i) => i.input.value).join(', ');
    });
    return h('fieldset', { class: 'question' },
      h('legend', {}, x.header ? h('span', { class: 'chip', text: x.header }) : null, x.question),
      inputs.map((i) => i.el),
      h('div', { class: 'option' }, h('label', { for: otherId, text: 'Or in your words: ' }), other));
  });
  const buttons = [];
  const send = async (answers) => {
    buttons.forEach((b) => (b.disabled = true));
    errorEl.textContent = '';
    try {
      await answer(answers);
      card.settle(answers ? `Answered: ${answers.join(' · ')}` : 'Declined');
    } catch (err) {
      errorEl.textContent = `The answer did not reach nova: ${err.message}. Try again.`;
      buttons.forEach((b) => (b.disabled = false));
    }
  };
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Answer');
  const decline = h('button', { type: 'button', class: 'danger', onclick: () => send(null) }, 'Decline');
  buttons.push(submit, decline);
  const form = h('form', {
    onsubmit: (e) => {
      e.preventDefault();
      const answers = reads.map((r) => r());
      if (answers.some((a) => !a)) {
        errorEl.textContent = 'Pick an option, or write an answer, for every question.';
        return;
      }
      send(answers);
    },
  }, fields, h('div', { class: 'ask-buttons' }, submit, decline), errorEl);
  const card = h('div', { class: 'ask question-card', role: 'alertdialog', 'aria-modal': 'false', 'aria-labelledby': titleId, 'data-question-id': q.id },
    h('h3', { id: titleId, class: 'ask-title', text: `${who(agent)} asks you` }),
    form);
  card.focusFirst = () => {
    const first = card.querySelector('input');
    if (first) first.focus({ preventScroll: false });
  };
  card.settle = (text) => {
    if (card.classList.contains('answered')) return;
    card.classList.add('answered');
    card.replaceChildren(h('p', { class: 'meta', text }));
  };
  return card;
}
