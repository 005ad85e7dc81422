// A small, safe Markdown renderer for what the agent writes. It builds
// DOM nodes with textContent and never parses HTML: raw HTML in the text
// is shown as text. Blocks: headings, paragraphs, fenced code (with
// highlighting), lists (nested, ordered, task items), block quotes,
// tables, rules. Inline: code spans, strong, emphasis, strikethrough,
// links (http and https only, opened with rel=noopener) and bare URLs.
// It must cope with text that is still streaming: an unclosed fence is
// code to the end, an unclosed emphasis is plain text.

import { h, link, safeURL } from './dom.js';
import { highlight, langOf } from './highlight.js';

const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^`]*)$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])([ \t]+(.*))?$/;
const TABLE_SEP = /^ *\|? *:?-+:? *(\| *:?-+:? *)*\|? *$/;

// renderMarkdown returns a fragment for text.
export function renderMarkdown(text) {
  const frag = document.createDocumentFragment();
  renderBlocks(String(text || '').replace(/\r\n?/g, '\n').split('\n'), frag, 0);
  return frag;
}

// startsBlock says a line begins a block other than a paragraph, which
// ends a paragraph before it.
function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
}

function renderBlocks(lines, parent, depth) {
  // Deeply nested input (a quote of a quote of ...) is shown flat rather
  // than recursing without bound.
  if (depth > 12) {
    parent.append(h('p', {}, lines.join('\n')));
    return;
  }
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) {
      i += 1;
      continue;
    }
    let m;
    if ((m = FENCE.exec(line))) {
      const [, indent, fence, info] = m;
      const body = [];
      i += 1;
      while (i < lines.length) {
        const l = lines[i];
        const t = l.trim();
        if (t.startsWith(fence[0].repeat(fence.length)) && /^[`~]+$/.test(t) && t[0] === fence[0]) {
          i += 1;
          break;
        }
        body.push(indent ? l.replace(new RegExp(`^ {0,${indent.length}}`), '') : l);
        i += 1;
      }
      parent.append(codeBlock(body.join('\n'), info));
      continue;
    }
    if ((m = HEADING.exec(line))) {
      const level = m[1].length;
      parent.append(h(`h${Math.min(level + 1, 6)}`, { class: `md-h${level}` }, inline(m[2] || '')));
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      parent.append(h('hr'));
      i += 1;
      continue;
    }
    if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && (m = QUOTE.exec(lines[i]))) {
        inner.push(m[1]);
        i += 1;
      }
      const bq = h('blockquote');
      renderBlocks(inner, bq, depth + 1);
      parent.append(bq);
      continue;
    }
    if (ITEM.test(line)) {
      i = renderList(lines, i, parent, depth);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      i = renderTable(lines, i, parent);
      continue;
    }
    const para = [line];
    i += 1;
    while (i < lines.length && lines[i].trim() && !startsBlock(lines[i])) {
      para.push(lines[i]);
      i += 1;
    }
    parent.append(h('p', {}, inline(para.map((l) => l.replace(/^\s+/, '')).join('\n'))));
  }
}

// codeBlock is a fenced block: highlighted, with its language named.
function codeBlock(code, info) {
  const lang = langOf(info);
  const label = (info || '').trim().split(/\s/)[0];
  const pre = h('pre', { class: 'code', tabindex: '0' });
  const c = h('code', lang ? { class: `lang-${lang}` } : {});
  c.append(highlight(code, info));
  pre.append(c);
  return h('div', { class: 'code-block' }, label ? h('div', { class: 'code-lang', text: label }) : null, pre);
}

