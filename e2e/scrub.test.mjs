// The time line: a link to an instant opens the run there, paused; dragged
// back, the page shows the engine's own run stopped at that instant (clock,
// counters, the charts' mark); played on from there, the run forks and
// Undo brings the old future back; the share link carries the instant
// shown; the slider answers the keyboard; no accessibility problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { withBrowser, clockPasses, stands, accessibilityProblems, screenshot, root, sluice, openAt } from './harness.mjs';

const env = withBrowser();

const file = join(root, 'scenarios', 'every-block.json');

/** The totals the Counters panel shows, once it shows instant `t`. */
async function totalsAt(page, t) {
  await page.waitForFunction((at) => document.querySelector('section.counters')?.dataset.timeS === at, String(t));
  const totals = {};
  for (const [name, key] of [['produced', 'produced'], ['delivered', 'delivered'], ['dropped', 'dropped'], ['in-system', 'in_system']]) {
    totals[key] = Number((await page.textContent(`[data-testid="total-${name}"]`)).replace(/\D/g, ''));
  }
  return totals;
}

/** The engine's own totals of the same scenario and seed run to `t`. */
function engineTotals(t) {
  return JSON.parse(execFileSync(sluice(), ['run', file, '--until', String(t), '--format', 'json'], { encoding: 'utf8' })).totals;
}

test('a link to an instant opens there paused; dragged back the page is the run stopped then; a fork plays on and Undo brings the old future back', async () => {
  const { page, errors } = await openAt(env, file, 30);
  await page.waitForFunction(() => document.querySelector('[data-testid="clock"]')?.dataset.timeS === '30');
  assert.equal(await page.getAttribute('[data-testid="play"]', 'aria-pressed'), 'false', 'opened paused');
  assert.match(await page.textContent('[data-testid="time-line-at"]'), /live, 30\.00 s/);
  assert.deepEqual(await totalsAt(page, 30), engineTotals(30), 'the link opened the run at 30 s');

  // Dragged back to 12 s: the canvas, counters and clock are the run then.
  await page.getByTestId('time-line-range').fill('12');
  assert.deepEqual(await totalsAt(page, 12), engineTotals(12), 'shown at 12 s');
  assert.equal(await page.getAttribute('[data-testid="clock"]', 'data-time-s'), '12');
  assert.match(await page.textContent('[data-testid="time-line-at"]'), /12\.00 s of 30\.00 s/);
  assert.match(await page.textContent('[data-testid="chart-legend"]'), /shown: 12 s/);
  assert.equal(await page.getByTestId('time-line-play-from').count(), 1);
  await screenshot(page, 'scrub-desktop');
  assert.deepEqual(await accessibilityProblems(page, '[data-testid="time-line"]'), []);

  // The share link carries the instant shown.
  await page.getByTestId('share').click();
  assert.match(await page.inputValue('[data-testid="share-link"]'), /&t=12$/);

  // The keyboard: one step of the slider back (a two-hundredth of 30 s).
  await page.getByTestId('time-line-range').focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => document.querySelector('section.counters')?.dataset.timeS === '11.8');
  assert.match(await page.textContent('[data-testid="time-line-at"]'), /11\.80 s of 30\.00 s/);

  // Played on from there: the old future is gone, the run goes on.
  await page.getByTestId('time-line-play-from').click();
  assert.match(await page.textContent('[data-testid="status"]'), /Playing on from 11\.80 s: what came after it is gone \(Undo brings it back\)/);
  await clockPasses(page, 13, 30000);
  await page.click('[data-testid="play"]');
  await stands(page);
  assert.match(await page.textContent('[data-testid="time-line-at"]'), /live/);
  // Undo: back to the old future, at 30 s.
  await page.getByTestId('undo').click();
  assert.deepEqual(await totalsAt(page, 30), engineTotals(30), 'the old future, back at 30 s');
  assert.equal(await page.getByTestId('undo').isDisabled(), true, 'nothing more to undo');
  assert.deepEqual(errors, []);
  await page.close();
});

test('on a phone the time line fits the screen and its slider is large enough to touch', async () => {
  const { page, errors } = await openAt(env, file, 20, { width: 390, height: 844 });
  await page.waitForFunction(() => document.querySelector('[data-testid="clock"]')?.dataset.timeS === '20');
  await page.getByTestId('time-line-range').fill('5');
  await totalsAt(page, 5);
  const line = await page.getByTestId('time-line').boundingBox();
  assert.ok(line.x >= 0 && line.x + line.width <= 390, `the time line fits: ${JSON.stringify(line)}`);
  const slider = await page.getByTestId('time-line-range').boundingBox();
  assert.ok(slider.width >= 150, `the slider is ${slider.width} px wide`);
  await page.getByTestId('time-line').scrollIntoViewIfNeeded();
  await screenshot(page, 'scrub-phone');
  assert.deepEqual(errors, []);
  await page.close();
});
