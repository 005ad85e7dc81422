// A small syntax highlighter for fenced code: keywords, strings,
// comments and numbers of the languages an agent writes most. It builds
// spans with textContent, so code is never parsed as HTML. A language it
// does not know is shown plain.

const words = (s) => new Set(s.split(/\s+/).filter(Boolean));

const cLike = {
  line: ['//'],
  block: [['/*', '*/']],
  strings: ['"', "'"],
};

// Each language: keywords, literal words (true, nil ...), comment
// markers and string quotes.
const LANGS = {
  go: {
    ...cLike,
    strings: ['"', "'", '`'],
    kw: words(`break case chan const continue default defer else fallthrough for func go goto if import
      interface map package range return select struct switch type var`),
    lit: words('true false nil iota'),
    types: words(`bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string
      uint uint8 uint16 uint32 uint64 uintptr any comparable`),
  },
  js: {
    ...cLike,
    strings: ['"', "'", '`'],
    kw: words(`as async await break case catch class const continue debugger default delete do else export
      extends finally for from function if import in instanceof let new of return static super switch this
      throw try typeof var void while with yield interface type enum implements private public protected
      readonly declare namespace abstract keyof`),
    lit: words('true false null undefined NaN Infinity'),
    types: words('string number boolean any unknown never object'),
  },
  py: {
    line: ['#'],
    block: [],
    strings: ['"""', "'''", '"', "'"],
    kw: words(`and as assert async await break class continue def del elif else except finally for from global
      if import in is lambda nonlocal not or pass raise return try while with yield match case`),
    lit: words('True False None self'),
    types: words('int str float bool list dict set tuple bytes object'),
  },
  sh: {
    line: ['#'],
    block: [],
    strings: ['"', "'"],
    kw: words(`if then else elif fi for while until do done case esac in function return exit local export
      set unset readonly shift break continue source`),
    lit: words('true false'),
    types: words('echo cd ls cat grep sed awk git go npm make rm cp mv mkdir touch printf test'),
  },
  rust: {
    ...cLike,
    strings: ['"'], // ' starts lifetimes too often to be a quote
    kw: words(`as async await break const continue crate dyn else enum extern fn for if impl in let loop match
      mod move mut pub ref return static struct super trait type unsafe use where while`),
    lit: words('true false self Self None Some Ok Err'),
    types: words('i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec Option Result'),
  },
  c: {
    ...cLike,
    kw: words(`auto break case catch class const continue default delete do else enum extern for friend goto if
      inline namespace new operator private protected public register return sizeof static struct switch
      template this throw try typedef union using virtual volatile while import package extends implements
      final abstract interface throws fun val var when object override`),
    lit: words('true false null nullptr NULL'),
    types: words('void int char short long float double bool unsigned signed size_t String boolean byte'),
  },
  json: {
    line: [],
    block: [],
    strings: ['"'],
    kw: words(''),
    lit: words('true false null'),
    types: words(''),
  },
  yaml: {
    line: ['#'],
    block: [],
    strings: ['"', "'"],
    kw: words(''),
    lit: words('true false null yes no on off'),
    types: words(''),
  },
  sql: {
    line: ['--'],
    block: [['/*', '*/']],
    strings: ["'", '"'],
    kw: words(`select from where insert into values update set delete create table drop alter add index join left
      right inner outer on group by order having limit offset as and or not null is in exists primary key
      foreign references distinct union all case when then else end SELECT FROM WHERE INSERT INTO VALUES
      UPDATE SET DELETE CREATE TABLE DROP ALTER JOIN ON GROUP BY ORDER LIMIT AS AND OR NOT NULL`),
    lit: words('true false TRUE FALSE'),
    types: words('int integer text varchar boolean real INTEGER TEXT VARCHAR'),
  },
};

const ALIASES = {
  golang: 'go', javascript: 'js', jsx: 'js', mjs: 'js', cjs: 'js', ts: 'js', typescript: 'js', tsx: 'js',
  python: 'py', python3: 'py', bash: 'sh', shell: 'sh', zsh: 'sh', console: 'sh', shellsession: 'sh',
  rs: 'rust', cpp: 'c', 'c++': 'c', h: 'c', hpp: 'c', java: 'c', kotlin: 'c', kt: 'c', swift: 'c',
  cs: 'c', csharp: 'c', yml: 'yaml', toml: 'yaml', ini: 'yaml', jsonc: 'json',
};

