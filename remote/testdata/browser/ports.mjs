// Another port of 127.0.0.1 is the same site to a browser, so a cookie
// would reach every local listener. remote/webui_ports_test.go runs this
// in headless Chromium with:
//   NOVA_A, TOKEN_A  a nova server on a scripted fake model, and its token
//   NOVA_B, TOKEN_B  a second nova server on this machine, and its token
//   EVIL_URL         another local listener: its page tries to reach
//                    NOVA_A with whatever the browser holds, then sets its
//                    title to "attack done"
//   CHROMIUM         the browser to drive
// The Go test checks what the listener received and what NOVA_A answered
// it. This script checks the legitimate side: the page opened from the
// printed URL drives its session, keeps working across reloads, and two
// servers do not log each other out.

import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { TIMEOUT, step, watch, login, connected, send, idle } from './common.mjs';

const { NOVA_A, TOKEN_A, NOVA_B, TOKEN_B, EVIL_URL, CHROMIUM } = process.env;

async function attack(page) {
  await page.goto(EVIL_URL);
  await page.waitForFunction(() => document.title === 'attack done', null, { timeout: TIMEOUT });
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const problems = [];
let current = null;
try {
  const context = await browser.newContext();
  const a = await context.newPage();
  a.setDefaultTimeout(TIMEOUT);
  watch(a, problems);
  current = a;

  step('open server A from its printed URL and drive it');
  await login(a, NOVA_A, TOKEN_A);
  await send(a, 'Hello A');
  await a.locator('article.msg.assistant .markdown', { hasText: 'Hello from A.' }).waitFor();
  await idle(a);

  step('open server B, another nova on this machine, in another tab');
  const b = await context.newPage();
  b.setDefaultTimeout(TIMEOUT);
  watch(b, problems);
  current = b;
  await login(b, NOVA_B, TOKEN_B);

  step('reload both: neither logged the other out');
  current = a;
  await a.reload();
  await connected(a);
  await a.locator('.user-text', { hasText: 'Hello A' }).waitFor();
  current = b;
  await b.reload();
  await connected(b);

  step('a new tab without the URL has no token, and says how to get one');
  const bare = await context.newPage();
  bare.setDefaultTimeout(TIMEOUT);
  watch(bare, problems);
  current = bare;
  await bare.goto(`${NOVA_A}/`);
  await bare.locator('#conn', { hasText: 'Signed out' }).waitFor();
  assert.ok((await bare.locator('#transcript').textContent()).includes('Open the URL nova printed'), 'the page does not say how to get the token');
  await bare.close();

  step("another listener's page, in a tab of its own and in A's tab");
  const evil = await context.newPage();
  evil.setDefaultTimeout(TIMEOUT);
  current = evil;
  await attack(evil);
  current = a;
  const back = a.url();
  await attack(a);
  await a.goto(back);
  await connected(a);

  step('A still drives its session');
  await send(a, 'Still yours?');
  await a.locator('article.msg.assistant .markdown', { hasText: 'Still here.' }).waitFor();
  await idle(a);

  await context.close();
  assert.deepEqual(problems, []);
  console.log('ports.mjs: every step passed');
} catch (err) {
  console.error(`ports.mjs: ${err.stack || err}`);
  process.exitCode = 1;
  if (current && !current.isClosed()) {
    const shown = await current.evaluate(() => document.body.innerText).catch(() => '');
    console.error(`the page at ${current.url()} showed:\n${shown}`);
  }
} finally {
  await browser.close();
}
