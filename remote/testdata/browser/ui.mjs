// Drives nova serve's web UI in headless Chromium, as a person would.
// remote/webui_test.go starts the server on a scripted fake model (its
// turns follow the prompts below, in order) behind a proxy it can cut,
// and runs this with:
//   NOVA_URL        the server (through the proxy)
//   NOVA_TOKEN      the token
//   CONTROL_URL     GET /cut drops the network, GET /restore brings it back,
//                   GET /requests?n=N waits until the model was asked N times
//   CHROMIUM        the browser to drive
//   SCREENSHOT_DIR  where the screenshots of docs/remote.md go
// It prints each step and exits non-zero with the reason on a failure.

import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
import path from 'node:path';
import { TIMEOUT, step, sleep, watch, login, connected, send, idle, accessible } from './common.mjs';

const { NOVA_URL, NOVA_TOKEN, CONTROL_URL, CHROMIUM, SCREENSHOT_DIR } = process.env;
// current is the page under test, for what a failure prints.
let current = null;

// noHorizontalScroll is the phone rule: nothing wider than the screen.
async function noHorizontalScroll(page, where) {
  const { sw, iw, wide } = await page.evaluate(() => {
    const iw = window.innerWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > iw + 1 && !e.closest('pre, .table-wrap, .sidebar:not(.open)'))
      .slice(0, 5).map((e) => `${e.tagName}.${e.className}`);
    return { sw: document.documentElement.scrollWidth, iw, wide };
  });
  assert.ok(sw <= iw, `${where}: the page scrolls sideways (scrollWidth ${sw} > ${iw}; wide: ${wide.join(', ')})`);
  assert.deepEqual(wide, [], `${where}: elements stick out of the screen`);
}

// labelled checks every control has an accessible name.
async function labelled(page, where) {
  const bad = await page.evaluate(() => {
    const out = [];
    for (const e of document.querySelectorAll('button, textarea, select, input')) {
      if (!e.getClientRects().length) continue;
      const name = e.getAttribute('aria-label') || (e.labels && [...e.labels].map((l) => l.textContent).join(' ')) || e.textContent;
      if (!name || !name.trim()) out.push(e.outerHTML.slice(0, 80));
    }
    return out;
  });
  assert.deepEqual(bad, [], `${where}: controls without a name`);
}

// tapSized checks the controls on screen are at least 44 px high (and
// buttons as wide), the size of a fingertip.
async function tapSized(page, where) {
  const small = await page.evaluate(() => [...document.querySelectorAll('button, select, textarea, summary')]
    .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
    .map((e) => ({ e, r: e.getBoundingClientRect() }))
    .filter(({ e, r }) => r.height < 43.5 || (e.tagName === 'BUTTON' && r.width < 43.5))
    .map(({ e, r }) => `${e.tagName} "${e.textContent.trim().slice(0, 20)}" ${Math.round(r.width)}x${Math.round(r.height)}`));
  assert.deepEqual(small, [], `${where}: controls smaller than a fingertip`);
}

async function control(what) {
  const resp = await fetch(`${CONTROL_URL}/${what}`);
  assert.equal(resp.status, 200, `control ${what}`);
}

