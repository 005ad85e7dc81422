// The page's layout pieces that hold no session state: the session list
// in the sidebar, the sidebar as a drawer on a phone, the message box
// that grows with its text, and a page as tall as what is visible.

import { h, relTime, basename } from './dom.js';

// sessionItems are the sidebar's entries, newest first as the server
// lists them; the one shown is marked aria-current.
export function sessionItems(sessions, currentId, pick) {
  const now = Date.now();
  if (!sessions.length) return [h('li', { class: 'meta', text: 'No sessions yet.' })];
  return sessions.map((s) => h('li', {},
    h('button', {
      type: 'button',
      class: 'session',
      'aria-current': s.id === currentId ? 'page' : null,
      onclick: () => pick(s.id),
    },
    h('span', { class: 'session-name', text: s.title || 'Untitled session' }),
    h('span', { class: 'session-meta', text: `${relTime(s.updated_at, now)}${s.workspace_dir ? ` · ${basename(s.workspace_dir)}` : ''}` }))));
}

// Drawer is the sidebar on a narrow screen: opened by its button, closed
// by its Close button, Escape, a tap beside it or a pick, with focus
// moved into it and back.
export class Drawer {
  constructor(panel, scrim, button, closeButton) {
    this.panel = panel;
    this.scrim = scrim;
    this.button = button;
    button.addEventListener('click', () => (this.isOpen ? this.close() : this.open()));
    scrim.addEventListener('click', () => this.close());
    closeButton.addEventListener('click', () => {
      this.close();
      this.button.focus();
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.isOpen) {
        this.close();
        this.button.focus();
      }
    });
  }

  get isOpen() {
    return this.panel.classList.contains('open');
  }

  open() {
    this.panel.classList.add('open');
    this.scrim.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    const first = this.panel.querySelector('button');
    if (first) first.focus();
  }

  close() {
    if (!this.isOpen) return;
    this.panel.classList.remove('open');
    this.scrim.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
  }
}

// autosize makes the message box as tall as its text, up to 40% of the
// window (then it scrolls).
export function autosize(textarea) {
  textarea.style.height = 'auto';
  textarea.style.height = `${Math.min(textarea.scrollHeight, Math.round(window.innerHeight * 0.4))}px`;
}

// followViewport keeps the page as tall as what is visible: on a phone
// the on-screen keyboard shrinks the visual viewport, and the message
// box, at the bottom of the page, stays above the keyboard.
export function followViewport() {
  const fit = () => {
    const vv = window.visualViewport;
    const height = vv ? vv.height : window.innerHeight;
    document.documentElement.style.setProperty('--app-height', `${Math.round(height)}px`);
    if (vv && vv.offsetTop) window.scrollTo(0, 0);
  };
  if (window.visualViewport) {
    window.visualViewport.addEventListener('resize', fit);
    window.visualViewport.addEventListener('scroll', fit);
  }
  window.addEventListener('resize', fit);
  fit();
}
