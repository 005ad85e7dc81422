// Small DOM helpers. Everything the UI shows is built from nodes and
// text nodes: no string of HTML is ever parsed, so text the agent wrote
// cannot become markup or script.

// h builds an element. attrs: "class", "text" (textContent), on<event>
// handlers, boolean attributes (true sets, false/null/undefined skips),
// anything else as an attribute. children: nodes, strings (as text) or
// arrays of them; null and false are skipped.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

// append adds children (as h takes them) to el.
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return el;
}

// uid gives ids for aria-labelledby and label-for pairs.
let counter = 0;
export function uid(prefix = 'id') {
  counter += 1;
  return `${prefix}-${counter}`;
}

// safeURL returns url when it is http(s), else null: the only links
// agent-written content may carry (no javascript:, data:, file:).
export function safeURL(url) {
  try {
    const u = new URL(url, 'http://invalid.invalid/');
    if ((u.protocol === 'http:' || u.protocol === 'https:') && /^https?:\/\//i.test(url.trim())) return u.href;
  } catch {
    // not a URL
  }
  return null;
}

// link is an external link: a new tab, without opener or referrer, so
// the page it opens cannot reach back into this one.
export function link(href, text) {
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, text);
}

// relTime is "3 min ago" for a time in ms.
export function relTime(ms, now = Date.now()) {
  const s = Math.round((now - ms) / 1000);
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const hr = Math.round(m / 60);
  if (hr < 24) return `${hr} h ago`;
  const d = Math.round(hr / 24);
  if (d < 7) return `${d} d ago`;
  return new Date(ms).toLocaleDateString();
}

// basename is the last part of a path.
export function basename(p) {
  if (!p) return '';
  const parts = p.replace(/\/+$/, '').split('/');
  return parts[parts.length - 1] || '/';
}
