// A lesson written in the page: on the canvas's scenario, told step by
// step, tried and judged, shared by link (and reopened from it) or as a
// file; a link that does not hold a lesson is said.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { withBrowser, open, screenshot } from './harness.mjs';

const env = withBrowser();

const state = (page, n) => page.evaluate((n) => document.querySelector(`[data-testid="step-${n}-verdict"]`)?.dataset.state, n);
async function judged(page, n) {
  await page.getByTestId(`step-${n}-skip`).click();
  await page.waitForFunction((n) => ['passed', 'failed'].includes(document.querySelector(`[data-testid="step-${n}-verdict"]`)?.dataset.state), n, { timeout: 30_000 });
  return state(page, n);
}

test('a lesson written in the page is tried and judged step by step, and its link and file carry it whole', async () => {
  const { page, errors } = await open(env.browser, env.url);
  // The teacher's own scenario, named as none of the catalogue's is.
  await page.keyboard.press('Escape');
  await page.locator('svg.graph').click({ position: { x: 8, y: 8 } });
  await page.getByTestId('scenario-name').fill('Our streaming service');
  await page.getByTestId('scenario-name').press('Enter');
  assert.equal(await page.textContent('[data-testid="scenario-title"]'), 'Our streaming service');
  await page.getByTestId('lessons').click();
  await page.getByTestId('write-lesson').click();
  const status = page.getByTestId('editor-status');
  await page.getByTestId('lesson-editor').waitFor();
  assert.match(await status.textContent(), /^Not yet: the lesson needs a story$/);
  assert.ok(await page.getByTestId('editor-try').isDisabled());
  // The focus is in the dialog, on its first field.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'editor-title');
  await page.getByTestId('editor-title').fill('The network slows');
  await page.getByTestId('editor-story').fill('A server streams video to a client over a network that can slow down.');
  await page.getByTestId('editor-step-1-try').fill('Watch the client for 20 s.');
  await page.getByTestId('editor-step-1-expect').fill('It reads some 235 messages a second.');
  // A figure mistyped is named with its step and line; nothing can be tried.
  await page.getByTestId('editor-step-1-checks').fill('client speed >= 215');
  assert.match(await status.textContent(), /^Not yet: step 1, checks: line 1: no figure "speed"/);
  assert.ok(await page.getByTestId('editor-try').isDisabled());
  // Typed a key at a time, the verdict changes with the line; a screen
  // reader hears it once typing pauses, not at every key.
  await page.evaluate(() => {
    window.heard = { status: 0, spoken: 0 };
    for (const [id, key] of [['editor-status', 'status'], ['editor-spoken', 'spoken']]) {
      new MutationObserver(() => window.heard[key]++).observe(document.querySelector(`[data-testid="${id}"]`), { childList: true, characterData: true, subtree: true });
    }
  });
  await page.getByTestId('editor-step-1-checks').fill('');
  await page.getByTestId('editor-step-1-checks').pressSequentially('client throughput_per_s >= 215', { delay: 20 });
  assert.match(await status.textContent(), /^Holds together: 1 step/);
  await page.waitForFunction(() => document.querySelector('[data-testid="editor-spoken"]').textContent.startsWith('Holds together: 1 step'));
  const heard = await page.evaluate(() => window.heard);
  // (A pause of a second between two keys of a busy machine speaks once
  // more: the verdict is spoken far less often than it changes.)
  assert.ok(heard.status >= 5 && heard.spoken * 3 <= heard.status, `the verdict changed ${heard.status} times, was spoken ${heard.spoken} times`);
  await page.getByTestId('editor-add-step').click();
  await page.getByTestId('editor-step-2-try').fill("Slow the network down: the socket's bandwidth to 40000 bytes a second.");
  await page.getByTestId('editor-step-2-changes').fill('socket.bandwidth_bytes_per_s = 40000');
  await page.getByTestId('editor-step-2-checks').fill('sender entered.SoftLimit >= 15\nnobody dropped <= 3');
  assert.match(await status.textContent(), /^Not yet: step 2: check: no node "nobody"/);
  await page.getByTestId('editor-step-2-checks').fill('sender entered.SoftLimit >= 15');
  assert.match(await status.textContent(), /^Holds together: 2 step/);
  await screenshot(page, 'lesson-editor');
  // The file, as `sluice lesson FILE` reads it: carrying its scenario.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('editor-file').click()]);
  const file = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(file.title, 'The network slows');
  assert.equal(file.steps[1].changes[0].value, 40000);
  assert.equal(typeof file.scenario, 'object');
  // Tried: it opens as the lesson, and keeps its word.
  await page.getByTestId('editor-try').click();
  await page.getByTestId('lesson-panel').waitFor();
  assert.equal(await page.getByTestId('lesson-editor').count(), 0);
  assert.match(await page.locator('[data-testid="lesson-panel"] h2').textContent(), /The network slows/);
  assert.equal(await judged(page, 1), 'passed');
  await page.getByTestId('step-2-try').click();
  assert.equal(await judged(page, 2), 'passed');
  // The address bar holds it: a reload opens it again.
  await page.waitForFunction(() => location.hash.startsWith('#l='));
  await page.reload();
  await page.getByTestId('lesson-panel').waitFor();
  assert.match(await page.locator('[data-testid="lesson-panel"] h2').textContent(), /The network slows/);
  // Its scenario, saved as the page's, is the lesson's own: not set aside
  // as earlier work to restore.
  assert.equal(await page.getByTestId('earlier').count(), 0, 'nothing kept aside');
  // Changed again, its link copied: another browser opens it from the link.
  await page.getByTestId('edit-lesson').click();
  assert.equal(await page.getByTestId('editor-title').inputValue(), 'The network slows');
  assert.equal(await page.getByTestId('editor-step-2-changes').inputValue(), 'socket.bandwidth_bytes_per_s = 40000\n');
  await page.getByTestId('editor-link').click();
  const link = await page.getByTestId('editor-link-text').inputValue();
  assert.ok(link.startsWith(env.url) && link.includes('#l=2.'), link);
  const other = await env.browser.newPage({ viewport: { width: 1440, height: 900 } });
  await other.goto(link);
  await other.getByTestId('lesson-panel').waitFor();
  assert.match(await other.locator('[data-testid="lesson-panel"] h2').textContent(), /The network slows/);
  assert.equal(await other.getByTestId('lesson-picker').count(), 0, 'a link is not a first visit');
  await other.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a lesson link that is damaged is said, and the page opens as it would without it', async () => {
  const { page, errors } = await open(env.browser, `${env.url}#l=2.AAAAAAAA`);
  await page.waitForFunction(() => /The lesson link could not be opened: the share code is damaged/.test(document.body.textContent));
  assert.equal(await page.getByTestId('lesson-panel').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