async function desktop(browser) {
  const problems = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  current = page;
  page.setDefaultTimeout(TIMEOUT);
  watch(page, problems);

  step('open the UI with the token');
  await login(page, NOVA_URL, NOVA_TOKEN);
  await labelled(page, 'desktop');
  await accessible(page, 'desktop, new session');

  step('the Markdown renderer keeps a single line break');
  const lines = await page.evaluate(async () => {
    const { renderMarkdown } = await import('/js/markdown.js');
    const box = document.createElement('div');
    document.body.append(box);
    box.append(renderMarkdown('Summary:\nFiles changed: 2\nTests: 14 passed\n\nNext paragraph.'));
    const text = box.innerText;
    box.remove();
    return text;
  });
  assert.ok(lines.includes('Summary:\nFiles changed: 2\nTests: 14 passed'), `single line breaks were joined: ${JSON.stringify(lines)}`);

  step('the Markdown renderer keeps agent-written HTML and scripts out');
  const md = await page.evaluate(async () => {
    const { renderMarkdown } = await import('/js/markdown.js');
    const box = document.createElement('div');
    box.append(renderMarkdown([
      '<script>window.pwned = 1</script> <img src=x onerror="window.pwned = 1">',
      '[bad](javascript:window.pwned=1) [data](data:text/html,hi) [good](https://example.com/a_(b)) ![pic](http://e.com/p.png)',
      '',
      '```js',
      'const a = "x"; // note',
      '```',
      '',
      '1. first',
      '   - nested *em*',
      '2. second',
      '',
      '| a | b |',
      '|---|---|',
      '| `x|y` | **z** |',
    ].join('\n')));
    return {
      text: box.textContent,
      tags: [...box.querySelectorAll('script, img, iframe, object, [onerror]')].length,
      links: [...box.querySelectorAll('a')].map((a) => [a.getAttribute('href'), a.rel, a.target]),
      kw: [...box.querySelectorAll('.tok-kw')].map((e) => e.textContent),
      str: [...box.querySelectorAll('.tok-str')].map((e) => e.textContent),
      nested: box.querySelectorAll('ol > li > ul > li > em').length,
      cells: [...box.querySelectorAll('td')].map((e) => e.textContent),
      pwned: window.pwned === 1,
    };
  });
  assert.equal(md.tags, 0, 'raw HTML became elements');
  assert.equal(md.pwned, false);
  assert.ok(md.text.includes('<script>window.pwned = 1</script>'), 'raw HTML is not shown as text');
  assert.deepEqual(md.links, [
    ['https://example.com/a_(b)', 'noopener noreferrer', '_blank'],
    ['http://e.com/p.png', 'noopener noreferrer', '_blank'],
  ], 'only http(s) links, with rel=noopener');
  assert.deepEqual(md.kw, ['const']);
  assert.deepEqual(md.str, ['"x"']);
  assert.equal(md.nested, 1, 'nested list');
  assert.deepEqual(md.cells, ['x|y', 'z']);

  step('send a prompt and see the rendered answer');
  await send(page, 'Say hello');
  const first = page.locator('article.msg.assistant').last();
  await first.locator('h2', { hasText: 'Hello' }).waitFor();
  await first.locator('strong', { hasText: 'bold' }).waitFor();
  await first.locator('em', { hasText: 'emphasis' }).waitFor();
  await first.locator('pre.code .tok-kw', { hasText: 'func' }).first().waitFor();
  await first.locator('pre.code .tok-com', { hasText: '// done' }).waitFor();
  await first.locator('li', { hasText: 'two' }).waitFor();
  const a = first.locator('a[href="https://example.com/docs"]');
  assert.equal(await a.getAttribute('rel'), 'noopener noreferrer');
  assert.equal(await first.locator('img').count(), 0, 'agent-written <img> became an element');
  assert.ok((await first.textContent()).includes('<img src=x onerror=alert(1)>'));
  await idle(page);
  assert.match(new URL(page.url()).pathname, /^\/s\/.+/, 'the session is not in the address');

  step("the session's controls say what the server refused, in its words");
  await page.locator('#session-bar').waitFor({ state: 'visible' });
  // A name the server does not know (a list gone stale): its 400 says so.
  await page.locator('#session-model').evaluate((s) => s.append(new Option('gone', 'anthropic:no-such-model')));
  await page.locator('#session-model').selectOption('anthropic:no-such-model');
  await page.locator('#composer-error', { hasText: 'Could not switch the model' }).waitFor();
  assert.match(await page.locator('#composer-error').textContent(), /no-such-model.*claude-haiku-4-5/s, 'the 400 does not list the known models');
  assert.equal(await page.locator('#session-model').inputValue(), 'anthropic:claude-sonnet-4-5', 'the picker shows a model the session did not take');
  // bypassPermissions is the terminal's alone: the 403 is shown.
  await page.locator('#session-mode').evaluate((s) => s.append(new Option('bypass', 'bypassPermissions')));
  await page.locator('#session-mode').selectOption('bypassPermissions');
  await page.locator('#composer-error', { hasText: 'Could not change the permission mode' }).waitFor();
  assert.match(await page.locator('#composer-error').textContent(), /bypassPermissions/);
  assert.equal(await page.locator('#session-mode').inputValue(), 'default', 'the switch shows a mode the session did not take');

  step('Shift+Enter adds a line, Enter sends');
  const users = await page.locator('article.msg.user').count();
  await page.locator('#prompt').fill('line one');
  await page.locator('#prompt').press('Shift+Enter');
  await page.locator('#prompt').pressSequentially('line two');
  assert.equal(await page.locator('#prompt').inputValue(), 'line one\nline two');
  assert.equal(await page.locator('article.msg.user').count(), users, 'Shift+Enter sent the prompt');

  step('approve a Bash call in place and see its result');
  await send(page, 'Make a file');
  const ask = page.getByRole('alertdialog');
  await ask.waitFor();
  assert.ok((await ask.textContent()).includes('touch made-by-nova.txt'), 'the ask does not show the command');
  assert.ok((await ask.locator('.ask-reason').textContent()).trim().length > 0, 'the ask gives no reason');
  await page.locator('#waiting').waitFor({ state: 'visible' });
  await accessible(page, 'desktop, Bash approval');
  const allow = ask.getByRole('button', { name: 'Allow', exact: true });
  assert.ok(await allow.evaluate((b) => b === document.activeElement), 'focus did not move to the approval');
  await allow.click();
  const row = page.locator('details.tool[data-call-id="toolu_bash"]');
  await row.locator('.tool-status', { hasText: 'done' }).waitFor();
  await row.locator('.tool-output pre.out', { hasText: 'created-by-bash' }).waitFor();
  await page.locator('article.msg.assistant').last().locator('strong', { hasText: 'made-by-nova.txt' }).waitFor();
  await idle(page);
  assert.ok(await page.locator('#waiting').isHidden(), 'the approval banner stayed');

  step('reload and see the history');
  await page.reload();
  await connected(page);
  await page.locator('.user-text', { hasText: 'Say hello' }).waitFor();
  await page.locator('.user-text', { hasText: 'Make a file' }).waitFor();
  await page.locator('article.msg.assistant h2', { hasText: 'Hello' }).waitFor();
  const hrow = page.locator('details.tool[data-call-id="toolu_bash"]');
  await hrow.locator('.tool-output pre.out', { hasText: 'created-by-bash' }).waitFor({ state: 'attached' });
  await page.locator('article.msg.assistant strong', { hasText: 'made-by-nova.txt' }).waitFor();
  assert.equal(await page.locator('article.msg.assistant h2', { hasText: 'Hello' }).count(), 1, 'the history is shown twice');
  await page.locator('.session-name', { hasText: 'Say hello' }).waitFor();
  await hrow.locator('summary').click();
  await hrow.locator('.tool-output pre.out', { hasText: 'created-by-bash' }).waitFor();
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-desktop.png') });
  await accessible(page, 'desktop, history with a tool row open');

  step('stop a slow run');
  await send(page, 'Take your time');
  await page.locator('#stop').waitFor({ state: 'visible' });
  await control('requests?n=4'); // the run is waiting on the model
  // An operation while the turn goes on is refused (409), and said so.
  await page.locator('#compact').click();
  await page.locator('#composer-error', { hasText: 'busy — try when the turn ends' }).waitFor();
  // So is a !cmd, which stays in the message box to send again.
  await page.locator('#composer-error').evaluate((e) => { e.textContent = ''; });
  await send(page, '!echo later');
  await page.locator('#composer-error', { hasText: 'The command did not run: busy — try when the turn ends' }).waitFor();
  assert.equal(await page.locator('#prompt').inputValue(), '!echo later', 'the refused command is not kept to send again');
  assert.equal(await page.locator('.user-text', { hasText: '!echo later' }).count(), 0, 'a refused command is shown as sent');
  await page.locator('#prompt').fill('');
  await page.locator('#stop').click();
  await page.locator('.notice.stopped', { hasText: 'Stopped.' }).waitFor();
  await idle(page);

  step('after a reload the stopped run is a notice, not your words');
  await page.reload();
  await connected(page);
  await page.locator('.user-text', { hasText: 'Take your time' }).waitFor();
  await page.locator('.notice.stopped', { hasText: 'Stopped.' }).waitFor();
  assert.equal(await page.locator('.user-text', { hasText: 'Request interrupted' }).count(), 0, 'the stop note is shown as a user message');

  step('lose the network mid-answer and miss no frame');
  await send(page, 'Stream slowly');
  const streamed = page.locator('article.msg.assistant').last().locator('.markdown');
  await streamed.filter({ hasText: 'Alpha' }).waitFor();
  await control('cut');
  await page.waitForFunction(() => document.getElementById('conn').dataset.state !== 'open', null, { timeout: TIMEOUT });
  await page.locator('#conn', { hasText: 'Offline' }).waitFor();
  await sleep(1500);
  await control('restore');
  await connected(page);
  await idle(page);
  assert.equal((await streamed.textContent()).trim(),
    'Alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike.', 'frames were lost or doubled');

  step('pick the workspace of a new session');
  await page.locator('#new-session').click();
  assert.equal(new URL(page.url()).pathname, '/');
  await page.locator('#workspace').click();
  const picker = page.getByRole('dialog', { name: 'Choose a workspace' });
  await picker.waitFor();
  await accessible(page, 'desktop, workspace picker');
  await picker.getByRole('button', { name: 'src', exact: true }).click();
  await page.waitForFunction(() => /\/src$/.test(document.querySelector('dialog .ws-input').value));
  await picker.getByRole('button', { name: 'Use this folder' }).click();
  await picker.waitFor({ state: 'hidden' });
  assert.equal(await page.locator('#workspace').textContent(), 'src');
  await page.locator('#workspace').click();
  await picker.waitFor();
  await page.keyboard.press('Escape');
  await picker.waitFor({ state: 'hidden' });
  assert.equal(await page.locator('#workspace').textContent(), 'src', 'Escape changed the workspace');

  await context.close();
  assert.deepEqual(problems, []);
}

