// The web UI as one of several windows on a session, in headless
// Chromium. remote/webui_test.go's TestWebUILive runs it with:
//   NOVA_URL     a server on a scripted fake model (its turns follow the
//                steps below, in order)
//   SUB_URL      a server whose runs are a subagent's work under an Agent
//                call (agent.Event's parent_tool_use_id)
//   NOVA_TOKEN   the token of both
//   CONTROL_URL  GET /prompt?session=ID&text=T sends a prompt over HTTP,
//                as another client (or the terminal) does; GET /release
//                lets the approved Bash command finish; GET /close?session=ID
//                closes the session under its subscribers
//   CHROMIUM     the browser to drive
// It prints each step and exits non-zero with the reason on a failure.

import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import { TIMEOUT, step, watch, login, send, idle } from './common.mjs';

const { NOVA_URL, SUB_URL, NOVA_TOKEN, CONTROL_URL, CHROMIUM } = process.env;
const pages = [];

async function open(browser, problems) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  watch(page, problems);
  pages.push(page);
  return page;
}

async function twoWindows(browser, problems) {
  const a = await open(browser, problems);
  const b = await open(browser, problems);

  step('window A starts a session');
  await login(a, NOVA_URL, NOVA_TOKEN);
  await send(a, 'First');
  await a.locator('article.msg.assistant .markdown', { hasText: 'One.' }).waitFor();
  await idle(a);
  const path = new URL(a.url()).pathname;
  assert.match(path, /^\/s\/.+/);

  step("the project's MCP server waits for approval; A approves it");
  const box = a.getByRole('region', { name: 'MCP servers waiting for approval' });
  await box.locator('.mcp-item[data-mcp-name="proj"]').waitFor();
  assert.ok((await box.textContent()).includes('.mcp.json'), 'the box does not say where the server comes from');
  await box.getByRole('button', { name: 'Approve MCP server proj' }).click();
  await box.waitFor({ state: 'hidden' });

  step('window B opens the same session');
  await login(b, NOVA_URL, NOVA_TOKEN);
  await b.goto(`${NOVA_URL}${path}`);
  await b.locator('.user-text', { hasText: 'First' }).waitFor();
  await b.locator('article.msg.assistant .markdown', { hasText: 'One.' }).waitFor();

  step('a question shows in both windows; B answers it, A sees it answered');
  await send(a, 'Pick a database');
  await b.locator('.user-text', { hasText: 'Pick a database' }).waitFor();
  const qa = a.getByRole('alertdialog').filter({ hasText: 'Which database?' });
  const qb = b.getByRole('alertdialog').filter({ hasText: 'Which database?' });
  await qa.waitFor();
  await qb.waitFor();
  assert.ok((await qb.textContent()).includes('nova asks you'));
  await a.locator('#waiting', { hasText: 'waiting for your answer' }).waitFor();
  await qb.getByLabel('SQLite').check();
  await qb.getByLabel('Cache').check();
  await qb.getByLabel('Search').check();
  await qb.getByRole('button', { name: 'Answer' }).click();
  await qb.waitFor({ state: 'hidden' });
  await qa.waitFor({ state: 'hidden' });
  const qrow = a.locator('details.tool[data-call-id="toolu_q"]');
  await qrow.locator('.tool-status', { hasText: 'done' }).waitFor();
  await qrow.locator('dd', { hasText: 'Cache, Search' }).waitFor({ state: 'attached' });
  await a.locator('article.msg.assistant .markdown', { hasText: 'Noted your choices.' }).waitFor();
  await idle(a);
  await idle(b);
  assert.ok(await a.locator('#waiting').isHidden(), 'A still waits for an answer');

  step('B sends a prompt: A shows it; an approval given in A closes in B');
  await send(b, 'Make a file');
  await a.locator('.user-text', { hasText: 'Make a file' }).waitFor();
  assert.equal(await b.locator('.user-text', { hasText: 'Make a file' }).count(), 1, 'B shows its own prompt twice');
  const askA = a.getByRole('alertdialog').filter({ hasText: 'shared.txt' });
  const askB = b.getByRole('alertdialog').filter({ hasText: 'shared.txt' });
  await askA.waitFor();
  await askB.waitFor();
  await askA.getByRole('button', { name: 'Allow', exact: true }).click();
  // The command waits for /release: B closes its dialog on the answered
  // event, not on the call's result.
  await b.locator('.ask.answered', { hasText: 'Allowed (answered elsewhere)' }).waitFor();
  assert.equal(await b.locator('details.tool[data-call-id="toolu_bash"] .tool-status').textContent(), 'running');
  assert.ok(await b.locator('#waiting').isHidden(), 'B still waits for an approval given in A');
  assert.equal((await fetch(`${CONTROL_URL}/release`)).status, 200);
  await b.locator('details.tool[data-call-id="toolu_bash"] .tool-output pre.out', { hasText: 'shared-ok' }).waitFor({ state: 'attached' });
  await b.locator('article.msg.assistant .markdown', { hasText: 'Made it.' }).waitFor();
  await idle(a);
  await idle(b);
  assert.ok(await b.locator('#waiting').isHidden(), 'B still waits for an approval');

  step('a prompt sent from outside the browser shows in both');
  const id = decodeURIComponent(path.slice(3));
  const resp = await fetch(`${CONTROL_URL}/prompt?session=${encodeURIComponent(id)}&text=${encodeURIComponent('Typed elsewhere')}`);
  assert.equal(resp.status, 200);
  for (const p of [a, b]) {
    await p.locator('.user-text', { hasText: 'Typed elsewhere' }).waitFor();
    await p.locator('article.msg.assistant .markdown', { hasText: 'Heard you from afar.' }).waitFor();
    await idle(p);
    assert.equal(await p.locator('.user-text', { hasText: 'Typed elsewhere' }).count(), 1);
  }

  step('the server closes the session: both windows follow it again');
  assert.equal((await fetch(`${CONTROL_URL}/close?session=${encodeURIComponent(id)}`)).status, 200);
  assert.equal((await fetch(`${CONTROL_URL}/prompt?session=${encodeURIComponent(id)}&text=${encodeURIComponent('After the close')}`)).status, 200);
  for (const p of [a, b]) {
    await p.locator('.user-text', { hasText: 'After the close' }).waitFor();
    await p.locator('article.msg.assistant .markdown', { hasText: 'Still here.' }).waitFor();
    await idle(p);
    assert.equal(await p.locator('.user-text', { hasText: 'First' }).count(), 1, 'the history is lost or doubled');
  }
  return a;
}

