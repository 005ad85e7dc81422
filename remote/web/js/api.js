// nova serve's HTTP API (docs/server.md), as the UI uses it: the session
// list and history, stream status, context, the workspace picker's
// listing, the models and the session's operations (model, mode,
// compact, !cmd, rules). Every request carries the token as a bearer
// header (auth.js) and no cookie.

import { headers } from './auth.js';

// ApiError is a non-2xx answer with the server's {"detail"}.
export class ApiError extends Error {
  constructor(status, detail) {
    super(detail || `HTTP ${status}`);
    this.status = status;
  }
}

// unauthorized is called when nova refuses the page's token (401).
let unauthorized = () => {};

export function onUnauthorized(fn) {
  unauthorized = fn;
}

async function request(method, path, body) {
  const init = { method, credentials: 'omit', headers: headers() };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const resp = await fetch(path, init);
  let data = null;
  try {
    data = await resp.json();
  } catch {
    data = null;
  }
  if (resp.status === 401) unauthorized();
  if (!resp.ok) throw new ApiError(resp.status, data && data.detail);
  return data;
}

const q = encodeURIComponent;

export const api = {
  sessions: () => request('GET', '/api/sessions').then((d) => d.items || []),
  // session is one session as the list gives it, with the model and
  // permission mode it runs with now.
  session: (id) => request('GET', `/api/sessions/${q(id)}`),
  messages: (id) => request('GET', `/api/sessions/${q(id)}/messages`).then((d) => d.items || []),
  context: (id) => request('GET', `/api/sessions/${q(id)}/context`),
  setWorkspace: (id, dir) => request('PUT', `/api/sessions/${q(id)}/workspace`, { workspace_dir: dir }),
  // status is the session's stream status, or null when it has none
  // (a session that has not run since the server started).
  status: (id) => request('GET', `/api/chat/stream/status?session_id=${q(id)}`).catch((e) => {
    if (e.status === 404) return null;
    throw e;
  }),
  fsList: (path) => request('GET', path ? `/api/fs/list?path=${q(path)}` : '/api/fs/list'),
  models: () => request('GET', '/api/models').then((d) => d.items || []),
  agent: (key) => request('GET', `/api/agents/${q(key)}`),
  // landing is the page the printed URL leads to (a shared session's).
  landing: () => request('GET', '/api/landing').then((d) => d.path || '/'),
  // The HTTP forms of approve, answer and interrupt, for when the socket
  // is down.
  approve: (sessionId, requestId, approved, remember) =>
    request('POST', `/api/chat/approve?session_id=${q(sessionId)}`, { request_id: requestId, approved, remember }),
  // The project MCP servers session id waits to start, and the answer.
  pendingMCP: (id) => request('GET', `/api/sessions/${q(id)}/mcp/pending`).then((d) => d.items || []),
  approveMCP: (id, name, approved) => request('POST', `/api/sessions/${q(id)}/mcp/approve`, { name, approved }),
  // The session's operations (docs/server.md, "Session operations"):
  // the HTTP forms, whose statuses (400, 403, 409) the page tells apart.
  setModel: (id, model) => request('POST', `/api/sessions/${q(id)}/model`, { model }),
  setMode: (id, mode) => request('POST', `/api/sessions/${q(id)}/mode`, { mode }),
  compact: (id) => request('POST', `/api/sessions/${q(id)}/compact`, {}),
  shell: (id, command) => request('POST', `/api/sessions/${q(id)}/shell`, { command }),
  rules: (id) => request('GET', `/api/sessions/${q(id)}/rules`).then((d) => d.items || []),
  interrupt: (sessionId) => request('POST', '/api/chat/interrupt', { session_id: sessionId }),
  answer: (sessionId, questionId, msg) =>
    request('POST', `/api/chat/answer?session_id=${q(sessionId)}`, { question_id: questionId, ...msg }),
};