// fitsAcross fails when what el shows is wider than el: text off to the
// side that a phone would have to scroll to.
async function fitsAcross(el, what) {
  const [scroll, client] = await el.evaluate((e) => [e.scrollWidth, e.clientWidth]);
  assert.ok(scroll <= client, `${what} overflows: ${scroll} px of content in ${client} px`);
}

async function phone(browser) {
  const problems = [];
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  current = page;
  page.setDefaultTimeout(TIMEOUT);
  watch(page, problems);

  step('phone: open the UI from an old link (?token=)');
  await login(page, NOVA_URL, NOVA_TOKEN, '/', { old: true });
  await noHorizontalScroll(page, 'phone, new session');
  await tapSized(page, 'phone, new session');
  await labelled(page, 'phone');

  step('phone: open a session from the menu');
  await page.locator('#menu-button').click();
  const item = page.locator('.session', { hasText: 'Say hello' });
  await item.waitFor();
  await tapSized(page, 'phone, menu');
  await accessible(page, 'phone, menu');
  await item.click();
  await page.locator('article.msg.assistant h2', { hasText: 'Hello' }).waitFor();
  assert.ok(await page.locator('#sidebar').evaluate((e) => !e.classList.contains('open')), 'the menu stayed open');
  // A tab that never saw the session shows each run once.
  await page.locator('.user-text', { hasText: 'Stream slowly' }).waitFor();
  await sleep(500);
  assert.equal(await page.locator('.markdown', { hasText: 'Alpha bravo' }).count(), 1, 'a run is shown twice');
  assert.equal(await page.locator('.user-text', { hasText: 'Stream slowly' }).count(), 1);
  await noHorizontalScroll(page, 'phone, history');

  step('phone: a new session with wide content');
  await page.locator('#menu-button').click();
  await page.locator('#new-session').click();
  await send(page, 'Show wide things');
  await page.locator('article.msg.assistant table').waitFor();
  await idle(page);
  await noHorizontalScroll(page, 'phone, wide answer');
  await tapSized(page, 'phone, answer');
  const box = await page.locator('#prompt').boundingBox();
  assert.ok(box && box.y + box.height <= 844, 'the message box is below the screen');
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-phone.png') });
  await accessible(page, 'phone, answer and session controls');

  step('phone: an Edit approval shows its whole diff, wrapped, the change marked');
  await send(page, 'Edit the notes');
  let ask = page.getByRole('alertdialog');
  await ask.waitFor();
  const askDiff = ask.locator('pre.diff');
  await askDiff.waitFor();
  await fitsAcross(askDiff, 'the Edit approval diff');
  const askText = await askDiff.innerText();
  assert.ok(askText.includes('merges every settings file') && askText.includes('merges them key by key.'), `the new text is not shown whole: ${askText}`);
  assert.equal(await askDiff.locator('mark.diff-word', { hasText: 'merges' }).count(), 1, 'the changed word is not marked');
  assert.equal(await askDiff.locator('mark.diff-word', { hasText: 'reads' }).count(), 1, 'the removed word is not marked');
  await noHorizontalScroll(page, 'phone, Edit approval');
  await accessible(page, 'phone, Edit approval');
  await ask.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-phone-approval.png') });
  await ask.getByRole('button', { name: 'Allow', exact: true }).click();

  step('phone: a long command is shown in full in its approval');
  ask = page.getByRole('alertdialog');
  await ask.locator('pre.command').waitFor();
  await fitsAcross(ask.locator('pre.command'), 'the Bash approval command');
  assert.ok((await ask.locator('pre.command').innerText()).includes('| sort | tee notes-copy.log'), 'the end of the command is hidden');
  await ask.getByRole('button', { name: 'Allow', exact: true }).click();
  await page.locator('article.msg.assistant').last().locator('.markdown', { hasText: 'Edited the notes.' }).waitFor();
  await idle(page);

  step('phone: the finished Edit shows its diff wrapped');
  const edit = page.locator('details.tool[data-call-id="toolu_edit"]');
  await edit.locator('.tool-status', { hasText: 'done' }).waitFor();
  if (!(await edit.evaluate((e) => e.open))) await edit.locator('summary').click();
  const doneDiff = edit.locator('.tool-output pre.diff');
  await doneDiff.waitFor();
  await fitsAcross(doneDiff, 'the finished Edit diff');
  assert.ok((await doneDiff.innerText()).includes('merges them key by key.'), 'the finished diff hides the new text');
  await noHorizontalScroll(page, 'phone, finished Edit');
  await edit.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-phone-edit.png') });

  step('phone: the model picker switches the model the next request goes to');
  await noHorizontalScroll(page, 'phone, session controls');
  await tapSized(page, 'phone, session controls');
  await page.locator('#session-model').selectOption('anthropic:claude-haiku-4-5');
  await page.locator('.notice.op', { hasText: 'claude-haiku-4-5' }).waitFor();
  assert.equal(await page.locator('#session-model').inputValue(), 'anthropic:claude-haiku-4-5');
  await send(page, 'Which model answers?');
  await page.locator('article.msg.assistant .markdown', { hasText: 'Answered by the picked model.' }).waitFor();
  await idle(page);
  const used = await (await fetch(`${CONTROL_URL}/last-model`)).text();
  assert.equal(used, 'claude-haiku-4-5', 'the request after the switch went to another model');
  assert.equal(await page.locator('#session-model').inputValue(), 'anthropic:claude-haiku-4-5', 'the picker forgot the switch');

  step('phone: !echo hi runs the command and shows its output and exit code');
  await send(page, '!echo hi');
  const shell = page.locator('details.tool.shell').last();
  await shell.locator('.tool-status', { hasText: 'exit 0' }).waitFor();
  await shell.locator('.tool-output pre.out', { hasText: /^hi\s*$/ }).waitFor();
  assert.equal(await page.locator('.user-text', { hasText: '!echo hi' }).count(), 1, 'the command is not shown once as what you typed');
  assert.equal(await page.locator('#prompt').inputValue(), '');
  await idle(page);
  await noHorizontalScroll(page, 'phone, !echo hi');
  await accessible(page, 'phone, !echo hi');

  step('phone: in plan mode a Write the model attempts is stopped');
  await page.locator('#session-mode').selectOption('plan');
  await page.locator('.notice.op', { hasText: 'Plan (read-only)' }).waitFor();
  await send(page, 'Write the file');
  const write = page.locator('details.tool[data-call-id="toolu_write"]');
  await write.locator('.tool-status', { hasText: 'denied' }).waitFor();
  await page.locator('article.msg.assistant .markdown', { hasText: 'Plan mode kept the file unwritten.' }).waitFor();
  await idle(page);
  assert.equal(await page.locator('#session-mode').inputValue(), 'plan');
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'remote-phone-ops.png') });

  step("a fresh page shows the session's real model and mode, and another frontend's change at once");
  const sessionPath = new URL(page.url()).pathname;
  const sessionId = decodeURIComponent(sessionPath.replace(/^\/s\//, ''));
  // A new context: nothing of the first page's tab storage.
  const other = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const fresh = await other.newPage();
  watch(fresh, problems);
  await login(fresh, NOVA_URL, NOVA_TOKEN, sessionPath);
  await fresh.locator('#session-bar').waitFor({ state: 'visible' });
  await fresh.waitForFunction(() => document.getElementById('session-mode').value === 'plan', null, { timeout: TIMEOUT })
    .catch(async () => assert.fail(`a fresh page shows mode ${await fresh.locator('#session-mode').inputValue()}, the session is in plan`));
  assert.equal(await fresh.locator('#session-model').inputValue(), 'anthropic:claude-haiku-4-5', "a fresh page does not show the session's model");
  // Another frontend (the terminal, a script) changes the mode: both
  // pages show it at once, told over the WebSocket, with no reload.
  const r = await fetch(`${NOVA_URL}/api/sessions/${encodeURIComponent(sessionId)}/mode`, {
    method: 'POST', headers: { Authorization: `Bearer ${NOVA_TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ mode: 'acceptEdits' }),
  });
  assert.equal(r.status, 200, `POST mode acceptEdits: ${r.status} ${await r.text()}`);
  for (const [p, which] of [[fresh, 'the fresh page'], [page, 'the first page']]) {
    await p.waitForFunction(() => document.getElementById('session-mode').value === 'acceptEdits', null, { timeout: TIMEOUT })
      .catch(async () => assert.fail(`after another frontend's change ${which} shows mode ${await p.locator('#session-mode').inputValue()} without a reload`));
  }
  await other.close();
  const back = await fetch(`${NOVA_URL}/api/sessions/${encodeURIComponent(sessionId)}/mode`, {
    method: 'POST', headers: { Authorization: `Bearer ${NOVA_TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ mode: 'plan' }),
  });
  assert.equal(back.status, 200);
  await page.waitForFunction(() => document.getElementById('session-mode').value === 'plan', null, { timeout: TIMEOUT })
    .catch(async () => assert.fail(`the page shows mode ${await page.locator('#session-mode').inputValue()} after the switch back to plan`));

  step('phone: the rules view shows each rule with its source');
  await page.locator('#rules').click();
  const rules = page.getByRole('dialog', { name: 'Permission rules in force' });
  const rule = rules.locator('tr.rule', { hasText: 'Bash(echo:*)' });
  await rule.waitFor();
  assert.equal((await rule.locator('.rule-behavior').textContent()).trim(), 'allow');
  assert.match(await rule.locator('.rule-source').textContent(), /\.nova\/settings\.json \(user\)/, 'the rule does not say where it comes from');
  await fitsAcross(rules, 'the rules view');
  await tapSized(page, 'phone, rules');
  await accessible(page, 'phone, rules view');
  await rules.getByRole('button', { name: 'Close' }).click();
  await rules.waitFor({ state: 'hidden' });
  assert.ok(await page.locator('#rules').evaluate((b) => b === document.activeElement), 'focus did not come back to Rules');

  step('phone: Compact summarises the history and says so');
  await page.locator('#compact').click();
  await page.locator('.notice', { hasText: 'History compacted' }).waitFor();
  await idle(page);
  assert.equal(await page.locator('.user-text', { hasText: '/compact' }).count(), 0, 'the compaction is shown as your message');
  assert.equal(await page.locator('#composer-error').textContent(), '');

  await context.close();
  assert.deepEqual(problems, []);
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  await desktop(browser);
  await phone(browser);
  console.log('ui.mjs: every step passed');
} catch (err) {
  console.error(`ui.mjs: ${err.stack || err}`);
  process.exitCode = 1;
  if (current && !current.isClosed()) {
    // What the page showed, to tell a broken UI from a slow one.
    const shown = await current.evaluate(() => document.getElementById('transcript').innerText).catch(() => '');
    console.error(`the page at ${current.url()} showed:\n${shown}`);
  }
} finally {
  await browser.close();
}
