// The lesson picker as a newcomer and a returning learner see it: where
// to start, how long each lesson takes, and which ones this browser
// completed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { withBrowser, open, root } from './harness.mjs';

const env = withBrowser();

/** `sluice lesson`'s list: number, minutes and whether to start there. */
function listed() {
  const path = join(process.env.CARGO_TARGET_DIR || join(root, 'target'), 'debug', 'sluice');
  if (!existsSync(path)) execFileSync('cargo', ['build', '-q', '-p', 'sluice-cli'], { cwd: root, stdio: 'inherit' });
  return execFileSync(path, ['lesson'], { encoding: 'utf8' }).trim().split('\n').map((line) => {
    const m = /^\s*(\d+)\. .* \(about (\d+) min(, start here)?\): /.exec(line);
    assert.ok(m, line);
    return { number: Number(m[1]), minutes: Number(m[2]), start: Boolean(m[3]) };
  });
}

test('the picker leads with the lesson to start with, and says how long each lesson takes, as `sluice lesson` does', async () => {
  const lessons = listed();
  const { page, errors } = await open(env.browser, env.url, { picker: true });
  const cards = page.locator('.lesson-card');
  assert.equal(await cards.count(), lessons.length);
  const start = lessons.find((l) => l.start);
  const first = cards.first();
  assert.equal(await first.getAttribute('data-testid'), `lesson-${start.number}`, 'the lesson to start with comes first');
  assert.equal(await first.getByTestId('start-here').textContent(), 'Start here');
  assert.equal(await page.getByTestId('start-here').count(), 1);
  // The focus starts there too.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), `lesson-${start.number}`);
  // The others follow in their order.
  const order = await cards.evaluateAll((els) => els.map((e) => Number(e.dataset.testid.replace('lesson-', ''))));
  assert.deepEqual(order, [start.number, ...lessons.filter((l) => !l.start).map((l) => l.number)]);
  for (const l of lessons) {
    assert.equal(await page.getByTestId(`lesson-${l.number}-minutes`).textContent(), `about ${l.minutes} min`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('a lesson whose every step turned out as it says is marked completed in the picker, after a reload too', async () => {
  const { page, errors } = await open(env.browser, env.url, { picker: true });
  assert.equal(await page.locator('[data-testid="lesson-picker"] [data-testid$="-done"]').count(), 0, 'nothing completed yet');
  await page.getByTestId('lesson-6').click();
  await page.getByTestId('lesson-panel').waitFor();
  const steps = await page.locator('[data-testid="lesson-panel"] [data-testid$="-try"]').count();
  for (let k = 1; k <= steps; k += 1) {
    // The first step begins with the lesson (a step that only watches
    // begins at the verdict before it); the others are pressed.
    if (await page.getByTestId(`step-${k}-try`).isEnabled()) await page.getByTestId(`step-${k}-try`).click();
    await page.getByTestId(`step-${k}-skip`).click();
    await page.waitForFunction((k) => document.querySelector(`[data-testid="step-${k}-verdict"]`)?.dataset.state === 'passed', k, { timeout: 60000 });
    // Not completed while a step is left.
    if (k < steps) {
      await page.getByTestId('lessons').click();
      assert.equal(await page.getByTestId('lesson-6-done').count(), 0, `after step ${k} of ${steps}`);
      await page.getByTestId('picker-close').click();
    }
  }
  await page.getByTestId('lessons').click();
  assert.equal(await page.getByTestId('lesson-6-done').textContent(), '✓ completed');
  assert.equal(await page.locator('[data-testid="lesson-picker"] [data-testid$="-done"]').count(), 1, 'only the lesson completed');
  await page.reload();
  await page.getByTestId('lessons').click();
  await page.getByTestId('lesson-6-done').waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});
