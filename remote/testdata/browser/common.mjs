// What the browser scripts (ui.mjs, live.mjs) share: how a person opens
// the UI, sends a prompt and waits for nova, and the watch that fails a
// page on an error or a CSP violation.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// AXE is axe-core's source, run in the page by the DevTools protocol
// (page.evaluate), which the page's CSP does not govern: the page itself
// still loads nothing but its own scripts.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const TIMEOUT = 20000;

export const step = (name) => console.log(`step: ${name}`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// watch fails the test on an uncaught page error or a CSP violation:
// the UI must run with nothing but its own scripts.
export function watch(page, problems) {
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content.Security.Policy/i.test(msg.text())) problems.push(`CSP: ${msg.text()}`);
  });
}

// login opens the UI at base with the token, as the printed URL does:
// in the fragment, which the browser never sends; with old, as an old
// link did (?token=, which the server turns into the fragment). Either
// way the page takes the token and the address ends up without it.
export async function login(page, base, token, path = '/', { old = false } = {}) {
  const resp = await page.goto(old ? `${base}${path}?token=${encodeURIComponent(token)}` : `${base}${path}#token=${encodeURIComponent(token)}`);
  assert.equal(resp.status(), 200);
  await connected(page);
  const url = new URL(page.url());
  assert.equal(url.search, '', `the token is still in the address bar: ${page.url()}`);
  assert.equal(url.hash, '', `the token is still in the address bar: ${page.url()}`);
  const csp = resp.headers()['content-security-policy'] || '';
  assert.match(csp, /default-src 'self'/, 'no Content-Security-Policy on the page');
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, `the CSP allows inline code: ${csp}`);
  const cookies = await page.context().cookies();
  assert.deepEqual(cookies, [], 'nova set a cookie');
}

export async function connected(page) {
  await page.waitForFunction(() => document.getElementById('conn').dataset.state === 'open', null, { timeout: TIMEOUT });
}

// send types a prompt and sends it with Enter.
export async function send(page, text) {
  await page.locator('#prompt').fill(text);
  await page.locator('#prompt').press('Enter');
}

export async function idle(page) {
  await page.locator('#send').waitFor({ state: 'visible', timeout: TIMEOUT });
}

// accessible fails when axe-core finds a critical or serious problem in
// what the page shows (WCAG 2.x A and AA rules, best practices too).
export async function accessible(page, where) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')})`);
  });
  assert.deepEqual(found, [], `${where}: axe-core finds critical or serious problems`);
}
