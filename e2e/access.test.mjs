// A screen reader's page: what changes is announced through live regions
// that are in the page from the start, and axe-core finds no WCAG 2.1 A or
// AA violation in the page's main states. A keyboard alone presents a
// lesson and writes one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withBrowser, open, accessibilityProblems } from './harness.mjs';

const env = withBrowser();

/** The live region's element handle, found before anything is announced. */
async function region(page, testid) {
  const handle = await page.$(`[data-testid="${testid}"]`);
  assert.ok(handle, `${testid} is in the page`);
  return handle;
}

test('imports refused, share links, draft gaps and verdicts are announced', async () => {
  const { page, errors } = await open(env.browser, env.url);
  const alert = await region(page, 'live-alert');
  const status = await region(page, 'live-status');
  assert.equal(await alert.getAttribute('role'), 'alert');
  assert.equal(await status.getAttribute('aria-live'), 'polite');
  assert.equal((await alert.textContent()).trim(), '');

  // A refused import speaks in the alert region that was already there.
  await page.setInputFiles('[data-testid="import-file"]', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{not json') });
  await page.waitForSelector('[data-testid="notice"]');
  assert.match(await alert.textContent(), /broken\.json was not imported/);
  assert.equal(await page.evaluate((el) => el.isConnected, alert), true, 'the same region, not a new one');

  // A share link and a gap in the draft speak in the polite one.
  await page.click('[data-testid="share"]');
  await page.waitForSelector('[data-testid="share-panel"]');
  assert.match(await status.textContent(), /Anyone who opens this link/);
  await page.click('[data-testid="new"]');
  assert.match(await status.textContent(), /canvas is empty/);
  await page.click('[data-testid="undo"]');

  // A lesson's verdict is said when it comes, with its figures.
  await page.click('[data-testid="lessons"]');
  await page.getByTestId('lesson-1').click();
  const announce = await region(page, 'lesson-announce');
  assert.equal(await announce.getAttribute('role'), 'status');
  await page.selectOption('[data-testid="speed"]', 'max');
  await page.getByTestId('step-1-try').click();
  await page.waitForFunction(() => /^Step 1: (not )?as the lesson says\. \S/.test(document.querySelector('[data-testid="lesson-announce"]')?.textContent ?? ''), null, { timeout: 90_000 });
  const said = await announce.textContent();
  const shown = await page.getByTestId('step-1-verdict').locator('li').first().textContent();
  assert.ok(said.includes(shown), `"${said}" includes the figure shown, "${shown}"`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('axe-core finds no WCAG 2.1 A or AA violation in the main states', async () => {
  const { page, errors } = await open(env.browser, env.url, { picker: true });
  const check = async (state) => assert.deepEqual(await accessibilityProblems(page, 'body'), [], state);
  await page.getByTestId('lesson-picker').waitFor();
  await check('the lesson picker');
  await page.getByTestId('lesson-1').click();
  await page.getByTestId('lesson-panel').waitFor();
  await page.selectOption('[data-testid="speed"]', '10');
  await page.getByTestId('step-1-try').click();
  await page.waitForSelector('[data-testid="step-1-verdict"]');
  await check('a lesson being watched');
  await page.click('[data-node="sender"] .body');
  await check('a queue selected: the inspector and the theory');
  await page.click('[data-testid="ab-toggle"]');
  await page.waitForSelector('[data-testid="canvas-b"]');
  await check('A/B open');
  await page.click('[data-testid="ab-toggle"]');
  await page.setInputFiles('[data-testid="import-file"]', { name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{not json') });
  await page.waitForSelector('[data-testid="notice"]');
  await page.click('[data-testid="share"]');
  await page.waitForSelector('[data-testid="share-panel"]');
  await check('a refused import and a share link');
  await page.click('[data-testid="new"]');
  await check('an empty canvas');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the glossary explains the page\'s words: from the top bar, and from an underlined word at its entry', async () => {
  const { page, errors } = await open(env.browser, env.url);
  await page.getByTestId('glossary-open').focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByTestId('glossary');
  await dialog.waitFor();
  assert.equal(await dialog.getAttribute('role'), 'dialog');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'glossary-close');
  // Overloaded is the media server's word for "a send would block", not ρ > 1.
  assert.match(await page.getByTestId('glossary-overloaded').textContent(), /would block.*not ρ > 1/s);
  for (const word of ['backpressure', 'thinned', 'disconnect', 'disconnected', 'lq', 'wq', 'ρ']) {
    assert.equal(await page.getByTestId(`glossary-${word}`).count(), 1, word);
  }
  assert.deepEqual(await accessibilityProblems(page, 'body'), [], 'the glossary open');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'glossary-open', 'the focus is back');

  // An underlined word under the chart opens the glossary at its entry; its tooltip says it too.
  const term = page.locator('.strips button.term', { hasText: 'Overloaded' }).first();
  assert.match(await term.getAttribute('title'), /would block/);
  await term.click();
  await dialog.waitFor();
  assert.match(await page.getByTestId('glossary-overloaded').getAttribute('class'), /\basked\b/);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'glossary-overloaded');
  await page.getByTestId('glossary-close').click();
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
  await page.close();
});

/** What holds the focus: its test id (or tag), and whether it is on screen. */
const focused = (page) => page.evaluate(() => {
  const e = document.activeElement;
  const r = e.getBoundingClientRect();
  return { id: e.dataset.testid ?? e.tagName.toLowerCase(), text: e.textContent.trim(), onScreen: r.width > 0 && r.top >= 0 && r.bottom <= innerHeight };
});

/** Tabs forward until the element `testid` holds the focus, if it does not
 * yet (at most `most` presses). */
async function tabTo(page, testid, most = 60) {
  if ((await focused(page)).id === testid) return;
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab');
    if ((await focused(page)).id === testid) return;
  }
  assert.fail(`${testid} is not reached by Tab`);
}

const verdict = (page, n) => page.waitForFunction((n) => ['passed', 'failed'].includes(document.querySelector(`[data-testid="step-${n}-verdict"]`)?.dataset.state), n, { timeout: 30_000 })
  .then(() => page.getByTestId(`step-${n}-verdict`).getAttribute('data-state'));

test('from the keyboard alone: a lesson presented step by step, the focus never lost, and a lesson written in the editor and tried', async () => {
  const { page, errors } = await open(env.browser, `${env.url}?present#lesson=3`, { width: 1920, height: 1080 });
  await page.getByTestId('lesson-panel').waitFor();
  // A step pressed puts its button out; the focus goes on to Skip ahead,
  // and from there, the verdict come, to the next step.
  for (const n of [2, 3]) {
    await tabTo(page, `step-${n}-try`);
    await page.keyboard.press('Enter');
    await page.waitForFunction((n) => document.activeElement?.dataset.testid === `step-${n}-skip`, n);
    assert.ok((await focused(page)).onScreen, `step ${n}'s Skip ahead is on screen`);
    await page.keyboard.press('Enter');
    assert.equal(await verdict(page, n), 'passed', `step ${n}`);
    // Step 2's next is step 3; step 3, the last, has its own button back.
    await page.waitForFunction(() => document.activeElement?.dataset.testid === 'step-3-try');
  }
  // A step that only watches begins at the verdict before it: Skip ahead
  // hands the focus on to its Skip ahead, not back to the step judged.
  const { page: watching } = await open(env.browser, `${env.url}#lesson=9`);
  await watching.getByTestId('step-1-skip').waitFor();
  await tabTo(watching, 'step-1-skip');
  for (const n of [1, 2]) {
    await watching.keyboard.press('Enter');
    assert.equal(await verdict(watching, n), 'passed', `lesson 9, step ${n}`);
    await watching.waitForFunction((n) => document.activeElement?.dataset.testid === `step-${n + 1}-skip`, n);
  }
  await watching.close();
  // A lesson written without a mouse: the picker, the editor, Try it; the
  // focus then on the lesson's title.
  await tabTo(page, 'lessons');
  await page.keyboard.press('Enter');
  await tabTo(page, 'write-lesson');
  await page.keyboard.press('Enter');
  await page.getByTestId('lesson-editor').waitFor();
  assert.equal((await focused(page)).id, 'editor-title');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Typed, not clicked');
  for (const [field, text] of [['editor-story', 'Two senders share one window.'], ['editor-step-1-try', 'Watch the fast receiver.'], ['editor-step-1-checks', 'fast throughput_per_s >= 10']]) {
    await tabTo(page, field, 10);
    await page.keyboard.type(text);
  }
  await tabTo(page, 'editor-try', 10);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.tagName === 'H2' && /Typed, not clicked/.test(document.activeElement.textContent));
  await page.keyboard.press('Tab');
  assert.ok((await focused(page)).onScreen, 'Tab goes on from the lesson');
  assert.deepEqual(errors, []);
  await page.close();
});