async function subagent(page) {
  step("a subagent's work nests under its Agent call");
  await login(page, SUB_URL, NOVA_TOKEN);
  await send(page, 'Find the parser');
  const row = page.locator('details.tool[data-call-id="toolu_agent"]');
  await row.waitFor();
  const nest = row.locator('details.subagent');
  await nest.locator('summary', { hasText: 'Explore: Find the parser' }).waitFor();

  step("the subagent's approval says it is the subagent's");
  const ask = page.getByRole('alertdialog');
  await ask.waitFor();
  assert.ok(await row.evaluate((e) => e.open), 'the Agent row did not open for its subagent\'s approval');
  assert.ok(await nest.locator('[role=alertdialog]').count() === 1, 'the approval is not inside the Agent row');
  const title = await ask.locator('.ask-title').textContent();
  assert.match(title, /^The Explore subagent wants to use Deploy/);
  await page.locator('#waiting').waitFor({ state: 'visible' });
  await ask.getByRole('button', { name: 'Allow', exact: true }).click();

  const inner = nest.locator('details.tool[data-call-id="toolu_sub"]');
  await inner.locator('.tool-status', { hasText: 'done' }).waitFor({ state: 'attached' });
  await row.locator('.tool-status').last().waitFor();
  await page.locator('details.tool[data-call-id="toolu_agent"] > summary .tool-status', { hasText: 'done' }).waitFor();
  await page.locator('article.msg.assistant .markdown', { hasText: 'The subagent found it.' }).waitFor();
  await idle(page);
  assert.ok((await nest.locator('.subagent-body').textContent()).includes('Found it in parse.go.'), 'the subagent\'s text is not in its row');
  // The answer is the lead's: the subagent's text is only in the row.
  const own = await page.evaluate(() => [...document.querySelectorAll('article.msg.assistant .markdown')]
    .filter((e) => !e.closest('.subagent')).map((e) => e.textContent).join(' | '));
  assert.ok(!own.includes('Looking for it') && !own.includes('parse.go'), `the subagent's text is in the answer: ${own}`);
  assert.ok(own.includes('Asking a subagent.') && own.includes('The subagent found it.'), `the answer: ${own}`);
  await row.locator('> summary').click();
  assert.ok(!(await row.evaluate((e) => e.open)), 'the Agent row does not collapse');
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const problems = [];
try {
  const a = await twoWindows(browser, problems);
  await subagent(a);
  assert.deepEqual(problems, []);
  console.log('live.mjs: every step passed');
} catch (err) {
  console.error(`live.mjs: ${err.stack || err}`);
  process.exitCode = 1;
  for (const p of pages) {
    if (p.isClosed()) continue;
    const shown = await p.evaluate(() => document.getElementById('transcript').innerText + '\n---\n' + document.getElementById('transcript').outerHTML.slice(0, 6000)).catch(() => '');
    console.error(`the page at ${p.url()} showed:\n${shown}`);
  }
} finally {
  await browser.close();
}