// renderList consumes the list that starts at lines[i] and returns the
// index after it. An item's continuation lines are those indented past
// its marker; a line of the list's own indent with a marker is the next
// item; anything else ends the list (after a blank line) or continues the
// item's paragraph (lazily, without one).
function renderList(lines, i, parent, depth) {
  const first = ITEM.exec(lines[i]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = h(ordered ? 'ol' : 'ul');
  if (ordered) {
    const start = parseInt(first[2], 10);
    if (start !== 1) list.setAttribute('start', String(start));
  }
  let loose = false;
  const items = [];
  while (i < lines.length) {
    const m = ITEM.exec(lines[i]);
    if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
    const contentIndent = indent + m[2].length + (m[3] ? m[3].length - (m[4] || '').length : 1);
    const body = [m[4] || ''];
    i += 1;
    let blank = false;
    while (i < lines.length) {
      const l = lines[i];
      if (!l.trim()) {
        blank = true;
        body.push('');
        i += 1;
        continue;
      }
      const lead = l.length - l.trimStart().length;
      if (lead >= contentIndent || (lead > indent && ITEM.test(l))) {
        body.push(l.slice(Math.min(lead, contentIndent)));
      } else if (!blank && lead >= indent && !startsBlock(l)) {
        body.push(l.trimStart()); // a lazy continuation of the paragraph
      } else {
        break;
      }
      blank = false;
      i += 1;
    }
    while (body.length && !body[body.length - 1].trim()) body.pop();
    if (blank && i < lines.length && ITEM.test(lines[i])) loose = true;
    if (body.some((l, k) => !l.trim() && k > 0 && k < body.length - 1)) loose = true;
    items.push(body);
    // A blank line and then something that is not the next item ends the list.
    if (blank && !(i < lines.length && ITEM.test(lines[i]))) break;
  }
  for (const body of items) {
    const li = h('li');
    const task = /^\[([ xX])\][ \t]+/.exec(body[0]);
    if (task) {
      body[0] = body[0].slice(task[0].length);
      const done = task[1] !== ' ';
      li.classList.add('task');
      li.append(h('span', { class: 'task-box', 'aria-label': done ? 'done' : 'not done', role: 'img' }, done ? '☑ ' : '☐ '));
    }
    const box = document.createDocumentFragment();
    renderBlocks(body, box, depth + 1);
    // A tight list's items are their text, not paragraphs.
    if (!loose) {
      for (const p of [...box.childNodes]) {
        if (p.nodeName === 'P') {
          p.replaceWith(...p.childNodes);
        }
      }
    }
    li.append(box);
    list.append(li);
  }
  parent.append(list);
  return i;
}

function splitRow(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells = [];
  let cur = '';
  let inCode = false;
  for (let k = 0; k < s.length; k++) {
    const ch = s[k];
    if (ch === '\\' && s[k + 1] === '|') {
      cur += '|';
      k += 1;
    } else if (ch === '`') {
      inCode = !inCode;
      cur += ch;
    } else if (ch === '|' && !inCode) {
      cells.push(cur.trim());
      cur = '';
    } else {
      cur += ch;
    }
  }
  cells.push(cur.trim());
  return cells;
}

// renderTable renders a pipe table in a scroll box of its own, so a wide
// table never widens the page.
function renderTable(lines, i, parent) {
  const head = splitRow(lines[i]);
  const aligns = splitRow(lines[i + 1]).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : ''));
  i += 2;
  const table = h('table');
  const tr = h('tr');
  head.forEach((c, k) => tr.append(h('th', { scope: 'col', class: aligns[k] ? `align-${aligns[k]}` : null }, inline(c))));
  table.append(h('thead', {}, tr));
  const tbody = h('tbody');
  while (i < lines.length && lines[i].trim() && lines[i].includes('|')) {
    const row = h('tr');
    splitRow(lines[i]).forEach((c, k) => {
      if (k < head.length) row.append(h('td', { class: aligns[k] ? `align-${aligns[k]}` : null }, inline(c)));
    });
    tbody.append(row);
    i += 1;
  }
  table.append(tbody);
  parent.append(h('div', { class: 'table-wrap', tabindex: '0' }, table));
  return i;
}

