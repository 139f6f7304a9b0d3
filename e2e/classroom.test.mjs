// A lesson in front of a class: on a 1280 × 720 projector the canvas, the
// step being tried and its verdict share one screen, and a block clicked
// opens its inspector beside the canvas without moving it.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { withBrowser, screenshot, open, clock } from './harness.mjs';

const env = withBrowser();

/** The box of what `selector` finds, in the window's coordinates. */
const box = (page, selector) => page.evaluate((s) => {
  const r = document.querySelector(s).getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, height: innerHeight };
}, selector);
const inView = (b) => b.top >= 0 && b.bottom <= b.height;

test('at 1280 × 720 the canvas, the step pressed and its verdict stay on one screen, and a clicked block\'s inspector opens beside them', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto(`${env.url}#lesson=1`);
  await page.getByTestId('lesson-panel').waitFor();
  for (const n of [2, 4]) {
    await page.getByTestId(`step-${n}-try`).click();
    await page.waitForTimeout(300);
    assert.equal(await page.evaluate(() => scrollY), 0, `step ${n}: the page did not move`);
    assert.ok(inView(await box(page, 'svg.graph')), `step ${n}: the canvas is in view`);
    assert.ok(inView(await box(page, `[data-testid="step-${n}-verdict"]`)), `step ${n}: its verdict is in view`);
  }
  await screenshot(page, 'lesson-1280x720');
  await page.selectOption('[data-testid="speed"]', 'max');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-4-verdict"]')?.dataset.state === 'passed', null, { timeout: 60_000 });
  assert.ok(inView(await box(page, '[data-testid="step-4-verdict"]')), 'the verdict, when it comes, is in view');
  // A block clicked during the lesson: its inspector's head is on screen,
  // the canvas has not moved.
  const canvas = await box(page, 'svg.graph');
  await page.click('[data-node="socket"] .body');
  await page.waitForFunction(() => {
    const r = document.querySelector('.inspector h2, .inspector h3, .inspector')?.getBoundingClientRect();
    return r && r.top >= 0 && r.top < innerHeight / 2;
  });
  assert.match(await page.locator('.inspector').first().textContent(), /socket/);
  assert.deepEqual(await box(page, 'svg.graph'), canvas);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Skip ahead runs a watched step on to its verdict at once, and the speed stays as chosen', async () => {
  const { page, errors } = await open(env.browser, env.url, { picker: true });
  await page.getByTestId('lesson-1').click();
  await page.getByTestId('lesson-panel').waitFor();
  await page.selectOption('[data-testid="speed"]', '1');
  // Step 1 watches 20 simulated seconds from the start: 20 s at 1×.
  await page.getByTestId('step-1-skip').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="step-1-verdict"]')?.dataset.state === 'passed');
  // The clock shows it at its next reading (a frame away).
  await page.waitForFunction(() => Number(/t = ([\d.]+) s/.exec(document.querySelector('[data-testid="clock"]')?.textContent ?? '')?.[1]) >= 20, null, { timeout: 10000 });
  assert.equal(await page.inputValue('[data-testid="speed"]'), '1', 'the speed is the one chosen');
  // A step pressed, then skipped too.
  await page.getByTestId('step-2-try').click();
  await page.getByTestId('step-2-skip').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="step-2-verdict"]')?.dataset.state === 'passed');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the A/B table leads with the figure the comparing step judges, its B/A as the verdict reads it', async () => {
  const { page, errors } = await open(env.browser, `${env.url}#lesson=2&step=3`);
  await page.getByTestId('ab-table').waitFor();
  await page.getByTestId('step-3-skip').click();
  await page.waitForFunction(() => ['passed', 'failed'].includes(document.querySelector('[data-testid="step-3-verdict"]')?.dataset.state));
  await page.click('[data-testid="play"]');
  const row = page.getByTestId('ab-judged-0');
  assert.match(await row.locator('th').textContent(), /^io_done: mean time from made to left \(s\) since step 3$/);
  const verdict = await page.getByTestId('step-3-verdict').textContent();
  const judged = /B\/A = ([\d.]+)/.exec(verdict);
  assert.ok(judged, verdict);
  // The table is live: paused just after the verdict, its ratio is near the one judged.
  const ratio = Number((await page.getByTestId('ab-judged-0-ratio').textContent()).replace('×', ''));
  assert.ok(Math.abs(ratio - Number(judged[1])) < 0.1, `table ×${ratio}, verdict B/A = ${judged[1]}`);
  await screenshot(page, 'ab-judged-figure');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a step that asks points out its field, waits for the learner\'s own change made from the keyboard, and judges that', async () => {
  const { page, errors } = await open(env.browser, `${env.url}#lesson=2&step=2`);
  const verdict = page.getByTestId('step-2-verdict');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-2-verdict"]')?.dataset.state === 'asking');
  assert.match(await verdict.textContent(), /Your turn: in the inspector, make loop: Iteration "snapshot"\. It is all now\./);
  assert.match(await page.getByTestId('status').textContent(), /Step 2: your turn/);
  // The field asked for is pointed out, on screen, and holds the focus.
  const asked = page.getByTestId('asked-field');
  await asked.waitFor();
  assert.match(await asked.textContent(), /^Your turn: the lesson asks for Iteration "snapshot"\. Do it for me$/);
  await page.waitForFunction(() => document.activeElement?.closest('.param.asked') !== null && document.activeElement.id === 'param-iteration');
  assert.ok(inView(await box(page, '.param.asked')), 'the field asked for is in view');
  assert.equal(await page.getByTestId('step-2').getAttribute('data-tries'), '0', 'nothing watched yet');
  // Another edit is not the change asked for.
  await page.keyboard.press('Tab');
  assert.equal(await verdict.getAttribute('data-state'), 'asking');
  // The change, from the keyboard: the step is watched from then on.
  await page.focus('#param-iteration');
  await page.keyboard.press('ArrowUp');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-2-verdict"]')?.dataset.state === 'watching');
  assert.equal(await page.inputValue('#param-iteration'), 'snapshot');
  assert.equal(await page.getByTestId('asked-field').count(), 0, 'the field is no longer pointed out');
  await page.getByTestId('step-2-skip').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="step-2-verdict"]')?.dataset.state === 'passed', null, { timeout: 30_000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('Do it for me makes the change a step asks for, and a change short of it is not taken', async () => {
  const { page, errors } = await open(env.browser, `${env.url}#lesson=1&step=6`);
  await page.waitForFunction(() => document.querySelector('[data-testid="step-6-verdict"]')?.dataset.state === 'asking', null, { timeout: 30_000 });
  assert.match(await page.getByTestId('status').textContent(), /Step 6 builds on steps 1 to 5: played first, to their verdicts\. Step 6: your turn/);
  assert.match(await page.getByTestId('step-6-verdict').textContent(), /ping_requests: Arrivals, Rate \(messages\/s\) from 200 to 1000\. It is 5 now\./);
  // A rate short of what is asked: still the learner's turn.
  const rate = page.getByTestId('param-arrivals-rate_per_s-number');
  await rate.fill('150');
  await rate.press('Enter');
  await page.waitForFunction(() => /It is 150 now/.test(document.querySelector('[data-testid="step-6-verdict"]')?.textContent ?? ''));
  assert.equal(await page.getByTestId('step-6-verdict').getAttribute('data-state'), 'asking');
  await screenshot(page, 'lesson-asks');
  await page.getByTestId('step-6-do-it').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="step-6-verdict"]')?.dataset.state === 'watching');
  assert.equal(await rate.inputValue(), '400', "the lesson's own change");
  await page.getByTestId('step-6-skip').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="step-6-verdict"]')?.dataset.state === 'passed', null, { timeout: 30_000 });
  assert.deepEqual(errors, []);
  await page.close();
});