// langOf normalises a fence's info string ("Go", "ts {title=x}").
export function langOf(info) {
  const name = (info || '').trim().split(/[\s{]/)[0].toLowerCase();
  if (name === 'diff' || name === 'patch') return 'diff';
  return LANGS[name] ? name : (ALIASES[name] || '');
}

function span(cls, text) {
  const s = document.createElement('span');
  s.className = cls;
  s.textContent = text;
  return s;
}

// highlightDiff colours a unified diff by line, one block per line (so a
// long line wraps in its own row, never beside the next), and marks the
// words that changed between a removed line and the added line that
// replaces it.
export function highlightDiff(code) {
  const frag = document.createDocumentFragment();
  const lines = code.split('\n');
  const cls = (line) => {
    if (line.startsWith('+++') || line.startsWith('---')) return 'tok-file';
    if (line.startsWith('+')) return 'tok-add';
    if (line.startsWith('-')) return 'tok-del';
    if (line.startsWith('@@')) return 'tok-hunk';
    return 'tok-ctx';
  };
  const kinds = lines.map(cls);
  let i = 0;
  while (i < lines.length) {
    // A run of removed lines followed by as many added ones: each pair is
    // a line that changed, and what changed in it is marked.
    let d = i;
    while (d < lines.length && kinds[d] === 'tok-del') d += 1;
    let a = d;
    while (a < lines.length && kinds[a] === 'tok-add') a += 1;
    if (d > i && a - d === d - i) {
      const n = d - i;
      const marks = [];
      for (let k = 0; k < n; k += 1) marks.push(changedSpan(lines[i + k].slice(1), lines[d + k].slice(1)));
      for (let k = 0; k < n; k += 1) frag.append(diffLine('tok-del', lines[i + k], marks[k] && marks[k].old));
      for (let k = 0; k < n; k += 1) frag.append(diffLine('tok-add', lines[d + k], marks[k] && marks[k].new));
      i = a;
      continue;
    }
    frag.append(diffLine(kinds[i], lines[i]));
    i += 1;
  }
  return frag;
}

// diffLine is one line of a diff; mark, when given, is the [start, end)
// of the changed part of the line's text (after its +/- sign).
function diffLine(kind, line, mark) {
  const s = document.createElement('span');
  s.className = `diff-line ${kind}`;
  if (!mark) {
    s.textContent = line || ' ';
    return s;
  }
  const text = line.slice(1);
  const m = document.createElement('mark');
  m.className = 'diff-word';
  m.textContent = text.slice(mark[0], mark[1]);
  s.append(line[0] + text.slice(0, mark[0]), m, text.slice(mark[1]));
  return s;
}

// changedSpan finds what changed between two versions of a line: the part
// between their common start and common end, widened to whole words. It
// returns null when they share too little for marks to help.
function changedSpan(before, after) {
  let p = 0;
  while (p < before.length && p < after.length && before[p] === after[p]) p += 1;
  let q = 0;
  while (q < before.length - p && q < after.length - p && before[before.length - 1 - q] === after[after.length - 1 - q]) q += 1;
  const word = /[\w$]/;
  while (p > 0 && word.test(before[p - 1])) p -= 1;
  while (q > 0 && word.test(before[before.length - q]) && word.test(after[after.length - q])) q -= 1;
  if (p + q < Math.min(before.length, after.length) / 3) return null;
  return { old: [p, before.length - q], new: [p, after.length - q] };
}

const IDENT = /[A-Za-z_$][\w$]*/y;
const NUMBER = /(?:0[xX][\da-fA-F_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)/y;

// highlight returns code as a fragment of text and token spans.
export function highlight(code, info) {
  const lang = langOf(info);
  if (lang === 'diff') return highlightDiff(code);
  const frag = document.createDocumentFragment();
  const def = LANGS[lang];
  if (!def) {
    frag.append(document.createTextNode(code));
    return frag;
  }
  let plain = '';
  const flush = () => {
    if (plain) frag.append(document.createTextNode(plain));
    plain = '';
  };
  const emit = (cls, text) => {
    flush();
    frag.append(span(cls, text));
  };
  let i = 0;
  outer: while (i < code.length) {
    for (const m of def.line) {
      if (code.startsWith(m, i)) {
        let end = code.indexOf('\n', i);
        if (end < 0) end = code.length;
        emit('tok-com', code.slice(i, end));
        i = end;
        continue outer;
      }
    }
    for (const [open, close] of def.block) {
      if (code.startsWith(open, i)) {
        let end = code.indexOf(close, i + open.length);
        end = end < 0 ? code.length : end + close.length;
        emit('tok-com', code.slice(i, end));
        i = end;
        continue outer;
      }
    }
    for (const q of def.strings) {
      if (code.startsWith(q, i)) {
        let j = i + q.length;
        while (j < code.length && !code.startsWith(q, j)) {
          // A one-character quote ends at the line's end: an unclosed
          // string must not colour the rest of the block.
          if (q.length === 1 && q !== '`' && code[j] === '\n') break;
          j += code[j] === '\\' && q !== '`' ? 2 : 1;
        }
        j = Math.min(code.length, code.startsWith(q, j) ? j + q.length : j);
        emit('tok-str', code.slice(i, j));
        i = j;
        continue outer;
      }
    }
    const prev = i > 0 ? code[i - 1] : '';
    if (/[\d]/.test(code[i]) && !/[\w$]/.test(prev)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(code);
      if (m) {
        emit('tok-num', m[0]);
        i += m[0].length;
        continue;
      }
    }
    if (/[A-Za-z_$]/.test(code[i]) && !/[\w$]/.test(prev)) {
      IDENT.lastIndex = i;
      const m = IDENT.exec(code);
      const w = m[0];
      if (def.kw.has(w)) emit('tok-kw', w);
      else if (def.lit.has(w)) emit('tok-lit', w);
      else if (def.types.has(w)) emit('tok-type', w);
      else plain += w;
      i += w.length;
      continue;
    }
    plain += code[i];
    i += 1;
  }
  flush();
  return frag;
}