const PUNCT = /[!-/:-@[-`{-~]/;
const URL_RE = /^https?:\/\/[^\s<>"'`]+/i;

// inline renders a paragraph's text. Every newline is a line break, as
// Claude Code shows it (CommonMark would make a lone newline a space):
// models write one fact per line far more often than they hard-wrap prose.
export function inline(text, depth = 0) {
  const out = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push(document.createTextNode(plain));
    plain = '';
  };
  const push = (node) => {
    flush();
    out.push(node);
  };
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length && PUNCT.test(text[i + 1])) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (ch === '\\' && text[i + 1] === '\n') {
      push(h('br'));
      i += 2;
      continue;
    }
    if (ch === '\n') {
      plain = plain.replace(/ +$/, '');
      push(h('br'));
      i += 1;
      continue;
    }
    if (ch === '`') {
      let n = 1;
      while (text[i + n] === '`') n += 1;
      const ticks = '`'.repeat(n);
      let j = text.indexOf(ticks, i + n);
      while (j >= 0 && text[j + n] === '`') j = text.indexOf(ticks, j + n + 1);
      if (j >= 0) {
        let code = text.slice(i + n, j).replace(/\n/g, ' ');
        if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ')) code = code.slice(1, -1);
        push(h('code', { text: code }));
        i = j + n;
        continue;
      }
      plain += ticks;
      i += n;
      continue;
    }
    if (ch === '[' || (ch === '!' && text[i + 1] === '[')) {
      const got = parseLink(text, ch === '!' ? i + 1 : i);
      if (got) {
        const href = safeURL(got.url);
        const label = ch === '!' ? (got.text || got.url) : got.text;
        if (href) push(link(href, depth < 4 ? inline(label, depth + 1) : label));
        else append(out, flushInline(label, depth, flush));
        i = got.end;
        continue;
      }
    }
    if (ch === '<') {
      const m = /^<(https?:\/\/[^\s<>]+)>/i.exec(text.slice(i));
      if (m) {
        push(link(safeURL(m[1]) || '#', m[1]));
        i += m[0].length;
        continue;
      }
    }
    if ((ch === 'h' || ch === 'H') && !/[\w]/.test(text[i - 1] || '')) {
      const m = URL_RE.exec(text.slice(i));
      if (m) {
        // Trailing punctuation belongs to the sentence, and a closing
        // parenthesis only to the URL when it opened one.
        let url = m[0].replace(/[.,:;!?'"]+$/, '');
        while (url.endsWith(')') && (url.match(/\(/g) || []).length < (url.match(/\)/g) || []).length) url = url.slice(0, -1);
        const href = safeURL(url);
        if (href) {
          push(link(href, url));
          i += url.length;
          continue;
        }
      }
    }
    if (ch === '*' || ch === '_' || ch === '~') {
      const got = parseEmphasis(text, i);
      if (got) {
        push(h(got.tag, {}, depth < 8 ? inline(got.inner, depth + 1) : got.inner));
        i = got.end;
        continue;
      }
    }
    plain += ch;
    i += 1;
  }
  flush();
  return out;
}

function append(out, nodes) {
  for (const n of nodes) out.push(n);
}

// flushInline renders a link whose URL is not allowed as its text alone.
function flushInline(label, depth, flush) {
  flush();
  return depth < 4 ? inline(label, depth + 1) : [document.createTextNode(label)];
}

// parseLink reads [text](url "title") at i; null when it is not one.
function parseLink(text, i) {
  let depth = 0;
  let j = i;
  for (; j < text.length; j++) {
    if (text[j] === '\\') {
      j += 1;
      continue;
    }
    if (text[j] === '[') depth += 1;
    else if (text[j] === ']') {
      depth -= 1;
      if (depth === 0) break;
    }
  }
  if (j >= text.length || text[j + 1] !== '(') return null;
  const close = text.indexOf(')', j + 2);
  if (close < 0) return null;
  let target = text.slice(j + 2, close).trim();
  // Parentheses inside the URL (Wikipedia links) need the outer ')'.
  let end = close;
  while ((target.match(/\(/g) || []).length > (target.match(/\)/g) || []).length) {
    const next = text.indexOf(')', end + 1);
    if (next < 0) break;
    end = next;
    target = text.slice(j + 2, end).trim();
  }
  const url = target.replace(/^<(.*)>$/, '$1').split(/\s+/)[0];
  return { text: text.slice(i + 1, j), url, end: end + 1 };
}

// parseEmphasis reads **strong**, *em*, _em_, __strong__ or ~~del~~ at
// i. The opening delimiter must be followed, and the closing one
// preceded, by a non-space; _ does not work inside a word (snake_case).
function parseEmphasis(text, i) {
  const ch = text[i];
  let n = 1;
  while (text[i + n] === ch && n < 3) n += 1;
  if (ch === '~' && n < 2) return null;
  if (ch === '~') n = 2;
  const before = text[i - 1] || ' ';
  const after = text[i + n] || ' ';
  if (/\s/.test(after)) return null;
  if (ch === '_' && /[\p{L}\p{N}]/u.test(before)) return null;
  const delim = ch.repeat(n);
  let j = i + n;
  while (true) {
    j = text.indexOf(delim, j);
    if (j < 0) break;
    const prev = text[j - 1];
    const next = text[j + n] || ' ';
    const okClose = prev && !/\s/.test(prev) && !(ch === '_' && /[\p{L}\p{N}]/u.test(next));
    // A longer run of the same character is not this delimiter's close.
    if (okClose && j > i + n && next !== ch) {
      const inner = text.slice(i + n, j);
      if (n === 3) return { tag: 'strong', inner: ch + inner + ch, end: j + n }; // strong around em
      return { tag: ch === '~' ? 'del' : n === 2 ? 'strong' : 'em', inner, end: j + n };
    }
    j += 1;
  }
  return null;
}
