// The token. nova prints the page's URL with the token in the fragment
// (/#token=...), which the browser never sends to any server. The page
// keeps it in sessionStorage — this tab, and this origin only, so no page
// of another port or site can read it, and two nova servers on one
// machine keep their own — and takes it out of the address bar at once.
// It goes to nova as "Authorization: Bearer" on every request, and on the
// WebSocket, whose browser API cannot set a header, as a subprotocol. No
// cookie is used: a browser would send one to every port of the host.

const KEY = 'nova.token';

// memory holds the token when sessionStorage is off (the page's life).
let memory = '';

// take moves a token from the address (the fragment, or an old link's
// ?token=) into storage and out of the address bar and the history. It
// reports whether the address carried one.
export function take() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const fresh = hash.get('token') || query.get('token');
  if (!fresh) return false;
  hash.delete('token');
  query.delete('token');
  const q = query.toString();
  const f = hash.toString();
  history.replaceState(null, '', `${location.pathname}${q ? `?${q}` : ''}${f ? `#${f}` : ''}`);
  try {
    sessionStorage.setItem(KEY, fresh);
  } catch {
    // storage off: the token lives as long as the page
    memory = fresh;
  }
  return true;
}

// token is the page's token; '' when it has none.
export function token() {
  try {
    return sessionStorage.getItem(KEY) || memory;
  } catch {
    return memory;
  }
}

// forget drops a token nova refused.
export function forget() {
  memory = '';
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing kept
  }
}

// headers are the headers that carry the token.
export function headers() {
  const t = token();
  return t ? { Authorization: `Bearer ${t}` } : {};
}

// protocols are the WebSocket's subprotocols: nova's own, which the
// server answers with, and the one that carries the token (unpadded
// base64url of its UTF-8, since a subprotocol cannot hold every
// character a token may).
export function protocols() {
  const bytes = new TextEncoder().encode(token());
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  const enc = btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return ['nova.v1', `nova.token.${enc}`];
}
